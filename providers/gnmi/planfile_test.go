package gnmi_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// A plan saved as JSON (as roce-plan -out does) and read back applies, and
// the target receives exactly the ops in the file.
func TestSavedPlanAppliesAsWritten(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "sonic", CommitConfirm: true}, dscpClass())
	ctx := ctxT(t)
	tp, err := l.target(t, gnmi.Options{}).Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(tp, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var saved plan.TargetPlan
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	res, err := l.target(t, gnmi.Options{}).Apply(ctx, &saved)
	if err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply saved plan: %s %v", res.Status, err)
	}
	sent, err := gnmi.OpsFromSetRequest(l.sim.SetRequests()[0])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sent, saved.Ops) {
		t.Errorf("sent ops differ from the saved plan:\n%s\n%s", opsJSON(sent), opsJSON(saved.Ops))
	}
}

// Ops that are not a well-formed SetRequest are refused before anything is
// sent.
func TestSetRequestFromOpsRefusesBadOps(t *testing.T) {
	cases := []struct {
		name string
		ops  []plan.Op
	}{
		{"update before delete", []plan.Op{{Op: "update", Path: "/a", Value: json.RawMessage(`1`)}, {Op: "delete", Path: "/b"}}},
		{"unknown op", []plan.Op{{Op: "merge", Path: "/a", Value: json.RawMessage(`1`)}}},
		{"delete with value", []plan.Op{{Op: "delete", Path: "/a", Value: json.RawMessage(`1`)}}},
		{"replace without value", []plan.Op{{Op: "replace", Path: "/a"}}},
		{"bad path", []plan.Op{{Op: "delete", Path: "a/b"}}},
	}
	for _, tc := range cases {
		if _, err := gnmi.SetRequestFromOps(tc.ops); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	req, err := gnmi.SetRequestFromOps([]plan.Op{
		{Op: "delete", Origin: "sonic_db", Path: "/CONFIG_DB/X/a"},
		{Op: "replace", Origin: "sonic_db", Path: "/CONFIG_DB/X/b", Value: json.RawMessage(`{"f":"1"}`)},
		{Op: "update", Path: "/interfaces/interface[name=Ethernet1/1]/config/mtu", Value: json.RawMessage(`9000`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Delete) != 1 || len(req.Replace) != 1 || len(req.Update) != 1 ||
		req.Update[0].Path.Elem[1].Key["name"] != "Ethernet1/1" || req.Delete[0].Origin != "sonic_db" {
		t.Errorf("request = %v", req)
	}
}
