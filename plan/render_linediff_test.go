package plan

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// sides rebuilds the before and after line lists a diff claims.
func diffSides(d []diffLine) (before, after []string) {
	for _, l := range d {
		switch l.Kind {
		case ' ':
			before, after = append(before, l.Text), append(after, l.Text)
		case '-':
			before = append(before, l.Text)
		case '+':
			after = append(after, l.Text)
		}
	}
	return before, after
}

func diffText(d []diffLine) string {
	var b strings.Builder
	for _, l := range d {
		b.WriteString(string(l.Kind) + l.Text + "\n")
	}
	return b.String()
}

func TestDiffLines(t *testing.T) {
	tests := []struct {
		name, before, after, want string
	}{
		{"create", "", "a\nb\n", "+a\n+b\n"},
		{"delete", "a\nb", "", "-a\n-b\n"},
		{"same", "a\nb\n", "a\nb", " a\n b\n"},
		{"both empty", "", "", ""},
		{"change in middle", "a\nb\nc\n", "a\nB\nc\n", " a\n-b\n+B\n c\n"},
		{"insert", "a\nc\n", "a\nb\nc\n", " a\n+b\n c\n"},
		{"move keeps the longest common run", "x\na\nb\nc\n", "a\nb\nc\nx\n", "-x\n a\n b\n c\n+x\n"},
		{"repeated lines", "  mtu 1500\n  mtu 1500\n", "  mtu 1500\n  mtu 9216\n  mtu 1500\n", "   mtu 1500\n+  mtu 9216\n   mtu 1500\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := diffText(diffLines(tc.before, tc.after)); got != tc.want {
				t.Errorf("diff =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestDiffLinesHugeFallsBack covers texts too large for the LCS table:
// the diff is coarser but still exact.
func TestDiffLinesHugeFallsBack(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 2100; i++ {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	before := "head\n" + a.String() + "tail\n"
	after := "head\n" + b.String() + "tail\n"
	d := diffLines(before, after)
	gb, ga := diffSides(d)
	if !reflect.DeepEqual(gb, splitLines(before)) || !reflect.DeepEqual(ga, splitLines(after)) {
		t.Fatal("fallback diff does not reproduce its inputs")
	}
	if d[0] != (diffLine{' ', "head"}) || d[len(d)-1] != (diffLine{' ', "tail"}) {
		t.Error("common prefix/suffix not kept as context")
	}
}

func TestElide(t *testing.T) {
	d := diffLines("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nX\n6\n7\n8\n9\n")
	tests := []struct {
		ctx  int
		want string
	}{
		{-1, " 1\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n 9\n"},
		{0, "~\n-5\n+X\n~\n"},
		{1, "~\n 4\n-5\n+X\n 6\n~\n"},
		{10, " 1\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n 9\n"},
	}
	for _, tc := range tests {
		if got := diffText(elide(d, tc.ctx)); got != tc.want {
			t.Errorf("elide(ctx=%d) =\n%s\nwant\n%s", tc.ctx, got, tc.want)
		}
	}
	if got := elide(diffLines("a\nb\n", "a\nb\n"), 2); len(got) != 1 || got[0].Kind != '~' {
		t.Errorf("unchanged text elides to %v, want one marker", got)
	}
}

// FuzzDiffLines: for any two texts the diff reproduces both sides exactly
// and never has more changed lines than a full replacement.
func FuzzDiffLines(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("", "x")
	f.Add("policy-map\n  class a\n    mtu 1500\n", "policy-map\n  class a\n    mtu 9216\n  class b\n")
	f.Fuzz(func(t *testing.T, before, after string) {
		d := diffLines(before, after)
		gb, ga := diffSides(d)
		if !reflect.DeepEqual(gb, splitLines(before)) || !reflect.DeepEqual(ga, splitLines(after)) {
			t.Fatalf("diff of %q -> %q does not reproduce its inputs: %v", before, after, d)
		}
		changed := 0
		for _, l := range d {
			if l.Kind != ' ' {
				changed++
			}
		}
		if changed > len(splitLines(before))+len(splitLines(after)) {
			t.Fatalf("diff has %d changed lines for %q -> %q", changed, before, after)
		}
	})
}

// BenchmarkDiffLines diffs two 1000-line configurations differing in every
// tenth line.
func BenchmarkDiffLines(b *testing.B) {
	var before, after strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&before, "line %d\n", i)
		if i%10 == 0 {
			fmt.Fprintf(&after, "changed %d\n", i)
		} else {
			fmt.Fprintf(&after, "line %d\n", i)
		}
	}
	x, y := before.String(), after.String()
	for b.Loop() {
		diffLines(x, y)
	}
}
