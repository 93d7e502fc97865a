package plan

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// ApplyReport is what one roce-apply run did, for the final report.
type ApplyReport struct {
	Results  []*ApplyResult
	Started  time.Time
	Finished time.Time
	// Error is set when the run stopped before applying anything (a held
	// lock, an interrupted earlier apply, a bad plan file), so a -json
	// report still says why.
	Error string
	// Errors are the problems behind Error, each with its file and line
	// when it has one (a policy with errors); -json prints them.
	Errors []Problem
}

// ApplyCounts tallies apply results by status.
type ApplyCounts struct {
	Applied    int `json:"applied"`
	Unchanged  int `json:"unchanged"`
	RolledBack int `json:"rolled_back"`
	Failed     int `json:"failed"`
	Stale      int `json:"stale"`
	Refused    int `json:"refused"`
	Untouched  int `json:"untouched"`
	// Other counts statuses this version does not know, so they are never
	// silently dropped from a summary.
	Other int `json:"other"`
}

// CountApply tallies r by status.
func CountApply(r *ApplyReport) ApplyCounts {
	var c ApplyCounts
	if r == nil {
		return c
	}
	for _, res := range r.Results {
		if res == nil {
			continue
		}
		switch res.Status {
		case StatusApplied:
			c.Applied++
		case StatusUnchanged:
			c.Unchanged++
		case StatusRolledBack:
			c.RolledBack++
		case StatusFailed:
			c.Failed++
		case StatusStale:
			c.Stale++
		case StatusRefused:
			c.Refused++
		case StatusUntouched:
			c.Untouched++
		default:
			c.Other++
		}
	}
	return c
}

// ApplySummary is the rollout's one-line account: "Apply complete: 3
// applied, 0 rolled back, 0 untouched, 0 failed." Applied, rolled back,
// untouched and failed are always listed; the other statuses when present.
// It opens with what happened as a whole: "Apply complete" only when every
// target was applied or had nothing to do, "Apply FAILED" when a target
// failed (it may be partly configured), "Apply incomplete" otherwise
// (rolled back, stale, refused or not reached: nothing half-done).
func ApplySummary(r *ApplyReport) string {
	c := CountApply(r)
	parts := []string{fmt.Sprintf("%d applied", c.Applied)}
	if c.Unchanged > 0 {
		parts = append(parts, fmt.Sprintf("%d unchanged", c.Unchanged))
	}
	parts = append(parts, fmt.Sprintf("%d rolled back", c.RolledBack))
	if c.Stale > 0 {
		parts = append(parts, fmt.Sprintf("%d stale (re-run roce-plan)", c.Stale))
	}
	if c.Refused > 0 {
		parts = append(parts, fmt.Sprintf("%d refused", c.Refused))
	}
	parts = append(parts, fmt.Sprintf("%d untouched", c.Untouched), fmt.Sprintf("%d failed", c.Failed))
	if c.Other > 0 {
		parts = append(parts, fmt.Sprintf("%d with an unknown status", c.Other))
	}
	head := "Apply complete: "
	switch {
	case r != nil && r.Error != "" && c.Applied+c.Failed+c.RolledBack+c.Other == 0:
		// Stopped before sending anything (a bad flag or policy, a held
		// lock): nothing was complete.
		head = "Apply stopped before changing anything: "
	case c.Failed > 0 || c.Other > 0:
		head = "Apply FAILED: "
	case c.RolledBack > 0 || c.Stale > 0 || c.Refused > 0 || c.Untouched > 0:
		head = "Apply incomplete: "
	}
	return head + strings.Join(parts, ", ") + "."
}

// showTranscript says which results carry their device transcript in the
// text and Markdown reports: the ones an operator has to investigate.
func showTranscript(status string) bool {
	return status == StatusFailed || status == StatusRolledBack
}

// statusColor is the ANSI colour of a status in the text report.
func statusColor(status string) string {
	switch status {
	case StatusApplied:
		return ansiGreen
	case StatusFailed:
		return ansiRed + ansiBold
	case StatusRolledBack, StatusStale, StatusRefused:
		return ansiYellow
	case StatusUntouched, StatusUnchanged:
		return ansiDim
	}
	return ""
}

// RenderApplyText writes one line per target, errors, the transcript of
// failed and rolled-back targets, and the summary line.
func RenderApplyText(w io.Writer, r *ApplyReport, color bool) error {
	tw := &textWriter{w: w, color: color}
	if r != nil {
		for _, res := range r.Results {
			if res == nil {
				continue
			}
			tw.line(statusColor(res.Status), fmt.Sprintf("%s: %s%s", res.Address, res.Status, formatTook(res.Duration)))
			if res.Error != "" {
				tw.line(statusColor(res.Status), "  error: "+res.Error)
			}
			for _, w := range res.Warnings {
				tw.line(ansiYellow, "  warning: "+w)
			}
			if !showTranscript(res.Status) || len(res.Transcript) == 0 {
				continue
			}
			tw.line("", "  transcript:")
			for _, ex := range res.Transcript {
				mark, col := ">", ""
				if ex.Failed {
					mark, col = "!", ansiRed
				}
				tw.line(col, "    "+mark+" "+ex.Command)
				for _, l := range splitLines(ex.Response) {
					tw.line(ansiDim, "      "+l)
				}
			}
		}
		if !r.Started.IsZero() && !r.Finished.IsZero() {
			tw.line("", "")
			tw.linef("", "Started %s, took %s.", r.Started.UTC().Format("2006-01-02 15:04:05 MST"),
				r.Finished.Sub(r.Started).Round(time.Millisecond))
		}
	}
	tw.line(ansiBold, ApplySummary(r))
	return tw.err
}

// formatTook renders a duration suffix, " (1.234s)", or "" when unknown.
func formatTook(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return " (" + d.Round(time.Millisecond).String() + ")"
}

// applyReportJSON is the documented JSON form of an apply report
// (docs/plan-json.md, "Apply report").
type applyReportJSON struct {
	FormatVersion Version        `json:"format_version"`
	Kind          string         `json:"kind"`
	StartedAt     time.Time      `json:"started_at"`
	FinishedAt    time.Time      `json:"finished_at"`
	Summary       string         `json:"summary"`
	Counts        ApplyCounts    `json:"counts"`
	Results       []*ApplyResult `json:"results"`
	Error         string         `json:"error,omitempty"`
	Errors        []Problem      `json:"errors,omitempty"`
}

// RenderApplyJSON writes the apply report as indented JSON with every
// result (transcripts included) and the counts.
func RenderApplyJSON(w io.Writer, r *ApplyReport) error {
	out := applyReportJSON{
		FormatVersion: FormatVersion,
		Kind:          "roce-apply-report",
		Summary:       ApplySummary(r),
		Counts:        CountApply(r),
		Results:       []*ApplyResult{},
	}
	if r != nil {
		out.StartedAt, out.FinishedAt = r.Started.UTC(), r.Finished.UTC()
		out.Error, out.Errors = r.Error, r.Errors
		for _, res := range r.Results {
			if res != nil {
				out.Results = append(out.Results, res)
			}
		}
	}
	return writeJSONDocument(w, out, "apply report")
}

// RenderApplyMarkdown writes the apply report as a pull-request or job
// summary comment: the summary, a status table, and the transcripts of
// failed and rolled-back targets in collapsed blocks.
func RenderApplyMarkdown(w io.Writer, r *ApplyReport) error {
	mw := &textWriter{w: w}
	mw.line("", "### roce apply")
	mw.line("", "")
	mw.line("", "**"+mdEscape(ApplySummary(r))+"**")
	if r == nil || len(r.Results) == 0 {
		return mw.err
	}
	mw.line("", "")
	mw.line("", "| target | status | took | error or warning |")
	mw.line("", "|---|---|--:|---|")
	for _, res := range r.Results {
		if res == nil {
			continue
		}
		status := res.Status
		if status == StatusFailed || status == StatusRolledBack {
			status = "**" + status + "**"
		}
		var notes []string
		if res.Error != "" {
			notes = append(notes, mdEscape(res.Error))
		}
		for _, w := range res.Warnings {
			notes = append(notes, "⚠ "+mdEscape(w))
		}
		mw.linef("", "| `%s` | %s | %s | %s |", mdCode(res.Address), status,
			strings.Trim(formatTook(res.Duration), " ()"), strings.Join(notes, "<br>"))
	}
	for _, res := range r.Results {
		if res == nil || !showTranscript(res.Status) || len(res.Transcript) == 0 {
			continue
		}
		var lines []string
		for _, ex := range res.Transcript {
			mark := ">"
			if ex.Failed {
				mark = "!"
			}
			lines = append(lines, mark+" "+ex.Command)
			for _, l := range splitLines(ex.Response) {
				lines = append(lines, "  "+l)
			}
		}
		mw.line("", "")
		mw.line("", "<details><summary>Transcript of <code>"+htmlEscape(res.Address)+"</code> ("+htmlEscape(res.Status)+")</summary>")
		mw.line("", "")
		mdFence(mw, "text", lines)
		mw.line("", "")
		mw.line("", "</details>")
	}
	return mw.err
}
