package host

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/plan"
)

// stepRecorder keeps what a target recorded; failAt makes Record fail for
// that step name.
type stepRecorder struct {
	steps  []plan.JournalStep
	failAt string
	// calls is the agent call count when each step was recorded.
	calls []int
	cr    *countingRunner
}

func (r *stepRecorder) Record(step string, detail map[string]string) error {
	if step == r.failAt {
		return errors.New("disk full")
	}
	r.steps = append(r.steps, plan.JournalStep{Step: step, Detail: detail})
	r.calls = append(r.calls, r.cr.calls)
	return nil
}

func countedInProcess(t *testing.T) (*Target, *countingRunner, *plan.TargetPlan) {
	t.Helper()
	fab, h := inProcessHost(t, true)
	tg, err := NewInProcess(plan.Env{Fabric: fab}, h)
	if err != nil {
		t.Fatal(err)
	}
	target := tg.(*Target)
	cr := &countingRunner{runner: target.client.r}
	target.client.r = cr
	tp, err := target.Plan(context.Background())
	if err != nil || !tp.HasChanges() {
		t.Fatalf("plan: %v %+v", err, tp)
	}
	return target, cr, tp
}

func TestApplyRecordsBeforeSendingAndItsOutcome(t *testing.T) {
	target, cr, tp := countedInProcess(t)
	rec := &stepRecorder{cr: cr}
	before := cr.calls
	res, err := target.Apply(plan.WithRecorder(context.Background(), rec), tp)
	if err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply: %+v %v", res, err)
	}
	if len(rec.steps) != 2 || rec.steps[0].Step != "agent-apply" || rec.steps[1].Step != "agent-outcome" {
		t.Fatalf("recorded %+v", rec.steps)
	}
	if rec.calls[0] != before || rec.calls[1] != before+1 {
		t.Errorf("agent calls when recording: %v (before apply %d): the request must be recorded before it is sent", rec.calls, before)
	}
	if got := rec.steps[1].Detail["status"]; got != plan.StatusApplied {
		t.Errorf("outcome status %q", got)
	}
	if rec.steps[0].Detail["fingerprint"] != tp.Fingerprint {
		t.Errorf("apply step detail %v", rec.steps[0].Detail)
	}
}

func TestApplySendsNothingWhenTheJournalFails(t *testing.T) {
	target, cr, tp := countedInProcess(t)
	rec := &stepRecorder{cr: cr, failAt: "agent-apply"}
	before := cr.calls
	res, err := target.Apply(plan.WithRecorder(context.Background(), rec), tp)
	if err == nil || res.Status != plan.StatusRefused || !strings.Contains(res.Error, "nothing was sent") {
		t.Fatalf("apply: %+v %v", res, err)
	}
	if cr.calls != before {
		t.Errorf("%d agent calls after the journal refused", cr.calls-before)
	}
}

// errKilled stands for the process dying at a pause point: the apply
// stops there, its transaction record stays on disk.
var errKilled = errors.New("killed")

// interruptApply runs the host's apply in this process and stops it at
// pause point n, as a SIGKILL would (cmd/roce-agent's kill tests do it
// with real processes).
func interruptApply(t *testing.T, root string, tp *plan.TargetPlan, n int) string {
	t.Helper()
	var desired nics.HostState
	if err := json.Unmarshal(tp.Payload, &desired); err != nil {
		t.Fatal(err)
	}
	sys, err := nics.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	seen, at := 0, ""
	func() {
		defer func() {
			if p := recover(); p != nil && p != errKilled {
				panic(p)
			}
		}()
		_, _ = sys.Apply(context.Background(), &desired, nics.ApplyOptions{Fingerprint: tp.Fingerprint, Hold: func(point string) {
			if seen++; seen == n {
				at = point
				panic(errKilled)
			}
		}})
	}()
	if at == "" {
		t.Fatalf("the apply has fewer than %d pause points", n)
	}
	return at
}

func TestInterruptedHostIsReportedRefusedAndRecovered(t *testing.T) {
	for _, tc := range []struct {
		name  string
		point int // pause point to stop at; -1 = the last one ("verified")
		want  string
	}{
		{"after the record", 1, plan.StatusRolledBack},
		{"mid-way", 6, plan.StatusRolledBack},
		{"after every step", -1, plan.StatusApplied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, _, tp := countedInProcess(t)
			root := target.h.Root
			n := tc.point
			if n < 0 {
				// Count the points of a full apply on a copy of the host.
				t2, _, tp2 := countedInProcess(t)
				sys, _ := nics.Open(t2.h.Root)
				var d nics.HostState
				_ = json.Unmarshal(tp2.Payload, &d)
				count := 0
				if _, err := sys.Apply(context.Background(), &d, nics.ApplyOptions{Fingerprint: tp2.Fingerprint, Hold: func(string) { count++ }}); err != nil {
					t.Fatal(err)
				}
				n = count
			}
			at := interruptApply(t, root, tp, n)
			ctx := context.Background()

			// plan: the interruption, not a diff.
			if _, err := target.Plan(ctx); !errors.Is(err, nics.ErrInterrupted) || !strings.Contains(err.Error(), "roce-apply -recover") {
				t.Fatalf("plan after a kill at %q: %v", at, err)
			}
			// apply: refused, nothing changed.
			res, err := target.Apply(ctx, tp)
			if !errors.Is(err, nics.ErrInterrupted) || res.Status != plan.StatusRefused {
				t.Fatalf("apply over the interrupted transaction: %+v %v", res, err)
			}
			// recover: consistent, and the engine's read-back agrees.
			res, err = target.Recover(ctx, &plan.JournalEntry{Address: target.Address(), Kind: "host", Target: tp,
				Steps: []plan.JournalStep{{Step: "agent-apply"}}})
			if err != nil || res.Status != tc.want {
				t.Fatalf("recover after a kill at %q: %+v %v, want %s", at, res, err, tc.want)
			}
			after, err := target.Plan(ctx)
			if err != nil {
				t.Fatalf("plan after recover: %v", err)
			}
			switch tc.want {
			case plan.StatusRolledBack:
				if after.Fingerprint != tp.Fingerprint {
					t.Errorf("rolled back, but the fingerprint %s is not the plan's %s", after.Fingerprint, tp.Fingerprint)
				}
			case plan.StatusApplied:
				if after.HasChanges() {
					t.Errorf("applied, but a fresh plan has %d changes", len(after.Changes))
				}
			}
			// And a second recover finds nothing to do.
			res, err = target.Recover(ctx, nil)
			if err != nil || res.Status != plan.StatusRolledBack || !strings.Contains(res.Error, "no unfinished transaction") {
				t.Errorf("second recover: %+v %v", res, err)
			}
		})
	}
}

// The host's own word counts as an interruption for the engine too: the
// error wraps plan.ErrInterrupted, whichever journal ran the apply.
func TestInterruptedHostErrorIsTheEnginesInterruption(t *testing.T) {
	target, _, tp := countedInProcess(t)
	interruptApply(t, target.h.Root, tp, 1)
	_, err := target.Plan(context.Background())
	if !errors.Is(err, plan.ErrInterrupted) || !errors.Is(err, nics.ErrInterrupted) {
		t.Fatalf("plan: %v", err)
	}
}
