package policies

import (
	"os"
	"path/filepath"
	"testing"
)

// A -var-file that cannot be read says what to do next; a lab's file (under
// .lab/, written while the lab runs) points at starting the lab.
func TestVarFileNextStep(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(varsPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	unreadable := filepath.Join(dir, "secret.vars")
	if err := os.WriteFile(unreadable, []byte("site = \"x\"\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	lab := filepath.Join(dir, "mylab")
	tests := []struct {
		name, path, want string
	}{
		{"missing file", filepath.Join(dir, "missing.vars"), "missing.vars: open " + filepath.Join(dir, "missing.vars") + ": no such file or directory. Check the path (a relative one is read from the current directory)."},
		{"lab not up", filepath.Join(lab, ".lab", "lab.vars"), "The lab writes this file when it starts: is it up? Start it with `roce-lab up -d " + lab + "`."},
		{"directory, not a file", dir, "Check that it is a file you can read."},
	}
	if os.Geteuid() != 0 { // root reads a mode-000 file
		tests = append(tests, struct{ name, path, want string }{"unreadable", unreadable, "permission denied. Check that it is a file you can read."})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, diags := Load(dir, LoadOptions{Getenv: noEnv, VarFiles: []string{tc.path}})
			if findDiag(diags, tc.want) == nil {
				t.Fatalf("no diagnostic contains %q; got:\n%s", tc.want, describeDiags(diags))
			}
		})
	}
	if got := varFileNextStep(filepath.Join(".lab", "lab.vars"), os.ErrNotExist); got != "The lab writes this file when it starts: is it up? Start it with `roce-lab up -d .`." {
		t.Errorf("a .lab in the current directory: %q", got)
	}
}
