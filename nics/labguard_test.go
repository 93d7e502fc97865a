package nics

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

// recordingLinks stands in for netlink: it records every call and answers
// like a machine with one netdev, v0.
type recordingLinks struct{ calls []string }

func (r *recordingLinks) Link(ctx context.Context, name string) (*LinkInfo, error) {
	r.calls = append(r.calls, "Link "+name)
	if name != "v0" {
		return nil, nil
	}
	return &LinkInfo{Name: name, MTU: 1400, Addresses: []string{"192.0.2.7/24"}}, nil
}

func (r *recordingLinks) SetMTU(ctx context.Context, name string, mtu int) error {
	r.calls = append(r.calls, "SetMTU "+name)
	return nil
}

func (r *recordingLinks) AddAddr(ctx context.Context, name, cidr string) error {
	r.calls = append(r.calls, "AddAddr "+name)
	return nil
}

func (r *recordingLinks) DelAddr(ctx context.Context, name, cidr string) error {
	r.calls = append(r.calls, "DelAddr "+name)
	return nil
}

func (r *recordingLinks) AddVLAN(ctx context.Context, parent, name string, id int, egress map[uint32]uint32) error {
	r.calls = append(r.calls, "AddVLAN "+name)
	return nil
}

func (r *recordingLinks) SetVLANEgress(ctx context.Context, name string, egress map[uint32]uint32) error {
	r.calls = append(r.calls, "SetVLANEgress "+name)
	return nil
}

func (r *recordingLinks) DelLink(ctx context.Context, name string) error {
	r.calls = append(r.calls, "DelLink "+name)
	return nil
}

// fakeNetns is a machine whose namespaces are numbered: init is 1, the
// calling thread is in cur, and named maps /run/netns names to numbers.
type fakeNetns struct {
	cur   uint64
	named map[string]uint64
	init  uint64 // 0: unreadable
}

func (f fakeNetns) Current() (NetnsID, error) { return NetnsID{Dev: 4, Ino: f.cur}, nil }
func (f fakeNetns) Named(name string) (NetnsID, error) {
	n, ok := f.named[name]
	if !ok {
		return NetnsID{}, errors.New("network namespace " + name + ": no such file or directory")
	}
	return NetnsID{Dev: 4, Ino: n}, nil
}
func (f fakeNetns) Init() (NetnsID, bool) { return NetnsID{Dev: 4, Ino: f.init}, f.init != 0 }
func (f fakeNetns) Names() ([]string, error) {
	var out []string
	for n := range f.named {
		out = append(out, n)
	}
	return out, nil
}

// linkOps calls every Links and DCB operation of sys once and returns
// their errors.
func linkOps(ctx context.Context, sys *System) map[string]error {
	errs := map[string]error{}
	_, errs["Link"] = sys.Links.Link(ctx, "v0")
	errs["SetMTU"] = sys.Links.SetMTU(ctx, "v0", 9000)
	errs["AddAddr"] = sys.Links.AddAddr(ctx, "v0", "10.10.0.11/24")
	errs["DelAddr"] = sys.Links.DelAddr(ctx, "v0", "192.0.2.7/24")
	errs["AddVLAN"] = sys.Links.AddVLAN(ctx, "v0", "v0.100", 100, map[uint32]uint32{0: 4})
	errs["SetVLANEgress"] = sys.Links.SetVLANEgress(ctx, "v0", map[uint32]uint32{0: 4})
	errs["DelLink"] = sys.Links.DelLink(ctx, "v0")
	_, _, errs["DCB.Get"] = sys.DCB.Get(ctx, "v0")
	errs["DCB.SetPFC"] = sys.DCB.SetPFC(ctx, "v0", IEEEPFC{Cap: 8, Enabled: 0x10})
	errs["DCB.AddApps"] = sys.DCB.AddApps(ctx, "v0", []DCBApp{{Selector: AppSelDSCP, Protocol: 26, Priority: 4}})
	errs["DCB.SetDCBX"] = sys.DCB.SetDCBX(ctx, "v0", DCBXHost|DCBXVerIEEE)
	c := &policies.Lossless{Name: "roce", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 4}
	h := &policies.Host{Name: "h1", Local: true, NICs: []*policies.NIC{{Netdev: "v0", VLAN: 100, Address: "10.10.0.11/24", RoCEMode: "v2", MTU: 9000}}}
	if want, err := Desired(&policies.Fabric{Lossless: []*policies.Lossless{c}, Hosts: []*policies.Host{h}}, h); err != nil {
		errs["Desired"] = err
	} else {
		_, errs["Read"] = sys.Read(ctx, want)
		_, errs["Apply"] = sys.Apply(ctx, want, ApplyOptions{})
	}
	return errs
}

// A lab host's netdevs are reached only from inside the namespace roce-lab
// up made for it: from anywhere else — this machine's own namespace
// included — every link, address, VLAN and DCB operation, and so every
// read and apply, fails before the netlink layer is called once.
func TestLabLinksNeverReachNetlinkOutsideTheirNamespace(t *testing.T) {
	const ns = "roce-abc123-h1"
	cases := []struct {
		name  string
		netns string // written to the marker; "" = no marker
		probe fakeNetns
		want  string // in every error; "" = the calls go through
	}{
		{"inside its namespace", ns, fakeNetns{cur: 7, named: map[string]uint64{ns: 7}, init: 1}, ""},
		{"inside, PID 1 unreadable", ns, fakeNetns{cur: 7, named: map[string]uint64{ns: 7}}, ""},
		{"this machine's namespace (lab_netns = {})", ns, fakeNetns{cur: 1, named: map[string]uint64{ns: 7}, init: 1}, "runs in another one"},
		{"another lab host's namespace", ns, fakeNetns{cur: 8, named: map[string]uint64{ns: 7, "roce-abc123-h2": 8}, init: 1}, "runs in another one"},
		{"namespace gone (lab down)", ns, fakeNetns{cur: 7, named: map[string]uint64{}, init: 1}, "is the lab running?"},
		{"namespace is the machine's own", ns, fakeNetns{cur: 1, named: map[string]uint64{ns: 1}, init: 1}, "this machine's own network namespace"},
		{"hand-seeded tree, this machine's namespace", "", fakeNetns{cur: 1, named: map[string]uint64{ns: 7}, init: 1}, "names no network namespace"},
		{"hand-seeded tree, PID 1 unreadable, unnamed namespace", "", fakeNetns{cur: 3, named: map[string]uint64{ns: 7}}, "names no network namespace"},
		{"hand-seeded tree, PID 1 unreadable, named namespace", "", fakeNetns{cur: 7, named: map[string]uint64{ns: 7}}, ""},
		{"hand-seeded tree, another namespace", "", fakeNetns{cur: 7, named: map[string]uint64{ns: 7}, init: 1}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := SeedLab(root, LabSpec{Netns: tc.netns, NICs: []LabNIC{{Netdev: "v0", RDMADevice: "mlx5_0"}}}); err != nil {
				t.Fatal(err)
			}
			if got := LabNetns(root); got != tc.netns {
				t.Fatalf("LabNetns = %q, want %q", got, tc.netns)
			}
			real := &recordingLinks{}
			sys := openSystem(root, real, tc.probe)
			if !sys.Lab || sys.EmulatedLinks {
				t.Fatalf("Lab %v EmulatedLinks %v", sys.Lab, sys.EmulatedLinks)
			}
			errs := linkOps(context.Background(), sys)
			if tc.want == "" {
				if len(real.calls) == 0 {
					t.Fatal("inside the lab namespace no call reached the netlink layer")
				}
				if errs["Read"] != nil {
					t.Errorf("read inside the lab namespace: %v", errs["Read"])
				}
				return
			}
			if len(real.calls) > 0 {
				t.Fatalf("the netlink layer was called outside the lab namespace: %v", real.calls)
			}
			for op, err := range errs {
				if op == "Desired" {
					t.Fatal(err)
				}
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: error %v, want one containing %q", op, err, tc.want)
				}
			}
			if e := errs["Link"].Error(); !strings.Contains(e, root) || !strings.Contains(e, "refusing to touch this machine's interfaces") {
				t.Errorf("the error names neither the host tree nor the refusal: %s", e)
			}
		})
	}
}

// Emulated links (a lab without root) never reach netlink at all,
// whatever namespace the agent runs in.
func TestEmulatedLinksNeverReachNetlink(t *testing.T) {
	root := t.TempDir()
	if err := SeedLab(root, LabSpec{EmulatedLinks: true, NICs: []LabNIC{{Netdev: "v0", RDMADevice: "mlx5_0"}}}); err != nil {
		t.Fatal(err)
	}
	real := &recordingLinks{}
	sys := openSystem(root, real, fakeNetns{cur: 1, init: 1})
	errs := linkOps(context.Background(), sys)
	if len(real.calls) > 0 {
		t.Fatalf("emulated lab links called the netlink layer: %v", real.calls)
	}
	if errs["Read"] != nil || errs["Apply"] != nil {
		t.Errorf("emulated host: read %v, apply %v", errs["Read"], errs["Apply"])
	}
}

// A real host tree (no lab marker) uses netlink directly: the guard is
// for lab trees only and this machine is guarded one level up (the plan
// marks it and roce-apply asks for consent).
func TestRealRootUsesNetlinkUnguarded(t *testing.T) {
	real := &recordingLinks{}
	sys := openSystem(t.TempDir(), real, fakeNetns{cur: 1, init: 1})
	if sys.Lab {
		t.Fatal("an unmarked tree selected the lab backends")
	}
	if _, err := sys.Links.Link(context.Background(), "v0"); err != nil || len(real.calls) != 1 {
		t.Fatalf("Link: %v, calls %v", err, real.calls)
	}
}

// Re-seeding a tree without a namespace removes an earlier marker, so a
// stale name can't vouch for a tree it no longer belongs to.
func TestSeedLabDropsStaleNetnsMarker(t *testing.T) {
	root := t.TempDir()
	spec := LabSpec{Netns: "roce-old-h1", NICs: []LabNIC{{Netdev: "v0"}}}
	if err := SeedLab(root, spec); err != nil {
		t.Fatal(err)
	}
	spec.Netns = ""
	if err := SeedLab(root, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, LabNetnsMarker)); !os.IsNotExist(err) {
		t.Fatalf("marker still there after re-seeding without a namespace: %v", err)
	}
}

// The real probe, as root: a namespace made here is not this thread's
// until the thread enters it, and PID 1's namespace is told apart.
func TestHostNetnsProbe(t *testing.T) {
	ns := newNetns(t)
	root := t.TempDir()
	if err := SeedLab(root, LabSpec{Netns: ns, NICs: []LabNIC{{Netdev: "v0", RDMADevice: "mlx5_0"}}}); err != nil {
		t.Fatal(err)
	}
	if err := CheckLabNetns(root, HostNetns{}); err == nil || !strings.Contains(err.Error(), "runs in another one") {
		t.Fatalf("outside the namespace: %v", err)
	}
	sys, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sys.Links.Link(context.Background(), "v0"); err == nil {
		t.Fatal("Link of a lab netdev succeeded outside its namespace")
	}
	inNetns(t, ns, func() {
		if err := CheckLabNetns(root, HostNetns{}); err != nil {
			t.Errorf("inside the namespace: %v", err)
		}
		li, err := sys.Links.Link(context.Background(), "v0")
		if err != nil || li == nil {
			t.Errorf("Link inside the namespace: %+v %v", li, err)
		}
	})
	if _, err := (HostNetns{}).Named("../etc"); err == nil {
		t.Error("Named accepted a path")
	}
}
