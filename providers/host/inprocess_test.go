package host

import (
	"context"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/agentproto"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

func inProcessHost(t *testing.T, seed bool) (*policies.Fabric, *policies.Host) {
	t.Helper()
	root := t.TempDir()
	if seed {
		spec := nics.LabSpec{EmulatedLinks: true, NICs: []nics.LabNIC{{Netdev: "sc0", RDMADevice: "mlx5_0"}}}
		if err := nics.SeedLab(root, spec); err != nil {
			t.Fatal(err)
		}
	}
	c := &policies.Lossless{Name: "roce", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 4}
	h := &policies.Host{Name: "s1", Local: true, Root: root, MPI: []string{"nccl"},
		NICs: []*policies.NIC{{Netdev: "sc0", RDMADevice: "mlx5_0", VLAN: 100, Address: "10.20.0.1/16", RoCEMode: "v2", MTU: 9000}}}
	return &policies.Fabric{Lossless: []*policies.Lossless{c}, Hosts: []*policies.Host{h}}, h
}

func TestInProcessPlanApplyPlanEmpty(t *testing.T) {
	fab, h := inProcessHost(t, true)
	tg, err := NewInProcess(plan.Env{Fabric: fab}, h)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx := context.Background()
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !tp.HasChanges() || tp.Fingerprint == "" || len(tp.Payload) == 0 {
		t.Fatalf("first plan: %+v", tp)
	}
	res, err := tg.Apply(ctx, tp)
	if err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply: %+v %v", res, err)
	}
	// The same plan again is stale: the host moved.
	res, err = tg.Apply(ctx, tp)
	if err == nil || res.Status != plan.StatusStale {
		t.Errorf("re-applying the old plan: %+v %v, want stale", res, err)
	}
	tp2, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tp2.HasChanges() {
		t.Errorf("second plan not empty: %v", addrs(tp2))
	}
}

func TestInProcessRefusesRealHosts(t *testing.T) {
	fab, h := inProcessHost(t, false)
	if _, err := NewInProcess(plan.Env{Fabric: fab}, h); err == nil || !strings.Contains(err.Error(), "refusing a real host") {
		t.Errorf("unseeded root: %v, want a refusal", err)
	}
	h.Root = "/"
	if _, err := NewInProcess(plan.Env{Fabric: fab}, h); err == nil {
		t.Error("root / accepted")
	}
	fab, h = inProcessHost(t, true)
	h.Netns = "x"
	if _, err := NewInProcess(plan.Env{Fabric: fab}, h); err == nil {
		t.Error("a namespaced host accepted")
	}
}

func TestInProcessServesOnlyReadAndApply(t *testing.T) {
	fab, h := inProcessHost(t, true)
	tg, err := NewInProcess(plan.Env{Fabric: fab}, h)
	if err != nil {
		t.Fatal(err)
	}
	c := tg.(*Target).Agent()
	_, err = c.Call(context.Background(), agentproto.Request{Op: agentproto.OpCounters})
	if err == nil || !strings.Contains(err.Error(), "real roce-agent") {
		t.Errorf("counters: %v, want a refusal naming the real agent", err)
	}
}
