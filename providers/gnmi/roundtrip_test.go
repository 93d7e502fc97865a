package gnmi_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// Each profile x each lossless mode it can express, through real gRPC+TLS:
// plan, apply, the SetRequest the target received equals the plan's ops
// byte for byte, and a second plan is empty.
func TestProfileModeRoundTrip(t *testing.T) {
	cases := []struct {
		profile string
		mode    string
		class   *policies.Lossless
		commit  bool
	}{
		{"arista", "dscp", dscpClass(), false},
		{"arista", "udp_port", udpClass(), false},
		{"arista", "cos", cosClass(), true},
		{"sonic", "dscp", dscpClass(), false},
		{"sonic", "udp_port", udpClass(), true},
		{"sonic", "cos", cosClass(), false},
		{"srlinux", "dscp", noECN(dscpClass()), true},
		{"srlinux", "udp_port", noECN(udpClass()), true},
		{"srlinux", "cos", cosClass(), false},
	}
	for _, tc := range cases {
		t.Run(tc.profile+"/"+tc.mode, func(t *testing.T) {
			l := newLab(t, gnmisim.Options{Profile: tc.profile, CommitConfirm: tc.commit}, tc.class)
			tg := l.target(t, gnmi.Options{CommitConfirm: commitMode(tc.commit)})
			ctx := ctxT(t)
			tp, err := tg.Plan(ctx)
			if err != nil {
				t.Fatalf("plan: %v", err)
			}
			if tp.Kind != "gnmi/"+tc.profile || !tp.HasChanges() || len(tp.Ops) == 0 {
				t.Fatalf("plan: kind %s, %d changes, %d ops; want gnmi/%s with changes", tp.Kind, len(tp.Changes), len(tp.Ops), tc.profile)
			}
			if got := tp.Facts["commit_confirmed"]; got != map[bool]string{true: "true", false: "false"}[tc.commit] {
				t.Errorf("facts commit_confirmed = %q, want %v", got, tc.commit)
			}
			checkOpOrder(t, tp.Ops)
			b, err := json.MarshalIndent(tp.Ops, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "ops/"+tc.profile+"-"+tc.mode+".json", append(b, '\n'))

			res, err := tg.Apply(ctx, tp)
			if err != nil || res.Status != plan.StatusApplied {
				t.Fatalf("apply: status %s, err %v, transcript %+v", res.Status, err, res.Transcript)
			}
			reqs := l.sim.SetRequests()
			if len(reqs) == 0 {
				t.Fatal("target received no SetRequest")
			}
			sent, err := gnmi.OpsFromSetRequest(reqs[0])
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(sent, tp.Ops) {
				t.Errorf("SetRequest received differs from the plan's ops:\n got %s\nwant %s", opsJSON(sent), opsJSON(tp.Ops))
			}
			wantSets := 1
			if tc.commit {
				wantSets = 2 // the Set and its confirm
				if l.sim.CommitPending() {
					t.Error("commit still pending after a successful apply")
				}
			}
			if len(reqs) != wantSets {
				t.Errorf("target received %d SetRequests, want %d", len(reqs), wantSets)
			}
			again, err := tg.Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if again.HasChanges() || len(again.Ops) != 0 {
				t.Errorf("second plan not empty: %d changes, first %+v", len(again.Changes), again.Changes[0])
			}
			res, err = tg.Apply(ctx, again)
			if err != nil || res.Status != plan.StatusUnchanged {
				t.Errorf("applying the empty plan: %s %v", res.Status, err)
			}
		})
	}
}

func checkOpOrder(t *testing.T, ops []plan.Op) {
	t.Helper()
	rank := map[string]int{"delete": 0, "replace": 1, "update": 2}
	for i := 1; i < len(ops); i++ {
		if rank[ops[i].Op] < rank[ops[i-1].Op] {
			t.Errorf("op %d (%s) after %s: want deletes, replaces, updates", i, ops[i].Op, ops[i-1].Op)
		}
	}
}

func opsJSON(ops []plan.Op) string {
	b, _ := json.Marshal(ops)
	return string(b)
}

// Modes a profile cannot express are refused with the reason, before any
// Set is sent.
func TestUnexpressibleModesRefused(t *testing.T) {
	cases := []struct {
		profile string
		class   *policies.Lossless
		reason  string
	}{
		{"openconfig", dscpClass(), "no PFC model"},
		{"openconfig", cosClass(), "no PFC model"},
		{"arista", ethertypeClass(), "cannot be bound"},
		{"arista", allClass(), "not expressible"},
		{"arista", &policies.Lossless{Name: "v2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791}, Priority: 3}, "classifies by DSCP only"},
		{"sonic", ethertypeClass(), "not expressible"},
		{"sonic", allClass(), "not expressible"},
		{"srlinux", dscpClass(), "ECN"},
		{"srlinux", ethertypeClass(), "not expressible"},
	}
	for _, tc := range cases {
		t.Run(tc.profile+"/"+tc.class.Name, func(t *testing.T) {
			l := newLab(t, gnmisim.Options{Profile: tc.profile}, tc.class)
			tg := l.target(t, gnmi.Options{})
			tp, err := tg.Plan(ctxT(t))
			if err == nil || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("plan error = %v, want one containing %q", err, tc.reason)
			}
			if tp == nil || tp.Error == "" {
				t.Errorf("target plan should carry the error: %+v", tp)
			}
			if n := len(l.sim.SetRequests()); n != 0 {
				t.Errorf("%d SetRequests sent", n)
			}
		})
	}
}
