package gnmi_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// seedAzure puts SONiC-default-like maps on the simulator and points
// Ethernet0 at them, with priority 4 already lossless.
func seedAzure(t *testing.T, sim *gnmisim.Target, dscp string) {
	t.Helper()
	for _, s := range [][2]string{
		{"/CONFIG_DB/localhost/DSCP_TO_TC_MAP/AZURE", dscp},
		{"/CONFIG_DB/localhost/TC_TO_QUEUE_MAP/AZURE", `{"0":"0","1":"1","3":"3","4":"4","5":"6"}`},
		{"/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet0", `{"dscp_to_tc_map":"AZURE","tc_to_queue_map":"AZURE","pfc_enable":"4"}`},
	} {
		if err := sim.Seed(s[0], s[1]); err != nil {
			t.Fatalf("seed %s: %v", s[0], err)
		}
	}
}

// A port with its own maps, through the simulator: roce plans a copy of
// them with its entries, applies, the second plan is empty, the
// operator's own map is untouched and an edit to it is followed, not
// reverted; removing the class points the port back at its own maps.
func TestSONiCMergeRoundTrip(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "sonic"}, dscpClass())
	seedAzure(t, l.sim, `{"0":"0","8":"1","46":"5"}`)
	tg := l.target(t, gnmi.Options{})
	ctx := ctxT(t)
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	b, err := json.MarshalIndent(tp.Ops, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "ops/sonic-merge-azure.json", append(b, '\n'))
	if res, err := tg.Apply(ctx, tp); err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply: %s %v", res.Status, err)
	}
	cfg := l.sim.ConfigJSON()
	for _, want := range []string{`"ROCE-DSCP-AZURE"`, `"ROCE-TC-AZURE"`, `"3,4"`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("after apply the config has no %s:\n%s", want, cfg)
		}
	}
	again, err := tg.Plan(ctx)
	if err != nil || again.HasChanges() {
		t.Fatalf("second plan: %v, changes %+v", err, again.Changes)
	}
	t.Run("yanglint", func(t *testing.T) {
		testenv.Tool(t, "yanglint", "Debian package libyang-tools; make deps-test installs it")
		if msg := yanglint(t, "sonic", "config", instanceData(t, l.sim, "sonic")); msg != "" {
			t.Errorf("the merged config is not valid sonic-yang instance data: %s", msg)
		}
	})

	// The operator re-maps DSCP 8 in AZURE: roce's copy follows.
	if err := l.sim.Seed("/CONFIG_DB/localhost/DSCP_TO_TC_MAP/AZURE/8", `"2"`); err != nil {
		t.Fatal(err)
	}
	edit, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(edit.Changes) != 1 || edit.Changes[0].Address != "sonic-db:/CONFIG_DB/localhost/DSCP_TO_TC_MAP/ROCE-DSCP-AZURE" ||
		!strings.Contains(edit.Changes[0].Note, `"1" -> "2"`) {
		t.Fatalf("after the operator's edit, want one change copying DSCP 8 -> 2 into ROCE-DSCP-AZURE, got %+v", edit.Changes)
	}
	if res, err := tg.Apply(ctx, edit); err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply the edit: %s %v", res.Status, err)
	}

	// The class moves to priority 6: priority 3, which only roce's entry
	// DSCP 26 sent traffic to, is no longer lossless; 4 (the port's) stays.
	moved := dscpClass()
	moved.Priority = 6
	l.fabric.Lossless = []*policies.Lossless{moved}
	mv := l.target(t, gnmi.Options{})
	tp, err = mv.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := mv.Apply(ctx, tp); err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply the move: %s %v", res.Status, err)
	}
	if cfg := l.sim.ConfigJSON(); !strings.Contains(cfg, `"4,6"`) {
		t.Errorf("after moving the class to priority 6 want pfc_enable 4,6:\n%s", cfg)
	}
	if again, err := mv.Plan(ctx); err != nil || again.HasChanges() {
		t.Errorf("plan after the move: %v, changes %+v", err, again.Changes)
	}

	// The class is removed: roce's copies go, the port uses AZURE again.
	l.fabric.Lossless = nil
	rm := l.target(t, gnmi.Options{})
	tp, err = rm.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := rm.Apply(ctx, tp); err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply the removal: %s %v (ops %s)", res.Status, err, opsJSON(tp.Ops))
	}
	cfg = l.sim.ConfigJSON()
	if strings.Contains(cfg, "ROCE-DSCP-AZURE") || strings.Contains(cfg, "ROCE-TC-AZURE") || !strings.Contains(cfg, `"dscp_to_tc_map": "AZURE"`) && !strings.Contains(cfg, `"dscp_to_tc_map":"AZURE"`) {
		t.Errorf("after removal want the port on AZURE and no ROCE copies:\n%s", cfg)
	}
	if again, err := rm.Plan(ctx); err != nil || again.HasChanges() {
		t.Errorf("plan after removal: %v, changes %+v", err, again.Changes)
	}
}

// A port map that sends roce's DSCP to another traffic class refuses the
// plan as a render conflict, and nothing is written.
func TestSONiCMergeConflictRefused(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "sonic"}, dscpClass())
	seedAzure(t, l.sim, `{"0":"0","26":"1"}`)
	tg := l.target(t, gnmi.Options{})
	_, err := tg.Plan(ctxT(t))
	var re *plan.RenderError
	if !errors.As(err, &re) {
		t.Fatalf("plan error %v: want a render conflict", err)
	}
	for _, want := range []string{"port Ethernet0", "DSCP_TO_TC_MAP AZURE", "DSCP 26 to traffic class 1", "class rocev2 needs traffic class 3"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := len(l.sim.SetRequests()); n != 0 {
		t.Errorf("%d SetRequests after a refused plan", n)
	}
}
