package nics

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// TestEmulatedLinksPlanApplyIdempotent runs a whole read → apply → read
// cycle on a lab host seeded with EmulatedLinks, outside any namespace, on
// a netdev name this machine does not have: if anything reached netlink,
// the netdev would be missing and the read would fail.
func TestEmulatedLinksPlanApplyIdempotent(t *testing.T) {
	root := t.TempDir()
	const dev = "rlemu9z"
	if _, err := (netlinkLinks{}).Link(context.Background(), dev); err != nil {
		t.Fatal(err)
	}
	if err := SeedLab(root, LabSpec{EmulatedLinks: true, NICs: []LabNIC{{Netdev: dev, RDMADevice: "mlx5_0"}}}); err != nil {
		t.Fatal(err)
	}
	if !IsEmulatedLinks(root) {
		t.Fatal("IsEmulatedLinks is false after seeding with EmulatedLinks")
	}
	c := &policies.Lossless{Name: "roce", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 3}
	h := &policies.Host{Name: "h1", Local: true, MPI: []string{"nccl"}, NICs: []*policies.NIC{{Netdev: dev, VLAN: 100, Address: "10.10.0.11/24", RoCEMode: "v2", MTU: 9000}}}
	fab := &policies.Fabric{Lossless: []*policies.Lossless{c}, Hosts: []*policies.Host{h}}
	want, err := Desired(fab, h)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sys, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if !sys.Lab || !sys.EmulatedLinks {
		t.Fatalf("Open: Lab %v EmulatedLinks %v, want both", sys.Lab, sys.EmulatedLinks)
	}
	if got := sys.Backends()["backend.netlink"]; got == "" || got[:len(BackendLab)] != BackendLab {
		t.Errorf("backend.netlink fact %q does not say the links are emulated", got)
	}
	rd, err := sys.Read(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	if len(Diff(rd.Current, rd.Resolved)) == 0 {
		t.Fatal("a fresh host has nothing to change")
	}
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
	p, err := sys.Links.Link(ctx, dev)
	if err != nil || p == nil || p.MTU != 9000 {
		t.Errorf("emulated parent after apply: %+v %v", p, err)
	}
	v, err := sys.Links.Link(ctx, dev+".100")
	if err != nil || v == nil || len(v.Addresses) != 1 || v.Addresses[0] != "10.10.0.11/24" {
		t.Errorf("VLAN after apply: %+v %v", v, err)
	}
	// Still nothing real.
	if l, err := (netlinkLinks{}).Link(ctx, dev); err != nil || l != nil {
		t.Errorf("a real netdev %s appeared: %+v %v", dev, l, err)
	}
}

func TestEmulatedNetdevsErrors(t *testing.T) {
	root := t.TempDir()
	if err := SeedLab(root, LabSpec{EmulatedLinks: true, NICs: []LabNIC{{Netdev: "e0"}}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e := emulatedNetdevs{root: root}
	if l, err := e.Link(ctx, "nope0"); err != nil || l != nil {
		t.Errorf("missing netdev: %+v %v, want nil, nil", l, err)
	}
	if err := e.SetMTU(ctx, "nope0", 9000); err == nil {
		t.Error("SetMTU on a missing netdev succeeded")
	}
	if err := e.SetMTU(ctx, "e0", 20); err == nil {
		t.Error("MTU 20 accepted")
	}
	if err := e.AddAddr(ctx, "e0", "10.0.0.1/24"); err != nil {
		t.Fatal(err)
	}
	if err := e.AddAddr(ctx, "e0", "10.0.0.1/24"); err == nil {
		t.Error("duplicate address accepted")
	}
	if err := e.DelAddr(ctx, "e0", "10.0.0.2/24"); err == nil {
		t.Error("deleting an absent address succeeded")
	}
	if err := e.DelAddr(ctx, "e0", "10.0.0.1/24"); err != nil {
		t.Fatal(err)
	}
	if err := e.AddVLAN(ctx, "e0", "e0.5", 5, nil); err == nil {
		t.Error("AddVLAN on the emulated parent side succeeded")
	}
}

// TestEmulatedLinksNeedTheLabMarker: the links marker alone (no
// .roce-lab) never selects emulation, and "/" never does.
func TestEmulatedLinksNeedTheLabMarker(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, LabLinksMarker), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if IsEmulatedLinks(root) {
		t.Error("links marker without the lab marker selected emulation")
	}
	if IsEmulatedLinks("/") {
		t.Error("/ selected emulation")
	}
	sys, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if sys.EmulatedLinks {
		t.Error("Open chose emulated links without the lab marker")
	}
}
