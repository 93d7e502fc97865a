package policies

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// examplesNotOwnedHere are example directories validated elsewhere: the lab
// policy by the integrator's tests, the fleet-runner files are not policies.
var examplesNotOwnedHere = map[string]bool{"lab": true, "fleet-runners": true}

func TestExamplesLoad(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "examples", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || examplesNotOwnedHere[filepath.Base(dir)] {
			continue
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "*.hcl")); len(m) == 0 {
			continue
		}
		n++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			f, src, diags := Load(dir, LoadOptions{Getenv: noEnv})
			if len(diags) > 0 {
				var buf bytes.Buffer
				_ = src.WriteDiagnostics(&buf, diags, false)
				t.Fatalf("%s: %d diagnostics:\n%s", dir, len(diags), buf.String())
			}
			if f == nil || len(f.Lossless) == 0 || len(f.Switches) == 0 || len(f.Hosts) == 0 {
				t.Fatalf("%s: loaded fabric is missing classes, switches or hosts: %+v", dir, f)
			}
		})
	}
	if n < 6 {
		t.Fatalf("found %d example policies, want at least 6 (ethertype, all-traffic, cos, dscp, mixed, fleet)", n)
	}
}

// noEnv is an empty environment: examples must load without any variable
// set (secrets are only read at apply time, by ResolveCredentials).
func noEnv(string) (string, bool) { return "", false }

// TestDocOverviewLoads keeps the first example of docs/policy-language.md
// honest: it must load without any diagnostic.
func TestDocOverviewLoads(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "policy-language.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "## Blocks at a glance")
	if !ok {
		t.Fatal("docs/policy-language.md has no \"Blocks at a glance\" section")
	}
	_, rest, ok = strings.Cut(rest, "```hcl\n")
	snippet, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no hcl code block in \"Blocks at a glance\"")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(snippet), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, diags := Load(dir, LoadOptions{Getenv: noEnv})
	if len(diags) > 0 || f == nil {
		t.Fatalf("doc overview example: %s", describeDiags(diags))
	}
}
