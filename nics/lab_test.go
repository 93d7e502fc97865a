package nics

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// testFabric is a RoCE v2 class marked DSCP 26 on priority 3, and one host
// whose v0 carries VLAN 100 with 10.10.0.11/24.
func testFabric(mpi ...string) (*policies.Fabric, *policies.Host) {
	c := &policies.Lossless{Name: "roce", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 3}
	h := &policies.Host{Name: "h1", Local: true, MPI: mpi, NICs: []*policies.NIC{{Netdev: "v0", VLAN: 100, Address: "10.10.0.11/24", RoCEMode: "v2"}}}
	return &policies.Fabric{Lossless: []*policies.Lossless{c}, Hosts: []*policies.Host{h}}, h
}

func seedTestLab(t *testing.T, ns string, legacy bool) string {
	t.Helper()
	root := t.TempDir()
	// No GID for 10.10.0.11 yet: the address doesn't exist until the apply
	// adds it, and the emulated GID table follows the addresses. The tree
	// belongs to namespace ns, as roce-lab up seeds it.
	spec := LabSpec{LegacyOFED: legacy, Netns: ns, NICs: []LabNIC{{Netdev: "v0", RDMADevice: "mlx5_0"}}}
	if err := SeedLab(root, spec); err != nil {
		t.Fatal(err)
	}
	// A foreign line in nccl.conf must survive everything.
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc/nccl.conf"), []byte("# site\nNCCL_DEBUG=WARN\nNCCL_IB_SL=0\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	return root
}

func changeAddrs(cs []plan.Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Address)
	}
	sort.Strings(out)
	return out
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from golden (go test -update to accept):\n%s", name, got)
	}
}

func TestLabPlanApplyIdempotent(t *testing.T) {
	ns := newNetns(t)
	root := seedTestLab(t, ns, false)
	fab, h := testFabric("mvapich2", "openmpi", "ucx", "nccl")
	want, err := Desired(fab, h)
	if err != nil {
		t.Fatal(err)
	}
	inNetns(t, ns, func() {
		ctx := context.Background()
		sys, err := Open(root)
		if err != nil {
			t.Fatal(err)
		}
		if !sys.Lab {
			t.Fatal("lab marker not honoured")
		}
		rd, err := sys.Read(ctx, want)
		if err != nil {
			t.Fatal(err)
		}
		if rd.Facts["backend.dcb"] != BackendLab {
			t.Errorf("facts do not label the lab backend: %v", rd.Facts)
		}
		changes := Diff(rd.Current, rd.Resolved)
		b, _ := json.MarshalIndent(changes, "", "  ")
		golden(t, "lab_plan_changes.json", append(b, '\n'))

		rep, err := sys.Apply(ctx, rd.Resolved, ApplyOptions{Fingerprint: rd.Fingerprint})
		if err != nil {
			t.Fatalf("apply: %v\n%+v", err, rep)
		}
		if rep.Status != plan.StatusApplied {
			t.Fatalf("status %s", rep.Status)
		}
		rd2, err := sys.Read(ctx, want)
		if err != nil {
			t.Fatal(err)
		}
		if c := Diff(rd2.Current, rd2.Resolved); len(c) != 0 {
			t.Errorf("second plan not empty: %v", changeAddrs(c))
		}
		nccl, _ := os.ReadFile(filepath.Join(root, "etc/nccl.conf"))
		golden(t, "lab_nccl.conf", nccl)
		// The VLAN netdev exists now with the map and the address; the
		// real veth got the MTU through netlink.
		v, err := sys.Links.Link(ctx, "v0.100")
		if err != nil || v == nil || v.VLAN == nil || v.VLAN.Egress[0] != 3 || v.VLAN.Egress[7] != 3 {
			t.Errorf("VLAN after apply: %+v %v", v, err)
		}
		p, err := netlinkLinks{}.Link(ctx, "v0")
		if err != nil || p.MTU != MinRoCEMTU {
			t.Errorf("veth MTU after apply: %+v %v", p, err)
		}
		// A stale fingerprint is refused without changes.
		rep, err = sys.Apply(ctx, rd.Resolved, ApplyOptions{Fingerprint: rd.Fingerprint})
		if !errors.Is(err, plan.ErrStale) || rep.Status != plan.StatusStale {
			t.Errorf("stale apply: status %s err %v", rep.Status, err)
		}
	})
}

// hostState captures what a failed apply must leave untouched: every file
// byte under the root, the emulated DCB state, and the real link.
type hostState struct {
	tree map[string]string
	dcb  *IEEEReply
	dcbx uint8
	link *LinkInfo
	vlan *LinkInfo
}

func captureHost(t *testing.T, sys *System) hostState {
	t.Helper()
	ctx := context.Background()
	r, dcbx, err := sys.DCB.Get(ctx, "v0")
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(r.Apps, func(i, j int) bool { return r.Apps[i].Protocol < r.Apps[j].Protocol })
	l, err := sys.Links.Link(ctx, "v0")
	if err != nil {
		t.Fatal(err)
	}
	v, err := sys.Links.Link(ctx, "v0.100")
	if err != nil {
		t.Fatal(err)
	}
	return hostState{tree: treeBytes(t, sys.Root), dcb: r, dcbx: dcbx, link: l, vlan: v}
}

func TestLabFailureAfterEachStepRestoresEverything(t *testing.T) {
	ns := newNetns(t)
	root := seedTestLab(t, ns, false)
	fab, h := testFabric("mvapich2", "nccl")
	want, err := Desired(fab, h)
	if err != nil {
		t.Fatal(err)
	}
	inNetns(t, ns, func() {
		ctx := context.Background()
		sys, err := Open(root)
		if err != nil {
			t.Fatal(err)
		}
		// Start from a partly configured host: DSCP 10 mapped elsewhere,
		// so restore has entries to put back as well as to remove.
		if err := sys.DCB.AddApps(ctx, "v0", []DCBApp{{AppSelDSCP, 1, 10}}); err != nil {
			t.Fatal(err)
		}
		rd, err := sys.Read(ctx, want)
		if err != nil {
			t.Fatal(err)
		}
		n := len(sys.steps(rd.Current, rd.Resolved))
		if n < 6 {
			t.Fatalf("only %d steps planned; the test needs the full set", n)
		}
		before := captureHost(t, sys)
		for step := 1; step <= n; step++ {
			rep, err := sys.Apply(ctx, rd.Resolved, ApplyOptions{FailAfterStep: step})
			if err == nil {
				t.Fatalf("step %d: apply succeeded despite the injected failure", step)
			}
			if rep.Status != plan.StatusRolledBack {
				t.Fatalf("step %d: status %s: %s", step, rep.Status, rep.Error)
			}
			if len(rep.Steps) != step || !rep.Steps[step-1].Injected {
				t.Errorf("step %d: report has %d steps, last injected=%v", step, len(rep.Steps), rep.Steps[len(rep.Steps)-1].Injected)
			}
			after := captureHost(t, sys)
			if d := diffTrees(before.tree, after.tree); len(d) > 0 {
				t.Errorf("step %d (%s): files not restored: %v", step, rep.FailedStep, d)
			}
			if !reflect.DeepEqual(before.dcb, after.dcb) || before.dcbx != after.dcbx {
				t.Errorf("step %d (%s): DCB not restored: %+v/%d vs %+v/%d", step, rep.FailedStep, before.dcb, before.dcbx, after.dcb, after.dcbx)
			}
			if !reflect.DeepEqual(before.link, after.link) || !reflect.DeepEqual(before.vlan, after.vlan) {
				t.Errorf("step %d (%s): links not restored: %+v %+v vs %+v %+v", step, rep.FailedStep, before.link, before.vlan, after.link, after.vlan)
			}
		}
	})
}

func TestLabFirmwareResetShowsWipedSettings(t *testing.T) {
	ns := newNetns(t)
	root := seedTestLab(t, ns, false)
	fab, h := testFabric("nccl")
	want, err := Desired(fab, h)
	if err != nil {
		t.Fatal(err)
	}
	inNetns(t, ns, func() {
		ctx := context.Background()
		sys, err := Open(root)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := sys.Read(ctx, want)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sys.Apply(ctx, rd.Resolved, ApplyOptions{}); err != nil {
			t.Fatal(err)
		}
		// Firmware reset: the NIC forgets runtime DCB settings and the
		// RDMA device is re-created with the kernel's rdma_cm defaults.
		if err := removeLab(root, "dcb", "v0"); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"), []byte("0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		rd2, err := sys.Read(ctx, want)
		if err != nil {
			t.Fatal(err)
		}
		got := changeAddrs(Diff(rd2.Current, rd2.Resolved))
		wantC := []string{"nic.v0.dcbx", "nic.v0.pfc", "nic.v0.trust", "rdma_cm.mlx5_0.tos"}
		if !reflect.DeepEqual(got, wantC) {
			t.Errorf("after firmware reset the plan shows %v, want exactly %v", got, wantC)
		}
	})
}

func TestLabLegacyOFEDUsesDefPrec2SL(t *testing.T) {
	ns := newNetns(t)
	root := seedTestLab(t, ns, true)
	fab, h := testFabric()
	want, err := Desired(fab, h)
	if err != nil {
		t.Fatal(err)
	}
	inNetns(t, ns, func() {
		ctx := context.Background()
		sys, _ := Open(root)
		rd, err := sys.Read(ctx, want)
		if err != nil {
			t.Fatal(err)
		}
		got := changeAddrs(Diff(rd.Current, rd.Resolved))
		for _, w := range []string{"rdma_cm.mlx5_0.def_prec2sl", "file:" + ModprobeFile} {
			if i := sort.SearchStrings(got, w); i >= len(got) || got[i] != w {
				t.Errorf("legacy plan %v lacks %s", got, w)
			}
		}
		if _, err := sys.Apply(ctx, rd.Resolved, ApplyOptions{}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(root, ModprobeFile))
		if string(b) != "options rdma_cm def_prec2sl=3\n" {
			t.Errorf("modprobe file %q", b)
		}
	})
}

func TestFailAfterStepRefusedOutsideLab(t *testing.T) {
	root := t.TempDir() // no marker
	sys, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sys.Apply(context.Background(), &HostState{}, ApplyOptions{FailAfterStep: 1})
	if err == nil || rep.Status != plan.StatusRefused {
		t.Errorf("fault injection accepted on a non-lab root: %v %+v", err, rep)
	}
}

func TestLabExistingVLANWithWrongMapIsUpdated(t *testing.T) {
	ns := newNetns(t)
	root := seedTestLab(t, ns, false)
	fab, h := testFabric()
	want, err := Desired(fab, h)
	if err != nil {
		t.Fatal(err)
	}
	inNetns(t, ns, func() {
		ctx := context.Background()
		sys, _ := Open(root)
		// Someone created the VLAN by hand, mapping only priority 0.
		if err := sys.Links.AddVLAN(ctx, "v0", "v0.100", 100, map[uint32]uint32{0: 3}); err != nil {
			t.Fatal(err)
		}
		rd, err := sys.Read(ctx, want)
		if err != nil {
			t.Fatal(err)
		}
		var vc *plan.Change
		for _, c := range Diff(rd.Current, rd.Resolved) {
			if c.Address == "nic.v0.vlan100" {
				c := c
				vc = &c
			}
		}
		if vc == nil || vc.Action != plan.ActionUpdate || vc.Before == "" {
			t.Fatalf("VLAN change %+v, want an update with a before", vc)
		}
		if _, err := sys.Apply(ctx, rd.Resolved, ApplyOptions{Fingerprint: rd.Fingerprint}); err != nil {
			t.Fatal(err)
		}
		v, _ := sys.Links.Link(ctx, "v0.100")
		for p := uint32(0); p < 8; p++ {
			if v.VLAN.Egress[p] != 3 {
				t.Errorf("egress %d -> %d after apply", p, v.VLAN.Egress[p])
			}
		}
	})
}

func TestLabDCBEmulationFollowsMlx5Rules(t *testing.T) {
	ns := newNetns(t)
	root := seedTestLab(t, ns, false)
	inNetns(t, ns, func() {
		ctx := context.Background()
		sys, _ := Open(root)
		d := sys.DCB
		cases := []struct {
			name string
			do   func() error
			ok   bool
		}{
			{"non-DSCP selector refused", func() error { return d.AddApps(ctx, "v0", []DCBApp{{Selector: 1, Priority: 3, Protocol: 0x8915}}) }, false},
			{"DSCP 64 refused", func() error { return d.AddApps(ctx, "v0", []DCBApp{{AppSelDSCP, 3, 64}}) }, false},
			{"add DSCP 26", func() error { return d.AddApps(ctx, "v0", []DCBApp{{AppSelDSCP, 3, 26}}) }, true},
			{"re-add replaces priority", func() error { return d.AddApps(ctx, "v0", []DCBApp{{AppSelDSCP, 5, 26}}) }, true},
			{"delete with the old priority refused", func() error { return d.DelApps(ctx, "v0", []DCBApp{{AppSelDSCP, 3, 26}}) }, false},
			{"delete with the programmed priority", func() error { return d.DelApps(ctx, "v0", []DCBApp{{AppSelDSCP, 5, 26}}) }, true},
			{"host and lld-managed together refused", func() error { return d.SetDCBX(ctx, "v0", DCBXHost|DCBXLLDManaged) }, false},
			{"missing netdev", func() error { _, _, err := d.Get(ctx, "nope0"); return err }, false},
		}
		for _, tc := range cases {
			if err := tc.do(); (err == nil) != tc.ok {
				t.Errorf("%s: err %v", tc.name, err)
			}
		}
		r, _, _ := d.Get(ctx, "v0")
		if len(r.Apps) != 0 {
			t.Errorf("apps left: %+v", r.Apps)
		}
	})
}
