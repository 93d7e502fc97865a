package plan

import (
	"fmt"
	"io"
	"strings"
)

// RenderMarkdown writes the plan as a pull-request comment for GitHub (and
// GitLab) Markdown: the summary, a table of targets, errors and warnings
// called out, then per changed target a collapsed <details> block holding
// a ```diff block and the commands or gNMI ops that will be sent.
func RenderMarkdown(w io.Writer, p *Plan) error {
	mw := &textWriter{w: w}
	mw.line("", "### roce plan")
	mw.line("", "")
	mw.line("", "**"+mdEscape(Summary(p))+"**")
	if p == nil || len(p.Targets) == 0 {
		return mw.err
	}
	mw.line("", "")
	if p.PolicyDir != "" || p.PolicyDigest != "" {
		mw.linef("", "Policy `%s` (`%s`), planned at %s.", mdCode(p.PolicyDir), mdCode(p.PolicyDigest),
			p.CreatedAt.UTC().Format("2006-01-02 15:04:05 MST"))
		mw.line("", "")
	}
	mw.line("", "| target | kind | create | update | delete | disruption | drift |")
	mw.line("", "|---|---|--:|--:|--:|---|--:|")
	for _, t := range p.Targets {
		if t == nil {
			continue
		}
		c := countTarget(t)
		state := disruptionPhrase(c.WorstDisruption)
		switch {
		case t.Error != "":
			state = "**unreadable**"
		case t.Offline:
			state = strings.TrimPrefix(state+", offline capture", ", ")
		}
		if state == "" {
			state = "none"
		}
		mw.linef("", "| `%s` | %s | %d | %d | %d | %s | %d |", mdCode(t.Address), mdEscape(t.Kind),
			c.Create, c.Update, c.Delete, state, c.Drift)
	}
	renderMarkdownProblems(mw, p)
	for _, t := range p.Targets {
		if t != nil && t.HasChanges() {
			renderMarkdownTarget(mw, t)
		}
	}
	return mw.err
}

// renderMarkdownProblems lists unreadable targets, offline targets and
// warnings outside the collapsed blocks, where a reviewer can't miss them.
func renderMarkdownProblems(mw *textWriter, p *Plan) {
	var errs, notes []string
	for _, t := range p.Targets {
		if t == nil {
			continue
		}
		if t.Error != "" {
			errs = append(errs, fmt.Sprintf("- `%s` could not be read: %s", mdCode(t.Address), mdEscape(t.Error)))
		}
		if t.Offline {
			notes = append(notes, fmt.Sprintf("- `%s` was planned against a saved capture; roce-apply will refuse it.", mdCode(t.Address)))
		}
		for _, wn := range t.Warnings {
			notes = append(notes, fmt.Sprintf("- `%s`: %s", mdCode(t.Address), mdEscape(wn)))
		}
	}
	if len(errs) > 0 {
		mw.line("", "")
		mw.line("", "> [!CAUTION]")
		mw.line("", "> **Errors** — these targets could not be read, so this plan has no changes for them:")
		mw.line("", ">")
		for _, e := range errs {
			mw.line("", "> "+e)
		}
	}
	if len(notes) > 0 {
		mw.line("", "")
		mw.line("", "> [!WARNING]")
		mw.line("", "> **Warnings**")
		mw.line("", ">")
		for _, n := range notes {
			mw.line("", "> "+n)
		}
	}
}

// renderMarkdownTarget writes one changed target as a collapsed block.
func renderMarkdownTarget(mw *textWriter, t *TargetPlan) {
	c := countTarget(t)
	var parts []string
	for _, x := range []struct {
		n    int
		verb string
	}{{c.Create, "to create"}, {c.Update, "to change"}, {c.Delete, "to destroy"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.verb))
		}
	}
	title := "<code>" + htmlEscape(t.Address) + "</code>"
	if rest := strings.TrimPrefix(targetTitle(t), t.Address); rest != "" {
		title += htmlEscape(rest)
	}
	title += ": " + strings.Join(parts, ", ")
	if ph := disruptionPhrase(c.WorstDisruption); ph != "" {
		title += " — " + ph
	}
	if c.Drift > 0 {
		title += " — drift on " + plural(c.Drift, "object", "objects")
	}
	mw.line("", "")
	mw.line("", "<details><summary>"+title+"</summary>")
	mw.line("", "")

	var diff []string
	for _, ch := range t.Changes {
		sym, _ := actionSymbol(ch.Action)
		head := "@@ " + sym + " " + ch.Address
		if tag := disruptionPhrase(ch.Disrupt); tag != "" {
			head += " [" + tag + "]"
		}
		diff = append(diff, head+" @@")
		switch {
		case ch.Drift:
			diff = append(diff, "# drift: "+driftNote(ch))
		case ch.Note != "":
			diff = append(diff, "# note: "+ch.Note)
		}
		for _, dl := range diffLines(ch.Before, ch.After) {
			diff = append(diff, string(dl.Kind)+" "+dl.Text)
		}
	}
	mdFence(mw, "diff", diff)

	var script []string
	script = append(script, t.Commands...)
	for _, op := range t.Ops {
		script = append(script, formatOp(op))
	}
	if len(script) > 0 {
		mw.line("", "")
		mw.line("", "Sent on apply:")
		mw.line("", "")
		mdFence(mw, "text", script)
	}
	mw.line("", "")
	mw.line("", "</details>")
}

// mdFence writes lines in a fenced code block whose fence is longer than
// any backtick run inside, so device output cannot close it early.
func mdFence(mw *textWriter, lang string, lines []string) {
	longest := 0
	for _, l := range lines {
		run := 0
		for _, r := range l {
			if r == '`' {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	mw.line("", fence+lang)
	for _, l := range lines {
		mw.line("", l)
	}
	mw.line("", fence)
}

// mdEscape makes free text safe in a Markdown paragraph or table cell:
// HTML is escaped, pipes can't split cells, newlines can't end the row.
func mdEscape(s string) string {
	s = htmlEscape(s)
	r := strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ", "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`)
	return r.Replace(s)
}

// mdCode makes text safe inside a single-backtick code span in a table.
func mdCode(s string) string {
	r := strings.NewReplacer("`", "'", "|", `\|`, "\r\n", " ", "\n", " ", "\r", " ")
	return r.Replace(s)
}

// htmlEscape escapes the characters that would start markup or an entity;
// quotes stay as they are because the text never lands in an attribute.
func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
