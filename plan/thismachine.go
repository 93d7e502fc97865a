package plan

import (
	"context"
	"fmt"
	"strings"
)

// The flags that opt in to changing the machine roce runs on.
const (
	FlagAllowThisMachine = "allow-this-machine"
	FlagAllowCutOff      = "allow-cut-off"
)

// ThisMachineConsent is what the person running roce-apply said about
// changing the machine roce runs on. There is deliberately no policy
// attribute and no environment variable for it: a policy (or a CI job's
// environment) can come from a pull request's branch, so only a flag on
// the command line — visible in the pipeline file or the shell history —
// opens it.
type ThisMachineConsent struct {
	// AllowThisMachine (-allow-this-machine) lets a plan change this
	// machine's interfaces, files and RDMA settings.
	AllowThisMachine bool
	// AllowCutOff (-allow-cut-off) additionally lets it make the changes
	// that can cut this machine off (MTU or address on the interface
	// carrying the default route or the SSH session). It means nothing
	// without AllowThisMachine.
	AllowCutOff bool
	// CI is set when roce-apply runs in CI (CI=true): the refusal then
	// says where the flag belongs. The decision is the same: without the
	// flag, refuse.
	CI bool
}

// InCI reports whether the CI environment variable (set by GitHub
// Actions, GitLab CI and most others) says this is a CI job.
func InCI(getenv func(string) string) bool {
	v := strings.ToLower(strings.TrimSpace(getenv("CI")))
	return v != "" && v != "false" && v != "0"
}

// ThisMachineRefusal says why tp may not be applied with consent c, or ""
// when it may. Only targets on this machine that change something are
// refused.
func ThisMachineRefusal(tp *TargetPlan, c ThisMachineConsent) string {
	if tp == nil || tp.ThisMachine == nil || !tp.HasChanges() {
		return ""
	}
	what := "the machine roce runs on"
	if len(tp.ThisMachine.Interfaces) > 0 {
		what += " (interfaces " + strings.Join(tp.ThisMachine.Interfaces, ", ") + ")"
	}
	where := "pass -" + FlagAllowThisMachine + " to roce-apply if that is intended"
	if c.CI {
		where = "CI=true: a policy from a pull request must not reconfigure the runner; if this job is meant to, add -" + FlagAllowThisMachine + " to the roce-apply command in the pipeline file"
	}
	if !c.AllowThisMachine {
		return fmt.Sprintf("%s is %s; refusing to change it without an explicit opt-in: %s", tp.Address, what, where)
	}
	if len(tp.ThisMachine.CutOff) > 0 && !c.AllowCutOff {
		return fmt.Sprintf("%s is %s and the plan can cut it off (%s); refusing without a second opt-in: pass -%s as well if you can reach this machine another way",
			tp.Address, what, strings.Join(tp.ThisMachine.CutOff, "; "), FlagAllowCutOff)
	}
	return ""
}

// CheckThisMachine returns an error naming every target of p that is this
// machine and may not be applied with consent c; nil when p may go ahead.
func CheckThisMachine(p *Plan, c ThisMachineConsent) error {
	if p == nil {
		return nil
	}
	var why []string
	for _, tp := range p.Targets {
		if r := ThisMachineRefusal(tp, c); r != "" {
			why = append(why, r)
		}
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("nothing was applied:\n  %s", strings.Join(why, "\n  "))
}

type consentKey struct{}

// WithThisMachineConsent carries c to the providers, which check it again
// against what they find at apply time (a target that turns out to be
// this machine is refused without it).
func WithThisMachineConsent(ctx context.Context, c ThisMachineConsent) context.Context {
	return context.WithValue(ctx, consentKey{}, c)
}

// ThisMachineConsentFrom returns the consent in ctx; none (refuse) when
// the caller gave none.
func ThisMachineConsentFrom(ctx context.Context) ThisMachineConsent {
	c, _ := ctx.Value(consentKey{}).(ThisMachineConsent)
	return c
}

// GuardThisMachine is roce-apply's one call: it refuses p when it changes
// this machine without consent, and otherwise returns ctx carrying the
// consent for the providers' own check.
func GuardThisMachine(ctx context.Context, p *Plan, c ThisMachineConsent) (context.Context, error) {
	if err := CheckThisMachine(p, c); err != nil {
		return ctx, err
	}
	return WithThisMachineConsent(ctx, c), nil
}

// thisMachineTargets lists the targets of p on this machine.
func thisMachineTargets(p *Plan) []*TargetPlan {
	if p == nil {
		return nil
	}
	var out []*TargetPlan
	for _, tp := range p.Targets {
		if tp != nil && tp.ThisMachine != nil {
			out = append(out, tp)
		}
	}
	return out
}

// thisMachineLines is the banner for one target, shared by the text and
// Markdown renderers: what it changes on this machine and which opt-ins
// roce-apply will ask for.
func thisMachineLines(tp *TargetPlan) []string {
	if tp == nil || tp.ThisMachine == nil {
		return nil
	}
	ifs := "no interface"
	if len(tp.ThisMachine.Interfaces) > 0 {
		ifs = "interfaces " + strings.Join(tp.ThisMachine.Interfaces, ", ")
	}
	if !tp.HasChanges() {
		return []string{fmt.Sprintf("THIS MACHINE: %s is the machine roce runs on; nothing to change there", tp.Address)}
	}
	out := []string{fmt.Sprintf("THIS MACHINE: %s is the machine roce runs on (%s); roce-apply refuses it without -%s", tp.Address, ifs, FlagAllowThisMachine)}
	for _, c := range tp.ThisMachine.CutOff {
		out = append(out, fmt.Sprintf("CAN CUT THIS MACHINE OFF: %s; roce-apply also needs -%s", c, FlagAllowCutOff))
	}
	return out
}

// renderThisMachineText writes the plan-level banner above the targets.
func renderThisMachineText(tw *textWriter, p *Plan) {
	ts := thisMachineTargets(p)
	if len(ts) == 0 {
		return
	}
	for _, tp := range ts {
		for _, l := range thisMachineLines(tp) {
			tw.line(ansiRed+ansiBold, "!! "+l)
		}
	}
	tw.line("", "")
}

// renderThisMachineMarkdown writes the same banner as a CAUTION alert.
func renderThisMachineMarkdown(mw *textWriter, p *Plan) {
	ts := thisMachineTargets(p)
	if len(ts) == 0 {
		return
	}
	mw.line("", "")
	mw.line("", "> [!CAUTION]")
	mw.line("", "> **This plan changes the machine roce runs on.**")
	mw.line("", ">")
	for _, tp := range ts {
		for _, l := range thisMachineLines(tp) {
			mw.line("", "> - "+mdEscape(l))
		}
	}
}
