package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
)

const policy = `lossless "roce" {
  udp_port = 4791
  priority = 3
}

credentials "sw" {
  username     = "admin"
  password_env = "ROCE_TEST_UNSET_PASSWORD"
}

switch "leaf1" {
  platform    = "nexus5000"
  address     = "127.0.0.1:1"
  credentials = "sw"
  known_hosts = "known_hosts"
  interfaces  = ["Ethernet1/1"]
}
`

// policyWithInterrupted writes a policy and a journal in which switch.leaf1
// began an apply that never finished (as after a SIGKILL).
func policyWithInterrupted(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"fabric.hcl": policy, "known_hosts": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	j, err := plan.CreateJournal(plan.JournalDir(plan.DefaultLockPath(dir)), "roce-apply test")
	if err != nil {
		t.Fatal(err)
	}
	tp := &plan.TargetPlan{Address: "switch.leaf1", Kind: "nexus5000", Fingerprint: "sha256:x", Changes: []plan.Change{{Address: "system qos"}}}
	if err := j.Begin(tp); err != nil {
		t.Fatal(err)
	}
	if err := plan.RecorderFrom(plan.WithRecorder(context.Background(), j.Recorder("switch.leaf1"))).Record("push", map[string]string{"lines": "3"}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runApply(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestInterruptedApplyBlocksUntilRecovered(t *testing.T) {
	dir := policyWithInterrupted(t)

	code, out, errs := runApply("-auto-approve", dir)
	if code != 1 || !strings.Contains(errs, "switch.leaf1 (nexus5000)") || !strings.Contains(errs, `last step "push"`) ||
		!strings.Contains(errs, "roce-apply -recover "+dir) || out != "" {
		t.Fatalf("an interrupted apply must block the next one: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	// -json: stdout is only the report, with the reason.
	code, out, _ = runApply("-json", "-auto-approve", dir)
	var rep struct {
		Kind, Error string
		Results     []any
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 1 || err != nil || rep.Kind != "roce-apply-report" || !strings.Contains(rep.Error, "switch.leaf1") {
		t.Fatalf("-json refusal: exit %d, %v\n%s", code, err, out)
	}

	// -recover cannot reach the switch (no credentials): it fails, says
	// why, and the entry stays.
	code, out, errs = runApply("-recover", dir)
	if code != 1 || !strings.Contains(out+errs, "ROCE_TEST_UNSET_PASSWORD") || !strings.Contains(errs, "stay in the journal") {
		t.Fatalf("an unreachable target must stay interrupted: exit %d\n%s\n%s", code, out, errs)
	}
	if ins, _ := plan.ReadJournal(plan.JournalDir(plan.DefaultLockPath(dir))); len(ins) != 1 {
		t.Fatalf("the entry must stay after a failed recovery, have %d", len(ins))
	}

	// -forget needs -recover and a target that is in the journal.
	if code, _, errs := runApply("-forget", "switch.leaf1", dir); code != 1 || !strings.Contains(errs, "only with -recover") {
		t.Fatalf("-forget without -recover: exit %d %s", code, errs)
	}
	if code, _, errs := runApply("-recover", "-forget", "switch.other", dir); code != 1 || !strings.Contains(errs, "no interrupted apply") {
		t.Fatalf("-forget of an unknown target: exit %d %s", code, errs)
	}
	code, _, errs = runApply("-recover", "-forget", "switch.leaf1", dir)
	if code != 0 || !strings.Contains(errs, "forgot the interrupted apply of switch.leaf1") {
		t.Fatalf("-recover -forget: exit %d\n%s", code, errs)
	}
	if files, _ := filepath.Glob(filepath.Join(plan.JournalDir(plan.DefaultLockPath(dir)), "*.jsonl")); len(files) != 0 {
		t.Fatalf("the forgotten entry's journal is still there: %v", files)
	}
	// Nothing left: -recover says so and succeeds.
	if code, _, errs := runApply("-recover", dir); code != 0 || !strings.Contains(errs, "nothing to recover") {
		t.Fatalf("-recover with an empty journal: exit %d %s", code, errs)
	}
}

func TestRecoverRefusesPlanFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "plan.roce")
	if err := os.WriteFile(f, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runApply("-recover", f); code != 1 || !strings.Contains(errs, "policy directory") {
		t.Fatalf("-recover with a plan file: exit %d %s", code, errs)
	}
}

// A saved plan whose policy files changed names each changed file; one
// made with a -var the run lacks names the variable, never a value.
func TestSavedPlanInputsMismatch(t *testing.T) {
	dir := t.TempDir()
	fabric := filepath.Join(dir, "fabric.hcl")
	if err := os.WriteFile(fabric, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		vars   []string // -var at plan time
		edit   string   // appended to fabric.hcl after planning
		args   []string
		want   string
		unwant string
	}{
		{"policy file changed", nil, "\n# edited\n", nil, "policy file fabric.hcl changed since plan time", ""},
		{"-var missing", []string{"site=hunter2"}, "", nil, "variable site was set with -var at plan time", "hunter2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(fabric, []byte(policy), 0o600); err != nil {
				t.Fatal(err)
			}
			in, err := plan.CollectInputs([]string{fabric}, nil, tc.vars)
			if err != nil {
				t.Fatal(err)
			}
			p := &plan.Plan{FormatVersion: plan.FormatVersion, PolicyDir: dir, Targets: []*plan.TargetPlan{}, Inputs: in}
			planFile := filepath.Join(t.TempDir(), "plan.roce")
			if err := plan.WritePlanFile(planFile, p, nil); err != nil {
				t.Fatal(err)
			}
			if tc.edit != "" {
				if err := os.WriteFile(fabric, []byte(policy+tc.edit), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			code, _, stderr := runApply(append(tc.args, "-auto-approve", planFile)...)
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("want exit 1 and %q, got %d:\n%s", tc.want, code, stderr)
			}
			if tc.unwant != "" && strings.Contains(stderr, tc.unwant) {
				t.Fatalf("the error shows a -var value:\n%s", stderr)
			}
		})
	}
}
