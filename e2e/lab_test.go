package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/internal/lab"
	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
)

// The whole loop a user runs: plan shows changes (exit 2), the saved plan
// applies, and the next plan is empty (exit 0).
func TestPlanApplyPlanIsEmpty(t *testing.T) {
	l := startLab(t)
	planFile := filepath.Join(t.TempDir(), "plan.roce")

	var outputs []string
	r := roce(t, l, "", "roce-plan", "-detailed-exitcode", "-out", planFile, "-log-level", "debug", l.Dir)
	outputs = append(outputs, r.stdout, r.stderr)
	if r.code != 2 {
		t.Fatalf("first plan: want exit 2 (changes)\n%s", r)
	}
	for name := range l.Switches {
		if !strings.Contains(r.stdout, "switch."+name) {
			t.Errorf("plan does not mention switch.%s\n%s", name, r.stdout)
		}
	}
	r = roce(t, l, "", "roce-apply", "-log-level", "debug", planFile)
	outputs = append(outputs, r.stdout, r.stderr)
	if r.code != 0 {
		t.Fatalf("apply of the saved plan failed\n%s", r)
	}
	r = roce(t, l, "", "roce-plan", "-detailed-exitcode", l.Dir)
	if r.code != 0 {
		t.Fatalf("second plan: want exit 0 (no changes)\n%s", r)
	}
	if !strings.Contains(r.stdout, "No changes") {
		t.Errorf("second plan does not say there is nothing to do\n%s", r.stdout)
	}

	// The same, as JSON, is machine-readable and empty.
	r = roce(t, l, "", "roce-plan", "-json", "-log-level", "debug", l.Dir)
	if r.code != 0 || !strings.Contains(r.stdout, `"format_version"`) {
		t.Fatalf("json plan\n%s", r)
	}
	outputs = append(outputs, r.stdout, r.stderr)

	// The lab password authenticated every SSH and gNMI session above; it
	// must appear in no output and not in the saved plan.
	saved, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, string(saved))
	for i, o := range outputs {
		if strings.Contains(o, l.Password) {
			t.Fatalf("output %d leaks the lab password:\n%s", i, o)
		}
	}
}

// A target that changed between plan and apply is refused as stale and the
// device is not touched.
func TestStalePlanIsRefused(t *testing.T) {
	l := startLab(t)
	planFile := filepath.Join(t.TempDir(), "plan.roce")
	if r := roce(t, l, "", "roce-plan", "-out", planFile, l.Dir); r.code != 0 {
		t.Fatalf("plan\n%s", r)
	}
	// Someone else changes n5k-1 in between (here: applies it directly).
	if r := roce(t, l, "", "roce-apply", "-auto-approve", "-target", "switch.n5k-1", l.Dir); r.code != 0 {
		t.Fatalf("interleaved apply\n%s", r)
	}
	before := l.Sims["n5k-1"].Switch().RunningConfig()
	r := roce(t, l, "", "roce-apply", "-continue-on-error", planFile)
	if r.code != 1 {
		t.Fatalf("stale plan: want exit 1\n%s", r)
	}
	if !strings.Contains(r.stdout+r.stderr, "stale plan") || !strings.Contains(r.stdout+r.stderr, "re-run roce-plan") {
		t.Fatalf("stale plan not explained\n%s", r)
	}
	if after := l.Sims["n5k-1"].Switch().RunningConfig(); after != before {
		t.Fatalf("a stale target was changed")
	}
}

// Any change to a saved plan file is refused before anything is contacted.
func TestTamperedPlanIsRefused(t *testing.T) {
	l := startLab(t)
	planFile := filepath.Join(t.TempDir(), "plan.roce")
	if r := roce(t, l, "", "roce-plan", "-out", planFile, l.Dir); r.code != 0 {
		t.Fatalf("plan\n%s", r)
	}
	b, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	// Make a reviewer-invisible edit: raise a bandwidth in the commands.
	tampered := strings.Replace(string(b), "bandwidth percent 50", "bandwidth percent 90", 1)
	if tampered == string(b) {
		tampered = strings.Replace(string(b), `"switch.n5k-1"`, `"switch.n5k-2"`, 1)
	}
	if err := os.WriteFile(planFile, []byte(tampered), 0o600); err != nil {
		t.Fatal(err)
	}
	before := l.Sims["n5k-1"].Switch().RunningConfig()
	r := roce(t, l, "", "roce-apply", planFile)
	if r.code != 1 || !strings.Contains(r.stderr, "modified") {
		t.Fatalf("tampered plan: want exit 1 naming the modification\n%s", r)
	}
	if l.Sims["n5k-1"].Switch().RunningConfig() != before {
		t.Fatal("a tampered plan changed a switch")
	}
}

// The canary fails (the switch rejects a command): it is rolled back to
// exactly its previous config and nothing else is touched.
func TestCanaryFailureStopsRollout(t *testing.T) {
	l := startLab(t)
	canary := l.Sims["n5k-1"].Switch()
	before := canary.RunningConfig()
	other := l.Sims["n7k-1"].Switch().RunningConfig()
	gnmiBefore := map[string]string{}
	for name, s := range l.Targets {
		gnmiBefore[name] = s.Target().ConfigJSON()
	}
	canary.SetFaults(nxsim.Faults{RejectCommand: "system qos"})

	r := roce(t, l, "", "roce-apply", "-auto-approve", l.Dir)
	if r.code != 1 {
		t.Fatalf("want exit 1 after a failed canary\n%s", r)
	}
	if got := canary.RunningConfig(); got != before {
		t.Fatalf("canary not restored exactly:\n--- before\n%s\n--- after\n%s", before, got)
	}
	if l.Sims["n7k-1"].Switch().RunningConfig() != other {
		t.Fatal("a switch after the failed canary was changed")
	}
	for name, s := range l.Targets {
		if s.Target().ConfigJSON() != gnmiBefore[name] {
			t.Fatalf("gNMI switch %s was changed after the failed canary", name)
		}
	}
	if lab.IsRoot() {
		// The hosts were not touched either: they still need every change.
		for _, h := range []string{"h1", "h2", "h3", "h4"} {
			if r := roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", "host."+h, l.Dir); r.code != 2 {
				t.Fatalf("host.%s was changed after the failed canary\n%s", h, r)
			}
		}
	}
	out := r.stdout
	for _, want := range []string{"switch.n5k-1", "rolled back", "untouched"} {
		if !strings.Contains(strings.ToLower(out), strings.ToLower(want)) {
			t.Errorf("summary lacks %q\n%s", want, r)
		}
	}
}

// Two applies on one fabric: the second is refused while the first holds
// the lock, and waits for it with -lock-timeout.
func TestConcurrentApplyIsLocked(t *testing.T) {
	l := startLab(t)
	lock, err := plan.AcquireLock(context.Background(), filepath.Join(l.Dir, ".roce", "apply.lock"), 0, "test pipeline A")
	if err != nil {
		t.Fatal(err)
	}
	r := roce(t, l, "", "roce-apply", "-auto-approve", l.Dir)
	if r.code != 1 || !strings.Contains(r.stderr, "test pipeline A") {
		t.Fatalf("second apply should be refused naming the holder\n%s", r)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		lock.Release()
	}()
	r = roce(t, l, "", "roce-apply", "-auto-approve", "-lock-timeout", "30s", l.Dir)
	if r.code != 0 {
		t.Fatalf("apply waiting for the lock should succeed\n%s", r)
	}
}

// Exit codes a pipeline relies on.
func TestExitCodes(t *testing.T) {
	l := startLab(t)
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "main.hcl"), []byte("lossless \"x\" {\n  priority = 9\n  cos = [9]\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := roce(t, l, "", "roce-plan", bad)
	if r.code != 1 || !strings.Contains(r.stderr, "main.hcl line 2") || !strings.Contains(r.stderr, "priority = 9 is outside 0-7") {
		t.Fatalf("invalid policy: want exit 1 with file:line\n%s", r)
	}
	r = roce(t, l, "no\n", "roce-apply", l.Dir)
	if r.code != 1 || !strings.Contains(r.stdout, "cancelled") {
		t.Fatalf("answering no: want exit 1 and nothing applied\n%s", r)
	}
	if r := roce(t, l, "", "roce-plan", "-detailed-exitcode", l.Dir); r.code != 2 {
		t.Fatalf("after a cancelled apply the plan must still have changes\n%s", r)
	}
	r = roce(t, l, "", "roce-plan", "-target", "switch.nope", l.Dir)
	if r.code != 1 || !strings.Contains(r.stderr, "switch.nope") {
		t.Fatalf("unknown -target\n%s", r)
	}
}

// A lab without namespaces (what a user without root gets) runs simulated
// hosts, emulated end to end: they plan, apply and converge like the rest.
func TestSimulatedHostsConverge(t *testing.T) {
	dir := labCopy(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := lab.Up(ctx, dir, lab.Options{Hosts: false})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	hosts := []string{"-target", "host.h1", "-target", "host.h2", "-target", "host.h3", "-target", "host.h4"}
	r := roce(t, l, "", "roce-plan", append(hosts, "-detailed-exitcode", l.Dir)...)
	if r.code != 2 || !strings.Contains(r.stdout, "nic.eth0.pfc") {
		t.Fatalf("simulated hosts: want their changes planned\n%s", r)
	}
	if r := roce(t, l, "", "roce-apply", append(hosts, "-auto-approve", l.Dir)...); r.code != 0 {
		t.Fatalf("simulated hosts: apply\n%s", r)
	}
	if r := roce(t, l, "", "roce-plan", append(hosts, "-detailed-exitcode", l.Dir)...); r.code != 0 {
		t.Fatalf("simulated hosts: the second plan must be empty\n%s", r)
	}
}
