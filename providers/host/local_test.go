package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
)

func addrs(tp *plan.TargetPlan) []string {
	var out []string
	for _, c := range tp.Changes {
		out = append(out, c.Address)
	}
	return out
}

func TestLocalNetnsPlanApplyPlanEmpty(t *testing.T) {
	fab, h := labHost(t, "nccl", "mvapich2")
	tg, err := New(testEnv(fab, nil), h)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx := context.Background()
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"nic.ens1f0.dcbx", "nic.ens1f0.pfc", "nic.ens1f0.trust", "nic.ens1f0.mtu", "nic.ens1f0.vlan100",
		"rdma_cm.mlx5_0.tos", "file:/etc/security/limits.d/90-roce-memlock.conf", "file:/etc/nccl.conf", "file:/etc/mv2.conf", "file:/etc/mvapich2.conf",
		"file:/etc/roce/dcb/ens1f0.dcb", "file:/etc/udev/rules.d/90-roce-dcb.rules",
		"file:/etc/roce/rdma_cm/mlx5_0.conf", "file:/etc/udev/rules.d/90-roce-rdma_cm.rules"}
	if got := addrs(tp); !reflect.DeepEqual(got, want) {
		t.Errorf("first plan:\n got %v\nwant %v", got, want)
	}
	if tp.Address != "host.h1" || tp.Kind != "host" || tp.Fingerprint == "" || len(tp.Payload) == 0 {
		t.Errorf("plan header %+v", tp)
	}
	if tp.Facts["backend.dcb"] != "lab-emulated" || tp.Facts["fw.mlx5_0"] != "16.35.2000" || len(tp.Warnings) == 0 {
		t.Errorf("facts %v warnings %v", tp.Facts, tp.Warnings)
	}
	for _, c := range tp.Changes {
		wantD := plan.DisruptionNone
		switch c.Address {
		case "nic.ens1f0.pfc", "nic.ens1f0.mtu", "nic.ens1f0.vlan100":
			wantD = plan.DisruptionLink
		case "nic.ens1f0.trust":
			wantD = plan.DisruptionBrief
		}
		if c.Disrupt != wantD {
			t.Errorf("%s disruption %s, want %s", c.Address, c.Disrupt, wantD)
		}
	}
	res, err := tg.Apply(ctx, tp)
	if err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply: %v %+v", err, res)
	}
	if len(res.Transcript) != len(want) {
		t.Errorf("transcript has %d steps, want %d: %+v", len(res.Transcript), len(want), res.Transcript)
	}
	tp2, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tp2.HasChanges() {
		t.Errorf("second plan not empty: %v", addrs(tp2))
	}
	// Telemetry through the agent's counters op.
	d, err := tg.(*Target).Telemetry(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d.Address != "host.h1" || d.Versions["fw.mlx5_0"] != "16.35.2000" || len(d.Ports) != 1 ||
		d.Ports[0].PFCPriorities != 0x08 || d.Ports[0].MTU != 4192 || d.Ports[0].RateGbps != 100 {
		t.Errorf("telemetry %+v", d)
	}
	if _, ok := d.Ports[0].Counters["out_of_sequence"]; !ok {
		t.Errorf("hw_counters missing: %v", d.Ports[0].Counters)
	}
}

func TestLocalApplyFailureRestoresAndStale(t *testing.T) {
	fab, h := labHost(t, "nccl")
	tg, err := New(testEnv(fab, nil), h)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx := context.Background()
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tg.(*Target).apply(ctx, tp, 4)
	if err == nil || res.Status != plan.StatusRolledBack {
		t.Fatalf("injected failure: %v %+v", err, res)
	}
	var restored bool
	for _, x := range res.Transcript {
		if strings.HasPrefix(x.Command, "restore ") {
			restored = true
		}
	}
	if !restored {
		t.Errorf("transcript shows no restore steps: %+v", res.Transcript)
	}
	tp2, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tp2.Fingerprint != tp.Fingerprint || !reflect.DeepEqual(addrs(tp2), addrs(tp)) {
		t.Errorf("after rollback the host differs from before: %v vs %v", addrs(tp2), addrs(tp))
	}
	// Someone edits a managed file after the plan: apply refuses as stale.
	if err := os.MkdirAll(filepath.Join(h.Root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.Root, "etc/nccl.conf"), []byte("NCCL_IB_SL=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = tg.Apply(ctx, tp2)
	if !errors.Is(err, plan.ErrStale) || res.Status != plan.StatusStale {
		t.Errorf("stale: %v %+v", err, res)
	}
}

func TestMissingAgentSaysHowToFix(t *testing.T) {
	fab, h := labHost(t)
	env := testEnv(fab, map[string]string{AgentEnv: "/nonexistent/roce-agent"})
	_, err := New(env, h)
	if err == nil || !strings.Contains(err.Error(), "ROCE_AGENT") {
		t.Errorf("err %v", err)
	}
}

func TestApplyRefusesPlanWithoutPayload(t *testing.T) {
	fab, h := labHost(t)
	tg, err := New(testEnv(fab, nil), h)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tg.Apply(context.Background(), &plan.TargetPlan{Address: "host.h1"})
	if err == nil || res == nil || res.Status != plan.StatusRefused {
		t.Errorf("%v %+v", err, res)
	}
}
