package e2e

import (
	"github.com/rocefabric/roce/internal/testenv"

	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

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
	for _, want := range []string{"no-device", "Did not detect devices", "hint:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q\n%s", want, r.stdout)
		}
	}
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
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(t.TempDir(), "lab")
	if err := copyTree(filepath.Join(filepath.Dir(filepath.Dir(file)), "examples", "lab"), dir); err != nil {
		t.Fatal(err)
	}
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
