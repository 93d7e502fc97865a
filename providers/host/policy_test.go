package host

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// From an HCL policy to a namespaced host: plan, apply, an empty second
// plan, and the files carrying the class's values.
func TestPolicyHostSectionEndToEnd(t *testing.T) {
	_, lab := labHost(t)
	fab, _, diags := policies.Load("testdata/policy", policies.LoadOptions{
		Vars:   []string{"netns=" + lab.Netns, "root=" + lab.Root},
		Getenv: func(string) (string, bool) { return "", false },
	})
	if diags.HasErrors() {
		t.Fatalf("policy: %v", diags)
	}
	h := fab.HostByName("h1")
	if h == nil {
		t.Fatal("policy has no host h1")
	}
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
	if !tp.HasChanges() {
		t.Fatal("first plan is empty")
	}
	if res, err := tg.Apply(ctx, tp); err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply: %v %+v", err, res)
	}
	tp2, err := tg.Plan(ctx)
	if err != nil || tp2.HasChanges() {
		t.Fatalf("second plan: %v %v", err, addrs(tp2))
	}
	b, err := os.ReadFile(filepath.Join(lab.Root, "etc/nccl.conf"))
	if err != nil {
		t.Fatal(err)
	}
	// Priority 4, ToS = DSCP 26 << 2, GID index of the v2 entry the apply
	// created for 10.10.0.11 on ens1f0.100.
	want := "NCCL_IB_SL=4\nNCCL_IB_TC=104\nNCCL_IB_GID_INDEX=3\nNCCL_IB_HCA==mlx5_0:1\n"
	if string(b) != want {
		t.Errorf("nccl.conf:\n%s\nwant\n%s", b, want)
	}
	b, _ = os.ReadFile(filepath.Join(lab.Root, "etc/openmpi/openmpi-mca-params.conf"))
	if want := "btl_openib_ib_service_level = 4\nbtl_openib_ipaddr_include = 10.10.0.0/24\nbtl_openib_gid_index = 3\n"; string(b) != want {
		t.Errorf("openmpi-mca-params.conf:\n%s\nwant\n%s", b, want)
	}
}
