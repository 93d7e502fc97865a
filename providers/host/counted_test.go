package host

import (
	"context"
	"testing"

	"github.com/rocefabric/roce/plan"
)

// TestInProcessCounted: every agent call of plan and apply is counted, and
// the counted factory refuses what NewInProcess refuses.
func TestInProcessCounted(t *testing.T) {
	fab, h := inProcessHost(t, true)
	var c CallCounter
	tg, err := NewInProcessCounted(&c)(plan.Env{Fabric: fab}, h)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx := context.Background()
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	afterPlan := c.Calls()
	if afterPlan < 1 {
		t.Fatalf("plan made %d counted agent calls, want at least 1", afterPlan)
	}
	if res, err := tg.Apply(ctx, tp); err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply: %+v %v", res, err)
	}
	if c.Calls() <= afterPlan {
		t.Errorf("apply made no counted agent call (%d before, %d after)", afterPlan, c.Calls())
	}

	_, unseeded := inProcessHost(t, false)
	if _, err := NewInProcessCounted(&c)(plan.Env{Fabric: fab}, unseeded); err == nil {
		t.Error("the counted factory accepted a root that is not an emulated lab root")
	}
}
