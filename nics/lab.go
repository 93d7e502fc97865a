package nics

import (
	"fmt"
	"net"
	"os"
	"path"
	"path/filepath"
	"strconv"
)

// LabSpec describes the emulated RDMA side of one lab host.
type LabSpec struct {
	Kernel string // /proc/sys/kernel/osrelease; default "6.1.0-roce-lab"
	NICs   []LabNIC
	// LegacyOFED seeds /sys/module/rdma_cm/parameters/def_prec2sl (value
	// 0), as an OFED 1.5 rdma_cm would have, instead of configfs.
	LegacyOFED bool
	// EmulatedLinks emulates the parent netdevs too (MTU, addresses), with
	// the LabLinksMarker file, so the host needs no namespace and no real
	// interface: for the scale benchmark's thousands of hosts. LAB ONLY.
	EmulatedLinks bool
	// Netns is the network namespace roce-lab up created for the host,
	// written to LabNetnsMarker. A lab root with real netdevs is operated
	// only from inside it (CheckLabNetns); without it, not at all.
	Netns string
}

// LabNIC is one emulated RoCE port on a real (veth/macvlan) netdev.
type LabNIC struct {
	Netdev     string
	RDMADevice string // default mlx5_<i>
	FWVer      string // default "16.35.2000"
	Rate       string // default "100 Gb/sec (4X EDR)"
	// GIDs are addresses already configured when the lab is seeded: each
	// gives a RoCE v1 and a v2 entry on its netdev, after the two
	// link-local entries. Addresses added later (by an apply) get their
	// entries from the lab emulation, as the kernel would add them.
	GIDs []LabGID
}

// LabGID is one address in the emulated GID table.
type LabGID struct {
	Netdev string // the netdev carrying IP (e.g. "veth0.100")
	IP     string // plain IP or CIDR
}

// SeedLab creates the lab marker and a sysfs/configfs tree under root shaped
// like a ConnectX host's (docs/platform-hosts.md #rdma-cm, #gid, #counters, #firmware), so the
// lab and the tests share one layout. Existing seeded files are
// overwritten; nothing outside root is touched.
func SeedLab(root string, spec LabSpec) error {
	if root == "" || filepath.Clean(root) == "/" {
		return fmt.Errorf("seed lab: refusing root %q: the lab tree must not be a real host's /", root)
	}
	w := func(p, v string) error {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("seed lab: %w", err)
		}
		if err := os.WriteFile(full, []byte(v), 0o644); err != nil {
			return fmt.Errorf("seed lab: %w", err)
		}
		return nil
	}
	if err := w(LabMarker, "roce lab host: DCB, VLAN devices and RDMA sysfs/configfs under this root are emulated\n"); err != nil {
		return err
	}
	kernel := spec.Kernel
	if kernel == "" {
		kernel = "6.1.0-roce-lab"
	}
	if err := w("proc/sys/kernel/osrelease", kernel+"\n"); err != nil {
		return err
	}
	if spec.EmulatedLinks {
		if err := seedEmulatedLinks(root, spec); err != nil {
			return err
		}
	}
	if spec.Netns != "" {
		if err := w(LabNetnsMarker, spec.Netns+"\n"); err != nil {
			return err
		}
	} else if err := os.Remove(filepath.Join(root, LabNetnsMarker)); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("seed lab: %w", err)
	}
	if spec.LegacyOFED {
		if err := w(defPrec2SLSys, "0\n"); err != nil {
			return err
		}
	} else if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(rdmacmConfig)), 0o755); err != nil {
		return fmt.Errorf("seed lab: %w", err)
	}
	for i, n := range spec.NICs {
		if n.Netdev == "" {
			return fmt.Errorf("seed lab: NIC %d has no netdev", i)
		}
		dev := n.RDMADevice
		if dev == "" {
			dev = "mlx5_" + strconv.Itoa(i)
		}
		fw, rate := n.FWVer, n.Rate
		if fw == "" {
			fw = "16.35.2000"
		}
		if rate == "" {
			rate = FormatRateGbps(100)
		}
		ib := path.Join(ibClass, dev)
		port := path.Join(ib, "ports/1")
		files := map[string]string{
			path.Join(ib, "fw_ver"):                              fw + "\n",
			path.Join(ib, "node_type"):                           "1: CA\n",
			path.Join(port, "state"):                             "4: ACTIVE\n",
			path.Join(port, "phys_state"):                        "5: LinkUp\n",
			path.Join(port, "link_layer"):                        "Ethernet\n",
			path.Join(port, "rate"):                              rate + "\n",
			path.Join(port, "counters/port_xmit_discards"):       "0\n",
			path.Join(port, "counters/port_rcv_errors"):          "0\n",
			path.Join(port, "counters/port_xmit_data"):           "0\n",
			path.Join(port, "counters/port_rcv_data"):            "0\n",
			path.Join(port, "hw_counters/out_of_sequence"):       "0\n",
			path.Join(port, "hw_counters/packet_seq_err"):        "0\n",
			path.Join(port, "hw_counters/np_cnp_sent"):           "0\n",
			path.Join(port, "hw_counters/rp_cnp_handled"):        "0\n",
			path.Join(port, "hw_counters/out_of_buffer"):         "0\n",
			path.Join(port, "hw_counters/local_ack_timeout_err"): "0\n",
		}
		for p, v := range files {
			if err := w(p, v); err != nil {
				return err
			}
		}
		link := path.Join("/sys/class/net", n.Netdev, "device/infiniband", dev)
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(link)), 0o755); err != nil {
			return fmt.Errorf("seed lab: %w", err)
		}
		// GID table: the link-local v1/v2 pair first, then v1/v2 per address.
		type gid struct{ gid, typ, ndev string }
		var table []gid
		ll := "fe80:0000:0000:0000:0000:0000:0000:" + fmt.Sprintf("%04x", i+1)
		table = append(table, gid{ll, gidTypeV1, n.Netdev}, gid{ll, gidTypeV2, n.Netdev})
		for _, g := range n.GIDs {
			ip := net.ParseIP(stripPrefix(g.IP))
			if ip == nil {
				return fmt.Errorf("seed lab: NIC %s: GID address %q is not an IP", n.Netdev, g.IP)
			}
			table = append(table, gid{gidForIP(ip), gidTypeV1, g.Netdev}, gid{gidForIP(ip), gidTypeV2, g.Netdev})
		}
		for idx, g := range table {
			s := strconv.Itoa(idx)
			if err := w(path.Join(port, "gids", s), g.gid+"\n"); err != nil {
				return err
			}
			if err := w(path.Join(port, "gid_attrs/types", s), g.typ+"\n"); err != nil {
				return err
			}
			if err := w(path.Join(port, "gid_attrs/ndevs", s), g.ndev+"\n"); err != nil {
				return err
			}
		}
		if !spec.LegacyOFED {
			cp := path.Join(rdmacmConfig, dev, "ports/1")
			if err := w(path.Join(cp, "default_roce_tos"), "0\n"); err != nil {
				return err
			}
			if err := w(path.Join(cp, "default_roce_mode"), gidTypeV2+"\n"); err != nil {
				return err
			}
		}
	}
	return nil
}

func stripPrefix(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i]
		}
	}
	return s
}
