package verify

import (
	"fmt"
	"io"
	"strings"
)

// RenderMarkdown writes the report as Markdown tables (CI summaries, PRs).
func RenderMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	s := r.Summary
	fmt.Fprintf(&b, "## roce-verify: %s\n\n", strings.ToUpper(string(s.Status)))
	warned := ""
	if s.Warn > 0 {
		warned = fmt.Sprintf(", %d warning(s)", s.Warn)
	}
	fmt.Fprintf(&b, "%d passed, %d failed, %d error(s), %d skipped%s (exit %d); probe tool `%s`.\n\n", s.Pass, s.Fail, s.Error, s.Skip, warned, s.ExitCode, r.Tool)
	if r.Emulated {
		fmt.Fprintf(&b, "> **%s RDMA device (lab):** probes marked _%s_ did not run on hardware; their bandwidth is the %s's answer for the state read from the switches and hosts.\n\n",
			strings.ToUpper(EmulatedLabel[:1])+EmulatedLabel[1:], EmulatedLabel, EmulatedModel)
	}

	b.WriteString("### Probes\n\n")
	if len(r.Probes) == 0 {
		b.WriteString("No probes ran.\n\n")
	} else {
		b.WriteString("| Status | Class | Round | Server | Client | Avg Gb/s | Threshold Gb/s | Ceiling Gb/s | Result |\n")
		b.WriteString("|---|---|---|---|---|---:|---:|---:|---|\n")
		for _, p := range r.Probes {
			ceiling := "-"
			if p.Ceiling != nil && p.Ceiling.Gbps > 0 {
				ceiling = fmt.Sprintf("%.2f", p.Ceiling.Gbps)
			}
			msg := p.Message
			if p.Failure != nil && p.Status != StatusPass {
				msg += " — " + p.Failure.Hint
			}
			for _, n := range p.Notes {
				msg += "; note: " + n
			}
			for _, c := range p.Causes {
				msg += "; cause: " + c.String()
			}
			status := statusWord(p.Status)
			if p.Emulated != nil {
				status += " _" + EmulatedLabel + "_"
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n",
				status, mdCell(p.Class), p.Round, mdCell(p.Server), mdCell(p.Client),
				num(p.AvgGbps), num(p.ThresholdGbps), ceiling, mdCell(msg))
		}
		b.WriteString("\n")
	}
	b.WriteString("### Checks\n\n")
	if len(r.Checks) == 0 {
		b.WriteString("No checks ran.\n")
	} else {
		b.WriteString("| Status | Check | Class | Device | Round | Result |\n|---|---|---|---|---|---|\n")
		for _, c := range r.Checks {
			round := "-"
			if c.Round > 0 {
				round = itoa(c.Round)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", statusWord(c.Status), mdCell(c.Name),
				mdCell(orDash(c.Class)), mdCell(orDash(c.Device)), round, mdCell(c.Message))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell escapes what would break a table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "\\", "\\\\")
	s = strings.ReplaceAll(s, "|", "\\|")
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(s, "\n", " ")
}

// num prints a bandwidth, or "-" when it was not measured / not set.
func num(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}
