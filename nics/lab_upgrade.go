package nics

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// What a NIC firmware update or a driver reload does to a lab host, and
// the counters an emulated RDMA transfer leaves behind. LAB ONLY: every
// function here refuses a root without the lab marker. The modelled
// effects and their sources are listed in docs/lab-upgrades.md.

// checkLabRoot refuses anything but a seeded lab tree.
func checkLabRoot(root string) error {
	if !IsLab(root) {
		return fmt.Errorf("lab host: %q is not a lab host tree (no %s): refusing to read or change it this way", root, LabMarker)
	}
	return nil
}

// LabDCBApps reads the DCB APP entries of an emulated netdev straight from
// the lab host's tree (no netlink, so it works from outside the host's
// namespace): what the lab's emulated RDMA path model reads as the NIC's
// priority mapping. A netdev never configured has none (PCP trust).
func LabDCBApps(root, netdev string) ([]DCBApp, error) {
	if err := checkLabRoot(root); err != nil {
		return nil, err
	}
	st := defaultLabDCB()
	if _, err := loadLab(root, "dcb", netdev, &st); err != nil {
		return nil, err
	}
	return st.Apps, nil
}

// LabRDMADevices lists the emulated RDMA devices of a lab host.
func LabRDMADevices(root string) ([]string, error) {
	if err := checkLabRoot(root); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(ibClass)))
	if err != nil {
		return nil, fmt.Errorf("lab host %s: listing RDMA devices: %w", root, err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out, nil
}

// LabNICReset emulates what a lab host's NICs go through when the driver
// is reloaded — which a firmware update needs as well — and returns one
// sentence per effect:
//
//   - the DCB state the driver held (PFC bitmap, DSCP APP entries and so
//     DSCP trust, DCBX mode, pause counters) goes back to the firmware
//     default: no PFC, no APP entries (PCP trust), firmware-managed DCBX;
//   - rdma_cm's configfs entries are recreated with their defaults
//     (default_roce_tos 0, default_roce_mode RoCE v2);
//   - with fw != "", every RDMA device reports fw_ver fw.
//
// Nothing a host persists on its own (an lldpad or boot-time script that
// re-applies DCB) is modelled: the lab host comes back with the defaults.
func LabNICReset(root, fw string) ([]string, error) {
	devs, err := LabRDMADevices(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, dev := range devs {
		if fw != "" {
			p := filepath.Join(root, filepath.FromSlash(path.Join(ibClass, dev, "fw_ver")))
			old, _ := os.ReadFile(p)
			if err := WriteFileAtomic(p, []byte(fw+"\n"), 0o644); err != nil {
				return out, fmt.Errorf("lab host %s: %s firmware: %w", root, dev, err)
			}
			out = append(out, fmt.Sprintf("%s firmware %s -> %s", dev, strings.TrimSpace(string(old)), fw))
		}
		cp := filepath.Join(root, filepath.FromSlash(path.Join(rdmacmConfig, dev)))
		ports, err := os.ReadDir(filepath.Join(cp, "ports"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return out, fmt.Errorf("lab host %s: rdma_cm configfs of %s: %w", root, dev, err)
		}
		for _, p := range ports {
			dir := filepath.Join(cp, "ports", p.Name())
			if err := WriteFileAtomic(filepath.Join(dir, "default_roce_tos"), []byte("0\n"), 0o644); err != nil {
				return out, fmt.Errorf("lab host %s: resetting rdma_cm ToS of %s: %w", root, dev, err)
			}
			if err := WriteFileAtomic(filepath.Join(dir, "default_roce_mode"), []byte(gidTypeV2+"\n"), 0o644); err != nil {
				return out, fmt.Errorf("lab host %s: resetting rdma_cm RoCE mode of %s: %w", root, dev, err)
			}
			out = append(out, fmt.Sprintf("%s port %s: rdma_cm default_roce_tos back to 0", dev, p.Name()))
		}
	}
	dcb := filepath.Join(root, labStateDir, "dcb")
	ents, err := os.ReadDir(dcb)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return out, fmt.Errorf("lab host %s: DCB state: %w", root, err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if err := os.Remove(filepath.Join(dcb, e.Name())); err != nil {
			return out, fmt.Errorf("lab host %s: resetting DCB of %s: %w", root, strings.TrimSuffix(e.Name(), ".json"), err)
		}
		out = append(out, fmt.Sprintf("%s: DCB back to firmware defaults (no PFC, no DSCP APP entries: PCP trust)", strings.TrimSuffix(e.Name(), ".json")))
	}
	return out, nil
}

// LabAddCounters adds to an emulated RDMA port's counters (sysfs counters/
// or hw_counters/, by name, e.g. "hw_counters/out_of_sequence"), as the
// hardware would count an emulated transfer. Counters that do not exist
// are created.
func LabAddCounters(root, dev string, port int, add map[string]uint64) error {
	if err := checkLabRoot(root); err != nil {
		return err
	}
	if dev == "" || strings.ContainsAny(dev, `/\`) || dev == "." || dev == ".." {
		return fmt.Errorf("lab host %s: %q is not an RDMA device name", root, dev)
	}
	if port == 0 {
		port = 1
	}
	base := filepath.Join(root, filepath.FromSlash(path.Join(ibClass, dev, "ports", strconv.Itoa(port))))
	if _, err := os.Stat(base); err != nil {
		return fmt.Errorf("lab host %s: RDMA port %s/%d: %w", root, dev, port, err)
	}
	names := make([]string, 0, len(add))
	for n := range add {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n != path.Clean(n) || strings.HasPrefix(n, "/") || strings.Contains(n, "..") ||
			!(strings.HasPrefix(n, "counters/") || strings.HasPrefix(n, "hw_counters/")) {
			return fmt.Errorf("lab host %s: counter name %q is not under counters/ or hw_counters/", root, n)
		}
		p := filepath.Join(base, filepath.FromSlash(n))
		var cur uint64
		if b, err := os.ReadFile(p); err == nil {
			cur, _ = strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("lab host %s: %w", root, err)
		}
		if err := WriteFileAtomic(p, []byte(strconv.FormatUint(cur+add[n], 10)+"\n"), 0o644); err != nil {
			return fmt.Errorf("lab host %s: counter %s: %w", root, n, err)
		}
	}
	return nil
}
