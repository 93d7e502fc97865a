package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docRefRe finds a reference to a document under docs/ in a message,
// with its #anchor when it has one.
var docRefRe = regexp.MustCompile(`docs/([a-z0-9_-]+\.md)(#[A-Za-z0-9_-]*)?`)

// Every message (a string literal in a non-test Go file: warnings, errors,
// -h text) that refers to background in docs/ names a section by a stable
// anchor that exists in that document (issue #18), so the reader lands on
// the paragraph, not at the top of a long page.
func TestMessageDocRefsHaveAnchors(t *testing.T) {
	repo := repoRoot()
	refs := 0
	pending := map[string]bool{}
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != repo && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, p := range messageDocRefProblems(t, repo, path) {
			if fix, ok := pendingDocRefs[rel(repo, path)]; ok && strings.Contains(p, "without a #anchor") {
				t.Logf("pending (%s): %s", fix, p)
				pending[rel(repo, path)] = true
				continue
			}
			t.Error(p)
		}
		refs += len(messageDocRefs(t, path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for f := range pendingDocRefs {
		if !pending[f] {
			t.Errorf("%s cites docs/ with anchors now: remove it from pendingDocRefs", f)
		}
	}
	// The messages cite docs/ in dozens of places; a scan finding few
	// parses nothing.
	if refs < 10 {
		t.Fatalf("only %d docs/ references in messages found; the scan is broken", refs)
	}
}

// pendingDocRefs are files whose doc references may still lack an anchor
// while another change owns them; each names the anchor to use. Only a
// missing anchor is tolerated there (a wrong anchor or file still fails),
// and an entry that is fixed must be removed. Empty: every message names
// its section.
var pendingDocRefs = map[string]string{}

// The check itself fails on the three kinds of bad reference.
func TestMessageDocRefProblemsDetected(t *testing.T) {
	repo := repoRoot()
	src := filepath.Join(t.TempDir(), "msg.go")
	code := "package x\n\nvar (\n" +
		"\tok      = \"see docs/nxos.md#qos\"\n" +
		"\tnoAnchor = \"see docs/nxos.md\"\n" +
		"\tbadAnchor = `see docs/nxos.md#no-such-section`\n" +
		"\tnoFile  = \"see docs/no-such-doc.md#qos\"\n" +
		")\n\n// A comment citing docs/nxos.md is not a message.\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	got := messageDocRefProblems(t, repo, src)
	want := []string{"docs/nxos.md without a #anchor", `no heading or anchor "no-such-section"`, "docs/no-such-doc.md"}
	if len(got) != len(want) {
		t.Fatalf("problems = %q, want %d of them", got, len(want))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("problem %d = %q, want it to mention %q", i, got[i], w)
		}
	}
}

type docRef struct {
	pos  token.Position
	ref  string // docs/FILE.md#anchor as written
	file string // FILE.md
	id   string // anchor without '#', "" when missing
}

// messageDocRefs returns the docs/ references in the string literals of a
// Go file (comments are not messages).
func messageDocRefs(t *testing.T, path string) []docRef {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []docRef
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		for _, m := range docRefRe.FindAllStringSubmatchIndex(s, -1) {
			pos := fset.Position(lit.Pos())
			if strings.HasPrefix(lit.Value, "`") {
				// A raw string is its text: point at the line of the reference.
				pos.Line += strings.Count(s[:m[0]], "\n")
			}
			id := ""
			if m[4] >= 0 {
				id = s[m[4]+1 : m[5]]
			}
			out = append(out, docRef{pos: pos, ref: s[m[0]:m[1]], file: s[m[2]:m[3]], id: id})
		}
		return true
	})
	return out
}

func messageDocRefProblems(t *testing.T, repo, path string) []string {
	t.Helper()
	var out []string
	for _, r := range messageDocRefs(t, path) {
		where := rel(repo, r.pos.Filename) + ":" + strconv.Itoa(r.pos.Line)
		doc := filepath.Join(repo, "docs", r.file)
		switch {
		case !exists(doc):
			out = append(out, where+": message cites docs/"+r.file+", which does not exist")
		case r.id == "":
			out = append(out, where+": message cites docs/"+r.file+" without a #anchor: name the section (add <a id=\"...\"></a> before its heading)")
		case !hasAnchor(t, doc, r.id):
			out = append(out, where+": message cites "+r.ref+", but docs/"+r.file+" has no heading or anchor \""+r.id+"\"")
		}
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
