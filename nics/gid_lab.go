package nics

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path"
	"strconv"
)

// The kernel adds a RoCE v1 and a v2 GID entry for every IP configured on a
// netdev (or a VLAN on it) bound to an RDMA port, and empties them when the
// address goes (docs/platform-hosts.md #gid). labGIDs plays that part for the
// lab's static sysfs tree, so GID indexes appear exactly when an apply adds
// the address — as on a real host. LAB ONLY.
type labGIDs struct{ sys *System }

// ports returns the RDMA device and port directories behind a netdev.
func (g labGIDs) ports(phys string) ([]string, error) {
	dev, err := ResolveRDMADevice(g.sys.Root, phys)
	if err != nil {
		return nil, nil // not an RDMA port: the kernel adds no GIDs either
	}
	base := path.Join(ibClass, dev, "ports")
	ents, err := os.ReadDir(g.sys.Path(base))
	if err != nil {
		return nil, fmt.Errorf("lab GID table of %s: %w", dev, err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, path.Join(base, e.Name()))
	}
	return out, nil
}

// labGIDSlots is the size of the emulated GID table of a port.
const labGIDSlots = 256

type labGIDEntry struct{ gid, typ, ndev string }

// table reads the entries a port's GID table holds: the gids directory is
// listed once and only the slots it names are read (an empty slot has no
// file), instead of probing every one of the table's slots.
func (g labGIDs) table(port string) (map[int]labGIDEntry, error) {
	names, err := os.ReadDir(g.sys.Path(path.Join(port, "gids")))
	if errors.Is(err, fs.ErrNotExist) {
		return map[int]labGIDEntry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lab GID table: %w", err)
	}
	out := make(map[int]labGIDEntry, len(names))
	for _, e := range names {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n < 0 || n >= labGIDSlots || strconv.Itoa(n) != e.Name() {
			continue
		}
		if gd, typ, nd, ok := g.entry(port, e.Name()); ok {
			out[n] = labGIDEntry{gid: gd, typ: typ, ndev: nd}
		}
	}
	return out, nil
}

func (g labGIDs) entry(port, s string) (gid, typ, ndev string, ok bool) {
	var err error
	if gid, err = g.sys.readTrim(path.Join(port, "gids", s)); err != nil {
		return "", "", "", false
	}
	typ, _ = g.sys.readTrim(path.Join(port, "gid_attrs/types", s))
	ndev, _ = g.sys.readTrim(path.Join(port, "gid_attrs/ndevs", s))
	return gid, typ, ndev, true
}

// add puts v1+v2 entries for cidr on ndev (phys is the RDMA netdev).
func (g labGIDs) add(phys, ndev, cidr string) error {
	ip, _, err := net.ParseCIDR(cidr)
	if err != nil {
		return nil
	}
	ports, err := g.ports(phys)
	if err != nil {
		return err
	}
	want := gidForIP(ip)
	for _, port := range ports {
		tab, err := g.table(port)
		if err != nil {
			return err
		}
		for _, typ := range []string{gidTypeV1, gidTypeV2} {
			have := false
			for _, e := range tab {
				if e.gid == want && e.typ == typ && e.ndev == ndev {
					have = true
					break
				}
			}
			free := -1
			for n := 0; n < labGIDSlots && free < 0; n++ {
				if _, used := tab[n]; !used {
					free = n
				}
			}
			if have || free < 0 {
				continue
			}
			tab[free] = labGIDEntry{gid: want, typ: typ, ndev: ndev}
			s := strconv.Itoa(free)
			for f, v := range map[string]string{"gids/" + s: want, "gid_attrs/types/" + s: typ, "gid_attrs/ndevs/" + s: ndev} {
				if err := os.WriteFile(g.sys.Path(path.Join(port, f)), []byte(v+"\n"), 0o644); err != nil {
					return fmt.Errorf("lab GID table: %w", err)
				}
			}
		}
	}
	return nil
}

// del removes the entries of cidr on ndev.
func (g labGIDs) del(phys, ndev, cidr string) error {
	ip, _, err := net.ParseCIDR(cidr)
	if err != nil {
		return nil
	}
	ports, err := g.ports(phys)
	if err != nil {
		return err
	}
	want := gidForIP(ip)
	for _, port := range ports {
		tab, err := g.table(port)
		if err != nil {
			return err
		}
		for n, e := range tab {
			if e.gid != want || e.ndev != ndev {
				continue
			}
			s := strconv.Itoa(n)
			for _, f := range []string{"gids/" + s, "gid_attrs/types/" + s, "gid_attrs/ndevs/" + s} {
				if err := os.Remove(g.sys.Path(path.Join(port, f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("lab GID table: %w", err)
				}
			}
		}
	}
	return nil
}
