package nics

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// labLinks emulates VLAN devices for the lab, whose kernel has no 802.1Q
// (docs/platform-hosts.md #vlan: LinkAdd of a vlan gives EOPNOTSUPP). Every other
// netdev (veth, macvlan) is real and handled by netlink. LAB ONLY.
type labLinks struct {
	root string
	real Links
}

type labVLAN struct {
	Parent    string            `json:"parent"`
	ID        int               `json:"id"`
	Egress    map[uint32]uint32 `json:"egress"`
	MTU       int               `json:"mtu"`
	Addresses []string          `json:"addresses"`
}

func (l *labLinks) vlan(name string) (*labVLAN, error) {
	var v labVLAN
	ok, err := loadLab(l.root, "vlan", name, &v)
	if err != nil || !ok {
		return nil, err
	}
	return &v, nil
}

func (l *labLinks) Link(ctx context.Context, name string) (*LinkInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, err := l.vlan(name)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return l.real.Link(ctx, name)
	}
	// A VLAN device disappears with its parent, as in the kernel.
	p, err := l.real.Link(ctx, v.Parent)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, nil
	}
	addrs := append([]string(nil), v.Addresses...)
	sort.Strings(addrs)
	return &LinkInfo{Name: name, MTU: v.MTU, Addresses: addrs, VLAN: &VLANInfo{Parent: v.Parent, ID: v.ID, Egress: fullEgress(v.Egress)}}, nil
}

func (l *labLinks) SetMTU(ctx context.Context, name string, mtu int) error {
	v, err := l.vlan(name)
	if err != nil {
		return err
	}
	if v == nil {
		return l.real.SetMTU(ctx, name, mtu)
	}
	p, err := l.real.Link(ctx, v.Parent)
	if err != nil {
		return err
	}
	if p == nil || mtu > p.MTU {
		return fmt.Errorf("%s: set MTU %d: larger than parent %s MTU (numerical result out of range)", name, mtu, v.Parent)
	}
	v.MTU = mtu
	return saveLab(l.root, "vlan", name, v)
}

func (l *labLinks) gids() labGIDs { return labGIDs{sys: &System{Root: l.root, Lab: true}} }

func (l *labLinks) AddAddr(ctx context.Context, name, cidr string) error {
	v, err := l.vlan(name)
	if err != nil {
		return err
	}
	if v == nil {
		if err := l.real.AddAddr(ctx, name, cidr); err != nil {
			return err
		}
		return l.gids().add(name, name, cidr)
	}
	var c string
	if v.Addresses, c, err = withAddr(v.Addresses, name, cidr); err != nil {
		return err
	}
	if err := saveLab(l.root, "vlan", name, v); err != nil {
		return err
	}
	return l.gids().add(v.Parent, name, c)
}

func (l *labLinks) DelAddr(ctx context.Context, name, cidr string) error {
	v, err := l.vlan(name)
	if err != nil {
		return err
	}
	if v == nil {
		if err := l.real.DelAddr(ctx, name, cidr); err != nil {
			return err
		}
		return l.gids().del(name, name, cidr)
	}
	var c string
	if v.Addresses, c, err = withoutAddr(v.Addresses, name, cidr); err != nil {
		return err
	}
	if err := saveLab(l.root, "vlan", name, v); err != nil {
		return err
	}
	return l.gids().del(v.Parent, name, c)
}

func (l *labLinks) AddVLAN(ctx context.Context, parent, name string, id int, egress map[uint32]uint32) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := l.real.Link(ctx, parent)
	if err != nil {
		return err
	}
	if p == nil {
		return fmt.Errorf("%s: create VLAN %d: parent %s: no such netdev", name, id, parent)
	}
	if existing, err := l.Link(ctx, name); err != nil {
		return err
	} else if existing != nil {
		return fmt.Errorf("%s: create VLAN %d: file exists", name, id)
	}
	return saveLab(l.root, "vlan", name, &labVLAN{Parent: parent, ID: id, Egress: fullEgress(egress), MTU: p.MTU})
}

func (l *labLinks) SetVLANEgress(ctx context.Context, name string, egress map[uint32]uint32) error {
	v, err := l.vlan(name)
	if err != nil {
		return err
	}
	if v == nil {
		return l.real.SetVLANEgress(ctx, name, egress)
	}
	v.Egress = fullEgress(egress)
	return saveLab(l.root, "vlan", name, v)
}

func (l *labLinks) DelLink(ctx context.Context, name string) error {
	v, err := l.vlan(name)
	if err != nil {
		return err
	}
	if v == nil {
		return l.real.DelLink(ctx, name)
	}
	// Deleting the device drops its addresses and so their GIDs.
	for _, a := range v.Addresses {
		if err := l.gids().del(v.Parent, name, a); err != nil {
			return err
		}
	}
	return removeLab(l.root, "vlan", name)
}

// LabNetnsMarker is the file under a lab host's root that names the
// network namespace `roce-lab up` created for that host. A lab root whose
// netdevs are real is only ever operated inside that namespace: without
// the marker, or from any other namespace, every link operation is
// refused. LAB ONLY.
const LabNetnsMarker = ".roce-lab-netns"

// NetnsRunDir is where iproute2 keeps named network namespaces
// (ip-netns(8)): /run/netns/NAME is a bind mount of the namespace.
const NetnsRunDir = "/run/netns"

// LabNetns returns the namespace a lab root belongs to ("" when the root
// names none: not a lab root, emulated links, or a tree not made by
// roce-lab up as root).
func LabNetns(root string) string {
	if !IsLab(root) {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(root, LabNetnsMarker))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// NetnsID identifies a network namespace: the device and inode of its
// nsfs file, equal for every path that refers to the same namespace
// (namespaces(7)).
type NetnsID struct{ Dev, Ino uint64 }

// NetnsProbe answers which network namespace is which.
type NetnsProbe interface {
	// Current is the namespace of the calling OS thread.
	Current() (NetnsID, error)
	// Named is the namespace /run/netns/NAME refers to.
	Named(name string) (NetnsID, error)
	// Init is the namespace of PID 1 (this machine's own network);
	// ok is false when it can't be read (not root, or PID 1 is out of
	// reach, as in some containers).
	Init() (id NetnsID, ok bool)
	// Names lists the named namespaces (/run/netns).
	Names() ([]string, error)
}

// HostNetns reads namespace identities from /proc and /run/netns.
type HostNetns struct{}

func netnsIDOf(path string) (NetnsID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return NetnsID{}, err
	}
	return NetnsID{Dev: uint64(st.Dev), Ino: st.Ino}, nil
}

// Current reads /proc/thread-self/ns/net: the thread's namespace, which is
// what netlink sockets opened on this thread use.
func (HostNetns) Current() (NetnsID, error) {
	id, err := netnsIDOf("/proc/thread-self/ns/net")
	if err != nil {
		return NetnsID{}, fmt.Errorf("reading this thread's network namespace: %w", err)
	}
	return id, nil
}

// Named stats /run/netns/NAME.
func (HostNetns) Named(name string) (NetnsID, error) {
	if name == "" || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
		return NetnsID{}, fmt.Errorf("network namespace name %q is not a name ip netns accepts", name)
	}
	id, err := netnsIDOf(filepath.Join(NetnsRunDir, name))
	if err != nil {
		return NetnsID{}, fmt.Errorf("network namespace %s: %w", name, err)
	}
	return id, nil
}

// Init stats /proc/1/ns/net.
func (HostNetns) Init() (NetnsID, bool) {
	id, err := netnsIDOf("/proc/1/ns/net")
	return id, err == nil
}

// Names reads /run/netns.
func (HostNetns) Names() ([]string, error) {
	ents, err := os.ReadDir(NetnsRunDir)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("listing network namespaces: %w", err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out, nil
}

// outsideMachineNetns reports whether the calling thread runs in a
// namespace other than this machine's own: not PID 1's, or, when PID 1's
// can't be read, one of the named namespaces (ip netns add).
func outsideMachineNetns(ns NetnsProbe) bool {
	cur, err := ns.Current()
	if err != nil {
		return false
	}
	if init, ok := ns.Init(); ok {
		return cur != init
	}
	names, err := ns.Names()
	if err != nil {
		return false
	}
	for _, n := range names {
		if id, err := ns.Named(n); err == nil && id == cur {
			return true
		}
	}
	return false
}

// CheckLabNetns proves that the calling thread runs inside the namespace
// `roce-lab up` made for the lab host at root, and that this namespace is
// not this machine's own. A tree that names no namespace (seeded by hand,
// not by roce-lab up) may only be used from a namespace other than PID
// 1's (when that can't be read: from a named namespace): it never reaches this machine's own interfaces either (whether it
// may reach the namespace roce runs in is the plan's this-machine
// consent). The error names the root, the namespace and what to do.
func CheckLabNetns(root string, ns NetnsProbe) error {
	name := LabNetns(root)
	if name == "" {
		if outsideMachineNetns(ns) {
			return nil
		}
		return fmt.Errorf("lab host %s: its netdevs are real, the tree names no network namespace (%s is missing: not set up by `roce-lab up` as root) and this agent runs in this machine's own namespace; refusing to touch this machine's interfaces (run roce-lab up and plan with its .lab/lab.vars)", root, LabNetnsMarker)
	}
	want, err := ns.Named(name)
	if err != nil {
		return fmt.Errorf("lab host %s: %w: is the lab running? (roce-lab up); refusing to touch this machine's interfaces", root, err)
	}
	if init, ok := ns.Init(); ok && init == want {
		return fmt.Errorf("lab host %s: namespace %s is this machine's own network namespace, not one roce-lab up created; refusing to touch this machine's interfaces", root, name)
	}
	cur, err := ns.Current()
	if err != nil {
		return fmt.Errorf("lab host %s: %w", root, err)
	}
	if cur != want {
		return fmt.Errorf("lab host %s belongs to network namespace %s, but this agent runs in another one: refusing to touch this machine's interfaces (check lab_netns in your var files: it must name the namespaces roce-lab up wrote to .lab/lab.vars)", root, name)
	}
	return nil
}

// labNetnsGuard is the only way a lab root with real netdevs reaches
// netlink: each call first checks CheckLabNetns, so a lab host planned
// from the wrong namespace (a var file with lab_netns = {}) fails instead
// of reading or changing this machine's interfaces. LAB ONLY.
type labNetnsGuard struct {
	root string
	real Links
	ns   NetnsProbe
}

func (g labNetnsGuard) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return CheckLabNetns(g.root, g.ns)
}

func (g labNetnsGuard) Link(ctx context.Context, name string) (*LinkInfo, error) {
	if err := g.check(ctx); err != nil {
		return nil, err
	}
	return g.real.Link(ctx, name)
}

func (g labNetnsGuard) SetMTU(ctx context.Context, name string, mtu int) error {
	if err := g.check(ctx); err != nil {
		return err
	}
	return g.real.SetMTU(ctx, name, mtu)
}

func (g labNetnsGuard) AddAddr(ctx context.Context, name, cidr string) error {
	if err := g.check(ctx); err != nil {
		return err
	}
	return g.real.AddAddr(ctx, name, cidr)
}

func (g labNetnsGuard) DelAddr(ctx context.Context, name, cidr string) error {
	if err := g.check(ctx); err != nil {
		return err
	}
	return g.real.DelAddr(ctx, name, cidr)
}

func (g labNetnsGuard) AddVLAN(ctx context.Context, parent, name string, id int, egress map[uint32]uint32) error {
	if err := g.check(ctx); err != nil {
		return err
	}
	return g.real.AddVLAN(ctx, parent, name, id, egress)
}

func (g labNetnsGuard) SetVLANEgress(ctx context.Context, name string, egress map[uint32]uint32) error {
	if err := g.check(ctx); err != nil {
		return err
	}
	return g.real.SetVLANEgress(ctx, name, egress)
}

func (g labNetnsGuard) DelLink(ctx context.Context, name string) error {
	if err := g.check(ctx); err != nil {
		return err
	}
	return g.real.DelLink(ctx, name)
}
