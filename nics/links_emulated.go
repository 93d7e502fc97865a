package nics

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// LabLinksMarker is the second marker file of a lab host: next to
// LabMarker it says that even the parent netdevs (MTU, addresses) are
// emulated, so the host needs no network namespace and no real interface.
// The scale benchmark uses it for thousands of simulated hosts. LAB ONLY:
// honoured only when the root is a lab root (IsLab).
const LabLinksMarker = ".roce-lab-links"

// IsEmulatedLinks reports whether root is a lab root whose parent netdevs
// are emulated too (LabSpec.EmulatedLinks).
func IsEmulatedLinks(root string) bool {
	if !IsLab(root) {
		return false
	}
	st, err := os.Stat(filepath.Join(root, LabLinksMarker))
	return err == nil && st.Mode().IsRegular()
}

// emulatedNetdevs replaces real netlink for the parent netdevs of a lab
// host seeded with LabSpec.EmulatedLinks: MTU and addresses live in the lab
// state directory under the root, so no operation ever reaches one of this
// machine's interfaces. VLAN devices stay with labLinks, which uses this as
// its "real" side. LAB ONLY.
type emulatedNetdevs struct {
	root string
}

type labNetdev struct {
	MTU       int      `json:"mtu"`
	Addresses []string `json:"addresses"`
}

func (e emulatedNetdevs) load(ctx context.Context, name string) (*labNetdev, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var d labNetdev
	ok, err := loadLab(e.root, "netdev", name, &d)
	if err != nil || !ok {
		return nil, err
	}
	return &d, nil
}

func (e emulatedNetdevs) must(ctx context.Context, name string) (*labNetdev, error) {
	d, err := e.load(ctx, name)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, fmt.Errorf("%s: no such netdev (emulated lab links)", name)
	}
	return d, nil
}

func (e emulatedNetdevs) Link(ctx context.Context, name string) (*LinkInfo, error) {
	d, err := e.load(ctx, name)
	if err != nil || d == nil {
		return nil, err
	}
	addrs := append([]string(nil), d.Addresses...)
	sort.Strings(addrs)
	return &LinkInfo{Name: name, MTU: d.MTU, Addresses: addrs}, nil
}

func (e emulatedNetdevs) SetMTU(ctx context.Context, name string, mtu int) error {
	d, err := e.must(ctx, name)
	if err != nil {
		return err
	}
	if mtu < 68 || mtu > 65535 {
		return fmt.Errorf("%s: set MTU %d: invalid argument", name, mtu)
	}
	d.MTU = mtu
	return saveLab(e.root, "netdev", name, d)
}

func (e emulatedNetdevs) AddAddr(ctx context.Context, name, cidr string) error {
	d, err := e.must(ctx, name)
	if err != nil {
		return err
	}
	if d.Addresses, _, err = withAddr(d.Addresses, name, cidr); err != nil {
		return err
	}
	return saveLab(e.root, "netdev", name, d)
}

func (e emulatedNetdevs) DelAddr(ctx context.Context, name, cidr string) error {
	d, err := e.must(ctx, name)
	if err != nil {
		return err
	}
	if d.Addresses, _, err = withoutAddr(d.Addresses, name, cidr); err != nil {
		return err
	}
	return saveLab(e.root, "netdev", name, d)
}

// AddVLAN, SetVLANEgress and DelLink are never reached for VLAN devices
// (labLinks emulates those); for a parent netdev they are refused, as the
// lab does not create or delete physical ports.
func (e emulatedNetdevs) AddVLAN(ctx context.Context, parent, name string, id int, egress map[uint32]uint32) error {
	return fmt.Errorf("%s: create VLAN %d on %s: not supported by the emulated lab links (labLinks creates VLANs)", name, id, parent)
}

func (e emulatedNetdevs) SetVLANEgress(ctx context.Context, name string, egress map[uint32]uint32) error {
	return fmt.Errorf("%s: set egress-qos-map: not a VLAN device", name)
}

func (e emulatedNetdevs) DelLink(ctx context.Context, name string) error {
	return fmt.Errorf("%s: delete link: the emulated lab links do not delete physical netdevs", name)
}

// seedEmulatedLinks writes the marker and one netdev per NIC (MTU 1500, no
// addresses), as a freshly booted host would show them.
func seedEmulatedLinks(root string, spec LabSpec) error {
	if err := os.WriteFile(filepath.Join(root, LabLinksMarker), []byte("roce lab host: parent netdevs (MTU, addresses) are emulated too; no real interface is touched\n"), 0o644); err != nil {
		return fmt.Errorf("seed lab: %w", err)
	}
	for _, n := range spec.NICs {
		if err := saveLab(root, "netdev", n.Netdev, &labNetdev{MTU: 1500, Addresses: []string{}}); err != nil {
			return fmt.Errorf("seed lab: %w", err)
		}
	}
	return nil
}

// withAddr adds cidr (canonical form) to an emulated device's addresses,
// refusing a duplicate with the kernel's answer. It returns the canonical
// address too.
func withAddr(addrs []string, name, cidr string) ([]string, string, error) {
	if _, err := parseAddr(name, cidr); err != nil {
		return addrs, "", err
	}
	c := canonicalCIDR(cidr)
	if slices.Contains(addrs, c) {
		return addrs, "", fmt.Errorf("%s: add address %s: file exists", name, cidr)
	}
	return append(addrs, c), c, nil
}

// withoutAddr removes cidr from an emulated device's addresses, refusing
// an address the device does not have with the kernel's answer.
func withoutAddr(addrs []string, name, cidr string) ([]string, string, error) {
	c := canonicalCIDR(cidr)
	i := slices.Index(addrs, c)
	if i < 0 {
		return addrs, "", fmt.Errorf("%s: delete address %s: cannot assign requested address", name, cidr)
	}
	return slices.Delete(addrs, i, i+1), c, nil
}
