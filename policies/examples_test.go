package policies

import (
	"bytes"
	"os"
	"path/filepath"
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
