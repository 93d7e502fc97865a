package nics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// LinkInfo is what we need to know about one netdev.
type LinkInfo struct {
	Name      string
	MTU       int
	Addresses []string // IPv4 and global IPv6, CIDR, sorted
	VLAN      *VLANInfo
}

// VLANInfo is the 802.1Q part of a VLAN netdev.
type VLANInfo struct {
	Parent string
	ID     int
	Egress map[uint32]uint32
}

// Links reads and changes netdevs.
type Links interface {
	// Link returns nil, nil when the netdev does not exist.
	Link(ctx context.Context, name string) (*LinkInfo, error)
	SetMTU(ctx context.Context, name string, mtu int) error
	AddAddr(ctx context.Context, name, cidr string) error
	DelAddr(ctx context.Context, name, cidr string) error
	// AddVLAN creates name on parent with the VLAN id and egress map, up.
	AddVLAN(ctx context.Context, parent, name string, id int, egress map[uint32]uint32) error
	// SetVLANEgress sets the egress map of an existing VLAN for every
	// priority 0..7 (missing entries map to 0), so the result is exact.
	SetVLANEgress(ctx context.Context, name string, egress map[uint32]uint32) error
	DelLink(ctx context.Context, name string) error
}

type netlinkLinks struct{}

func (netlinkLinks) get(name string) (netlink.Link, error) {
	l, err := netlink.LinkByName(name)
	if err != nil {
		var nf netlink.LinkNotFoundError
		if errors.As(err, &nf) || errors.Is(err, unix.ENODEV) {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: read link: %w", name, err)
	}
	return l, nil
}

func (n netlinkLinks) Link(ctx context.Context, name string) (*LinkInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := n.get(name)
	if err != nil || l == nil {
		return nil, err
	}
	li := &LinkInfo{Name: name, MTU: l.Attrs().MTU}
	addrs, err := netlink.AddrList(l, netlink.FAMILY_ALL)
	if err != nil {
		return nil, fmt.Errorf("%s: list addresses: %w", name, err)
	}
	for _, a := range addrs {
		if a.IP.IsLinkLocalUnicast() {
			continue
		}
		li.Addresses = append(li.Addresses, a.IPNet.String())
	}
	sort.Strings(li.Addresses)
	if v, ok := l.(*netlink.Vlan); ok {
		parent := ""
		if pl, err := netlink.LinkByIndex(v.ParentIndex); err == nil {
			parent = pl.Attrs().Name
		}
		li.VLAN = &VLANInfo{Parent: parent, ID: v.VlanId, Egress: v.EgressQosMap}
	}
	return li, nil
}

func (n netlinkLinks) must(ctx context.Context, name string) (netlink.Link, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l, err := n.get(name)
	if err != nil {
		return nil, err
	}
	if l == nil {
		return nil, fmt.Errorf("%s: no such netdev", name)
	}
	return l, nil
}

func (n netlinkLinks) SetMTU(ctx context.Context, name string, mtu int) error {
	l, err := n.must(ctx, name)
	if err != nil {
		return err
	}
	if err := netlink.LinkSetMTU(l, mtu); err != nil {
		return fmt.Errorf("%s: set MTU %d: %w", name, mtu, err)
	}
	return nil
}

func parseAddr(name, cidr string) (*netlink.Addr, error) {
	a, err := netlink.ParseAddr(cidr)
	if err != nil {
		return nil, fmt.Errorf("%s: address %q: %w", name, cidr, err)
	}
	return a, nil
}

func (n netlinkLinks) AddAddr(ctx context.Context, name, cidr string) error {
	l, err := n.must(ctx, name)
	if err != nil {
		return err
	}
	a, err := parseAddr(name, cidr)
	if err != nil {
		return err
	}
	if err := netlink.AddrAdd(l, a); err != nil {
		return fmt.Errorf("%s: add address %s: %w", name, cidr, err)
	}
	return nil
}

func (n netlinkLinks) DelAddr(ctx context.Context, name, cidr string) error {
	l, err := n.must(ctx, name)
	if err != nil {
		return err
	}
	a, err := parseAddr(name, cidr)
	if err != nil {
		return err
	}
	if err := netlink.AddrDel(l, a); err != nil {
		return fmt.Errorf("%s: delete address %s: %w", name, cidr, err)
	}
	return nil
}

// fullEgress expands m to all 8 priorities so a partial map can't leave a
// stale entry behind (the kernel's egress map update is additive).
func fullEgress(m map[uint32]uint32) map[uint32]uint32 {
	out := make(map[uint32]uint32, 8)
	for p := uint32(0); p < 8; p++ {
		out[p] = m[p]
	}
	return out
}

func (n netlinkLinks) AddVLAN(ctx context.Context, parent, name string, id int, egress map[uint32]uint32) error {
	p, err := n.must(ctx, parent)
	if err != nil {
		return err
	}
	v := &netlink.Vlan{
		LinkAttrs:    netlink.LinkAttrs{Name: name, ParentIndex: p.Attrs().Index},
		VlanId:       id,
		VlanProtocol: netlink.VLAN_PROTOCOL_8021Q,
		EgressQosMap: fullEgress(egress),
	}
	if err := netlink.LinkAdd(v); err != nil {
		return fmt.Errorf("%s: create VLAN %d on %s: %w", name, id, parent, err)
	}
	if err := netlink.LinkSetUp(v); err != nil {
		return fmt.Errorf("%s: set up: %w", name, err)
	}
	return nil
}

func (n netlinkLinks) SetVLANEgress(ctx context.Context, name string, egress map[uint32]uint32) error {
	l, err := n.must(ctx, name)
	if err != nil {
		return err
	}
	v, ok := l.(*netlink.Vlan)
	if !ok {
		return fmt.Errorf("%s: is a %s, not a VLAN device", name, l.Type())
	}
	mod := &netlink.Vlan{LinkAttrs: netlink.LinkAttrs{Name: name, Index: v.Index}, VlanId: v.VlanId, EgressQosMap: fullEgress(egress)}
	if err := netlink.LinkModify(mod); err != nil {
		return fmt.Errorf("%s: set egress-qos-map: %w", name, err)
	}
	return nil
}

func (n netlinkLinks) DelLink(ctx context.Context, name string) error {
	l, err := n.must(ctx, name)
	if err != nil {
		return err
	}
	if err := netlink.LinkDel(l); err != nil {
		return fmt.Errorf("%s: delete: %w", name, err)
	}
	return nil
}

// canonicalCIDR normalises an address for comparison ("10.0.0.1/24").
func canonicalCIDR(s string) string {
	ip, n, err := net.ParseCIDR(s)
	if err != nil {
		return s
	}
	n.IP = ip
	return n.String()
}
