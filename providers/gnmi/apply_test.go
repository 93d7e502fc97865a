package gnmi_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// A Set the target refuses leaves it unchanged, and the result says so
// with the gNMI status.
func TestRejectedSetLeavesTargetUnchanged(t *testing.T) {
	for _, profile := range []string{"arista", "sonic"} {
		t.Run(profile, func(t *testing.T) {
			reject := "/qos/queues"
			if profile == "sonic" {
				reject = "/CONFIG_DB/localhost/PORT_QOS_MAP"
			}
			l := newLab(t, gnmisim.Options{Profile: profile, Faults: gnmisim.Faults{RejectPath: reject}}, dscpClass())
			tg := l.target(t, gnmi.Options{})
			ctx := ctxT(t)
			before := l.sim.ConfigJSON()
			tp, err := tg.Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			res, err := tg.Apply(ctx, tp)
			if err == nil || res.Status != plan.StatusRolledBack {
				t.Fatalf("apply: status %s err %v; want rolled-back with an error", res.Status, err)
			}
			if !strings.Contains(res.Error, "Aborted") {
				t.Errorf("error %q should carry the gNMI status Aborted", res.Error)
			}
			if after := l.sim.ConfigJSON(); after != before {
				t.Errorf("target changed by a refused Set:\nbefore %s\nafter %s", before, after)
			}
		})
	}
}

// A commit that is never confirmed (the connection drops right after the
// Set) is rolled back by the target's timer.
func TestCommitNeverConfirmedRollsBack(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "srlinux", CommitConfirm: true, Faults: gnmisim.Faults{DropAfterSets: 1}}, cosClass())
	tg := l.target(t, gnmi.Options{CommitConfirm: gnmi.CommitOn, CommitRollback: 200 * time.Millisecond})
	ctx := ctxT(t)
	before := l.sim.ConfigJSON()
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tg.Apply(ctx, tp)
	if err == nil || res.Status != plan.StatusFailed {
		t.Fatalf("apply: status %s err %v; want failed (the confirm cannot reach the target)", res.Status, err)
	}
	if !strings.Contains(res.Error, "rolls back by itself") {
		t.Errorf("error should say the target rolls back on its own: %s", res.Error)
	}
	if l.sim.ConfigJSON() == before && !l.sim.CommitPending() {
		t.Fatal("the Set was never applied; the test proves nothing")
	}
	deadline := time.Now().Add(10 * time.Second)
	for l.sim.CommitPending() || l.sim.ConfigJSON() != before {
		if time.Now().After(deadline) {
			t.Fatalf("target did not roll back the unconfirmed commit:\n%s", l.sim.ConfigJSON())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// When the re-Get after Set does not show the plan, the commit is cancelled
// (or, without commit-confirmed, a compensating Set is sent) and the target
// is proven back at its pre-apply state.
func TestVerifyMismatchRollsBack(t *testing.T) {
	cases := []struct {
		profile string
		commit  bool
		ignore  string
		class   *policies.Lossless
	}{
		{"srlinux", true, "/qos/interfaces", cosClass()},
		{"arista", false, "/qos/interfaces", dscpClass()},
		{"sonic", false, "/CONFIG_DB/localhost/PORT_QOS_MAP", dscpClass()},
	}
	for _, tc := range cases {
		t.Run(tc.profile, func(t *testing.T) {
			l := newLab(t, gnmisim.Options{Profile: tc.profile, CommitConfirm: tc.commit, Faults: gnmisim.Faults{IgnorePath: tc.ignore}}, tc.class)
			tg := l.target(t, gnmi.Options{CommitConfirm: commitMode(tc.commit)})
			ctx := ctxT(t)
			before := l.sim.ConfigJSON()
			tp, err := tg.Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			res, err := tg.Apply(ctx, tp)
			if err == nil || res.Status != plan.StatusRolledBack {
				t.Fatalf("apply: status %s err %v transcript %+v; want rolled-back", res.Status, err, res.Transcript)
			}
			if !strings.Contains(res.Error, "does not show the planned state") {
				t.Errorf("error should explain the verify failure: %s", res.Error)
			}
			if after := l.sim.ConfigJSON(); after != before {
				t.Errorf("target not restored:\nbefore %s\nafter %s", before, after)
			}
			wantStep := "compensating Set"
			if tc.commit {
				wantStep = "cancel "
			}
			found := false
			for _, x := range res.Transcript {
				if strings.HasPrefix(x.Command, wantStep) && !x.Failed {
					found = true
				}
			}
			if !found {
				t.Errorf("transcript lacks a successful %q step: %+v", wantStep, res.Transcript)
			}
		})
	}
}

// A change on the device between plan and apply makes the plan stale.
func TestStalePlanRefused(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "arista"}, dscpClass())
	tg := l.target(t, gnmi.Options{})
	ctx := ctxT(t)
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.sim.Seed("/interfaces/interface[name=Ethernet1]/config/mtu", "1600"); err != nil {
		t.Fatal(err)
	}
	res, err := tg.Apply(ctx, tp)
	if !errors.Is(err, plan.ErrStale) || res.Status != plan.StatusStale {
		t.Fatalf("apply: status %s err %v; want stale", res.Status, err)
	}
	if n := len(l.sim.SetRequests()); n != 0 {
		t.Errorf("%d SetRequests sent for a stale plan", n)
	}
}

// Foreign entries stay; removing a class deletes only what was ours.
func TestOwnershipForeignKeptRemovedClassDeleted(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "arista"}, dscpClass(), cosClass())
	if err := l.sim.Seed("/qos/queues/queue[name=MGMT]", `{"name":"MGMT","config":{"name":"MGMT"}}`); err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	planApply(ctx, t, l.target(t, gnmi.Options{}))
	// Drop the cos class from the policy.
	l.fabric.Lossless = l.fabric.Lossless[:1]
	tg2 := l.target(t, gnmi.Options{})
	tp2, err := tg2.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var deleted []string
	for _, op := range tp2.Ops {
		if op.Op == "delete" {
			deleted = append(deleted, op.Path)
		}
		if strings.Contains(op.Path, "MGMT") {
			t.Errorf("plan touches the foreign queue: %+v", op)
		}
	}
	want := []string{"/qos/forwarding-groups/forwarding-group[name=ROCE-cos3]", "/qos/queues/queue[name=ROCE-cos3]"}
	if strings.Join(deleted, " ") != strings.Join(want, " ") {
		t.Errorf("deletes = %v, want %v", deleted, want)
	}
	// The no-drop bitmap narrows to priority 3 only: still 08 (both classes
	// used priority 3), so no interface change is expected beyond deletes.
	if res, err := tg2.Apply(ctx, tp2); err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply removal: %s %v", res.Status, err)
	}
	if !strings.Contains(l.sim.ConfigJSON(), `"MGMT"`) {
		t.Error("foreign queue MGMT was removed")
	}
	if strings.Contains(l.sim.ConfigJSON(), "ROCE-cos3") {
		t.Error("removed class still on the target")
	}
}

// A switch whose policy no longer carries any class gets our leftovers
// removed — on plain openconfig too — and nothing else.
func TestOpenConfigCleanupOnly(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "openconfig"})
	for _, s := range [][2]string{
		{"/qos/queues/queue[name=ROCE-old]", `{"name":"ROCE-old","config":{"name":"ROCE-old","queue-id":3}}`},
		{"/qos/queues/queue[name=BE]", `{"name":"BE","config":{"name":"BE","queue-id":0}}`},
	} {
		if err := l.sim.Seed(s[0], s[1]); err != nil {
			t.Fatal(err)
		}
	}
	tg := l.target(t, gnmi.Options{})
	ctx := ctxT(t)
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.Ops) != 1 || tp.Ops[0].Op != "delete" || tp.Ops[0].Path != "/qos/queues/queue[name=ROCE-old]" {
		t.Fatalf("ops = %s, want one delete of ROCE-old", opsJSON(tp.Ops))
	}
	if res, err := tg.Apply(ctx, tp); err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply: %s %v", res.Status, err)
	}
	cfg := l.sim.ConfigJSON()
	if strings.Contains(cfg, "ROCE-old") || !strings.Contains(cfg, `"BE"`) {
		t.Errorf("after cleanup: %s", cfg)
	}
}

// The human diff names full leaf paths with old and new values.
func TestLeafDiffLines(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "sonic"}, dscpClass())
	tg := l.target(t, gnmi.Options{})
	ctx := ctxT(t)
	planApply(ctx, t, tg)
	// roce adds its priority to pfc_enable and keeps the others (issue 16).
	if err := l.sim.Seed("/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet0/pfc_enable", `"4"`); err != nil {
		t.Fatal(err)
	}
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.Changes) != 1 {
		t.Fatalf("want one change, got %+v", tp.Changes)
	}
	c := tp.Changes[0]
	want := `m /CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet0/pfc_enable: "4" -> "3,4"`
	if c.Note != want || c.Address != "sonic-db:/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet0" || c.Action != plan.ActionUpdate || c.Disrupt != plan.DisruptionLink {
		t.Errorf("change = %+v\nwant note %q", c, want)
	}
}
