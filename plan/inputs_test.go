package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixtureInputs are the recorded inputs of a saved plan made with one var
// file and one -var.
func fixtureInputs() *Inputs {
	return &Inputs{
		PolicyFiles: map[string]string{"main.hcl": strings.Repeat("ab", 32)},
		VarFiles:    []VarFile{{Path: "lab.vars", Resolved: "/srv/roce/lab.vars"}},
		Vars:        []string{"site"},
		VarsDigest:  "sha256:" + strings.Repeat("cd", 32),
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCollectInputsKeepsNoValues: names and paths are recorded, values
// only through the digest.
func TestCollectInputsKeepsNoValues(t *testing.T) {
	dir := t.TempDir()
	main, vars := filepath.Join(dir, "main.hcl"), filepath.Join(dir, "lab.vars")
	writeFile(t, main, `variable "site" {}`)
	writeFile(t, vars, `mtu = 9000`)
	in, err := CollectInputs([]string{main}, []string{vars}, []string{"site=topsecret-value"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in.Vars, []string{"site"}) {
		t.Errorf("vars = %v, want [site]", in.Vars)
	}
	if len(in.VarFiles) != 1 || in.VarFiles[0].Path != vars || in.VarFiles[0].Resolved != vars {
		t.Errorf("var files = %+v", in.VarFiles)
	}
	if _, ok := in.PolicyFiles["main.hcl"]; !ok || len(in.PolicyFiles) != 1 {
		t.Errorf("policy files = %v, want main.hcl only", in.PolicyFiles)
	}
	if strings.Contains(strings.Join(in.Vars, " ")+in.VarsDigest, "topsecret") {
		t.Error("a -var value was recorded")
	}
	other, err := CollectInputs([]string{main}, []string{vars}, []string{"site=other"})
	if err != nil {
		t.Fatal(err)
	}
	if other.VarsDigest == in.VarsDigest {
		t.Error("the vars digest does not depend on the -var values")
	}
}

func TestInputsFlagDiffs(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.vars"), filepath.Join(dir, "b.vars")
	writeFile(t, a, `mtu = 9000`)
	writeFile(t, b, `mtu = 4200`)
	gone := filepath.Join(dir, "gone.vars")
	saved, err := CollectInputs(nil, []string{a}, []string{"site=x"})
	if err != nil {
		t.Fatal(err)
	}
	savedGone := &Inputs{VarFiles: []VarFile{{Path: "gone.vars", Resolved: gone}}, VarsDigest: saved.VarsDigest}
	tests := []struct {
		name      string
		in        *Inputs
		files     []string
		vars      []string
		want      []string // substrings, one per line, in order
		wantLines int
	}{
		{"same flags and values", saved, []string{a}, []string{"site=x"}, nil, 0},
		{"var file not given", saved, nil, []string{"site=x"}, []string{"the plan was made with -var-file " + a + ", not given now"}, 1},
		{"var file missing now", savedGone, nil, nil, []string{"the plan was made with -var-file gone.vars (" + gone + "), missing now"}, 1},
		{"other var file", saved, []string{b}, []string{"site=x"}, []string{"-var-file " + a, "-var-file " + b + " is given now but was not used"}, 2},
		{"-var not set", saved, []string{a}, nil, []string{"variable site was set with -var at plan time"}, 1},
		{"extra -var", saved, []string{a}, []string{"site=x", "mtu=1"}, []string{"variable mtu is set with -var now"}, 1},
		{"other value", saved, []string{a}, []string{"site=y"}, []string{"-var values differ"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in.FlagDiffs(tc.files, tc.vars)
			if len(got) != tc.wantLines {
				t.Fatalf("got %d lines %q, want %d", len(got), got, tc.wantLines)
			}
			for i, w := range tc.want {
				if i >= len(got) || !strings.Contains(got[i], w) {
					t.Errorf("line %d = %q, want it to contain %q (all: %q)", i, got, w, got)
				}
			}
			for _, line := range got {
				if strings.Contains(line, "=x") || strings.Contains(line, "=y") {
					t.Errorf("a value leaked: %q", line)
				}
			}
		})
	}
}

func TestInputsPolicyDiffs(t *testing.T) {
	then := &Inputs{PolicyFiles: map[string]string{"main.hcl": "1", "hosts.hcl": "2", "old.hcl": "3"}}
	now := &Inputs{PolicyFiles: map[string]string{"main.hcl": "1", "hosts.hcl": "9", "new.hcl": "4"}}
	want := []string{
		"policy file hosts.hcl changed since plan time",
		"policy file old.hcl was removed since plan time",
		"policy file new.hcl was added since plan time",
	}
	if got := then.PolicyDiffs(now); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := then.PolicyDiffs(then); len(got) != 0 {
		t.Errorf("same files: got %q", got)
	}
}
