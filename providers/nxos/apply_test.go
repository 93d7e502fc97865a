package nxos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
)

// TestApplyThenPlanIsEmpty applies onto each starting config of both
// platforms over real SSH, then requires a second plan to be empty, the
// transaction to have used and removed its checkpoint, and nothing
// foreign to have changed.
func TestApplyThenPlanIsEmpty(t *testing.T) {
	cases := []struct{ kind, start, mode string }{
		{"nexus5000", "empty", "cos"},
		{"nexus5000", "empty", "udp_port"},
		{"nexus5000", "fcoe-defaults", "cos"},
		{"nexus5000", "ours-earlier", "cos"},
		{"nexus5000", "foreign", "udp_port"},
		{"nexus5000", "realistic", "cos5"}, // CoS 4 is VMOTION's there: refused as an overlap (nexus/overlap_test.go)
		{"nexus7000", "empty", "cos"},
		{"nexus7000", "fcoe-defaults", "cos"},
		{"nexus7000", "ours-earlier", "cos"},
		{"nexus7000", "foreign", "udp_port"},
		// MARK-IN on Ethernet2/2 re-marks DSCP 18,20,22 to CoS 2: a cos class
		// is refused (its RoCE packets can carry those DSCPs,
		// overlap_realistic7000_test.go); RoCE marked DSCP 26 is left alone.
		{"nexus7000", "realistic", "udp_dscp26"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%s/%s", tc.kind, tc.start, tc.mode), func(t *testing.T) {
			r := newRig(t, rigOpts{kind: tc.kind, start: tc.start, mode: tc.mode})
			foreign := foreignObjects(t, r.srv.Switch().RunningConfig())
			tp := r.plan(t)
			if !tp.HasChanges() || len(tp.Commands) == 0 {
				t.Fatalf("first plan has no changes")
			}
			if tp.Facts["os"] == "" || tp.Facts["platform"] == "" {
				t.Errorf("facts missing: %v", tp.Facts)
			}
			res, err := r.apply(t, tp)
			if err != nil || res.Status != plan.StatusApplied {
				t.Fatalf("apply: status %s, err %v\n%s", res.Status, err, transcriptText(res.Transcript))
			}
			if !strings.HasPrefix(findCommand(res.Transcript, "checkpoint roce-"), "checkpoint roce-") ||
				findCommand(res.Transcript, "no checkpoint roce-") == "" {
				t.Errorf("transcript lacks the checkpoint and its removal:\n%s", transcriptText(res.Transcript))
			}
			if cps := r.srv.Switch().Checkpoints(); len(cps) != 0 {
				t.Errorf("checkpoints left on the switch: %v", cps)
			}
			final := r.srv.Switch().RunningConfig()
			for _, o := range foreign {
				if !strings.Contains(final, o) {
					t.Errorf("foreign object changed or removed:\n%s", o)
				}
			}
			again := r.plan(t)
			if again.HasChanges() {
				t.Errorf("second plan not empty: %v\n%s", again.Commands, r.srv.Switch().RunningConfig())
			}
			if again.Fingerprint == tp.Fingerprint {
				t.Error("fingerprint did not move although the config changed")
			}
			res, err = r.apply(t, again)
			if err != nil || res.Status != plan.StatusUnchanged {
				t.Errorf("empty apply: %s %v", res.Status, err)
			}
		})
	}
}

// foreignObjects are the top-level blocks we must keep byte-identical:
// everything except our ROCE- objects, system qos and interfaces (which
// we extend).
func foreignObjects(t *testing.T, running string) []string {
	t.Helper()
	cfg, err := nexus.Parse(running)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range cfg.Objects {
		if o.Kind == nexus.KindSystemQoS || o.Kind == nexus.KindInterface || strings.HasPrefix(o.Name, "ROCE-") {
			continue
		}
		out = append(out, o.String())
	}
	return out
}

func findCommand(ex []plan.Exchange, prefix string) string {
	for _, e := range ex {
		if strings.HasPrefix(e.Command, prefix) {
			return e.Command
		}
	}
	return ""
}

// TestRejectedCommandRollsBack rejects a line in the middle of the script:
// the apply must report rolled-back and leave the running config
// byte-identical to before.
func TestRejectedCommandRollsBack(t *testing.T) {
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		t.Run(kind, func(t *testing.T) {
			r := newRig(t, rigOpts{kind: kind, start: "fcoe-defaults"})
			tp := r.plan(t)
			bad := strings.TrimSpace(tp.Commands[len(tp.Commands)/2])
			res, err := r.applyRejecting(t, tp, bad)
			if !strings.Contains(err.Error(), bad) {
				t.Errorf("error does not name the refused line %q: %v", bad, err)
			}
			if findCommand(res.Transcript, "rollback running-config checkpoint roce-") == "" {
				t.Errorf("no rollback in the transcript")
			}
		})
	}
}

// TestDropAfterEveryLine drops the connection after each possible number
// of configuration lines (the script with any policy-map headers the
// pipelined push writes again, then the `end` that leaves configuration
// mode, then never): every time the switch must end either byte-identical
// to before or exactly as planned.
func TestDropAfterEveryLine(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite skipped in -short mode")
	}
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		t.Run(kind, func(t *testing.T) {
			probe := newRig(t, rigOpts{kind: kind, start: "empty"})
			n := len(probe.plan(t).Commands)
			applied := false
			for drop := 1; !applied && drop <= 2*n+4; drop++ {
				r := newRig(t, rigOpts{kind: kind, start: "empty"})
				tp := r.plan(t)
				before := r.srv.Switch().RunningConfig()
				r.srv.Switch().SetFaults(nxsim.Faults{DropAfterConfigLines: drop})
				res, err := r.apply(t, tp)
				after := r.srv.Switch().RunningConfig()
				r.srv.Switch().SetFaults(nxsim.Faults{})
				switch {
				case after == before:
					if res.Status != plan.StatusRolledBack || err == nil {
						t.Errorf("drop %d: config restored but status %s err %v", drop, res.Status, err)
					}
				default:
					if again := r.plan(t); again.HasChanges() {
						t.Fatalf("drop %d: switch left in between (status %s, err %v):\n%s\nremaining: %v",
							drop, res.Status, err, after, again.Commands)
					}
					if res.Status != plan.StatusApplied {
						t.Errorf("drop %d: fully applied but status %s", drop, res.Status)
					}
					applied = true
				}
				if drop <= n && res.Status != plan.StatusRolledBack {
					t.Errorf("drop %d of %d: status %s, want rolled-back", drop, n, res.Status)
				}
			}
			if !applied {
				t.Errorf("no drop position let the apply through: the sweep ends before the push does")
			}
		})
	}
}

// TestStalePlan changes the switch between plan and apply: apply must
// refuse with ErrStale and send no configuration.
func TestStalePlan(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus5000", start: "empty"})
	tp := r.plan(t)
	// Another operator edits the switch.
	applyByHand(t, r, []string{"interface Ethernet1/1", "priority-flow-control mode off"})
	edited := r.srv.Switch().RunningConfig()
	res, err := r.apply(t, tp)
	if !errors.Is(err, plan.ErrStale) || res.Status != plan.StatusStale {
		t.Fatalf("status %s err %v, want stale", res.Status, err)
	}
	if findCommand(res.Transcript, "checkpoint") != "" || findCommand(res.Transcript, "configure") != "" {
		t.Errorf("a stale apply sent changes:\n%s", transcriptText(res.Transcript))
	}
	if r.srv.Switch().RunningConfig() != edited {
		t.Error("the switch changed during a stale apply")
	}
}

// TestStallMidApplyRollsBack: a configuration line that is never answered
// times out; the provider reconnects and rolls back.
func TestStallMidApplyRollsBack(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus5000", start: "fcoe-defaults"})
	r.target.opTimeout = time.Second
	tp := r.plan(t)
	before := r.srv.Switch().RunningConfig()
	r.srv.Switch().SetFaults(nxsim.Faults{StallCommand: strings.TrimSpace(tp.Commands[2])})
	res, err := r.apply(t, tp)
	if res.Status != plan.StatusRolledBack || err == nil {
		t.Fatalf("status %s err %v\n%s", res.Status, err, transcriptText(res.Transcript))
	}
	if after := r.srv.Switch().RunningConfig(); after != before {
		t.Errorf("config changed after a stalled apply:\n%s", after)
	}
}

// TestWrongPassword: a refused login is reported with the switch's name
// and nothing is sent.
func TestWrongPassword(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus5000"})
	r.target.env.Getenv = func(string) (string, bool) { return "nope", true }
	_, err := r.target.Plan(context.Background())
	if err == nil || !strings.Contains(err.Error(), "switch.sw1") || !strings.Contains(err.Error(), "unable to authenticate") {
		t.Fatalf("err = %v", err)
	}
}

// TestPolicyChangedSincePlan: same switch state, but the policy now renders
// another script: apply refuses and sends nothing.
func TestPolicyChangedSincePlan(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus5000", start: "empty"})
	tp := r.plan(t)
	r.target.env.Fabric.Lossless[0].MTU = 4200
	res, err := r.apply(t, tp)
	if err == nil || res.Status != plan.StatusRefused || !strings.Contains(err.Error(), "re-run roce-plan") {
		t.Fatalf("status %s err %v", res.Status, err)
	}
	if findCommand(res.Transcript, "checkpoint") != "" {
		t.Error("changes were sent")
	}
}

// TestDropAfterEveryExchange drops the connection after each possible
// number of commands of the whole apply — the login's terminal settings,
// the re-read before apply, checkpoint, configure terminal, every line,
// end, the re-read after, no checkpoint, and on the way back rollback and
// its re-read — for one start state of each platform. Every time the
// switch must end byte-identical to before with status rolled-back, or
// exactly as planned with status applied, and no checkpoint of ours may be
// left behind.
func TestDropAfterEveryExchange(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite skipped in -short mode")
	}
	for _, tc := range []struct{ kind, start string }{
		{"nexus5000", "fcoe-defaults"},
		{"nexus7000", "empty"},
	} {
		t.Run(tc.kind+"/"+tc.start, func(t *testing.T) {
			// A clean apply counts the commands a drop can follow.
			probe := newRig(t, rigOpts{kind: tc.kind, start: tc.start})
			tp := probe.plan(t)
			probe.srv.Switch().SetFaults(nxsim.Faults{})
			if res, err := probe.apply(t, tp); err != nil {
				t.Fatalf("clean apply: %s %v", res.Status, err)
			}
			total := probe.srv.Switch().LinesHandled()
			if total < len(tp.Commands)+8 {
				t.Fatalf("a clean apply handled %d commands for %d lines: the count misses exchanges", total, len(tp.Commands))
			}
			seen := map[string]int{}
			for drop := 1; drop <= total+1; drop++ {
				r := newRig(t, rigOpts{kind: tc.kind, start: tc.start})
				tp := r.plan(t)
				before := r.srv.Switch().RunningConfig()
				r.srv.Switch().SetFaults(nxsim.Faults{DropAfterLines: drop})
				res, err := r.apply(t, tp)
				after := r.srv.Switch().RunningConfig()
				r.srv.Switch().SetFaults(nxsim.Faults{})
				seen[res.Status]++
				where := fmt.Sprintf("drop after command %d of %d", drop, total)
				switch {
				case after == before:
					if res.Status != plan.StatusRolledBack || err == nil {
						t.Errorf("%s: switch as before, but status %s (err %v)\n%s", where, res.Status, err, transcriptText(res.Transcript))
					}
				default:
					if again := r.plan(t); again.HasChanges() {
						t.Fatalf("%s: switch left in between (status %s, err %v): remaining %v\n%s", where, res.Status, err, again.Commands, transcriptText(res.Transcript))
					}
					if res.Status != plan.StatusApplied || err != nil {
						t.Errorf("%s: fully applied, but status %s (err %v)", where, res.Status, err)
					}
				}
				if cps := r.srv.Switch().Checkpoints(); len(cps) != 0 {
					t.Errorf("%s: status %s, checkpoints left on the switch: %v\n%s", where, res.Status, cps, transcriptText(res.Transcript))
				}
			}
			if seen[plan.StatusApplied] == 0 || seen[plan.StatusRolledBack] == 0 {
				t.Errorf("outcomes %v: the sweep should reach both", seen)
			}
		})
	}
}

// TestRollbackRefusedDecidesByTheConfig: when the switch refuses the
// rollback (the checkpoint was never taken, as when the session went while
// creating it), the configuration read afterwards decides: identical to
// before is rolled-back (nothing needed undoing), anything else failed.
func TestRollbackRefusedDecidesByTheConfig(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus5000", start: "empty"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dl, _, err := r.target.dialer()
	if err != nil {
		t.Fatal(err)
	}
	x := &txn{t: r.target, dl: dl, checkpoint: "roce-never-taken"}
	defer func() {
		for _, c := range x.conns {
			c.close()
		}
	}()
	c, err := x.open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if x.pre, err = r.target.readLive(c); err != nil {
		t.Fatal(err)
	}
	status, err := r.target.rollback(ctx, x, c, errors.New("lost while creating the checkpoint"))
	if status != plan.StatusRolledBack || err == nil || !strings.Contains(err.Error(), "identical to before (nothing needed undoing)") {
		t.Errorf("unchanged switch: status %s err %v, want rolled-back", status, err)
	}
	applyByHand(t, r, []string{"interface Ethernet1/1", "priority-flow-control mode off"})
	status, err = r.target.rollback(ctx, x, c, errors.New("lost mid-apply"))
	if status != plan.StatusFailed || err == nil || !strings.Contains(err.Error(), "then the rollback failed") || !strings.Contains(err.Error(), "roce-never-taken") {
		t.Errorf("changed switch: status %s err %v, want failed naming the checkpoint", status, err)
	}
}
