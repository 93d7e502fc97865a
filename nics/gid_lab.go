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

func (g labGIDs) entry(port string, n int) (gid, typ, ndev string, ok bool) {
	s := strconv.Itoa(n)
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
		for _, typ := range []string{gidTypeV1, gidTypeV2} {
			free, have := -1, false
			for n := 0; n < 256; n++ {
				gd, t, nd, ok := g.entry(port, n)
				if !ok {
					if free < 0 {
						free = n
					}
					continue
				}
				if gd == want && t == typ && nd == ndev {
					have = true
					break
				}
			}
			if have || free < 0 {
				continue
			}
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
		for n := 0; n < 256; n++ {
			gd, _, nd, ok := g.entry(port, n)
			if !ok || gd != want || nd != ndev {
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
