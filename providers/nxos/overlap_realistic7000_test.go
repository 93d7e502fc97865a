package nxos

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/plan"
)

// The realistic 7000 (testdata/start/n7k-realistic.txt) has policy-map
// MARK-IN on managed port Ethernet2/2, which re-marks DSCP 18,20,22
// (AF21-AF23) to CoS 2. A cos class takes RoCE packets whatever DSCP the
// host marks, so RoCE marked with those values would leave the no-drop
// CoS there (issue #15): the plan is refused, naming the port, the
// policy, its class, the DSCPs and the fix, and nothing reaches the
// switch.
func TestRealistic7000CoSClassRefusedByPortPolicy(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus7000", start: "realistic", mode: "cos"})
	before := r.srv.Switch().RunningConfig()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tp, err := r.target.Plan(ctx)
	if err == nil {
		t.Fatalf("planned a cos class that MARK-IN re-marks on Ethernet2/2: %v", tp.Commands)
	}
	for _, w := range []string{
		"switch.sw1",
		`lossless "rdma" overlaps class CRITICAL-DATA of policy-map MARK-IN, attached to managed port Ethernet2/2 (` + "`service-policy type qos input MARK-IN` on Ethernet2/2)",
		"class-map CRITICAL-DATA matches DSCP 18,20,22 (match dscp 18,20,22), which the class's packets can carry",
		`lossless "rdma" is matched by CoS (match cos 4), not by DSCP`,
		"applies `set cos 2`", "would leave CoS 4, the no-drop CoS",
		`Fix one side: match lossless "rdma" by RoCE v2 and a DSCP instead (udp_port = 4791, dscp = [26], which policy-map MARK-IN leaves in CoS 4; the hosts must mark RoCE with it)`,
		"take those values out of class-map CRITICAL-DATA", "remove policy-map MARK-IN from Ethernet2/2",
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("refusal lacks %q:\n%v", w, err)
		}
	}
	if after := r.srv.Switch().RunningConfig(); after != before {
		t.Errorf("the switch changed during a refused plan:\n%s", after)
	}
	if cps := r.srv.Switch().Checkpoints(); len(cps) != 0 {
		t.Errorf("checkpoints on the switch after a refused plan: %v", cps)
	}
}

// The fix the refusal names, RoCE v2 marked with DSCP 26: the plan applies
// and MARK-IN stays on Ethernet2/2, where it re-marks only other DSCPs.
func TestRealistic7000DSCPClassKeepsPortPolicy(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus7000", start: "realistic", mode: "udp_dscp26"})
	res, err := r.apply(t, r.plan(t))
	if err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply: status %s, err %v", res.Status, err)
	}
	final := r.srv.Switch().RunningConfig()
	_, port, _ := strings.Cut(final, "interface Ethernet2/2\n")
	port, _, _ = strings.Cut(port, "\n\n")
	if !strings.Contains(port, "service-policy type qos input MARK-IN") {
		t.Errorf("Ethernet2/2 lost MARK-IN:\n%s", port)
	}
	if !strings.Contains(port, "priority-flow-control mode on") {
		t.Errorf("Ethernet2/2 has no PFC after the apply:\n%s", port)
	}
}
