package policies

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// forceSplit cuts at every line it may: the smallest inputs are split, so
// the differential tests and the fuzz target exercise the split path.
var forceSplit = splitOptions{minBytes: 0, chunkBytes: 1, workers: 3}

// How a split parse must treat an input.
const (
	whole    = iota // the scanner finds no pieces (unsure, or a cut would be unsafe)
	fallback        // pieces, but one has a diagnostic or they do not fit: whole parse
	pieced          // parsed in pieces and stitched
)

// splitCases are inputs for the differential test, with how forceSplit
// must parse them.
var splitCases = []struct {
	name string
	src  string
	how  int
}{
	{"top-level attributes", "a = 1\nb = \"x\"\nc = [1,\n  2]\n", pieced},
	{"blocks and attributes", "locals {\n  a = 1\n  b = local.a + 1\n}\nswitch \"s1\" {\n  platform = \"nexus5000\"\n}\nx = 3\n", pieced},
	{"nested blocks", "switch \"s\" {\n  interface \"e1\" {\n    mtu = 9216\n  }\n  interface \"e2\" { mtu = 1500 }\n  a = 1\n}\n", pieced},
	{"object constructor at the top", "a = {\n  b = 1\n  c = 2\n}\nd = 4\n", pieced},
	{"object in a body", "locals {\n  o = {\n    b = 1\n  }\n  p = 2\n}\n", pieced},
	{"heredoc", "locals {\n  a = <<EOT\nb = 1\n  EOT2\nEOT\n  c = 2\n}\n", pieced},
	{"indented heredoc", "locals {\n  a = <<-EOT\n    x = 1\n    EOT\n  c = 2\n}\n", pieced},
	{"heredoc marker inside an interpolation", "locals {\n  a = <<EOT\n${foo(\nEOT\n)}\nEOT\n  b = 2\n}\n", pieced},
	{"heredoc marker after an interpolation", "locals {\n  a = <<EOT\n${x}EOT\nz = 1\nEOT\n  b = 2\n}\n", pieced},
	{"nested heredocs", "locals {\n  a = <<A\n${<<B\nA\nB\n}\nA\n  b = 1\n}\n", pieced},
	{"heredoc with CRLF", "locals {\r\n  a = <<EOT\r\nq = 1\r\nEOT\r\n  b = 2\r\n}\r\n", pieced},
	{"heredoc marker with unicode spaces", "locals {\n  a = <<EOT\nx = 1\n\u00a0EOT\u0085\n  b = 2\n}\n", pieced},
	{"heredoc escapes", "locals {\n  a = <<EOT\n$${x} %%{y}\nc = 1\nEOT\n  b = 2\n}\n", pieced},
	{"heredoc directive", "locals {\n  a = <<EOT\n%{ if true }\nc = 1\n%{ endif }\nEOT\n  b = 2\n}\n", pieced},
	{"template with nested strings and braces", "locals {\n  a = \"${ {k = \"}\"}[\"k\"] }-${\"${1 + 1}\"}\"\n  b = \"\\\"${2}\\\\\"\n  c = \"~${ 1 ~}x\"\n}\n", pieced},
	{"template spanning lines", "locals {\n  a = \"${\n1 +\n2\n}\"\n  b = 2\n}\n", pieced},
	{"escaped interpolation", "a = \"$${x}\"\nb = \"%%{y}\"\nc = \"$$${z}\"\n", pieced},
	{"comments", "# a = 1\n// b = 2\n/* c = 3\nd = 4\n*/\nlocals { # e = 5\n  f = 6 // g = 7\n  /* h = 8\n  i = 9 */\n  j = 10\n}\n", pieced},
	{"comment at the end without a newline", "a = 1\n# end", pieced},
	{"no final newline", "a = 1\nlocals {\n  b = 2\n}", pieced},
	{"unicode", "locals {\n  \u00e9t\u00e9 = \"\u00e9\u0301\U0001F600\"\n  b = \"\u4e16\u754c\"\n}\nc = \"\u00e9\"\n", pieced},
	{"CRLF", "a = 1\r\nlocals {\r\n  b = 2\r\n}\r\n", pieced},
	{"blank lines and spaces", "\n\n  a = 1\n\n\tlocals  {  \n\n  b = 2  \n\n  }  \n\n", pieced},
	{"empty block", "locals {\n}\na = 1\n", pieced},
	{"comment before the first item", "/* x */\na = 1\n", pieced},

	// Errors: whatever the split, the diagnostics are hclsyntax's own.
	{"duplicate attribute across lines", "a = 1\nb = 2\na = 3\n", fallback},
	{"duplicate local across lines", "locals {\n  a = 1\n  b = 2\n  a = 3\n}\n", fallback},
	{"syntax error", "locals {\n  a = 1 +\n  b = 2\n}\n", fallback},
	{"two blocks on a line", "a {\n} b {\n}\n", whole},
	{"multi-line quoted string", "a = \"x\ny\"\nb = 1\n", whole},
	{"unterminated comment", "a = 1\n/* b = 2\nc = 3\n", whole},
	{"unterminated heredoc", "a = <<EOT\nb = 1\n", whole},
	{"heredoc marker at the end without a newline", "a = <<EOT\nb = 1\nEOT", whole},
	{"unterminated bracket", "a = [\n1\n", whole},
	{"mismatched brackets", "a = [1)\nb = 2\n", whole},
	{"lone CR", "a = 1\rb = 2\n", whole},
	{"invalid UTF-8", "a = \"\xff\"\nb = 2\n", whole},
	{"non-ASCII heredoc marker", "a = <<\u00c9OT\nb = 1\n\u00c9OT\n", whole},
	{"block brace on the next line", "locals\n{\n  a = 1\n}\n", fallback},
	{"single-line block with a newline", "locals { a = 1\n  b = 2\n}\n", fallback},
	{"close brace after an attribute", "locals {\n  a = 1\n  b = 2 }\n", fallback},
	{"close brace after a bracket", "locals {\n  b = 1\n  a = [\n1]}\n", fallback},
	{"stray close brace", "a = 1\n}\nb = 2\n", whole},
	{"heredoc introducer with a space", "a = <<EOT \nb = 1\nEOT\n", fallback},
}

// TestSplitParseMatchesWhole: for every case, the split parse gives
// exactly what hclsyntax.ParseConfig gives for the whole file.
func TestSplitParseMatchesWhole(t *testing.T) {
	for _, tc := range splitCases {
		t.Run(tc.name, func(t *testing.T) {
			how := whole
			if _, ok := planSplit([]byte(tc.src), forceSplit); ok {
				how = fallback
				if _, _, ok := trySplitParse(context.Background(), []byte(tc.src), "main.hcl", forceSplit); ok {
					how = pieced
				}
			}
			if how != tc.how {
				t.Errorf("parsed as %s, want %s", []string{"whole", "fallback", "pieces"}[how], []string{"whole", "fallback", "pieces"}[tc.how])
			}
			checkSplitParse(t, []byte(tc.src), forceSplit)
		})
	}
}

// TestSplitParseBig: a policy like BenchmarkLoad1MLocals's, with a
// heredoc, templates and comments, cut with the default chunk size, gives
// the whole parse's body and is really cut.
func TestSplitParseBig(t *testing.T) {
	var b strings.Builder
	b.WriteString("# generated\nvariable \"v\" {\n  default = 1\n}\nlocals {\n  l0 = 0\n")
	for i := 1; i < 60_000; i++ {
		switch i % 1000 {
		case 7:
			fmt.Fprintf(&b, "  l%d = <<EOT\nl%d = 1\n  }\n${local.l%d}\nEOT\n", i, i, i-1)
		case 8:
			fmt.Fprintf(&b, "  l%d = \"${local.l%d}\u00e9 ${\"}\"}\" /* a\nb = 2 */\n", i, i-1)
		default:
			fmt.Fprintf(&b, "  l%d = local.l%d + 1\n", i, i-1)
		}
	}
	b.WriteString("}\nlossless \"roce\" {\n  cos = 4\n}\n")
	src := []byte(b.String())
	pieces, ok := planSplit(src, defaultSplit)
	if !ok {
		t.Fatal("a 1.7 MB policy was not split")
	}
	if _, _, ok := trySplitParse(context.Background(), src, "main.hcl", defaultSplit); !ok {
		t.Fatal("the pieces of a 1.7 MB policy were not parsed and stitched")
	}
	chunks := 0
	for _, p := range pieces {
		chunks += max(len(p.cuts)-1, 1)
	}
	if chunks < 4 {
		t.Fatalf("%d chunks, want the locals block cut at least 4 times", chunks)
	}
	checkSplitParse(t, src, defaultSplit)
}

// TestSplitParseStops: a done context stops a split parse without a file.
func TestSplitParseStops(t *testing.T) {
	var b strings.Builder
	b.WriteString("locals {\n")
	for i := range 200 {
		fmt.Fprintf(&b, "  l%d = %d\n", i, i)
	}
	b.WriteString("}\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f, diags, stopped := parseSplitFile(ctx, []byte(b.String()), "main.hcl", forceSplit)
	if !stopped || f != nil || diags != nil {
		t.Fatalf("parse with a done context: stopped = %v, file = %v, diags = %v; want stopped and nothing", stopped, f != nil, diags)
	}
}

// doneAfter is a context that reports itself cancelled from its nth
// Err() call on: a deterministic cancel in the middle of a split parse.
type doneAfter struct {
	context.Context
	calls, n int
	mu       sync.Mutex
}

func (c *doneAfter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls++; c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// TestSplitParseStopsMidway: a context cancelled while the pieces are
// being parsed stops the parse (the workers take no further piece) and
// gives no file, not a partial one.
func TestSplitParseStopsMidway(t *testing.T) {
	src := []byte(localsSource(2_000))
	pieces, ok := planSplit(src, forceSplit)
	if !ok || len(pieces) == 0 || len(pieces[0].cuts) < 100 {
		t.Fatal("the policy is not cut into many pieces")
	}
	ctx := &doneAfter{Context: context.Background(), n: 50}
	f, diags, stopped := parseSplitFile(ctx, src, "main.hcl", forceSplit)
	if !stopped || f != nil || diags != nil {
		t.Fatalf("parse cancelled midway: stopped = %v, file = %v, diags = %v; want stopped and nothing", stopped, f != nil, diags)
	}
	// Asked once per piece until it is done, then once more by each
	// worker and twice after them: the workers look before every piece
	// and stop at once.
	if ctx.calls < ctx.n || ctx.calls > ctx.n+forceSplit.workers+2 {
		t.Errorf("the context was asked %d times, done from the %dth: want the workers to look before each piece and stop right after", ctx.calls, ctx.n)
	}
}

// checkSplitParse compares parseSplitFile with hclsyntax.ParseConfig on
// src: diagnostics, bytes, every node of the body (types, labels, names,
// expressions and all their ranges) and the navigation's block context.
func checkSplitParse(t *testing.T, src []byte, o splitOptions) {
	t.Helper()
	want, wantDiags := hclsyntax.ParseConfig(src, "main.hcl", hcl.InitialPos)
	got, gotDiags, stopped := parseSplitFile(context.Background(), src, "main.hcl", o)
	if stopped {
		t.Fatal("split parse stopped without a cancelled context")
	}
	if d := firstDiff("diags", reflect.ValueOf(gotDiags), reflect.ValueOf(wantDiags), map[[2]uintptr]bool{}); d != "" {
		t.Fatalf("diagnostics differ at %s\ngot:  %v\nwant: %v", d, gotDiags, wantDiags)
	}
	if string(got.Bytes) != string(src) {
		t.Fatal("file bytes are not the source")
	}
	if d := firstDiff("body", reflect.ValueOf(got.Body), reflect.ValueOf(want.Body), map[[2]uintptr]bool{}); d != "" {
		t.Fatalf("split parse differs from the whole parse at %s", d)
	}
	type nav interface{ ContextString(int) string }
	gn, wn := got.Nav.(nav), want.Nav.(nav)
	for off := 0; off <= len(src); off += max(1, len(src)/200) {
		if g, w := gn.ContextString(off), wn.ContextString(off); g != w {
			t.Fatalf("context at byte %d: %q, want %q", off, g, w)
		}
	}
}

// firstDiff returns the path of the first difference between a and b
// (deeply, unexported fields included), or "".
func firstDiff(path string, a, b reflect.Value, seen map[[2]uintptr]bool) string {
	if a.IsValid() != b.IsValid() {
		return path + ": one is missing"
	}
	if !a.IsValid() {
		return ""
	}
	if a.Type() != b.Type() {
		return fmt.Sprintf("%s: type %s, want %s", path, a.Type(), b.Type())
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + ": nil on one side"
			}
			return ""
		}
		if a.Kind() == reflect.Pointer {
			k := [2]uintptr{a.Pointer(), b.Pointer()}
			if seen[k] {
				return ""
			}
			seen[k] = true
		}
		return firstDiff(path, a.Elem(), b.Elem(), seen)
	case reflect.Struct:
		for i := range a.NumField() {
			if d := firstDiff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i), seen); d != "" {
				return d
			}
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: length %d, want %d", path, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if d := firstDiff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i), seen); d != "" {
				return d
			}
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: %d entries, want %d", path, a.Len(), b.Len())
		}
		keys := b.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			if d := firstDiff(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), b.MapIndex(k), seen); d != "" {
				return d
			}
		}
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if a.IsNil() != b.IsNil() {
			return path + ": nil on one side"
		}
	default:
		if fmt.Sprint(a) != fmt.Sprint(b) {
			return fmt.Sprintf("%s: %v, want %v", path, a, b)
		}
	}
	return ""
}

// FuzzSplitParse: for any input and chunk size, the split parse gives
// exactly what a whole parse gives (diagnostics, body, ranges).
func FuzzSplitParse(f *testing.F) {
	for _, tc := range splitCases {
		f.Add([]byte(tc.src), uint8(1))
	}
	f.Add([]byte("locals {\n  a = 1\n  b = 2\n  c = 3\n  d = 4\n}\n"), uint8(12))
	f.Fuzz(func(t *testing.T, src []byte, chunk uint8) {
		if len(src) > 4096 {
			return
		}
		checkSplitParse(t, src, splitOptions{chunkBytes: int(chunk), workers: 2})
	})
}

// BenchmarkPlanSplit1MLocals: the scanner alone on the 1,000,000-local
// file (its share of a split parse).
func BenchmarkPlanSplit1MLocals(b *testing.B) {
	src := []byte(localsSource(1_000_000))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, ok := planSplit(src, defaultSplit); !ok {
			b.Fatal("not split")
		}
	}
}

// TestLoadBigPolicy: Load parses a policy over the split threshold in
// pieces, and its errors are hclsyntax's own for the whole file: a local
// defined again a megabyte later, and a syntax error, at their lines.
func TestLoadBigPolicy(t *testing.T) {
	const n = 40_000 // 1.1 MB
	src := localsSource(n)
	if len(src) < defaultSplit.minBytes {
		t.Fatalf("the policy is %d bytes, below the split threshold", len(src))
	}
	if _, _, ok := trySplitParse(context.Background(), []byte(src), "main.hcl", defaultSplit); !ok {
		t.Fatal("the policy is not parsed in pieces")
	}
	for _, tc := range []struct {
		name, src, want string
	}{
		{"valid", src, ""},
		{"redefined", strings.Replace(src, "  l39000 = local.l38999 + 1\n", "  l1 = 5\n", 1), "main.hcl:39002:3: Attribute redefined"},
		{"syntax error", strings.Replace(src, "  l39000 = local.l38999 + 1\n", "  l39000 = local.l38999 +\n", 1), "main.hcl:39002:26: Invalid expression"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			f, _, diags := Load(dir, LoadOptions{Getenv: noEnv, Context: context.Background()})
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatal(describeDiags(diags))
				}
				if got := f.Lossless[0].Match.CoS; len(got) != 1 || got[0] != 4 {
					t.Fatalf("cos = %v, want [4]", got)
				}
				return
			}
			if len(diags) == 0 {
				t.Fatal("no error")
			}
			_, whole := hclsyntax.ParseConfig([]byte(tc.src), filepath.Join(dir, "main.hcl"), hcl.InitialPos)
			if got, want := describeDiags(diags), describeDiags(whole); got != want {
				t.Fatalf("errors:\n%s\nwant hclsyntax's for the whole file:\n%s", got, want)
			}
			d := diags[0]
			if got := fmt.Sprintf("%s:%d:%d: %s", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column, d.Summary); got != tc.want {
				t.Fatalf("first error at %s, want %s", got, tc.want)
			}
		})
	}
}

// TestSplitParseRepositoryPolicies: every policy in the repository (the
// examples, the formatter's and the providers' test policies), cut at
// every line it may be, parses to exactly what one parse gives, and in
// pieces (none of them needs the fallback).
func TestSplitParseRepositoryPolicies(t *testing.T) {
	var paths []string
	for _, pattern := range []string{"../examples/*/*.hcl", "testdata/*/*.hcl", "../providers/*/testdata/*/*.hcl"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) < 10 {
		t.Fatalf("found %d policies, want the examples and test policies", len(paths))
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			_, diags := hclsyntax.ParseConfig(src, "main.hcl", hcl.InitialPos)
			_, _, ok := trySplitParse(context.Background(), src, "main.hcl", forceSplit)
			if ok == diags.HasErrors() {
				t.Errorf("parsed in pieces = %v for a file with errors = %v", ok, diags.HasErrors())
			}
			checkSplitParse(t, src, forceSplit)
		})
	}
}
