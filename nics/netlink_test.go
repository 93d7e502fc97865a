package nics

import (
	"context"
	"errors"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// Real kernel paths: MTU and addresses on veth and macvlan always work;
// DCB and VLAN run where the kernel supports them and skip, saying so, on
// EOPNOTSUPP (this lab kernel has neither).
func TestNetlinkMTUAndAddressOnVethAndMacvlan(t *testing.T) {
	ns := newNetns(t)
	if out, err := exec.Command("ip", "-n", ns, "link", "add", "link", "v0", "name", "mv0", "type", "macvlan", "mode", "bridge").CombinedOutput(); err != nil {
		t.Fatalf("macvlan: %v %s", err, out)
	}
	inNetns(t, ns, func() {
		ctx := context.Background()
		l := netlinkLinks{}
		for _, name := range []string{"v0", "mv0"} {
			if err := l.SetMTU(ctx, name, 4200); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if err := l.AddAddr(ctx, "mv0", "10.1.0.5/24"); err != nil {
			t.Fatal(err)
		}
		li, err := l.Link(ctx, "mv0")
		if err != nil || li.MTU != 4200 || len(li.Addresses) != 1 || li.Addresses[0] != "10.1.0.5/24" {
			t.Fatalf("mv0: %+v %v", li, err)
		}
		if err := l.DelAddr(ctx, "mv0", "10.1.0.5/24"); err != nil {
			t.Fatal(err)
		}
		if li, _ := l.Link(ctx, "mv0"); len(li.Addresses) != 0 {
			t.Errorf("address not deleted: %v", li.Addresses)
		}
		if li, err := l.Link(ctx, "nope0"); li != nil || err != nil {
			t.Errorf("missing link: %+v %v", li, err)
		}
	})
}

func TestNetlinkVLANEgressMap(t *testing.T) {
	ns := newNetns(t)
	inNetns(t, ns, func() {
		ctx := context.Background()
		l := netlinkLinks{}
		eg := map[uint32]uint32{0: 3, 1: 3, 2: 3, 3: 3, 4: 3, 5: 3, 6: 3, 7: 3}
		err := l.AddVLAN(ctx, "v0", "v0.100", 100, eg)
		if errors.Is(err, unix.EOPNOTSUPP) {
			t.Skipf("kernel has no 802.1Q VLAN support (%v); the lab emulates VLAN devices instead", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		li, err := l.Link(ctx, "v0.100")
		if err != nil || li.VLAN == nil || li.VLAN.ID != 100 || !egressEqual(li.VLAN.Egress, eg) {
			t.Fatalf("VLAN read back %+v %v", li, err)
		}
		eg2 := map[uint32]uint32{0: 5}
		if err := l.SetVLANEgress(ctx, "v0.100", eg2); err != nil {
			t.Fatal(err)
		}
		li, _ = l.Link(ctx, "v0.100")
		if !egressEqual(li.VLAN.Egress, eg2) {
			t.Errorf("egress after update %v, want exactly %v", li.VLAN.Egress, eg2)
		}
	})
}

func TestNetlinkDCB(t *testing.T) {
	ns := newNetns(t)
	// A missing device is an error, never a skip.
	inNetns(t, ns, func() {
		if _, _, err := (netlinkDCB{}).Get(context.Background(), "nope0"); err == nil || errors.Is(err, ErrDCBUnsupported) {
			t.Errorf("missing netdev: %v", err)
		}
	})
	inNetns(t, ns, func() {
		ctx := context.Background()
		d := netlinkDCB{}
		_, _, err := d.Get(ctx, "v0")
		if errors.Is(err, ErrDCBUnsupported) {
			t.Skipf("veth has no dcbnl ops in this kernel (%v); DCB runs against the lab emulation and real mlx5 ports", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		// A kernel whose veth speaks dcbnl: exercise a PFC round trip.
		if err := d.SetPFC(ctx, "v0", IEEEPFC{Cap: 8, Enabled: 0x08}); err != nil {
			t.Fatal(err)
		}
		r, _, err := d.Get(ctx, "v0")
		if err != nil || r.PFC == nil || r.PFC.Enabled != 0x08 {
			t.Errorf("PFC read back %+v %v", r, err)
		}
	})
}

func TestResolveGIDIndex(t *testing.T) {
	root := t.TempDir()
	spec := LabSpec{NICs: []LabNIC{{Netdev: "ens1f0", RDMADevice: "mlx5_0", GIDs: []LabGID{{Netdev: "ens1f0", IP: "10.0.0.9"}, {Netdev: "ens1f0.100", IP: "10.10.0.11/24"}}}}}
	if err := SeedLab(root, spec); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		netdev, ip, ver string
		want            int
		err             bool
	}{
		{"ens1f0", "10.0.0.9", "v1", 2, false},
		{"ens1f0", "10.0.0.9", "v2", 3, false},
		{"ens1f0.100", "10.10.0.11", "v1", 4, false},
		{"ens1f0.100", "10.10.0.11/24", "v2", 5, false},
		{"ens1f0", "10.10.0.11", "v2", 0, true}, // right IP, wrong netdev
		{"ens1f0", "10.9.9.9", "v2", 0, true},
		{"ens1f0", "not-an-ip", "v2", 0, true},
	}
	for _, tc := range cases {
		got, err := ResolveGIDIndex(root, "mlx5_0", 1, tc.netdev, tc.ip, tc.ver)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("ResolveGIDIndex(%s %s %s) = %d, %v; want %d err=%v", tc.netdev, tc.ip, tc.ver, got, err, tc.want, tc.err)
		}
	}
	if dev, err := ResolveRDMADevice(root, "ens1f0"); err != nil || dev != "mlx5_0" {
		t.Errorf("ResolveRDMADevice: %s %v", dev, err)
	}
	if _, err := ResolveRDMADevice(root, "eth9"); err == nil {
		t.Error("ResolveRDMADevice found a device for an unknown netdev")
	}
}

func TestSeedLabRefusesRealRoot(t *testing.T) {
	for _, r := range []string{"", "/", "//"} {
		if err := SeedLab(r, LabSpec{}); err == nil {
			t.Errorf("SeedLab(%q) accepted a real root", r)
		}
	}
	if IsLab("/") {
		t.Error("IsLab(/) is true")
	}
}
