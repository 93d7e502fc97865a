package plan

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// TextOptions control the human diff.
type TextOptions struct {
	// Color adds ANSI colour (green +, red -, yellow ~). Only set it when
	// the writer is a terminal (see IsTerminal).
	Color bool
	// Verbose shows the full before/after of every changed object (not
	// only the lines around a change), the commands or gNMI ops of each
	// change, targets that are up to date, facts and fingerprints.
	Verbose bool
}

// ANSI escape sequences used by the text renderers.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiDim    = "\x1b[2m"
)

// diffContext is how many unchanged lines are kept around a changed line
// when not verbose.
const diffContext = 2

// RenderText writes the plan as a Terraform-like diff followed by the
// one-line summary.
func RenderText(w io.Writer, p *Plan, o TextOptions) error {
	tw := &textWriter{w: w, color: o.Color}
	if p != nil {
		if o.Verbose {
			tw.linef("", "Policy %s (%s), planned at %s.", p.PolicyDir, p.PolicyDigest,
				p.CreatedAt.UTC().Format("2006-01-02 15:04:05 MST"))
			tw.line("", "")
		}
		renderThisMachineText(tw, p)
		groups, shared := groupWarnings(p)
		for _, g := range groups {
			tw.line(ansiYellow, "warning: "+g.Text)
			tw.line(ansiYellow, "  "+onTargets(g.Targets))
			tw.line("", "")
		}
		for _, t := range p.Targets {
			if t == nil || !(o.Verbose || t.HasChanges() || t.Error != "" || t.Offline || len(ownWarnings(t, shared)) > 0) {
				continue
			}
			renderTargetText(tw, t, shared, o)
			tw.line("", "")
		}
	}
	tw.line(ansiBold, Summary(p))
	return tw.err
}

// warningGroup is one warning text that several targets carry.
type warningGroup struct {
	Text    string
	Targets []string // addresses, in plan order
}

// groupWarnings returns the warnings that more than one target carries, in
// the order they first appear, with their targets, and the set of their
// texts: the renderers print each of them once, naming the targets, instead
// of once in every target's section (issue #18). A target whose only
// warnings are shared is then not listed for them alone.
func groupWarnings(p *Plan) ([]warningGroup, map[string]bool) {
	index := map[string]int{}
	var all []warningGroup
	for _, t := range p.Targets {
		if t == nil {
			continue
		}
		seen := map[string]bool{}
		for _, w := range t.Warnings {
			if seen[w] {
				continue
			}
			seen[w] = true
			i, ok := index[w]
			if !ok {
				i = len(all)
				index[w] = i
				all = append(all, warningGroup{Text: w})
			}
			all[i].Targets = append(all[i].Targets, t.Address)
		}
	}
	var groups []warningGroup
	shared := map[string]bool{}
	for _, g := range all {
		if len(g.Targets) > 1 {
			groups = append(groups, g)
			shared[g.Text] = true
		}
	}
	return groups, shared
}

// ownWarnings are a target's warnings that no other target shares.
func ownWarnings(t *TargetPlan, shared map[string]bool) []string {
	var out []string
	for _, w := range t.Warnings {
		if !shared[w] {
			out = append(out, w)
		}
	}
	return out
}

// onTargets is "on 4 hosts: host.a, host.b, host.c, host.d" (switches,
// hosts, or targets when both kinds are named).
func onTargets(addrs []string) string {
	noun := ""
	for _, a := range addrs {
		switch n := targetNoun(a); {
		case noun == "":
			noun = n
		case noun != n:
			noun = "target"
		}
	}
	many := noun + "s"
	if noun == "switch" {
		many = "switches"
	}
	return "on " + plural(len(addrs), noun, many) + ": " + strings.Join(addrs, ", ")
}

// renderTargetText writes one target's section; warnings in shared were
// printed once above the targets.
func renderTargetText(tw *textWriter, t *TargetPlan, shared map[string]bool, o TextOptions) {
	switch {
	case t.Error != "":
		tw.line(ansiRed+ansiBold, t.Address+": "+errorLabel(t)+": "+t.Error)
		if next := errorNextStep(t); next != "" {
			tw.line(ansiRed, "  next: "+next)
		}
	case t.HasChanges():
		tw.line(ansiBold, targetTitle(t)+" will be changed")
	default:
		tw.line(ansiBold, targetTitle(t)+" is up to date")
	}
	if t.Offline {
		tw.line(ansiYellow, "  (planned against saved capture; roce-apply will refuse it)")
	}
	for _, l := range thisMachineLines(t) {
		tw.line(ansiRed+ansiBold, "  !! "+l)
	}
	if o.Verbose {
		if t.Fingerprint != "" {
			tw.line(ansiDim, "  fingerprint: "+t.Fingerprint)
		}
		if len(t.Facts) > 0 {
			tw.line(ansiDim, "  facts: "+formatFacts(t.Facts))
		}
	}
	for _, wn := range ownWarnings(t, shared) {
		tw.line(ansiYellow, "  warning: "+wn)
	}
	for _, ch := range t.Changes {
		renderChangeText(tw, ch, o)
	}
	if o.Verbose && scriptDiffers(t) {
		tw.linef("", "  apply script (%s):", plural(len(t.Commands)+len(t.Ops), "step", "steps"))
		for _, c := range t.Commands {
			tw.line("", "      "+c)
		}
		for _, op := range t.Ops {
			tw.line("", "      "+formatOp(op))
		}
	}
}

// targetTitle is "switch.n5k-a (nexus5000, 10.0.0.1:22)".
func targetTitle(t *TargetPlan) string {
	inner := t.Kind
	if t.Endpoint != "" {
		if inner != "" {
			inner += ", "
		}
		inner += t.Endpoint
	}
	if inner == "" {
		return t.Address
	}
	return t.Address + " (" + inner + ")"
}

// renderChangeText writes one change: its headline, drift note, line diff
// and (verbose) its commands or ops.
func renderChangeText(tw *textWriter, ch Change, o TextOptions) {
	sym, col := actionSymbol(ch.Action)
	head := "  " + sym + " " + ch.Address
	if tag := disruptionPhrase(ch.Disrupt); tag != "" {
		head += " [" + tag + "]"
	}
	if ch.Drift {
		head += " (drift)"
	}
	tw.line(col, head)
	switch {
	case ch.Drift:
		tw.line(ansiYellow+ansiBold, "      drift: "+driftNote(ch))
	case ch.Note != "":
		tw.line("", "      note: "+ch.Note)
	}
	ctx := diffContext
	if o.Verbose {
		ctx = -1
	}
	for _, dl := range elide(diffLines(ch.Before, ch.After), ctx) {
		switch dl.Kind {
		case '+':
			tw.line(ansiGreen, "      + "+dl.Text)
		case '-':
			tw.line(ansiRed, "      - "+dl.Text)
		case '~':
			tw.line(ansiDim, "        ...")
		default:
			tw.line("", "        "+dl.Text)
		}
	}
	if !o.Verbose || len(ch.Commands)+len(ch.Ops) == 0 {
		return
	}
	tw.line("", "      commands:")
	for _, c := range ch.Commands {
		tw.line("", "        "+c)
	}
	for _, op := range ch.Ops {
		tw.line("", "        "+formatOp(op))
	}
}

// driftNote explains a drifted object in plain words: the provider's note,
// or a generic explanation when it gave none.
func driftNote(ch Change) string {
	if ch.Note != "" {
		return ch.Note
	}
	return "this object is managed by roce but no longer matches what roce configured " +
		"(it was changed outside roce, or a software upgrade changed a default)"
}

// actionSymbol maps an action to its diff symbol and colour.
func actionSymbol(a Action) (string, string) {
	switch a {
	case ActionCreate:
		return "+", ansiGreen
	case ActionDelete:
		return "-", ansiRed
	}
	return "~", ansiYellow
}

// formatOp renders a gNMI op as "replace openconfig:/qos/... = {...}".
func formatOp(op Op) string {
	s := op.Op + " "
	if op.Origin != "" {
		s += op.Origin + ":"
	}
	s += op.Path
	if len(op.Value) > 0 {
		s += " = " + compactJSON(op.Value)
	}
	return s
}

// formatFacts renders facts as "k=v, k=v" in key order.
func formatFacts(f map[string]string) string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + f[k]
	}
	return strings.Join(parts, ", ")
}

// scriptDiffers reports whether the target's whole apply script is more
// than the concatenation of its changes' commands and ops (for example a
// provider wraps it in checkpoint or ordering steps), so verbose output
// shows it once more in full.
func scriptDiffers(t *TargetPlan) bool {
	var cmds []string
	var ops []string
	for _, ch := range t.Changes {
		cmds = append(cmds, ch.Commands...)
		for _, op := range ch.Ops {
			ops = append(ops, formatOp(op))
		}
	}
	if len(cmds) != len(t.Commands) || len(ops) != len(t.Ops) {
		return true
	}
	for i := range cmds {
		if cmds[i] != t.Commands[i] {
			return true
		}
	}
	for i := range ops {
		if ops[i] != formatOp(t.Ops[i]) {
			return true
		}
	}
	return false
}

// textWriter writes lines, optionally coloured, and keeps the first error
// so the renderers can write freely and report once.
type textWriter struct {
	w     io.Writer
	color bool
	err   error
}

// line writes s as one logical line. Text from devices can hold newlines
// and control characters: continuation lines are indented under the first,
// and control characters are shown escaped so device output can never
// drive the reader's terminal.
func (tw *textWriter) line(color, s string) {
	if tw.err != nil {
		return
	}
	parts := strings.Split(s, "\n")
	indent := parts[0][:len(parts[0])-len(strings.TrimLeft(parts[0], " "))] + "  "
	for i, p := range parts {
		p = printable(strings.TrimSuffix(p, "\r"))
		if i > 0 {
			p = indent + p
		}
		if tw.color && color != "" {
			p = color + p + ansiReset
		}
		if _, tw.err = io.WriteString(tw.w, p+"\n"); tw.err != nil {
			return
		}
	}
}

// printable replaces control characters (other than tab) with \xNN.
func printable(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\t') || (r >= 0x7f && r < 0xa0)
}

func (tw *textWriter) linef(color, format string, args ...any) {
	tw.line(color, fmt.Sprintf(format, args...))
}
