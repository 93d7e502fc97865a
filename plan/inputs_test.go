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
			got := tc.in.FlagDiffs(Origin{}, tc.files, tc.vars)
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

func TestRelInTree(t *testing.T) {
	tests := []struct{ dir, target, want string }{
		{"/ci/pr", "/ci/pr/fabric", "fabric"},
		{"/ci/pr/out", "/ci/pr/fabric/lab.vars", "../fabric/lab.vars"},
		{"/ci/pr", "/ci/pr", "."},
		{"/tmp", "/home/x/fabric", ""}, // only the root in common
		{"/ci/pr/out", "/srv/fabric", ""},
	}
	for _, tc := range tests {
		if got := relInTree(tc.dir, tc.target); got != tc.want {
			t.Errorf("relInTree(%q, %q) = %q, want %q", tc.dir, tc.target, got, tc.want)
		}
	}
}

// checkoutWithPlan makes a checkout at root (fabric/main.hcl, lab.vars)
// and saves a plan of it at root/plan.roce made from root with
// -var-file varFlag, as roce-plan -out does.
func checkoutWithPlan(t *testing.T, root, varFlag string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, "fabric"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "fabric", "main.hcl"), `variable "mtu" {}`)
	writeFile(t, filepath.Join(root, "lab.vars"), `mtu = 9000`)
	t.Chdir(root)
	in, err := CollectInputs([]string{filepath.Join(root, "fabric", "main.hcl")}, []string{varFlag}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{FormatVersion: FormatVersion, CreatedAt: fixtureRenderTime, PolicyDir: filepath.Join(root, "fabric"), Targets: []*TargetPlan{}, Inputs: in}
	if err := WritePlanFile("plan.roce", p, nil); err != nil {
		t.Fatal(err)
	}
	if p.PolicyDirRelative != "" || in.VarFiles[0].Relative != "" {
		t.Error("WritePlanFile changed the plan it was given")
	}
}

// TestSavedPlanFromAnotherCheckout: a saved plan records its policy
// directory and var files relative to itself and absolute; applied from
// a moved checkout the relative places win, and when neither exists the
// error names both and -dir.
func TestSavedPlanFromAnotherCheckout(t *testing.T) {
	root := filepath.Join(t.TempDir(), "pr")
	checkoutWithPlan(t, root, "lab.vars")
	p, err := ReadPlanFile(filepath.Join(root, "plan.roce"))
	if err != nil {
		t.Fatal(err)
	}
	if p.PolicyDir != filepath.Join(root, "fabric") || p.PolicyDirRelative != "fabric" {
		t.Errorf("policy_dir = %q, policy_dir_relative = %q", p.PolicyDir, p.PolicyDirRelative)
	}
	want := VarFile{Path: "lab.vars", Resolved: filepath.Join(root, "lab.vars"), Relative: "lab.vars"}
	if len(p.Inputs.VarFiles) != 1 || p.Inputs.VarFiles[0] != want {
		t.Errorf("var files = %+v, want [%+v]", p.Inputs.VarFiles, want)
	}

	// The recorded place still exists: it is used.
	if got, err := p.SavedPolicyDir(filepath.Join(root, "plan.roce"), ""); err != nil || got != filepath.Join(root, "fabric") {
		t.Errorf("SavedPolicyDir in place = %q, %v", got, err)
	}
	// -dir wins over everything.
	if got, err := p.SavedPolicyDir("plan.roce", "elsewhere"); err != nil || got != "elsewhere" {
		t.Errorf("SavedPolicyDir with -dir = %q, %v", got, err)
	}

	moved := root + "-apply"
	if err := os.Rename(root, moved); err != nil {
		t.Fatal(err)
	}
	t.Chdir(moved)
	got, err := p.SavedPolicyDir("plan.roce", "")
	if err != nil || got != "fabric" {
		t.Errorf("SavedPolicyDir from the moved checkout = %q, %v; want fabric", got, err)
	}
	// The plan file named from elsewhere: relative to the plan file, not the cwd.
	t.Chdir(filepath.Dir(moved))
	if got, err := p.SavedPolicyDir(filepath.Join("pr-apply", "plan.roce"), ""); err != nil || got != filepath.Join("pr-apply", "fabric") {
		t.Errorf("SavedPolicyDir of pr-apply/plan.roce = %q, %v", got, err)
	}

	// Neither place exists: both named, and -dir.
	if err := os.Rename(filepath.Join(moved, "fabric"), filepath.Join(moved, "policy")); err != nil {
		t.Fatal(err)
	}
	_, err = p.SavedPolicyDir(filepath.Join(moved, "plan.roce"), "")
	for _, w := range []string{filepath.Join(moved, "fabric"), filepath.Join(root, "fabric"), "-dir DIR"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("SavedPolicyDir with no policy: error %v does not name %q", err, w)
		}
	}
	// A plan with no directory at all.
	if _, err := (&Plan{}).SavedPolicyDir("x.roce", ""); err == nil || !strings.Contains(err.Error(), "-dir DIR") {
		t.Errorf("plan without policy_dir: %v", err)
	}
}

// TestFlagDiffsFromAnotherCheckout: the same var file given by the same
// relative path (or its absolute path) from another checkout matches the
// one the plan recorded, in both directions (recorded relative and given
// absolute, recorded absolute and given relative); another file does not,
// and the suggested command names a file that exists.
func TestFlagDiffsFromAnotherCheckout(t *testing.T) {
	for _, recorded := range []string{"relative", "absolute"} {
		t.Run("recorded "+recorded, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "pr")
			flag := "lab.vars"
			if recorded == "absolute" {
				flag = filepath.Join(root, "lab.vars")
			}
			checkoutWithPlan(t, root, flag)
			moved := root + "-apply"
			if err := os.Rename(root, moved); err != nil {
				t.Fatal(err)
			}
			t.Chdir(moved)
			p, err := ReadPlanFile("plan.roce")
			if err != nil {
				t.Fatal(err)
			}
			dir, err := p.SavedPolicyDir("plan.roce", "")
			if err != nil {
				t.Fatal(err)
			}
			o := p.Origin("plan.roce", dir)
			for _, given := range []string{"lab.vars", "./lab.vars", filepath.Join(moved, "lab.vars")} {
				if d := p.Inputs.FlagDiffs(o, []string{given}, nil); len(d) != 0 {
					t.Errorf("-var-file %s from the moved checkout: %q, want no differences", given, d)
				}
			}
			if got, want := p.Inputs.ApplyFlags(o), " -var-file lab.vars"; got != want {
				t.Errorf("ApplyFlags = %q, want %q", got, want)
			}
			none := p.Inputs.FlagDiffs(o, nil, nil)
			if len(none) != 1 || !strings.Contains(none[0], "not given now (it is at lab.vars)") {
				t.Errorf("no -var-file: %q", none)
			}
			writeFile(t, "other.vars", `mtu = 9000`)
			other := p.Inputs.FlagDiffs(o, []string{"other.vars"}, nil)
			if len(other) != 2 || !strings.Contains(other[0], "not given now") || !strings.Contains(other[1], "-var-file other.vars is given now but was not used") {
				t.Errorf("another var file: %q", other)
			}
			if err := os.Remove("lab.vars"); err != nil {
				t.Fatal(err)
			}
			gone := p.Inputs.FlagDiffs(o, nil, nil)
			if len(gone) != 1 || !strings.Contains(gone[0], "missing now (looked for "+filepath.Join(moved, "lab.vars")) || strings.Contains(gone[0], "not given now") {
				t.Errorf("var file removed: %q", gone)
			}
		})
	}
}

// TestFlagDiffsRelativeToPolicyDir: a plan file saved outside the tree
// records no relative paths; a var file inside the policy directory is
// still found at the same place relative to the policy directory read now.
func TestFlagDiffsRelativeToPolicyDir(t *testing.T) {
	now := filepath.Join(t.TempDir(), "fabric")
	if err := os.MkdirAll(now, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(now, "site.vars"), `mtu = 9000`)
	in := &Inputs{VarFiles: []VarFile{{Path: "fabric/site.vars", Resolved: "/old/checkout/fabric/site.vars"}}}
	p := &Plan{PolicyDir: "/old/checkout/fabric", Inputs: in}
	t.Chdir(filepath.Dir(now))
	o := p.Origin("/var/plans/plan.roce", now)
	if d := in.FlagDiffs(o, []string{"fabric/site.vars"}, nil); len(d) != 1 || !strings.Contains(d[0], "-var values differ") {
		// The digest differs (the fixture's is empty): the place matched.
		t.Errorf("var file at the same place in the policy directory: %q, want only the values line", d)
	}
	if got, want := in.ApplyFlags(o), " -var-file "+filepath.Join("fabric", "site.vars"); got != want {
		t.Errorf("ApplyFlags = %q, want %q", got, want)
	}
}
