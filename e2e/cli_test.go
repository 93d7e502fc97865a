package e2e

import (
	"github.com/rocefabric/roce/internal/testenv"

	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/internal/jsonschema"
	"github.com/rocefabric/roce/internal/lab"
	"github.com/rocefabric/roce/nexus/nxsim"
)

// roce-verify against the lab with real perftest (-emulated off): the
// configuration checks pass, and the probe reports plainly that the lab
// hosts have no RDMA device (exit 1, not a verification failure). A
// baseline records every device's versions. (By default the lab hosts
// probe on their emulated RDMA device: e2e/upgrade_test.go.)
func TestVerifyAgainstTheLab(t *testing.T) {
	testenv.Root(t, "roce-verify probes run on the lab hosts, which are network namespaces")
	l := startLab(t)
	if r := roce(t, l, "", "roce-apply", "-auto-approve", l.Dir); r.code != 0 {
		t.Fatalf("apply\n%s", r)
	}
	baseline := filepath.Join(t.TempDir(), "baseline.json")
	r := roce(t, l, "", "roce-verify", "-emulated", "off", "-record-baseline", baseline, l.Dir)
	if r.code != 1 {
		t.Fatalf("want exit 1 (the probe cannot run without RDMA hardware)\n%s", r)
	}
	mustContain(t, "report", r.stdout, "no-device", "Did not detect devices", "hint:")
	if strings.Contains(r.stdout, "FAIL ") {
		t.Errorf("a configuration check failed on a freshly applied fabric\n%s", r.stdout)
	}
	b, err := os.ReadFile(baseline)
	if err != nil {
		t.Fatalf("baseline not written: %v", err)
	}
	for _, dev := range []string{"switch.n5k-1", "switch.n7k-1", "switch.eos-1", "host.h1"} {
		if !bytes.Contains(b, []byte(dev)) {
			t.Errorf("baseline does not record %s", dev)
		}
	}
	r = roce(t, l, "", "roce-verify", "-emulated", "off", "-format", "json", l.Dir)
	var rep map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("-format json is not JSON: %v\n%s", err, r.stdout)
	}
}

// Two real roce-apply processes on one fabric: while the first holds the
// lock the second is refused, naming the holder.
func TestTwoApplyProcessesExcludeEachOther(t *testing.T) {
	l := startLab(t)
	// Make the first apply slow enough to overlap.
	l.Sims["n5k-1"].Switch().SetFaults(nxsim.Faults{Latency: 60 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	first := exec.CommandContext(ctx, filepath.Join(binDir, "roce-apply"), "-var-file", l.VarFile(), "-auto-approve", "-target", "switch.n5k-1", l.Dir)
	var out1 bytes.Buffer
	first.Stdout, first.Stderr = &out1, &out1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	lockFile := filepath.Join(l.Dir, ".roce", "apply.lock")
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(lockFile)
		if bytes.Contains(b, []byte("roce-apply pid")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first apply never took the lock\n%s", out1.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	r := roce(t, l, "", "roce-apply", "-auto-approve", "-target", "switch.n7k-1", l.Dir)
	if r.code != 1 || !strings.Contains(r.stderr, "roce-apply pid") {
		t.Fatalf("second apply while the first runs: want exit 1 naming the holder\n%s", r)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out1.String())
	}
	l.Sims["n5k-1"].Switch().SetFaults(nxsim.Faults{})
	if r := roce(t, l, "", "roce-apply", "-auto-approve", "-target", "switch.n7k-1", l.Dir); r.code != 0 {
		t.Fatalf("after the first finished, the second must go through\n%s", r)
	}
}

// -lock-file puts the lock where every pipeline sees it.
func TestLockFileFlag(t *testing.T) {
	l := startLab(t)
	shared := filepath.Join(t.TempDir(), "shared", "fabric.lock")
	if r := roce(t, l, "", "roce-apply", "-auto-approve", "-lock-file", shared, "-target", "switch.srl-1", l.Dir); r.code != 0 {
		t.Fatalf("apply with -lock-file\n%s", r)
	}
	if _, err := os.Stat(shared); err != nil {
		t.Fatalf("the lock was not taken at -lock-file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(l.Dir, ".roce", "apply.lock")); err == nil {
		t.Fatalf("with -lock-file the default lock must not be used")
	}
}

// roce-lab's own lifecycle as a user drives it: up -d, status, a second up
// refused, down, status.
func TestLabLifecycle(t *testing.T) {
	dir := labCopy(t)
	run := func(args ...string) result {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var out, errb bytes.Buffer
		cmd := exec.CommandContext(ctx, filepath.Join(binDir, "roce-lab"), args...)
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return result{code, out.String(), errb.String()}
	}
	if r := run("up", "-d", dir); r.code != 0 || !strings.Contains(r.stdout, "Lab running in the background") {
		t.Fatalf("up -d\n%s", r)
	}
	t.Cleanup(func() { run("down", dir) })
	if r := run("status", dir); r.code != 0 || !strings.Contains(r.stdout, "runs (pid") {
		t.Fatalf("status\n%s", r)
	}
	if r := run("up", "-d", dir); r.code != 1 || !strings.Contains(r.stderr, "already runs") {
		t.Fatalf("a second up on the same directory must be refused\n%s", r)
	}
	vars, err := os.ReadFile(filepath.Join(dir, ".lab", "lab.vars"))
	if err != nil || !bytes.Contains(vars, []byte("lab_addresses")) {
		t.Fatalf("inventory: %v\n%s", err, vars)
	}
	st, err := lab.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r := run("down", dir); r.code != 0 || !strings.Contains(r.stdout, "stopped") {
		t.Fatalf("down\n%s", r)
	}
	if r := run("status", dir); !strings.Contains(r.stdout, "No lab runs") {
		t.Fatalf("status after down\n%s", r)
	}
	if lab.IsRoot() {
		if len(st.Netns) == 0 {
			t.Fatalf("as root the lab must start host namespaces: %+v", st)
		}
		out, _ := exec.Command("ip", "netns", "list").CombinedOutput()
		for _, ns := range st.Netns {
			if strings.Contains(string(out), ns) {
				t.Fatalf("namespace %s left after down:\n%s", ns, out)
			}
		}
	}
}

// A render conflict on a real (simulated) switch is labelled as one in
// every format: the lossless class asks 60% of the egress queues on the
// Nexus 5000, whose FCoE class keeps its share (40% on the lab's
// simulator) and class-default needs 1%, so
// roce-plan refuses that switch as "does not fit", never "could not be
// read", and says to change the policy.
func TestRenderConflictLabelledInEveryFormat(t *testing.T) {
	l := startLab(t)
	hcl := filepath.Join(l.Dir, "lab.hcl")
	b, err := os.ReadFile(hcl)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("bandwidth_percent = 50")) {
		t.Fatalf("examples/lab/lab.hcl no longer sets bandwidth_percent = 50; update this test")
	}
	if err := os.WriteFile(hcl, bytes.Replace(b, []byte("bandwidth_percent = 50"), []byte("bandwidth_percent = 60"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := func(format ...string) result {
		t.Helper()
		r := roce(t, l, "", "roce-plan", append(format, "-target", "switch.n5k-1", l.Dir)...)
		if r.code != 1 {
			t.Fatalf("roce-plan %v with a render conflict: want exit 1\n%s", format, r)
		}
		if strings.Contains(r.stdout, "switch.n5k-1: could not be read") || strings.Contains(r.stdout, "`switch.n5k-1` could not be read") {
			t.Errorf("roce-plan %v labels the render conflict a read error\n%s", format, r)
		}
		return r
	}
	r := plan()
	mustContain(t, "text plan", r.stdout,
		"switch.n5k-1: could not be planned: the policy does not fit this switch: render the desired QoS config: ",
		"queuing bandwidth does not fit in 100%: other classes keep ",
		"roce classes ask 60%, class-default needs at least 1%",
		"\n  next: change the policy so that it fits this switch",
		"the policy does not fit 1 target",
	)
	if !strings.Contains(r.stderr, "roce-plan: switch.n5k-1: does not fit the policy") {
		t.Errorf("the progress line does not say the policy does not fit\n%s", r)
	}
	r = plan("-markdown")
	mustContain(t, "Markdown plan", r.stdout,
		"| `switch.n5k-1` | nexus5000 | 0 | 0 | 0 | **does not fit the policy** | 0 |",
		"> - `switch.n5k-1` could not be planned: the policy does not fit this switch: ",
		" — next: change the policy",
	)
	r = plan("-json")
	var doc struct {
		FormatVersion int `json:"format_version"`
		Targets       []struct {
			Address   string `json:"address"`
			Error     string `json:"error"`
			ErrorKind string `json:"error_kind"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("-json: %v\n%s", err, r)
	}
	if doc.FormatVersion != 2 || len(doc.Targets) != 1 || doc.Targets[0].ErrorKind != "render" ||
		!strings.Contains(doc.Targets[0].Error, "queuing bandwidth does not fit") {
		t.Errorf("JSON plan: want format 2 and switch.n5k-1 with error_kind render\n%s", r)
	}
}

// With -json, stdout holds one JSON document even when a run stops before
// it has a plan or report (docs/exit-codes.md#with--json): a bad flag, a
// policy with errors (each at its file and line), an unreadable var file.
// The exit code is the one without -json.
func TestJSONOnEarlyFailureEveryBinary(t *testing.T) {
	repo := repoRoot()
	schema, err := jsonschema.Load(filepath.Join(repo, "docs", "plan.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "main.hcl"), []byte("lossless \"a\" {\n  priority = 3\n  dscp = [26]\n  bandwith_percent = 40\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(repo, "examples", "cos")
	missing := filepath.Join(bad, "missing.vars")
	tests := []struct {
		name string
		args []string
		def  string // the schema definition stdout must match
		kind string
		file string // the first problem's file when it has one
		line int
	}{
		{"plan: bad policy", []string{"roce-plan", "-json", bad}, "failure", "roce-plan-error", filepath.Join(bad, "main.hcl"), 4},
		{"plan: bad flag", []string{"roce-plan", "-json", "-bogus", good}, "failure", "roce-plan-error", "", 0},
		{"plan: unreadable var file", []string{"roce-plan", "-json", "-var-file", missing, good}, "failure", "roce-plan-error", "", 0},
		{"verify: bad policy", []string{"roce-verify", "-json", bad}, "failure", "roce-verify-error", filepath.Join(bad, "main.hcl"), 4},
		{"verify: bad flag value, -format json", []string{"roce-verify", "-format", "json", "-tolerance", "200", good}, "failure", "roce-verify-error", "", 0},
		{"verify: unreadable var file", []string{"roce-verify", "-json", "-var-file", missing, good}, "failure", "roce-verify-error", "", 0},
		{"apply: bad policy", []string{"roce-apply", "-json", bad}, "apply_report", "roce-apply-report", filepath.Join(bad, "main.hcl"), 4},
		{"apply: bad flag", []string{"roce-apply", "-json", "-bogus", good}, "apply_report", "roce-apply-report", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errb := runBin(t, tc.args[0], tc.args[1:]...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errb)
			}
			if errs := schema.Validate([]byte(out), "#/$defs/"+tc.def); len(errs) > 0 {
				t.Fatalf("stdout is not a documented %s:\n%s\n%s", tc.def, strings.Join(errs, "\n"), out)
			}
			var doc struct {
				Kind   string `json:"kind"`
				Error  string `json:"error"`
				Errors []struct {
					Message string `json:"message"`
					File    string `json:"file"`
					Line    int    `json:"line"`
				} `json:"errors"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Kind != tc.kind || doc.Error == "" || strings.TrimSpace(errb) == "" {
				t.Errorf("want kind %s, an error, and the message on stderr too:\n%s\nstderr:\n%s", tc.kind, out, errb)
			}
			if tc.file != "" {
				if len(doc.Errors) == 0 || doc.Errors[0].File != tc.file || doc.Errors[0].Line != tc.line ||
					!strings.Contains(doc.Errors[0].Message, "bandwith_percent") {
					t.Errorf("want the first problem at %s:%d naming bandwith_percent:\n%s", tc.file, tc.line, out)
				}
			}
			if strings.HasPrefix(doc.Kind, "roce-apply") && !strings.Contains(out, "Apply stopped before changing anything") {
				t.Errorf("the apply report's summary must not claim completion:\n%s", out)
			}
		})
	}
}
