package nics

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
)

const ibClass = "/sys/class/infiniband"

// RDMA GID type strings in gid_attrs/types (docs/platform-hosts.md #gid).
const (
	gidTypeV1 = "IB/RoCE v1"
	gidTypeV2 = "RoCE v2"
)

// rocesModeString is the configfs default_roce_mode string for a policy mode.
func roceModeString(mode string) string {
	if mode == "v1" {
		return gidTypeV1
	}
	return gidTypeV2
}

// ResolveRDMADevice finds the RDMA device behind netdev: first
// /sys/class/net/<netdev>/device/infiniband/*, then any device whose GID
// table names the netdev.
func ResolveRDMADevice(root, netdev string) (string, error) {
	s := &System{Root: root}
	dir := s.Path(path.Join("/sys/class/net", netdev, "device/infiniband"))
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return ents[0].Name(), nil
	}
	devs, _ := os.ReadDir(s.Path(ibClass))
	for _, d := range devs {
		ports, _ := os.ReadDir(s.Path(path.Join(ibClass, d.Name(), "ports")))
		for _, p := range ports {
			nd := s.Path(path.Join(ibClass, d.Name(), "ports", p.Name(), "gid_attrs/ndevs"))
			ents, _ := os.ReadDir(nd)
			for _, e := range ents {
				b, err := os.ReadFile(path.Join(nd, e.Name()))
				if err == nil && strings.TrimSpace(string(b)) == netdev {
					return d.Name(), nil
				}
			}
		}
	}
	return "", fmt.Errorf("no RDMA device found for netdev %s under %s (load the RDMA driver, or set rdma_device in the policy)", netdev, s.Path(ibClass))
}

// gidForIP is the GID string sysfs shows for ip: IPv4-mapped for IPv4.
func gidForIP(ip net.IP) string {
	ip16 := ip.To16()
	var parts []string
	for i := 0; i < 16; i += 2 {
		parts = append(parts, fmt.Sprintf("%02x%02x", ip16[i], ip16[i+1]))
	}
	return strings.Join(parts, ":")
}

// ResolveGIDIndex finds the GID index of (netdev, ip, RoCE version) on
// dev/port by reading the GID table, never assuming a fixed number (index
// numbers differ per host, docs/platform-hosts.md #gid). rocever is "v1"|"v2".
func ResolveGIDIndex(root, dev string, port int, netdev, ip, rocever string) (int, error) {
	addr := net.ParseIP(strings.Split(ip, "/")[0])
	if addr == nil {
		return 0, fmt.Errorf("GID lookup on %s/%d: %q is not an IP address", dev, port, ip)
	}
	want := gidForIP(addr)
	wantType := roceModeString(rocever)
	s := &System{Root: root}
	base := path.Join(ibClass, dev, "ports", strconv.Itoa(port))
	ents, err := os.ReadDir(s.Path(path.Join(base, "gids")))
	if err != nil {
		return 0, fmt.Errorf("GID lookup on %s/%d: %w", dev, port, err)
	}
	var idx []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			idx = append(idx, n)
		}
	}
	sort.Ints(idx)
	for _, n := range idx {
		g, err := s.readTrim(path.Join(base, "gids", strconv.Itoa(n)))
		if err != nil || g != want {
			continue
		}
		// Reading the type of an empty slot gives EINVAL: skip it.
		t, err := s.readTrim(path.Join(base, "gid_attrs/types", strconv.Itoa(n)))
		if err != nil || t != wantType {
			continue
		}
		nd, err := s.readTrim(path.Join(base, "gid_attrs/ndevs", strconv.Itoa(n)))
		if err != nil || nd != netdev {
			continue
		}
		return n, nil
	}
	return 0, fmt.Errorf("no %s GID for %s on %s (%s port %d): the address is not configured yet or the RDMA device is not bound to that netdev", wantType, ip, netdev, dev, port)
}

// DeviceFacts reads firmware and port facts from sysfs into facts, keyed
// "fw.<dev>", "port.<dev>/<p>.{state,phys_state,link_layer,rate}".
func (s *System) DeviceFacts(dev string, port int, facts map[string]string) {
	if v, err := s.readTrim(path.Join(ibClass, dev, "fw_ver")); err == nil {
		facts["fw."+dev] = v
	}
	base := path.Join(ibClass, dev, "ports", strconv.Itoa(port))
	for _, f := range []string{"state", "phys_state", "link_layer", "rate"} {
		if v, err := s.readTrim(path.Join(base, f)); err == nil {
			facts[fmt.Sprintf("port.%s/%d.%s", dev, port, f)] = v
		}
	}
}

// Kernel returns the kernel release under the root.
func (s *System) Kernel() string {
	v, err := s.readTrim("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return v
}

// FormatRateGbps writes a rate the way the kernel shows it in sysfs (for
// the lab's emulated ports); ParseRateGbps reads it back.
func FormatRateGbps(gbps int) string { return fmt.Sprintf("%d Gb/sec (4X EDR)", gbps) }

// ParseRateGbps parses a port's sysfs rate
// (/sys/class/infiniband/<dev>/ports/<p>/rate), e.g. "100 Gb/sec (4X EDR)"
// or "2.5 Gb/sec (1X SDR)", into Gb/s. Anything but a positive, finite rate
// is an error: a threshold computed from it would be meaningless.
func ParseRateGbps(s string) (float64, error) {
	f := strings.Fields(s)
	if len(f) < 2 || f[1] != "Gb/sec" {
		return 0, fmt.Errorf("sysfs rate %q: want \"<n> Gb/sec (...)\"", strings.TrimSpace(s))
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v <= 0 || v > 1e6 || v != v {
		return 0, fmt.Errorf("sysfs rate %q: %q is not a positive rate", strings.TrimSpace(s), f[0])
	}
	return v, nil
}

// readCounters reads every decimal counter file in dir; a missing dir is
// not an error (hw_counters depend on firmware caps).
func readCounters(dir string, into map[string]uint64) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			continue // some counters are write-only or racy; skip them
		}
		v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			continue
		}
		into[strings.TrimSpace(e.Name())] = v
	}
	return nil
}
