package nxos

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
)

func TestParseCheckpointSummary(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      []string
	}{
		{"empty table", "User Checkpoint Summary\n", nil},
		{"one (a real Nexus 5000's answer)", "User Checkpoint Summary\n1) test:\nCreated by admin\nCreated at Mon, 07:37:22 29 Sep 2014\nSize is 5,824 bytes\nDescription: \"testing_purpose\"\n", []string{"test"}},
		{"two, CRLF", "User Checkpoint Summary\r\n1) roce-20261124T021305Z-3fa9c1:\r\nCreated by admin\r\n\r\n2) ops-1:\r\nCreated by bob\r\n", []string{"roce-20261124T021305Z-3fa9c1", "ops-1"}},
		{"system checkpoints are not user checkpoints", "User Checkpoint Summary\n1) a:\nCreated by admin\n\nSystem Checkpoint Summary\n1) system-fm-vrrp:\nCreated by admin\n", []string{"a"}},
		{"a description that looks like an entry is not one", "User Checkpoint Summary\n1) a:\nDescription: \"2) b:\"\n", []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := parseCheckpointSummary(tc.out)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzParseCheckpointSummary(f *testing.F) {
	f.Add("User Checkpoint Summary\n1) test:\nCreated by admin\n")
	f.Add("1) a:\n2) b:\n")
	f.Fuzz(func(t *testing.T, out string) {
		for _, n := range parseCheckpointSummary(out) {
			if n == "" || strings.ContainsAny(n, " \t\r\n") {
				t.Fatalf("name %q from %q", n, out)
			}
		}
	})
}

// roce deletes only checkpoints whose names it could have made.
func TestRoceCheckpointNames(t *testing.T) {
	for name, ours := range map[string]bool{
		"roce-20261124T021305Z-3fa9c1":   true,
		"roce-20261124T021305Z-3fa9c1x":  false,
		"roce-20261124T021305Z-3FA9C1":   false,
		"roce-backup":                    false,
		"ROCE-20261124T021305Z-3fa9c1":   false,
		"ops-roce-20261124T021305Z-3fa9": false,
		"user-checkpoint-1":              false,
		"roce-20261324T021305Z-3fa9c1":   false, // month 13
	} {
		if _, ok := roceCheckpointTime(name); ok != ours {
			t.Errorf("%s: ours = %v, want %v", name, ok, ours)
		}
	}
	r := newRig(t, rigOpts{kind: "nexus5000", start: "empty"})
	if _, ok := roceCheckpointTime(r.target.checkpointName()); !ok {
		t.Fatal("the names roce makes are not recognised as roce's")
	}
}

func roceName(at time.Time) string { return "roce-" + at.UTC().Format("20060102T150405Z") + "-0a0b0c" }

// Before creating its checkpoint an apply deletes roce checkpoints left by
// killed runs (older than the stale age), never anyone else's, and backs
// off from a fresh one (another apply at work).
func TestCheckpointHygiene(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus5000", start: "empty"})
	sw := r.srv.Switch()
	before := sw.RunningConfig()
	tp := r.plan(t)
	old, fresh := roceName(time.Now().Add(-time.Hour)), roceName(time.Now().Add(-time.Minute))
	for _, n := range []string{"ops-1", old, fresh} {
		if err := sw.CreateCheckpoint(n, "someone"); err != nil {
			t.Fatal(err)
		}
	}
	res, err := r.apply(t, tp)
	if res.Status != plan.StatusRefused || !errors.Is(err, errBusy) || !strings.Contains(res.Error, fresh) {
		t.Fatalf("a fresh roce checkpoint must refuse the apply: %s %v", res.Status, err)
	}
	if sw.RunningConfig() != before {
		t.Fatal("something was pushed while another apply's checkpoint was fresh")
	}
	// The same checkpoint, now older than the stale age.
	r.target.now = func() time.Time { return time.Now().Add(30 * time.Minute) }
	res, err = r.apply(t, tp)
	if err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply: %s %v\n%s", res.Status, err, transcriptText(res.Transcript))
	}
	if got := sw.Checkpoints(); strings.Join(got, ",") != "ops-1" {
		t.Fatalf("checkpoints after the apply: %v, want only the operator's", got)
	}
}

// A full table of someone else's checkpoints is refused before anything
// is pushed, with what to do.
func TestCheckpointTableFull(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus7000", start: "empty"})
	sw := r.srv.Switch()
	before := sw.RunningConfig()
	for i := 0; i < maxCheckpoints; i++ {
		if err := sw.CreateCheckpoint("ops-"+string(rune('a'+i)), "bob"); err != nil {
			t.Fatal(err)
		}
	}
	res, err := r.apply(t, r.plan(t))
	if err == nil || res.Status != plan.StatusFailed || !strings.Contains(res.Error, "the NX-OS maximum") || !strings.Contains(res.Error, "nothing was sent") {
		t.Fatalf("a full table: %s %v", res.Status, err)
	}
	if sw.RunningConfig() != before || len(sw.Checkpoints()) != maxCheckpoints {
		t.Fatal("the switch changed although the checkpoint table was full")
	}
}

// An operator edits the switch during the apply, then a line is refused:
// a checkpoint rollback would erase the operator's edit too, so roce does
// not roll back, keeps the checkpoint and says why — never "identical".
func TestRollbackDoesNotEraseOthersEdits(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus5000", start: "empty", faults: nxsim.Faults{Latency: 15 * time.Millisecond}})
	sw := r.srv.Switch()
	tp := r.plan(t)
	sw.SetFaults(nxsim.Faults{Latency: 15 * time.Millisecond, RejectCommand: strings.TrimSpace(tp.Commands[len(tp.Commands)-1])})
	edited := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			// Once the push has begun (a ROCE- object exists).
			if strings.Contains(sw.RunningConfig(), "ROCE") {
				edited <- sw.Configure("ip access-list OPS-MGMT", "10 permit ip 10.9.0.0/16 any")
				return
			}
			time.Sleep(time.Millisecond)
		}
		edited <- errors.New("the push never began")
	}()
	res, err := r.apply(t, tp)
	if e := <-edited; e != nil {
		t.Fatal(e)
	}
	if err == nil || res.Status != plan.StatusFailed || !strings.Contains(res.Error, "NOT rolled back") || !strings.Contains(res.Error, "OPS-MGMT") || strings.Contains(res.Error, "identical") {
		t.Fatalf("status %s, error %v\n%s", res.Status, err, transcriptText(res.Transcript))
	}
	if !strings.Contains(sw.RunningConfig(), "ip access-list OPS-MGMT") {
		t.Fatal("the operator's edit was erased")
	}
	if len(sw.Checkpoints()) != 1 {
		t.Fatalf("the checkpoint must be kept for the operator: %v", sw.Checkpoints())
	}
}

// Recover decides from the switch: fully applied, exactly as before, or
// in between with the recorded checkpoint (rolled back atomically).
func TestRecover(t *testing.T) {
	for _, tc := range []struct {
		name string
		// prepare returns the journal steps of the interrupted run.
		prepare func(t *testing.T, r *rig, tp *plan.TargetPlan) []plan.JournalStep
		want    string
		applied bool // the switch must end as planned (else as before)
		errHas  string
	}{
		{"killed before the checkpoint", func(t *testing.T, r *rig, tp *plan.TargetPlan) []plan.JournalStep {
			return nil
		}, plan.StatusRolledBack, false, "nothing had been sent"},
		{"killed after the checkpoint, before the push", func(t *testing.T, r *rig, tp *plan.TargetPlan) []plan.JournalStep {
			return checkpointStep(t, r)
		}, plan.StatusRolledBack, false, "exactly as before"},
		{"killed half-way through the push", func(t *testing.T, r *rig, tp *plan.TargetPlan) []plan.JournalStep {
			steps := checkpointStep(t, r)
			applyByHand(t, r, tp.Commands[:len(tp.Commands)/2])
			return steps
		}, plan.StatusRolledBack, false, "rolled back to checkpoint"},
		{"killed after the push", func(t *testing.T, r *rig, tp *plan.TargetPlan) []plan.JournalStep {
			steps := checkpointStep(t, r)
			applyByHand(t, r, tp.Commands)
			return steps
		}, plan.StatusApplied, true, ""},
		{"half-way, and the checkpoint is gone", func(t *testing.T, r *rig, tp *plan.TargetPlan) []plan.JournalStep {
			steps := []plan.JournalStep{{Step: stepCheckpoint, Detail: map[string]string{stepCheckpoint: roceName(time.Now())}}}
			applyByHand(t, r, tp.Commands[:len(tp.Commands)/2])
			return steps
		}, plan.StatusFailed, false, "is gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{kind: "nexus5000", start: "fcoe-defaults"})
			sw := r.srv.Switch()
			before := sw.RunningConfig()
			tp := r.plan(t)
			steps := tc.prepare(t, r, tp)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := r.target.Recover(ctx, &plan.JournalEntry{Address: tp.Address, Kind: tp.Kind, Target: tp, Steps: steps})
			if res.Status != tc.want {
				t.Fatalf("status %s (%v), want %s\n%s", res.Status, err, tc.want, transcriptText(res.Transcript))
			}
			if tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)) {
				t.Fatalf("error %v lacks %q", err, tc.errHas)
			}
			if tc.want == plan.StatusFailed {
				return
			}
			if got := sw.RunningConfig(); tc.applied == (got == before) {
				t.Fatalf("the switch is not %s", map[bool]string{true: "as planned", false: "as before"}[tc.applied])
			}
			for _, n := range sw.Checkpoints() {
				if strings.HasPrefix(n, "roce-") {
					t.Fatalf("checkpoint %s left after recovery", n)
				}
			}
		})
	}
}

// checkpointStep creates a roce checkpoint on the rig's switch as the
// interrupted run would have, and returns the journal step naming it.
func checkpointStep(t *testing.T, r *rig) []plan.JournalStep {
	t.Helper()
	name := r.target.checkpointName()
	if err := r.srv.Switch().CreateCheckpoint(name, "netops"); err != nil {
		t.Fatal(err)
	}
	return []plan.JournalStep{{Step: stepCheckpoint, Detail: map[string]string{stepCheckpoint: name}}}
}
