package gnmi_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// A saved plan whose ops are not what the policy renders against the same
// device state is refused, and nothing reaches the target: the ops of a
// plan are sent only as the policy would write them.
func TestTamperedPlanRefused(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(tp *plan.TargetPlan)
		want   string
	}{
		{"extra path", func(tp *plan.TargetPlan) {
			tp.Ops = append(tp.Ops, plan.Op{Op: "update", Path: "/interfaces/interface[name=Ethernet9]/config/mtu", Value: json.RawMessage(`1500`)})
		}, "the first extra is update /interfaces/interface[name=Ethernet9]/config/mtu"},
		{"changed value", func(tp *plan.TargetPlan) {
			for i, op := range tp.Ops {
				if op.Path == "/interfaces/interface[name=Ethernet1]" {
					tp.Ops[i].Value = json.RawMessage(`{"config":{"mtu":1500},"name":"Ethernet1"}`)
				}
			}
		}, "update /interfaces/interface[name=Ethernet1]: the plan's value differs"},
		{"changed path", func(tp *plan.TargetPlan) {
			tp.Ops[0].Path = strings.Replace(tp.Ops[0].Path, "ROCE-rocev2", "MGMT", 1)
		}, "op 1: the plan has replace /qos/"},
		{"dropped op", func(tp *plan.TargetPlan) { tp.Ops = tp.Ops[1:] }, "op 1: the plan has"},
		{"changed origin", func(tp *plan.TargetPlan) { tp.Ops[0].Origin = "eos_native" }, "the plan has replace eos_native:/qos/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newLab(t, gnmisim.Options{Profile: "arista", CommitConfirm: true}, dscpClass())
			ctx := ctxT(t)
			before := l.sim.ConfigJSON()
			tp, err := l.target(t, gnmi.Options{}).Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			saved := savedCopy(t, tp)
			tc.tamper(saved)
			res, err := l.target(t, gnmi.Options{}).Apply(ctx, saved)
			if err == nil || res.Status != plan.StatusRefused {
				t.Fatalf("apply tampered plan: status %s err %v; want refused", res.Status, err)
			}
			for _, w := range []string{"switch.leaf1: the plan's operations are not what the policy renders now", tc.want, "nothing was sent; re-run roce-plan"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if n := len(l.sim.SetRequests()); n != 0 {
				t.Errorf("%d SetRequests reached the target for a tampered plan", n)
			}
			if l.sim.ConfigJSON() != before {
				t.Error("the target changed")
			}
			// The untampered plan still applies.
			if res, err := l.target(t, gnmi.Options{}).Apply(ctx, savedCopy(t, tp)); err != nil || res.Status != plan.StatusApplied {
				t.Fatalf("apply the reviewed plan: %s %v", res.Status, err)
			}
		})
	}
}

// A policy changed between plan and apply (same device state) renders
// other ops: the reviewed plan is refused, not sent.
func TestPolicyChangedSincePlanRefused(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "sonic"}, dscpClass())
	ctx := ctxT(t)
	tp, err := l.target(t, gnmi.Options{}).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l.fabric.Lossless[0].MTU = 4200
	res, err := l.target(t, gnmi.Options{}).Apply(ctx, savedCopy(t, tp))
	if err == nil || res.Status != plan.StatusRefused || !strings.Contains(err.Error(), "not what the policy renders now") {
		t.Fatalf("apply: status %s err %v; want refused", res.Status, err)
	}
	if n := len(l.sim.SetRequests()); n != 0 {
		t.Errorf("%d SetRequests sent", n)
	}
}

// A plan made with other gNMI settings (here the commit-confirmed rollback
// timer, which changes no op) is refused: the plan records the settings it
// was reviewed with.
func TestSettingsChangedSincePlanRefused(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "srlinux", CommitConfirm: true}, noECN(cosClass()))
	ctx := ctxT(t)
	l.sw.GNMI = &policies.GNMISettings{CommitRollback: 2 * time.Minute}
	tp, err := l.target(t, gnmi.Options{}).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := tp.Facts["setting.commit_rollback"]; got != "2m0s" {
		t.Fatalf("setting.commit_rollback = %q", got)
	}
	l.sw.GNMI = &policies.GNMISettings{CommitRollback: 10 * time.Minute}
	res, err := l.target(t, gnmi.Options{}).Apply(ctx, savedCopy(t, tp))
	if err == nil || res.Status != plan.StatusRefused || !strings.Contains(err.Error(), `commit_rollback: plan "2m0s", now "10m0s"`) {
		t.Fatalf("apply: status %s err %v; want refused naming commit_rollback", res.Status, err)
	}
	if n := len(l.sim.SetRequests()); n != 0 {
		t.Errorf("%d SetRequests sent", n)
	}
}

// savedCopy round-trips a plan through its saved JSON form, as roce-plan
// -out and roce-apply do.
func savedCopy(t *testing.T, tp *plan.TargetPlan) *plan.TargetPlan {
	t.Helper()
	b, err := json.MarshalIndent(tp, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var out plan.TargetPlan
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}
