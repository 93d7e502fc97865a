package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRelativeToDir(t *testing.T) {
	for _, tc := range []struct{ text, dir, want string }{
		{"on /w/site/main.hcl line 3:", "/w", "on site/main.hcl line 3:"},
		{"/w/site/main.hcl:3\n  -var-file \"/w/lab.vars\"", "/w/", "site/main.hcl:3\n  -var-file \"lab.vars\""},
		{"on /other/w/main.hcl line 3", "/w", "on /other/w/main.hcl line 3"}, // not under /w
		{"on /wx/main.hcl line 3", "/w", "on /wx/main.hcl line 3"},           // a sibling, not a child
		{"on /w/main.hcl", "relative", "on /w/main.hcl"},
		{"on /main.hcl", "/", "on /main.hcl"},
	} {
		if got := relativeToDir(tc.text, tc.dir); got != tc.want {
			t.Errorf("relativeToDir(%q, %q) = %q, want %q", tc.text, tc.dir, got, tc.want)
		}
	}
}

// A policy loaded by its absolute directory (roce-apply takes it from the
// saved plan) shows its diagnostics with the same relative paths as when
// loaded as the user typed it (roce-plan).
func TestLoadFabricDiagnosticsRelative(t *testing.T) {
	root := t.TempDir()
	pol := filepath.Join(root, "site")
	if err := os.Mkdir(pol, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pol, "main.hcl"), []byte("lossless \"x\" {\n  nonsense = 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	var c Common
	c.NoColor = true
	var rel, abs bytes.Buffer
	if _, _, err := c.LoadFabric("site", &rel); err == nil {
		t.Fatal("the broken policy loaded")
	}
	if _, _, err := c.LoadFabric(pol, &abs); err == nil {
		t.Fatal("the broken policy loaded")
	}
	if !strings.Contains(rel.String(), "site/main.hcl") {
		t.Fatalf("no relative path in the diagnostics:\n%s", rel.String())
	}
	if abs.String() != rel.String() {
		t.Errorf("loaded by absolute path:\n%s\nby relative path:\n%s", abs.String(), rel.String())
	}
	// Outside the current directory the path stays absolute (and is what
	// the rewrite above turned relative).
	t.Chdir(t.TempDir())
	var outside bytes.Buffer
	_, _, _ = c.LoadFabric(pol, &outside)
	if !strings.Contains(outside.String(), filepath.Join(pol, "main.hcl")) {
		t.Errorf("outside the current directory, want the absolute path:\n%s", outside.String())
	}
}
