package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// A plan saved with relative paths in the policy directory applies from
// any other directory; applied without the var file it was made with, the
// error names that file and the command to use, and nothing is changed.
func TestSavedPlanFromAnotherDirectory(t *testing.T) {
	l := startLab(t)
	relVars, err := filepath.Rel(l.Dir, l.VarFile())
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	planFile := filepath.Join(elsewhere, "plan.roce")
	if r := runInDir(t, l.Dir, "roce-plan", "-var-file", relVars, "-target", "switch.n5k-1", "-out", planFile, "."); r.code != 0 {
		t.Fatalf("plan\n%s", r)
	}
	before := l.Sims["n5k-1"].Switch().RunningConfig()

	r := runInDir(t, elsewhere, "roce-apply", "-auto-approve", "plan.roce")
	if r.code != 1 {
		t.Fatalf("apply without the var file: want exit 1\n%s", r)
	}
	for _, want := range []string{
		"the plan was made with -var-file " + relVars + " (" + l.VarFile() + "), not given now",
		"roce-apply -var-file " + l.VarFile() + " plan.roce",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("apply without the var file: stderr lacks %q\n%s", want, r)
		}
	}
	if strings.Contains(r.stderr, "policy changed") || strings.Contains(r.stderr, "has errors") {
		t.Errorf("apply without the var file blames the policy\n%s", r)
	}
	if l.Sims["n5k-1"].Switch().RunningConfig() != before {
		t.Fatal("a refused apply changed the switch")
	}

	r = runInDir(t, elsewhere, "roce-apply", "-auto-approve", "-var-file", l.VarFile(), "plan.roce")
	if r.code != 0 {
		t.Fatalf("apply from another directory with the same var file: want exit 0\n%s", r)
	}
	if l.Sims["n5k-1"].Switch().RunningConfig() == before {
		t.Fatal("the apply changed nothing on the switch")
	}
}
