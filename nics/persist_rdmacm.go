package nics

import (
	"context"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Persisted rdma_cm defaults: what brings an RDMA device's configfs
// default_roce_tos and default_roce_mode back after its driver is reloaded
// (the kernel frees a device's rdma_cm defaults when the device goes away
// and the new device starts from ToS 0; docs/platform-hosts.md, "Persisted
// rdma_cm defaults"). Like the persisted DCB files (persist.go), roce
// writes two files of its own:
//
//   - /etc/roce/rdma_cm/<dev>.conf: the device's values as tmpfiles.d(5)
//     lines — `d` for the configfs device directory (the mkdir rdma_cm
//     needs before ports/ appears), `w` for each value — exactly the
//     forms rdmacmPersistLines writes;
//   - /etc/udev/rules.d/90-roce-rdma_cm.rules: one rule that runs the
//     fixed program systemd-tmpfiles --create on the device's file when
//     the RDMA device is added (or renamed).
//
// The agent refuses any other content (CheckFileContent): the rule runs
// as root, so only roce's exact rule is accepted, and a value file may
// only name its own device's two configfs attributes.
//
// The legacy def_prec2sl module parameter needs none of this: roce
// persists it in /etc/modprobe.d (ModprobeFile), which modprobe applies at
// every load of rdma_cm.

// Persisted rdma_cm files, relative to the host root.
const (
	RDMACMPersistDir   = "/etc/roce/rdma_cm"
	FileRDMACMUdevRule = "/etc/udev/rules.d/90-roce-rdma_cm.rules"
	// TmpfilesTool is systemd's tmpfiles program, as the udev rule runs it.
	TmpfilesTool      = "/usr/bin/systemd-tmpfiles"
	rdmacmPersistExt  = ".conf"
	rdmacmModeLineTag = "default_roce_mode"
	rdmacmToSLineTag  = "default_roce_tos"
)

// RDMACMPersistPath is the tmpfiles.d file roce keeps for RDMA device dev.
func RDMACMPersistPath(dev string) string {
	return RDMACMPersistDir + "/" + dev + rdmacmPersistExt
}

// rdmacmPersistDevice returns the RDMA device of a persisted file path.
func rdmacmPersistDevice(p string) (string, bool) {
	dir, base := path.Split(p)
	if dir != RDMACMPersistDir+"/" || !strings.HasSuffix(base, rdmacmPersistExt) {
		return "", false
	}
	dev := strings.TrimSuffix(base, rdmacmPersistExt)
	if CheckRDMADeviceName(dev) != nil {
		return "", false
	}
	return dev, true
}

// rdmacmUdevRuleLines is the whole udev rule file: a header and one rule.
// $kernel is the RDMA device's name in the event: "add" when the driver
// registers it, "move" when a naming rule renames it afterwards.
func rdmacmUdevRuleLines() []string {
	f := RDMACMPersistDir + "/$kernel" + rdmacmPersistExt
	return []string{
		"# roce: re-applies the rdma_cm defaults roce persisted in " + RDMACMPersistDir + " when an RDMA device is added (driver reload, firmware reset, boot). Written by roce-apply; edits are refused.",
		`ACTION=="add|move", SUBSYSTEM=="infiniband", TEST=="` + f + `", RUN+="` + TmpfilesTool + ` --create ` + f + `"`,
	}
}

// rdmacmPersistLines renders one RDMA device's configfs rdma_cm defaults
// as tmpfiles.d lines: the device directory first (mkdir makes the kernel
// populate ports/), then per port (in port order) the RoCE mode and the
// ToS. Only what roce manages is written: a port without a mode gets only
// its ToS.
func rdmacmPersistLines(dev string, ports []RDMACMState) []string {
	ps := append([]RDMACMState(nil), ports...)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Port < ps[j].Port })
	lines := []string{"d " + path.Join(rdmacmConfig, dev) + " - - - -"}
	for _, p := range ps {
		dir := configfsPortDir(dev, p.Port)
		if p.Mode != "" {
			lines = append(lines, "w "+path.Join(dir, rdmacmModeLineTag)+" - - - - "+p.Mode)
		}
		if p.ToS >= 0 {
			lines = append(lines, "w "+path.Join(dir, rdmacmToSLineTag)+" - - - - "+strconv.Itoa(p.ToS))
		}
	}
	return lines
}

// rdmacmPersistFiles are the persisted rdma_cm files of a resolved host
// state: one per RDMA device set through configfs, in the order the
// devices first appear, and the udev rule when there is one. Devices are
// known only once resolved, so Resolve adds these (read.go).
func rdmacmPersistFiles(cms []RDMACMState) []FileState {
	var devs []string
	byDev := map[string][]RDMACMState{}
	for _, c := range cms {
		if c.Method != RDMACMConfigfs || c.Device == "" {
			continue
		}
		if _, ok := byDev[c.Device]; !ok {
			devs = append(devs, c.Device)
		}
		byDev[c.Device] = append(byDev[c.Device], c)
	}
	var out []FileState
	for _, d := range devs {
		out = append(out, FileState{Path: RDMACMPersistPath(d), Format: FormatLines, Exists: true,
			Lines: rdmacmPersistLines(d, byDev[d])})
	}
	if len(out) > 0 {
		out = append(out, FileState{Path: FileRDMACMUdevRule, Format: FormatLines, Exists: true, Lines: rdmacmUdevRuleLines()})
	}
	return out
}

var (
	reTmpfilesDir = regexp.MustCompile(`^d /sys/kernel/config/rdma_cm/([^/ ]+) - - - -$`)
	reTmpfilesToS = regexp.MustCompile(`^w /sys/kernel/config/rdma_cm/([^/ ]+)/ports/([1-9][0-9]{0,2})/default_roce_tos - - - - ([0-9]{1,3})$`)
	reTmpfilesMod = regexp.MustCompile(`^w /sys/kernel/config/rdma_cm/([^/ ]+)/ports/([1-9][0-9]{0,2})/default_roce_mode - - - - (RoCE v2|IB/RoCE v1)$`)
)

// rdmacmPersistSpec is the content check of a persisted rdma_cm file.
func rdmacmPersistSpec(p string) (fileSpec, bool) {
	if p == FileRDMACMUdevRule {
		return exactLinesSpec(rdmacmUdevRuleLines()), true
	}
	dev, ok := rdmacmPersistDevice(p)
	if !ok {
		return fileSpec{}, false
	}
	return fileSpec{format: FormatLines, ownFile: true, line: func(l string) error {
		return parseTmpfilesLine(dev, l, map[int]*RDMACMState{})
	}}, true
}

// parseTmpfilesLine checks one line of dev's persisted file and applies
// it to ports (by port number). It accepts exactly the forms
// rdmacmPersistLines writes.
func parseTmpfilesLine(dev, l string, ports map[int]*RDMACMState) error {
	var m []string
	switch {
	case reTmpfilesDir.MatchString(l):
		m = reTmpfilesDir.FindStringSubmatch(l)
	case reTmpfilesToS.MatchString(l):
		m = reTmpfilesToS.FindStringSubmatch(l)
	case reTmpfilesMod.MatchString(l):
		m = reTmpfilesMod.FindStringSubmatch(l)
	default:
		return fmt.Errorf("line %q is not a tmpfiles.d line roce writes (d %s/DEV - - - -, w …/ports/N/default_roce_tos - - - - TOS, w …/ports/N/default_roce_mode - - - - MODE)", l, rdmacmConfig)
	}
	if m[1] != dev {
		return fmt.Errorf("line %q is for RDMA device %s, but the file is %s's", l, m[1], dev)
	}
	if len(m) == 2 {
		return nil
	}
	port, _ := strconv.Atoi(m[2])
	if port > 255 {
		return fmt.Errorf("line %q: port %d is outside 1-255", l, port)
	}
	st := ports[port]
	if st == nil {
		st = &RDMACMState{Device: dev, Port: port, Method: RDMACMConfigfs, ToS: -1, Prec2SL: -1}
		ports[port] = st
	}
	if strings.Contains(l, "/"+rdmacmToSLineTag+" ") {
		tos, _ := strconv.Atoi(m[3])
		if tos > 255 || strconv.Itoa(tos) != m[3] {
			return fmt.Errorf("line %q: ToS %s is not 0-255", l, m[3])
		}
		st.ToS = tos
		return nil
	}
	st.Mode = m[3]
	return nil
}

// ParseRDMACMPersist reads dev's persisted tmpfiles.d file into the
// rdma_cm defaults it restores, in port order.
func ParseRDMACMPersist(dev string, data []byte) ([]RDMACMState, error) {
	ports := map[int]*RDMACMState{}
	lines, _ := splitLines(data)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if err := parseTmpfilesLine(dev, t, ports); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", RDMACMPersistPath(dev), i+1, err)
		}
	}
	out := make([]RDMACMState, 0, len(ports))
	for _, p := range ports {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Port < out[j].Port })
	return out, nil
}

// LabReapplyRDMACM plays, on a lab host, the udev event of an RDMA device
// coming back after a driver reload: when roce's rule is installed, each
// device with a persisted file gets its configfs directory (mkdir) and
// its rdma_cm defaults back, as systemd-tmpfiles would write them.
// Without the rule (or the file) nothing is restored. Returns one
// sentence per device. LAB ONLY.
func LabReapplyRDMACM(ctx context.Context, root string) ([]string, error) {
	return labReplayUdev(ctx, root, udevReplay{
		rule: FileRDMACMUdevRule, ruleLine: rdmacmUdevRuleLines()[1], dir: RDMACMPersistDir, kind: "RDMA device",
		what: "the rdma_cm defaults, they stay at the kernel's (default_roce_tos 0)",
		name: rdmacmPersistDevice,
		apply: func(s *System, dev string, data []byte) (string, error) {
			if _, err := os.Stat(s.Path(path.Join(ibClass, dev))); err != nil {
				return "", nil // udev runs the rule only for a device that is added
			}
			ports, err := ParseRDMACMPersist(dev, data)
			if err != nil {
				return "", err
			}
			if _, err := s.ensureConfigfsDevice(ctx, dev); err != nil {
				return "", fmt.Errorf("lab host %s: %s: %w", root, RDMACMPersistPath(dev), err)
			}
			var set []string
			for _, p := range ports {
				if p.Mode != "" {
					if err := s.setRoCEMode(dev, p.Port, p.Mode); err != nil {
						return "", fmt.Errorf("lab host %s: rdma_cm %s port %d: %w", root, dev, p.Port, err)
					}
					set = append(set, fmt.Sprintf("port %d default_roce_mode %s", p.Port, p.Mode))
				}
				if p.ToS >= 0 {
					if err := s.setRoCEToS(dev, p.Port, p.ToS); err != nil {
						return "", fmt.Errorf("lab host %s: rdma_cm %s port %d: %w", root, dev, p.Port, err)
					}
					set = append(set, fmt.Sprintf("port %d default_roce_tos %d", p.Port, p.ToS))
				}
			}
			return fmt.Sprintf("udev re-applied %s: %s", RDMACMPersistPath(dev), strings.Join(set, ", ")), nil
		},
	})
}

// addRDMACMPersistFiles appends to files the persisted rdma_cm files of
// cms that files does not hold yet (a state resolved twice keeps one).
func addRDMACMPersistFiles(files []FileState, cms []RDMACMState) []FileState {
	for _, f := range rdmacmPersistFiles(cms) {
		if !hasFile(files, f.Path) {
			files = append(files, f)
		}
	}
	return files
}
