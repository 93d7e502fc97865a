package verify

import (
	"fmt"
	"io"
	"strings"
)

// RenderText writes the human report: a verdict line, then every probe and
// check with its status, and the hint for each failure.
func RenderText(w io.Writer, r *Report) error {
	var b strings.Builder
	s := r.Summary
	fmt.Fprintf(&b, "roce-verify: %s (exit %d): %d passed, %d failed, %d errors, %d skipped\n",
		strings.ToUpper(string(s.Status)), s.ExitCode, s.Pass, s.Fail, s.Error, s.Skip)
	fmt.Fprintf(&b, "probe tool: %s\n", r.Tool)

	b.WriteString("\nProbes:\n")
	if len(r.Probes) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, p := range r.Probes {
		fmt.Fprintf(&b, "  %-5s %s (round %d, port %d)\n", statusWord(p.Status), p.Name(), p.Round, p.TCPPort)
		fmt.Fprintf(&b, "        %s\n", p.Message)
		if p.Failure != nil && p.Failure.Hint != "" && p.Status != StatusPass {
			fmt.Fprintf(&b, "        hint: %s\n", p.Failure.Hint)
		}
	}
	b.WriteString("\nChecks:\n")
	if len(r.Checks) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "  %-5s %s: %s\n", statusWord(c.Status), c.ID(), c.Message)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func statusWord(s Status) string { return strings.ToUpper(string(s)) }
