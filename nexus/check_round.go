package nexus

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// One round: Check reports every line it refuses together, the lines
// Parse refuses (template placeholders, indented lines outside a block,
// abbreviated headers, …) included, sorted by line number. Parse stops at
// its own errors, so Check reads the file again with those lines set
// aside, as the switch would go on past a line it refuses, and judges
// the rest (docs/nxos.md#refuses).

// maxListed is how many refused lines an error message names; the rest
// are counted. Unwrap still gives all of them.
const maxListed = 20

// refusals is every line a check refuses, in line order.
type refusals []error

func (r refusals) Error() string {
	var b strings.Builder
	for i, e := range r {
		if i == maxListed {
			fmt.Fprintf(&b, "\n… and %d more refused lines (%d in all)", len(r)-maxListed, len(r))
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap gives every refused line, for errors.As and errors.Is.
func (r refusals) Unwrap() []error { return r }

// refused sorts errs by line number (stable: one line's errors keep their
// order) and returns them as one error, nil when there are none.
func refused(errs []error) error {
	errs = slices.DeleteFunc(errs, func(e error) bool { return e == nil })
	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, func(a, b error) int { return errLine(a) - errLine(b) })
	return refusals(errs)
}

// errLine is the line number an error names: a *LineError's, or the
// "line N:" every Parse error starts with (0 if none).
func errLine(err error) int {
	var le *LineError
	if errors.As(err, &le) {
		return le.Line
	}
	var n int
	if _, e := fmt.Sscanf(err.Error(), "line %d:", &n); e != nil {
		return 0
	}
	return n
}

// flatten lists the errors a joined error holds (one level).
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// refusedHeader stands in for a line Parse refused that opens a block or
// stands at the top level: a block header roce does not model, so the
// lines below it go with it (as Parse leaves out the block of a refused
// header) and nothing of it is judged.
const refusedHeader = "router roce-check-refused"

// placeholderWord stands in for a template placeholder while Check finds
// out whether the line is a header.
const placeholderWord = "roce-check-placeholder"

// parseAround reads text again with the lines Parse refused (bad, by
// line number) set aside: each becomes refusedHeader when it is a
// header or a top-level line, or a comment when it is a line inside a
// block, so that the rest reads as Parse would read it once those lines
// are fixed. It returns the configuration and the lines to judge, and
// adds to skip the lines that are not to be judged (the refused ones, and
// any that setting them aside made unreadable). ok is false when the
// text still cannot be read; then only Parse's errors are reported.
func parseAround(text string, bad []int, skip map[int]bool) (c *Config, src []srcLine, ok bool) {
	lines := splitLines(text)
	repl := map[int]string{}        // 0-based line index → the line read instead
	isPlaceholder := map[int]bool{} // the line's refusal is a placeholder in it
	for _, n := range bad {
		i := n - 1
		if i < 0 || i >= len(lines) {
			continue
		}
		skip[n] = true
		if filled, had := fillPlaceholders(lines[i]); had {
			repl[i], isPlaceholder[i] = filled, true
			continue
		}
		repl[i] = asRefusedHeader(lines[i])
	}
	// First read the placeholders filled in, to see which lines are
	// headers (or top-level lines) and which are inside a block.
	_, src, ok = parseReplaced(lines, repl, skip)
	if !ok {
		return nil, nil, false
	}
	top := map[int]bool{}
	for _, l := range src {
		top[l.n-1] = l.top
	}
	for i := range isPlaceholder {
		t, seen := top[i]
		switch {
		case !seen || isBannerLine(lines[i]):
			// Banner text (or a line Parse leaves out): filled in,
			// it reads as text.
		case t:
			repl[i] = asRefusedHeader(lines[i])
		default:
			repl[i] = "!"
		}
	}
	return parseReplaced(lines, repl, skip)
}

// parseReplaced parses lines with repl's lines read instead. A line the
// replacements make unreadable is set aside too, and added to skip; after
// a few rounds it gives up.
func parseReplaced(lines []string, repl map[int]string, skip map[int]bool) (*Config, []srcLine, bool) {
	for range 4 {
		text := make([]string, len(lines))
		for i, l := range lines {
			if r, ok := repl[i]; ok {
				l = r
			}
			text[i] = l
		}
		c, src, err := parse(strings.Join(text, "\n"))
		if err == nil {
			return c, src, true
		}
		for _, e := range flatten(err) {
			i := errLine(e) - 1
			if i < 0 || i >= len(lines) || repl[i] == asRefusedHeader(lines[i]) {
				return nil, nil, false
			}
			repl[i] = asRefusedHeader(lines[i])
			skip[i+1] = true
		}
	}
	return nil, nil, false
}

// fillPlaceholders replaces every template placeholder in line by one
// word; had is false when it has none.
func fillPlaceholders(line string) (string, bool) {
	had := false
	for range 64 {
		p := placeholder(strings.TrimSpace(line))
		if p == "" {
			p = templatePlaceholder(line)
		}
		if p == "" || !strings.Contains(line, p) {
			break
		}
		line, had = strings.Replace(line, p, placeholderWord, 1), true
	}
	return line, had
}

// asRefusedHeader is refusedHeader at line's indentation.
func asRefusedHeader(line string) string {
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))] + refusedHeader
}

// isBannerLine reports a `banner …` line, whose text (placeholders
// included) is the banner's.
func isBannerLine(line string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), "banner")
}
