package nics

import (
	"context"
	"fmt"
	"sort"
)

// labLinks emulates VLAN devices for the lab, whose kernel has no 802.1Q
// (reference/host.md §3: LinkAdd of a vlan gives EOPNOTSUPP). Every other
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
