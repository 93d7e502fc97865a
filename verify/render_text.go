package verify

import (
	"fmt"
	"io"
	"strings"
)

// RenderText writes the human report: a verdict line, every probe with its
// result and the hint for each failure, then the checks that did not pass
// (passing checks are counted; the JSON, JUnit and Markdown reports list
// them all).
func RenderText(w io.Writer, r *Report) error {
	var b strings.Builder
	s := r.Summary
	fmt.Fprintf(&b, "roce-verify: %s (exit %d): %d passed, %d failed, %d error(s), %d skipped",
		strings.ToUpper(string(s.Status)), s.ExitCode, s.Pass, s.Fail, s.Error, s.Skip)
	if s.Warn > 0 {
		fmt.Fprintf(&b, ", %d warning(s)", s.Warn)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "probe tool: %s\n", r.Tool)
	if r.Emulated {
		fmt.Fprintf(&b, "%s: the lab hosts' RDMA device is emulated; their bandwidth comes from the %s, fed by the state read from the switches and hosts, not from hardware\n",
			strings.ToUpper(EmulatedLabel), EmulatedModel)
	}

	b.WriteString("\nProbes:\n")
	if len(r.Probes) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, p := range r.Probes {
		label := ""
		if p.Emulated != nil {
			label = " [" + EmulatedLabel + "]"
		}
		fmt.Fprintf(&b, "  %-5s %s (round %d, port %d)%s\n", statusWord(p.Status), p.Name(), p.Round, p.TCPPort, label)
		fmt.Fprintf(&b, "        %s\n", p.Message)
		for _, c := range p.Causes {
			fmt.Fprintf(&b, "        cause: %s\n", c)
		}
		for _, n := range p.Notes {
			fmt.Fprintf(&b, "        note: %s\n", n)
		}
		if p.Failure != nil && p.Failure.Hint != "" && p.Status != StatusPass {
			fmt.Fprintf(&b, "        hint: %s\n", p.Failure.Hint)
		}
	}
	passed := 0
	for _, c := range r.Checks {
		if c.Status == StatusPass {
			passed++
		}
	}
	fmt.Fprintf(&b, "\nChecks: %d of %d passed\n", passed, len(r.Checks))
	for _, c := range r.Checks {
		if c.Status != StatusPass || c.Name == CheckCoverage {
			fmt.Fprintf(&b, "  %-5s %s: %s\n", statusWord(c.Status), c.ID(), c.Message)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func statusWord(s Status) string { return strings.ToUpper(string(s)) }
