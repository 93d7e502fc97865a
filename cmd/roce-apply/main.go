// Command roce-apply pushes a reviewed plan to the fabric: one transaction
// per device, canaries first, then batches, rolling back any target that
// fails.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rocefabric/roce/internal/cli"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

const usage = `Usage:
  roce-apply [flags] PLANFILE     apply a plan saved by roce-plan -out (exactly that plan)
  roce-apply [flags] [DIR]        plan the policy in DIR (default .), show it, ask, then apply

Every target is re-read first; a target whose state moved since the plan was
made is refused ("stale plan: re-run roce-plan"), and so is a plan file that
was modified after roce-plan wrote it. Each target is applied as one
transaction (NX-OS checkpoint/rollback, one gNMI SetRequest, host snapshot
and restore) and verified by reading it back. The policy's rollout block sets
canaries and batch sizes; the first failed target stops the rollout unless
-continue-on-error. Only one roce-apply may run per policy directory at a
time (lock file DIR/.roce/apply.lock, or -lock-file on shared storage so
pipelines on different runners exclude each other; -lock-timeout to wait).

Crash safety: every target's transaction is written ahead to a journal
(DIR/.roce/journal/, beside the lock) before anything is sent. If a run is
killed half-way (SIGKILL, OOM, a lost runner), roce-plan and roce-apply list
the interrupted targets and refuse to go on until you run
    roce-apply -recover [DIR]
which finishes or rolls back each of them (NX-OS: rollback to the recorded
checkpoint; gNMI: compensating Set; hosts: the agent's own record), reads each
back, and clears the journal. See docs/apply-safety.md#interrupted.

Exit codes: 0 every target applied or unchanged (with -recover: every
interrupted target recovered); 1 anything else (the summary names the
targets applied, rolled back and untouched).
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// Device text reaches every output; none may carry a credential.
	stdout, stderr := cli.NewRedactWriter(os.Stdout, nil), cli.NewRedactWriter(os.Stderr, nil)
	code := run(ctx, os.Args[1:], os.Stdin, stdout, stderr)
	_, _ = stdout.Flush(), stderr.Flush()
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("roce-apply", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c cli.Common
	c.Register(fs)
	autoApprove := fs.Bool("auto-approve", false, "apply without asking (for pipelines)")
	continueOnError := fs.Bool("continue-on-error", false, "keep rolling out after a target fails")
	lockTimeout := fs.Duration("lock-timeout", 0, "how long to wait for another roce-apply on the same policy to finish")
	lockFile := fs.String("lock-file", "", "apply lock `FILE` (default DIR/.roce/apply.lock); put it on storage every pipeline shares so runners on different machines exclude each other; the apply journal lives beside it")
	dirFlag := fs.String("dir", "", "policy `DIR` when applying a plan file (default: the one the plan was made from, looked for relative to the plan file first, then where it was; docs/plan-json.md#saved-plan-file)")
	asJSON := fs.Bool("json", false, "print the apply report as JSON (stdout holds only that JSON, whatever happens)")
	allowThis := fs.Bool(plan.FlagAllowThisMachine, false, "let the plan change the machine roce-apply runs on (a local host outside a namespace, or in roce's own); refused without it, in CI too")
	allowCutOff := fs.Bool(plan.FlagAllowCutOff, false, "with -"+plan.FlagAllowThisMachine+": also the changes the plan says can cut this machine off (MTU or address on its default-route or SSH interface)")
	recoverFlag := fs.Bool("recover", false, "finish or roll back the targets an interrupted roce-apply left (listed by roce-plan), read each back, and clear the journal; applies no plan")
	var forget cli.Multi
	fs.Var(&forget, "forget", "with -recover: drop `TARGET`'s journal entry without contacting it, once you have checked and fixed it by hand (or it left the policy); repeatable")
	fs.Usage = cli.Usage(fs, usage)
	report := &plan.ApplyReport{Started: time.Now(), Results: []*plan.ApplyResult{}}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cli.ExitOK
		}
		// The flag package has said why on stderr; -json (looked for in
		// the arguments, as parsing stopped) still gets its report.
		if cli.FlagGiven(args, "json") {
			report.Finished, report.Error = time.Now(), err.Error()
			_ = plan.RenderApplyJSON(stdout, report)
		}
		return cli.ExitError
	}
	// fail reports an error that ends the run; with -json stdout still
	// gets a report (with the error), so a pipeline parsing it never sees
	// anything but JSON.
	fail := func(msg string) int {
		fmt.Fprintln(stderr, "roce-apply:", msg)
		if *asJSON {
			report.Finished, report.Error = time.Now(), msg
			_ = plan.RenderApplyJSON(stdout, report)
		}
		return cli.ExitError
	}
	// human is where text meant for a person goes: stdout, or stderr when
	// stdout is reserved for JSON.
	human := stdout
	if *asJSON {
		human = stderr
	}
	if fs.NArg() > 1 {
		return fail(fmt.Sprintf("expected one plan file or policy directory, got %v", fs.Args()))
	}
	log, err := c.Logger(stderr)
	if err != nil {
		return fail(err.Error())
	}
	arg := "."
	if fs.NArg() == 1 {
		arg = fs.Arg(0)
	}
	var saved *plan.Plan
	dir := arg
	if st, err := os.Stat(arg); err != nil {
		return fail(err.Error())
	} else if !st.IsDir() {
		if *recoverFlag {
			return fail("-recover takes the policy directory (default .), not a plan file: recovery reads the journal, not a plan")
		}
		saved, err = plan.ReadPlanFile(arg)
		if err != nil {
			return fail(err.Error())
		}
		if dir, err = saved.SavedPolicyDir(arg, *dirFlag); err != nil {
			return fail(err.Error())
		}
		// Before loading: without the plan's -var-file a policy whose
		// variables have no default does not even load, and the error must
		// name the file, not the variables.
		if saved.Inputs != nil {
			origin := saved.Origin(arg, dir)
			if diffs := saved.Inputs.FlagDiffs(origin, c.VarFiles, c.Vars); len(diffs) > 0 {
				return fail(inputsMismatch(arg, diffs, saved.Inputs.ApplyFlags(origin)))
			}
		}
	}

	fab, src, err := c.LoadFabric(dir, stderr)
	if fab != nil {
		cli.RedactSecrets(fab, stdout, stderr)
	}
	if err != nil {
		report.Errors = cli.Problems(err) // each with its file and line, for -json
		return fail("the policy in " + dir + " did not load (errors above)")
	}
	if saved != nil && saved.Inputs != nil {
		now, err := c.Inputs(src)
		if err != nil {
			return fail(err.Error())
		}
		if diffs := saved.Inputs.PolicyDiffs(now); len(diffs) > 0 {
			return fail(fmt.Sprintf("the policy in %s changed since this plan was made:\n  - %s\nRe-run roce-plan and review the new plan (or restore the files as they were).",
				dir, strings.Join(diffs, "\n  - ")))
		}
	} else if saved != nil && saved.PolicyDigest != src.Digest() {
		// A plan saved before inputs were recorded: only the digest.
		return fail(fmt.Sprintf("the policy in %s or the -var-file/-var inputs changed since this plan was made; "+
			"give roce-apply the same -var-file and -var flags as roce-plan, or re-run roce-plan and review the new plan", dir))
	}
	lockPath := *lockFile
	if lockPath == "" {
		lockPath = plan.DefaultLockPath(dir)
	}
	lock, err := plan.AcquireLockNotify(ctx, lockPath, *lockTimeout, lockHolder(),
		func(msg string) { fmt.Fprintln(stderr, "roce-apply:", msg) })
	if err != nil {
		return fail(err.Error())
	}
	defer lock.Release()

	journalDir := plan.JournalDir(lockPath)
	if err := plan.PruneJournal(journalDir); err != nil {
		return fail(err.Error())
	}
	interrupted, err := plan.ReadJournal(journalDir)
	if err != nil {
		return fail(err.Error())
	}
	eng := c.Engine(fab, log)
	if len(forget) > 0 && !*recoverFlag {
		return fail("-forget works only with -recover")
	}
	if *recoverFlag {
		interrupted, err = forgetEntries(interrupted, forget, stderr)
		if err != nil {
			return fail(err.Error())
		}
		return recoverRun(ctx, eng, fab, interrupted, report, *asJSON, c.Color(stdout), stdout, stderr, fail)
	}
	if len(interrupted) > 0 {
		return fail(plan.DescribeInterrupted(interrupted, recoverCommand(dir, *lockFile)) + "\nNothing was applied.")
	}

	var selection []string = c.Targets
	if saved != nil && len(selection) == 0 {
		for _, tp := range saved.Targets {
			selection = append(selection, tp.Address)
		}
	}
	targets, err := eng.Targets(fab, selection)
	if err != nil {
		return fail(err.Error())
	}
	defer plan.CloseAll(targets)

	// Changing the machine roce runs on needs a visible opt-in (docs/lab.md);
	// it is checked before any question is asked, so a "yes" is never given
	// to a plan that is then refused, and the host provider checks it again.
	consent := plan.ThisMachineConsent{AllowThisMachine: *allowThis, AllowCutOff: *allowCutOff, CI: plan.InCI(os.Getenv)}
	p := saved
	if p == nil {
		p = cli.PlanTargets(ctx, eng, targets, stderr, human, true, "roce-apply")
		p.PolicyDir, p.PolicyDigest = dir, src.Digest()
		if err := plan.RenderText(human, p, plan.TextOptions{Color: c.Color(human)}); err != nil {
			return fail(err.Error())
		}
		counts := plan.CountPlan(p)
		if counts.TargetsFailed > 0 {
			return fail("some targets could not be planned (above); fix them or limit the run with -target")
		}
		if counts.TargetsChanged == 0 {
			if *asJSON {
				results, _ := eng.Apply(ctx, p, targets, plan.RolloutOptions{}) // every target unchanged: nothing is sent
				report.Results, report.Finished = results, time.Now()
				if err := plan.RenderApplyJSON(stdout, report); err != nil {
					fmt.Fprintln(stderr, "roce-apply:", err)
					return cli.ExitError
				}
			}
			return cli.ExitOK
		}
		if err := plan.CheckThisMachine(p, consent); err != nil {
			return fail(err.Error())
		}
		if !*autoApprove && !confirm(stdin, human) {
			fmt.Fprintln(human, "Apply cancelled; nothing was changed.")
			if *asJSON {
				return fail("apply cancelled; nothing was changed")
			}
			return cli.ExitError
		}
	} else {
		p = restrict(p, targets)
		if err := plan.CheckThisMachine(p, consent); err != nil {
			return fail(err.Error())
		}
		if len(p.Excluded) > 0 {
			fmt.Fprint(human, plan.DescribeExcluded(p.Excluded))
			if !*autoApprove && !confirmExcluded(stdin, human) {
				fmt.Fprintln(human, "Apply cancelled; nothing was changed.")
				if *asJSON {
					return fail("apply cancelled; nothing was changed")
				}
				return cli.ExitError
			}
		}
	}

	if ctx, err = plan.GuardThisMachine(ctx, p, consent); err != nil {
		return fail(err.Error())
	}
	ro := plan.RolloutFrom(fab.Rollout)
	ro.ContinueOnError = *continueOnError
	if flagSet(fs, "parallelism") || ro.Parallelism == 0 {
		ro.Parallelism = c.Parallelism // an explicit flag beats the policy's rollout block
	}
	toApply := 0
	for _, ph := range plan.Phases(p, ro) {
		toApply += len(ph.Targets)
	}
	journal, err := plan.CreateJournal(journalDir, lockHolder())
	if err != nil {
		return fail(err.Error() + "; nothing was applied (the journal is what makes an interrupted apply recoverable)")
	}
	prog := plan.NewProgress(stderr, "Applying", toApply, cli.IsTerminal(stderr))
	eng.OnProgress = func() { prog.Done(1) }
	onTarget, stopLines := cli.ApplyLines(stderr, stdout, !*asJSON, "roce-apply", cli.SlowTargetAfter)
	eng.OnTarget = onTarget
	eng.Journal = journal
	results, err := eng.Apply(ctx, p, targets, ro)
	stopLines()
	prog.Finish()
	if cerr := journal.Close(); cerr != nil {
		fmt.Fprintln(stderr, "roce-apply:", cerr)
	}
	if err != nil {
		return fail(err.Error())
	}
	report.Results, report.Finished = results, time.Now()
	if *asJSON {
		err = plan.RenderApplyJSON(stdout, report)
	} else {
		err = plan.RenderApplyText(stdout, report, c.Color(stdout))
	}
	if err != nil {
		fmt.Fprintln(stderr, "roce-apply:", err)
		return cli.ExitError
	}
	for _, r := range results {
		if !plan.Succeeded(r.Status) {
			return cli.ExitError
		}
	}
	return cli.ExitOK
}

// recoverRun is roce-apply -recover: every interrupted target is finished
// or rolled back, read back, and cleared from the journal.
func recoverRun(ctx context.Context, eng *plan.Engine, fab *policies.Fabric, ins []*plan.Interrupted, report *plan.ApplyReport,
	asJSON, color bool, stdout, stderr io.Writer, fail func(string) int) int {
	if len(ins) == 0 {
		fmt.Fprintln(stderr, "roce-apply: nothing to recover: no interrupted apply in the journal")
		if asJSON {
			report.Finished = time.Now()
			if err := plan.RenderApplyJSON(stdout, report); err != nil {
				return cli.ExitError
			}
		}
		return cli.ExitOK
	}
	seen := map[string]bool{}
	var addrs []string
	for _, in := range ins {
		if !seen[in.Entry.Address] {
			seen[in.Entry.Address] = true
			addrs = append(addrs, in.Entry.Address)
		}
	}
	targets, err := eng.Targets(fab, addrs)
	if err != nil {
		// A target gone from the policy: recover the others, report it.
		var ok []string
		for _, a := range addrs {
			if _, e := eng.Targets(fab, []string{a}); e == nil {
				ok = append(ok, a)
			}
		}
		targets, err = eng.Targets(fab, ok)
		if err != nil {
			return fail(err.Error())
		}
	}
	defer plan.CloseAll(targets)
	fmt.Fprintf(stderr, "roce-apply: recovering %d interrupted target(s)\n", len(ins))
	eng.OnTarget = cli.ProgressLines(stderr, "roce-apply -recover")
	results := eng.Recover(ctx, ins, targets)
	report.Results, report.Finished = results, time.Now()
	if asJSON {
		err = plan.RenderApplyJSON(stdout, report)
	} else {
		err = plan.RenderApplyText(stdout, report, color)
	}
	if err != nil {
		fmt.Fprintln(stderr, "roce-apply:", err)
		return cli.ExitError
	}
	for _, r := range results {
		if r.Status != plan.StatusApplied && r.Status != plan.StatusRolledBack {
			fmt.Fprintln(stderr, "roce-apply: some targets could not be recovered (above); they stay in the journal")
			return cli.ExitError
		}
	}
	fmt.Fprintln(stderr, "roce-apply: every interrupted target is consistent again (applied = fully as planned, rolled-back = exactly as before); run roce-plan to see what is left to do")
	return cli.ExitOK
}

// forgetEntries resolves the entries -forget names without touching their
// targets, and returns the others.
func forgetEntries(ins []*plan.Interrupted, forget []string, stderr io.Writer) ([]*plan.Interrupted, error) {
	if len(forget) == 0 {
		return ins, nil
	}
	drop := map[string]bool{}
	for _, f := range forget {
		drop[strings.TrimSpace(f)] = false
	}
	var keep []*plan.Interrupted
	for _, in := range ins {
		if _, ok := drop[in.Entry.Address]; !ok {
			keep = append(keep, in)
			continue
		}
		drop[in.Entry.Address] = true
		res := &plan.ApplyResult{Address: in.Entry.Address, Status: "forgotten", Error: "dropped from the journal by -forget; roce did not check the target"}
		if err := plan.Resolve(in, res); err != nil {
			return nil, err
		}
		fmt.Fprintf(stderr, "roce-apply: forgot the interrupted apply of %s (journal %s) without contacting it; run roce-plan to see its state\n", in.Entry.Address, in.File)
	}
	for a, seen := range drop {
		if !seen {
			return nil, fmt.Errorf("-forget %s: the journal has no interrupted apply of that target", a)
		}
	}
	return keep, nil
}

// recoverCommand is the command line that recovers this policy's journal.
func recoverCommand(dir, lockFile string) string {
	s := "roce-apply -recover"
	if lockFile != "" {
		s += " -lock-file " + lockFile
	}
	return s + " " + dir
}

func confirmExcluded(stdin io.Reader, w io.Writer) bool {
	fmt.Fprint(w, "\nThe plan leaves the targets above out. Apply the rest anyway? Only 'yes' will be accepted: ")
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	return strings.TrimSpace(line) == "yes"
}

// restrict keeps the saved plan's targets that the selection built, so
// -target on a plan file applies part of it.
func restrict(p *plan.Plan, targets []plan.BoundTarget) *plan.Plan {
	keep := map[string]bool{}
	for _, t := range targets {
		keep[t.Address] = true
	}
	q := *p
	q.Targets = nil
	for _, tp := range p.Targets {
		if keep[tp.Address] {
			q.Targets = append(q.Targets, tp)
		}
	}
	return &q
}

// flagSet reports whether the user gave the flag on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func confirm(stdin io.Reader, stdout io.Writer) bool {
	fmt.Fprint(stdout, "\nDo you want to apply these changes? Only 'yes' will be accepted: ")
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	return strings.TrimSpace(line) == "yes"
}

func lockHolder() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("roce-apply pid %d on %s (%s)", os.Getpid(), host, strings.Join(os.Args, " "))
}

// inputsMismatch explains that the -var-file/-var flags differ from those
// the plan at planFile was made with, and what to do.
func inputsMismatch(planFile string, diffs []string, flags string) string {
	return fmt.Sprintf("the inputs differ from those the plan %s was made with:\n  - %s\n"+
		"Give roce-apply the same -var-file and -var flags (and values) roce-plan had:\n    roce-apply%s %s\n"+
		"or re-run roce-plan with the inputs you want and review the new plan.",
		planFile, strings.Join(diffs, "\n  - "), flags, planFile)
}
