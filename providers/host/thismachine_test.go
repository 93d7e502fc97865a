package host

import (
	"context"
	"errors"
	"net"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/vishvananda/netns"

	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// fakeNetns numbers namespaces: PID 1's is init (0: unreadable), roce's
// thread is in cur, named maps /run/netns names.
type fakeNetns struct {
	cur, init uint64
	named     map[string]uint64
}

func (f fakeNetns) Current() (nics.NetnsID, error) { return nics.NetnsID{Dev: 4, Ino: f.cur}, nil }
func (f fakeNetns) Named(name string) (nics.NetnsID, error) {
	n, ok := f.named[name]
	if !ok {
		return nics.NetnsID{}, errors.New("network namespace " + name + ": no such file or directory")
	}
	return nics.NetnsID{Dev: 4, Ino: n}, nil
}
func (f fakeNetns) Init() (nics.NetnsID, bool) { return nics.NetnsID{Dev: 4, Ino: f.init}, f.init != 0 }
func (f fakeNetns) Names() ([]string, error) {
	var out []string
	for n := range f.named {
		out = append(out, n)
	}
	return out, nil
}

func TestCheckLocalHost(t *testing.T) {
	const made = "roce-ab12cd-h1"
	seed := func(spec nics.LabSpec) string {
		root := t.TempDir()
		spec.NICs = []nics.LabNIC{{Netdev: "eth0", RDMADevice: "mlx5_0"}}
		if err := nics.SeedLab(root, spec); err != nil {
			t.Fatal(err)
		}
		return root
	}
	labRoot := seed(nics.LabSpec{Netns: made})
	unmarked := seed(nics.LabSpec{})
	emulated := seed(nics.LabSpec{EmulatedLinks: true})
	plain := t.TempDir()
	// roce runs in namespace 1 (PID 1's) unless a case says otherwise; the
	// lab's namespace is 7, another test namespace 9.
	std := fakeNetns{cur: 1, init: 1, named: map[string]uint64{made: 7, "other": 9, "attached-root": 1}}
	inNS := fakeNetns{cur: 9, init: 1, named: map[string]uint64{made: 7, "other": 9, "attached-root": 1}}
	cases := []struct {
		name  string
		h     policies.Host
		root  string
		ns    fakeNetns
		this  bool
		error []string // fragments; nil = no error
	}{
		{"SSH host", policies.Host{Address: "192.0.2.77"}, "/", std, false, nil},
		{"SSH to this machine", policies.Host{Address: "127.0.0.1:2222"}, "/", std, true, nil},
		{"SSH to this machine, into another namespace", policies.Host{Address: "localhost", Netns: "other"}, "/", std, false, nil},
		{"SSH to this machine, into roce's own namespace", policies.Host{Address: "[::1]:22", Netns: "other"}, "/", inNS, true, nil},
		{"local, real root", policies.Host{Local: true}, "/", std, true, nil},
		{"local, tree without lab marker", policies.Host{Local: true}, plain, std, true, nil},
		{"local in another namespace", policies.Host{Local: true, Netns: "other"}, "/", std, false, nil},
		{"local in roce's own namespace", policies.Host{Local: true, Netns: "other"}, "/", inNS, true, nil},
		{"local naming PID 1's namespace from elsewhere", policies.Host{Local: true, Netns: "attached-root"}, "/", inNS, true, nil},
		{"local in a missing namespace", policies.Host{Local: true, Netns: "gone"}, "/", std, false, nil},
		{"simulated lab host (emulated links)", policies.Host{Local: true}, emulated, std, false, nil},
		{"lab host in its namespace", policies.Host{Local: true, Netns: made}, labRoot, std, false, nil},
		{"lab host, lab_netns = {}", policies.Host{Name: "h1", Local: true}, labRoot, std, false,
			[]string{"host.h1", "netns is empty", "lab_netns = {}", made, "roce-lab up"}},
		{"lab host, another namespace", policies.Host{Name: "h1", Local: true, Netns: "other"}, labRoot, std, false,
			[]string{"host.h1", "names network namespace other", made, "lab_netns"}},
		{"lab host, PID 1's namespace", policies.Host{Name: "h1", Local: true, Netns: "attached-root"}, labRoot, std, false,
			[]string{"names network namespace attached-root"}},
		{"hand-seeded lab tree, no namespace", policies.Host{Local: true}, unmarked, std, true, nil},
		{"hand-seeded lab tree in roce's own namespace", policies.Host{Local: true, Netns: "other"}, unmarked, inNS, true, nil},
		{"hand-seeded lab tree in another namespace", policies.Host{Local: true, Netns: made}, unmarked, std, false, nil},
		{"lab namespace gone", policies.Host{Name: "h1", Local: true, Netns: made}, labRoot, fakeNetns{cur: 1, init: 1}, false,
			[]string{"host.h1", made, "is the lab running?"}},
		{"lab namespace is roce's own", policies.Host{Name: "h1", Local: true, Netns: made}, labRoot, fakeNetns{cur: 7, init: 1, named: map[string]uint64{made: 7}}, false,
			[]string{"host.h1", "the one roce itself runs in"}},
		{"lab namespace is PID 1's", policies.Host{Name: "h1", Local: true, Netns: made}, labRoot, fakeNetns{cur: 9, init: 7, named: map[string]uint64{made: 7}}, false,
			[]string{"host.h1", "this machine's own network namespace"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			this, err := checkLocalHost("host."+tc.h.Name, &tc.h, tc.root, tc.ns)
			if tc.error == nil {
				if err != nil || this != tc.this {
					t.Fatalf("this machine %v, error %v; want %v, nil", this, err, tc.this)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error (this machine %v)", this)
			}
			for _, f := range tc.error {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("error lacks %q: %v", f, err)
				}
			}
		})
	}
}

// New refuses a lab host outside its namespace before any agent runs.
func TestNewRefusesLabHostWithoutItsNamespace(t *testing.T) {
	root := t.TempDir()
	if err := nics.SeedLab(root, nics.LabSpec{Netns: "roce-ab12cd-h1", NICs: []nics.LabNIC{{Netdev: "eth0"}}}); err != nil {
		t.Fatal(err)
	}
	h := &policies.Host{Name: "h1", Local: true, Root: root, NICs: []*policies.NIC{{Netdev: "eth0", VLAN: 100}}}
	_, err := New(testEnv(&policies.Fabric{Hosts: []*policies.Host{h}}, nil), h)
	if err == nil || !strings.Contains(err.Error(), "lab_netns = {}") {
		t.Fatalf("New: %v", err)
	}
}

func TestThisMachineOf(t *testing.T) {
	desired := &nics.HostState{NICs: []nics.NICState{{Netdev: "eth0", MTU: 9000,
		VLAN: &nics.VLANState{Name: "eth0.100", Parent: "eth0", ID: 100, MTU: 9000, Addresses: []string{"10.10.0.11/24"}}}}}
	ch := func(addrs ...string) []plan.Change {
		var out []plan.Change
		for _, a := range addrs {
			c := plan.Change{Address: a, Action: plan.ActionUpdate}
			switch {
			case strings.HasSuffix(a, ".mtu"):
				c.Before, c.After = "mtu 1500", "mtu 9000"
			case strings.HasSuffix(a, ".address"):
				c.After = "192.168.5.9/24"
			}
			out = append(out, c)
		}
		return out
	}
	all := ch("nic.eth0.pfc", "nic.eth0.trust", "nic.eth0.mtu", "nic.eth0.vlan100", "file:/etc/nccl.conf")
	gw := net.ParseIP("10.10.0.1")
	peer := net.ParseIP("10.10.0.5")
	cases := []struct {
		name    string
		changes []plan.Change
		routes  machineRoutes
		rerr    error
		ifs     []string
		cutOff  []string // one fragment per expected entry, in order
	}{
		{"files only", ch("file:/etc/nccl.conf", "rdma_cm.mlx5_0.tos"), machineRoutes{Default: []string{"eth0"}}, nil, []string{}, nil},
		{"default route elsewhere", all, machineRoutes{Default: []string{"eth1"}, Gateways: []net.IP{net.ParseIP("192.0.2.1")}}, nil, []string{"eth0", "eth0.100"}, nil},
		{"default route on eth0", all, machineRoutes{Default: []string{"eth0"}}, nil, []string{"eth0", "eth0.100"},
			[]string{"eth0: PFC change toggles the link", "eth0: mtu 1500 → mtu 9000 on the interface carrying this machine's default route"}},
		{"SSH session on eth0", ch("nic.eth0.mtu", "nic.eth0.address"), machineRoutes{Default: []string{"eth1"}, SSH: "eth0", SSHPeer: net.ParseIP("192.0.2.77")}, nil, []string{"eth0"},
			[]string{"carrying the SSH session from 192.0.2.77", "eth0: address 192.168.5.9/24 added on the interface carrying the SSH session from 192.0.2.77"}},
		{"VLAN address captures the SSH client", ch("nic.eth0.vlan100"), machineRoutes{Default: []string{"eth1"}, SSH: "eth1", SSHPeer: peer}, nil, []string{"eth0.100"},
			[]string{"eth0.100: address 10.10.0.11/24 covers the SSH client 10.10.0.5, whose traffic would leave by eth0.100 instead of eth1"}},
		{"VLAN address captures the gateway", ch("nic.eth0.vlan100"), machineRoutes{Default: []string{"eth1"}, Gateways: []net.IP{gw}}, nil, []string{"eth0.100"},
			[]string{"covers the default gateway 10.10.0.1"}},
		{"VLAN carrying the default route", ch("nic.eth0.vlan100"), machineRoutes{Default: []string{"eth0.100"}, Gateways: []net.IP{gw}}, nil, []string{"eth0.100"},
			[]string{"eth0.100: VLAN device changed (MTU 9000, addresses 10.10.0.11/24) while it carries this machine's default route"}},
		{"routes unreadable", ch("nic.eth0.mtu", "nic.eth0.trust"), machineRoutes{}, errors.New("netlink: permission denied"), []string{"eth0"},
			[]string{"its routes could not be read: netlink: permission denied"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tm := thisMachineOf(desired, tc.changes, tc.routes, tc.rerr)
			if !reflect.DeepEqual(tm.Interfaces, tc.ifs) {
				t.Errorf("interfaces %q, want %q", tm.Interfaces, tc.ifs)
			}
			if len(tm.CutOff) != len(tc.cutOff) {
				t.Fatalf("cut-off %q, want %d entries like %q", tm.CutOff, len(tc.cutOff), tc.cutOff)
			}
			for i, f := range tc.cutOff {
				if !strings.Contains(tm.CutOff[i], f) {
					t.Errorf("cut-off %d = %q, want it to contain %q", i, tm.CutOff[i], f)
				}
			}
		})
	}
}

// Apply checks consent itself: a caller that did not go through
// roce-apply's guard (no consent in the context) cannot change this
// machine, and a plan that did not mark this machine is refused.
func TestApplyCheckNeedsConsentInContext(t *testing.T) {
	root := t.TempDir() // no lab marker: a local host without a namespace is this machine
	h := &policies.Host{Name: "self", Local: true}
	desired := &nics.HostState{NICs: []nics.NICState{{Netdev: "rlnone0", MTU: 9000}}}
	tp := &plan.TargetPlan{Address: "host.self", Changes: []plan.Change{{Address: "nic.rlnone0.mtu", Action: plan.ActionUpdate, Before: "mtu 1500", After: "mtu 9000"}}}
	ns := fakeNetns{cur: 1, init: 1}
	ctx := context.Background()
	consent := plan.WithThisMachineConsent(ctx, plan.ThisMachineConsent{AllowThisMachine: true})
	if err := thisMachineApplyCheck(consent, "host.self", h, root, tp, desired, ns, ""); err == nil || !strings.Contains(err.Error(), "the plan did not say so") {
		t.Fatalf("unmarked plan: %v", err)
	}
	tp.ThisMachine = &plan.ThisMachine{Interfaces: []string{"rlnone0"}}
	if err := thisMachineApplyCheck(ctx, "host.self", h, root, tp, desired, ns, ""); !errors.Is(err, errThisMachine) || !strings.Contains(err.Error(), "-allow-this-machine") {
		t.Fatalf("no consent: %v", err)
	}
	if err := thisMachineApplyCheck(consent, "host.self", h, root, tp, desired, ns, ""); err != nil {
		t.Fatalf("with consent: %v", err)
	}
	// The plan said it can cut the machine off: one flag is not enough.
	tp.ThisMachine.CutOff = []string{"rlnone0: mtu on the default route"}
	if err := thisMachineApplyCheck(consent, "host.self", h, root, tp, desired, ns, ""); err == nil || !strings.Contains(err.Error(), "-allow-cut-off") {
		t.Fatalf("cut-off with one opt-in: %v", err)
	}
	both := plan.WithThisMachineConsent(ctx, plan.ThisMachineConsent{AllowThisMachine: true, AllowCutOff: true})
	if err := thisMachineApplyCheck(both, "host.self", h, root, tp, desired, ns, ""); err != nil {
		t.Fatalf("both opt-ins: %v", err)
	}
	// Another machine needs nothing.
	far := &policies.Host{Name: "far", Local: true, Netns: "elsewhere"}
	ns.named = map[string]uint64{"elsewhere": 5}
	if err := thisMachineApplyCheck(ctx, "host.far", far, root, &plan.TargetPlan{Changes: tp.Changes}, desired, ns, ""); err != nil {
		t.Fatalf("a namespace of its own: %v", err)
	}
}

// readMachineRoutes reads the default route, its gateway and the SSH
// session's interface from the kernel (a namespace made here).
func TestReadMachineRoutes(t *testing.T) {
	name, run := testenv.Netns(t, "roce-t")
	run("-n", name, "link", "add", "up0", "type", "veth", "peer", "name", "up1")
	run("-n", name, "link", "add", "ssh0", "type", "veth", "peer", "name", "ssh1")
	for _, l := range []string{"up0", "up1", "ssh0", "ssh1"} {
		run("-n", name, "link", "set", l, "up")
	}
	run("-n", name, "addr", "add", "10.9.0.2/24", "dev", "up0")
	run("-n", name, "addr", "add", "10.8.0.2/24", "dev", "ssh0")
	run("-n", name, "route", "add", "default", "via", "10.9.0.1")

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := netns.Get()
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	target, err := netns.GetFromName(name)
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	if err := netns.Set(target); err != nil {
		t.Fatal(err)
	}
	r, err := readMachineRoutes(context.Background(), "10.8.0.77 51000 10.8.0.2 22")
	if serr := netns.Set(orig); serr != nil {
		t.Fatalf("back to the test's namespace: %v", serr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Default, []string{"up0"}) || len(r.Gateways) != 1 || !r.Gateways[0].Equal(net.ParseIP("10.9.0.1")) {
		t.Errorf("default route %v via %v, want up0 via 10.9.0.1", r.Default, r.Gateways)
	}
	if r.SSH != "ssh0" || !r.SSHPeer.Equal(net.ParseIP("10.8.0.77")) {
		t.Errorf("SSH session on %q from %v, want ssh0 from 10.8.0.77", r.SSH, r.SSHPeer)
	}
}

func TestSSHClient(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "",
		"192.0.2.9 51000 192.0.2.1 22":     "192.0.2.9",
		"2001:db8::9 51000 2001:db8::1 22": "2001:db8::9",
		"192.0.2.9":                        "",
		"not-an-ip 1 2 3":                  "",
		"0.0.0.0 1 192.0.2.1 22":           "",
		"fe80::1%eth0 1 fe80::2%eth0 22":   "",
	} {
		got := sshClient(in)
		if (got == nil && want != "") || (got != nil && got.String() != want) {
			t.Errorf("sshClient(%q) = %v, want %q", in, got, want)
		}
	}
}

// $SSH_CONNECTION comes from outside: any value gives an address or nil,
// never a panic, and an address it returns is one the string starts with.
func FuzzSSHClient(f *testing.F) {
	for _, s := range []string{"192.0.2.9 51000 192.0.2.1 22", "2001:db8::9 1 2001:db8::1 22", "", "a b c d", "[::1] 1 2 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ip := sshClient(s)
		if ip != nil && ip.IsUnspecified() {
			t.Fatalf("unspecified client from %q", s)
		}
		if ip == nil {
			return
		}
		f := strings.Fields(s)
		if len(f) != 4 || !net.ParseIP(strings.Trim(f[0], "[]")).Equal(ip) {
			t.Fatalf("client %v not taken from the first of four fields of %q", ip, s)
		}
	})
}

func TestAddressIsThisMachine(t *testing.T) {
	own := []net.IP{net.ParseIP("198.51.100.4"), net.ParseIP("2001:db8::4")}
	for addr, want := range map[string]bool{
		"127.0.0.1":          true,
		"127.0.0.1:2222":     true,
		"[::1]:22":           true,
		"::1":                true,
		"0.0.0.0:22":         true,
		"localhost":          true,
		"LOCALHOST:22":       true,
		"db.localhost":       true,
		"198.51.100.4":       true,
		"[2001:db8::4]:22":   true,
		"node7":              true,
		"node7.cluster:22":   true,
		"NODE7.cluster.":     true,
		"198.51.100.5":       false,
		"node8":              false,
		"node7.other.domain": false,
		"":                   false,
		"example.org:22":     false,
	} {
		if got := addressIsThisMachine(addr, "node7.cluster", own); got != want {
			t.Errorf("addressIsThisMachine(%q) = %v, want %v", addr, got, want)
		}
	}
	if addressIsThisMachine("node7", "", nil) {
		t.Error("an unknown hostname matched")
	}
}
