package plan

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// The -update flag rewrites golden files. It is registered in init, after
// every package-level variable, and only if nobody else in the package
// registered it, so other test files may declare their own.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/")
	}
}

// updateGolden reports whether -update was given.
func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// checkGolden compares got with testdata/render/<name>, or rewrites the
// file with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "render", name)
	if updateGolden() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test ./plan -run %s -update to create it): %v", t.Name(), err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file %s (run with -update if the change is intended)\n--- got ---\n%s\n--- want ---\n%s",
			t.Name(), path, got, want)
	}
}

// renderAll renders p as text (no colour), Markdown and JSON.
func renderAll(t *testing.T, p *Plan) (txt, md, js string) {
	t.Helper()
	var tb, mb, jb bytes.Buffer
	if err := RenderText(&tb, p, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := RenderMarkdown(&mb, p); err != nil {
		t.Fatal(err)
	}
	if err := RenderJSON(&jb, p); err != nil {
		t.Fatal(err)
	}
	return tb.String(), mb.String(), jb.String()
}
