package plan

import (
	"bytes"
	"encoding/json"
	"strings"
)

// diffLine is one line of a line-by-line diff. Kind is ' ' (unchanged),
// '-' (only before), '+' (only after) or '~' (elided unchanged lines).
type diffLine struct {
	Kind byte
	Text string
}

// maxLCSCells bounds the quadratic LCS table; beyond it the middle of the
// two texts is shown as removed-then-added, which is still a correct diff,
// only a less minimal one.
const maxLCSCells = 4_000_000

// splitLines splits a rendering into lines; "" has no lines and a final
// newline does not add an empty one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// diffLines diffs before against after line by line (longest common
// subsequence), so a reviewer sees exactly which config lines move.
func diffLines(before, after string) []diffLine {
	a, b := splitLines(before), splitLines(after)
	// Common prefix and suffix need no table.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	out := make([]diffLine, 0, len(a)+len(b))
	for _, l := range a[:pre] {
		out = append(out, diffLine{' ', l})
	}
	out = append(out, diffMiddle(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		out = append(out, diffLine{' ', l})
	}
	return out
}

// diffMiddle diffs the part between the common prefix and suffix.
func diffMiddle(a, b []string) []diffLine {
	var out []diffLine
	if len(a)*len(b) > maxLCSCells {
		for _, l := range a {
			out = append(out, diffLine{'-', l})
		}
		for _, l := range b {
			out = append(out, diffLine{'+', l})
		}
		return out
	}
	// lcs[i][j] = length of the LCS of a[i:] and b[j:].
	w := len(b) + 1
	lcs := make([]int, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, diffLine{' ', a[i]})
			i++
			j++
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			out = append(out, diffLine{'-', a[i]})
			i++
		default:
			out = append(out, diffLine{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, diffLine{'-', a[i]})
	}
	for ; j < len(b); j++ {
		out = append(out, diffLine{'+', b[j]})
	}
	return out
}

// elide keeps ctx unchanged lines around each change and replaces every
// longer unchanged run with one '~' marker. ctx < 0 keeps everything.
func elide(lines []diffLine, ctx int) []diffLine {
	if ctx < 0 {
		return lines
	}
	keep := make([]bool, len(lines))
	for i, l := range lines {
		if l.Kind == ' ' {
			continue
		}
		for k := max(0, i-ctx); k <= min(len(lines)-1, i+ctx); k++ {
			keep[k] = true
		}
	}
	var out []diffLine
	for i, l := range lines {
		switch {
		case keep[i]:
			out = append(out, l)
		case len(out) == 0 || out[len(out)-1].Kind != '~':
			out = append(out, diffLine{Kind: '~'})
		}
	}
	return out
}

// compactJSON renders a JSON value on one line; invalid JSON is shown as
// is so a broken provider value is still visible to the reviewer.
func compactJSON(v json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return string(v)
	}
	return buf.String()
}
