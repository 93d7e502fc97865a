package plan

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// markdownBudget is the most RenderMarkdown writes. GitHub refuses
// comments over 65536 characters; bytes never undercount characters, and
// the margin leaves room for a CI job to add its own header.
const markdownBudget = 60000

// RenderMarkdown writes the plan as a pull-request comment for GitHub (and
// GitLab) Markdown: the summary, a table of the targets that need
// attention, errors and warnings called out, then per changed target a
// collapsed <details> block holding a ```diff block and the commands or
// gNMI ops that will be sent. Up-to-date targets are counted, not listed.
// The comment stays under GitHub's size limit: diffs that don't fit are
// left out with a note saying how many.
func RenderMarkdown(w io.Writer, p *Plan) error {
	return renderMarkdownBudget(w, p, markdownBudget)
}

func renderMarkdownBudget(w io.Writer, p *Plan, budget int) error {
	var head bytes.Buffer
	writeMarkdownOverview(&textWriter{w: &head}, p)
	var blocks []string
	if p != nil {
		for _, t := range p.Targets {
			if t != nil && t.HasChanges() {
				var b bytes.Buffer
				renderMarkdownTarget(&textWriter{w: &b}, t)
				blocks = append(blocks, b.String())
			}
		}
	}
	const (
		truncated = "\n_… the rest is cut to fit in one comment; see the full plan in the job log (roce-plan) or with roce-plan -json._\n"
		omitted   = "\n_%s left out to fit in one comment; see the full plan in the job log (roce-plan) or with roce-plan -json._\n"
	)
	doc := head.String()
	reserve := len(omitted) + 40
	if len(doc) > budget-reserve {
		// Even the overview is too long (thousands of problem targets):
		// cut it at a line boundary; it holds no fences or HTML to break.
		cut := strings.LastIndexByte(doc[:budget-len(truncated)], '\n')
		doc = doc[:cut+1] + truncated
		blocks = nil
	}
	left := 0
	for i, b := range blocks {
		if len(doc)+len(b) > budget-reserve {
			left = len(blocks) - i
			break
		}
		doc += b
	}
	if left > 0 {
		doc += fmt.Sprintf(omitted, plural(left, "diff of a changed target", "diffs of changed targets"))
	}
	if _, err := io.WriteString(w, doc); err != nil {
		return fmt.Errorf("writing Markdown plan: %w", err)
	}
	return nil
}

// writeMarkdownOverview writes the summary, the target table and the
// problems.
func writeMarkdownOverview(mw *textWriter, p *Plan) {
	mw.line("", "### roce plan")
	mw.line("", "")
	mw.line("", "**"+mdEscape(Summary(p))+"**")
	if p == nil || len(p.Targets) == 0 {
		return
	}
	renderThisMachineMarkdown(mw, p)
	mw.line("", "")
	if p.PolicyDir != "" || p.PolicyDigest != "" {
		mw.linef("", "Policy `%s` (`%s`), planned at %s.", mdCode(p.PolicyDir), mdCode(p.PolicyDigest),
			p.CreatedAt.UTC().Format("2006-01-02 15:04:05 MST"))
		mw.line("", "")
	}
	upToDate := 0
	var rows []string
	for _, t := range p.Targets {
		if t == nil {
			continue
		}
		// Warnings are listed below the table (renderMarkdownProblems),
		// so a target with nothing else is up to date.
		if !t.HasChanges() && t.Error == "" && !t.Offline {
			upToDate++
			continue
		}
		c := countTarget(t)
		state := disruptionPhrase(c.WorstDisruption)
		switch {
		case t.Error != "" && t.errorKind() == ErrorKindRender:
			state = "**does not fit the policy**"
		case t.Error != "" && t.errorKind() == ErrorKindInternal:
			state = "**internal error**"
		case t.Error != "" && t.errorKind() == ErrorKindCancelled:
			state = "**not planned**"
		case t.Error != "":
			state = "**unreadable**"
		case t.Offline:
			state = strings.TrimPrefix(state+", offline capture", ", ")
		}
		if state == "" {
			state = "none"
		}
		rows = append(rows, fmt.Sprintf("| `%s` | %s | %d | %d | %d | %s | %d |", mdCode(t.Address), mdEscape(t.Kind),
			c.Create, c.Update, c.Delete, state, c.Drift))
	}
	if len(rows) > 0 {
		mw.line("", "| target | kind | create | update | delete | disruption | drift |")
		mw.line("", "|---|---|--:|--:|--:|---|--:|")
		for _, r := range rows {
			mw.line("", r)
		}
	}
	switch {
	case upToDate > 0 && len(rows) > 0:
		mw.line("", "")
		mw.line("", plural(upToDate, "other target is", "other targets are")+" up to date.")
	case upToDate > 0:
		mw.line("", plural(upToDate, "target is", "targets are")+" up to date.")
	}
	renderMarkdownProblems(mw, p)
}

// renderMarkdownProblems lists unreadable targets, offline targets and
// warnings outside the collapsed blocks, where a reviewer can't miss them.
func renderMarkdownProblems(mw *textWriter, p *Plan) {
	var errs, notes []string
	groups, shared := groupWarnings(p)
	for _, g := range groups {
		notes = append(notes, fmt.Sprintf("- %s: %s", mdEscape(onTargets(g.Targets)), mdEscape(g.Text)))
	}
	for _, t := range p.Targets {
		if t == nil {
			continue
		}
		if t.Error != "" {
			e := fmt.Sprintf("- `%s` %s: %s", mdCode(t.Address), errorLabel(t), mdEscape(t.Error))
			if next := errorNextStep(t); next != "" {
				e += " — next: " + mdEscape(next)
			}
			errs = append(errs, e)
		}
		if t.Offline {
			notes = append(notes, fmt.Sprintf("- `%s` was planned against a saved capture; roce-apply will refuse it.", mdCode(t.Address)))
		}
		for _, wn := range ownWarnings(t, shared) {
			notes = append(notes, fmt.Sprintf("- `%s`: %s", mdCode(t.Address), mdEscape(wn)))
		}
	}
	if len(errs) > 0 {
		mw.line("", "")
		mw.line("", "> [!CAUTION]")
		mw.line("", "> **Errors** — these targets could not be read or planned, so this plan has no changes for them:")
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
