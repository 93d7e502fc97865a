package nics

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Persisted DCB: what brings a NIC's PFC, trust and DSCP map back when its
// driver comes back (driver reload, firmware activation, reboot), which
// would otherwise leave the firmware defaults (docs/platform-hosts.md,
// "Persisted DCB"). roce writes two kinds of files, both its own:
//
//   - /etc/roce/dcb/<netdev>.dcb: the netdev's settings as iproute2 dcb
//     batch commands (`dcb -b FILE`), exactly the forms dcbBatchLines
//     writes;
//   - /etc/udev/rules.d/90-roce-dcb.rules: one rule that runs `dcb -b` on
//     a netdev's file when the netdev is added.
//
// The agent refuses any other content in them (CheckFileContent): a udev
// rule runs its program as root, so only roce's exact rule is accepted.

// Persisted DCB files, relative to the host root.
const (
	DCBPersistDir   = "/etc/roce/dcb"
	FileDCBUdevRule = "/etc/udev/rules.d/90-roce-dcb.rules"
	// DCBTool is iproute2's dcb program, as the udev rule runs it.
	DCBTool = "/usr/sbin/dcb"
	// dcbPersistExt is the batch file's extension.
	dcbPersistExt = ".dcb"
)

// DCBPersistPath is the batch file roce keeps for netdev.
func DCBPersistPath(netdev string) string {
	return DCBPersistDir + "/" + netdev + dcbPersistExt
}

// dcbPersistNetdev returns the netdev of a persisted batch file path.
func dcbPersistNetdev(p string) (string, bool) {
	dir, base := path.Split(p)
	if dir != DCBPersistDir+"/" || !strings.HasSuffix(base, dcbPersistExt) {
		return "", false
	}
	nd := strings.TrimSuffix(base, dcbPersistExt)
	if CheckNetdevName(nd) != nil {
		return "", false
	}
	return nd, true
}

// isDCBPersistFile reports whether p is one of the persisted DCB or
// rdma_cm files (persist_rdmacm.go) — managed: the agent reads and writes
// it.
func isDCBPersistFile(p string) bool {
	if p == FileDCBUdevRule || p == FileRDMACMUdevRule {
		return true
	}
	if _, ok := rdmacmPersistDevice(p); ok {
		return true
	}
	_, ok := dcbPersistNetdev(p)
	return ok
}

// udevRuleLines is the whole udev rule file: a header and one rule. RUN
// programs run after every rule of the event, so $name is the netdev's
// final name (after any rename); TEST skips netdevs roce keeps no file for.
func udevRuleLines() []string {
	f := DCBPersistDir + "/$name" + dcbPersistExt
	return []string{
		"# roce: re-applies the DCB settings roce persisted in " + DCBPersistDir + " when a netdev is added (driver reload, firmware reset, boot). Written by roce-apply; edits are refused.",
		`ACTION=="add", SUBSYSTEM=="net", TEST=="` + f + `", RUN+="` + DCBTool + ` -b ` + f + `"`,
	}
}

// dcbBatchLines renders one netdev's desired DCB as dcb batch commands:
// host-controlled IEEE DCBX (settings from the OS need it), the PFC
// bitmap, and the DSCP APP entries (DSCP trust on mlx5); PCP trust has
// none, which is what a reloaded driver has.
func dcbBatchLines(netdev string, d *DCBState) []string {
	pfc := "all:off"
	for p := 0; p < 8; p++ {
		if d.PFCEnabled&(1<<p) != 0 {
			pfc += " " + strconv.Itoa(p) + ":on"
		}
	}
	lines := []string{
		"dcbx set dev " + netdev + " host ieee",
		"pfc set dev " + netdev + " prio-pfc " + pfc,
	}
	apps := append([]DSCPApp(nil), d.DSCPApps...)
	sort.Slice(apps, func(i, j int) bool { return apps[i].DSCP < apps[j].DSCP })
	for _, a := range apps {
		lines = append(lines, fmt.Sprintf("app replace dev %s dscp-prio %d:%d", netdev, a.DSCP, a.Priority))
	}
	return lines
}

// persistFiles are the persisted DCB files of a host's desired state: a
// batch file per NIC whose DCB roce manages, and the udev rule when there
// is one.
func persistFiles(nics []nicPlan) []FileState {
	var out []FileState
	for _, n := range nics {
		if n.state.DCB == nil {
			continue
		}
		out = append(out, FileState{Path: DCBPersistPath(n.state.Netdev), Format: FormatLines, Exists: true,
			Lines: dcbBatchLines(n.state.Netdev, n.state.DCB)})
	}
	if len(out) > 0 {
		out = append(out, FileState{Path: FileDCBUdevRule, Format: FormatLines, Exists: true, Lines: udevRuleLines()})
	}
	return out
}

var (
	reBatchDCBX = regexp.MustCompile(`^dcbx set dev (\S+) host ieee$`)
	reBatchPFC  = regexp.MustCompile(`^pfc set dev (\S+) prio-pfc all:off((?: [0-7]:on)*)$`)
	reBatchApp  = regexp.MustCompile(`^app replace dev (\S+) dscp-prio ([0-9]{1,2}):([0-7])$`)
)

// persistSpec is the content check of a persisted DCB or rdma_cm file
// (fileSpecs).
func persistSpec(p string) (fileSpec, bool) {
	if spec, ok := rdmacmPersistSpec(p); ok {
		return spec, true
	}
	if p == FileDCBUdevRule {
		return exactLinesSpec(udevRuleLines()), true
	}
	nd, ok := dcbPersistNetdev(p)
	if !ok {
		return fileSpec{}, false
	}
	return fileSpec{format: FormatLines, ownFile: true, line: func(l string) error {
		_, err := parseBatchLine(nd, l, &DCBState{})
		return err
	}}, true
}

// parseBatchLine checks one batch line for netdev and applies it to d. It
// accepts exactly the forms dcbBatchLines writes.
func parseBatchLine(netdev, l string, d *DCBState) (string, error) {
	dev := ""
	switch {
	case reBatchDCBX.MatchString(l):
		dev = reBatchDCBX.FindStringSubmatch(l)[1]
		d.DCBX = DCBXHost | DCBXVerIEEE
	case reBatchPFC.MatchString(l):
		m := reBatchPFC.FindStringSubmatch(l)
		dev = m[1]
		var bits uint8
		for _, f := range strings.Fields(m[2]) {
			p, _ := strconv.Atoi(strings.TrimSuffix(f, ":on"))
			if bits&(1<<p) != 0 {
				return "", fmt.Errorf("line %q names priority %d twice", l, p)
			}
			bits |= 1 << p
		}
		d.PFCEnabled = bits
	case reBatchApp.MatchString(l):
		m := reBatchApp.FindStringSubmatch(l)
		dev = m[1]
		dscp, _ := strconv.Atoi(m[2])
		prio, _ := strconv.Atoi(m[3])
		if dscp > 63 || strconv.Itoa(dscp) != m[2] {
			return "", fmt.Errorf("line %q: DSCP %s is not 0-63", l, m[2])
		}
		d.DSCPApps = append(d.DSCPApps, DSCPApp{DSCP: dscp, Priority: prio})
		d.Trust = "dscp"
	default:
		return "", fmt.Errorf("line %q is not a dcb command roce writes (dcbx set … host ieee, pfc set … prio-pfc all:off P:on…, app replace … dscp-prio D:P)", l)
	}
	if dev != netdev {
		return "", fmt.Errorf("line %q is for netdev %s, but the file is %s's", l, dev, netdev)
	}
	return dev, nil
}

// ParseDCBBatch reads a persisted batch file's lines into the DCB state
// they restore.
func ParseDCBBatch(netdev string, data []byte) (*DCBState, error) {
	d := &DCBState{Trust: "pcp"}
	lines, _ := splitLines(data)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if _, err := parseBatchLine(netdev, t, d); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", DCBPersistPath(netdev), i+1, err)
		}
	}
	return d, nil
}

// LabReapplyDCB plays, on a lab host, the udev event of a netdev coming
// back after a driver reload: when roce's rule is installed, each netdev
// with a persisted batch file gets its DCB settings back, as `dcb -b`
// would set them. Without the rule (or its file) nothing is restored.
// Returns one sentence per netdev. LAB ONLY.
func LabReapplyDCB(ctx context.Context, root string) ([]string, error) {
	return labReplayUdev(ctx, root, udevReplay{
		rule: FileDCBUdevRule, ruleLine: udevRuleLines()[1], dir: DCBPersistDir, kind: "netdev",
		what: "the DCB settings, they stay at the driver's defaults",
		name: dcbPersistNetdev,
		apply: func(_ *System, nd string, data []byte) (string, error) {
			want, err := ParseDCBBatch(nd, data)
			if err != nil {
				return "", err
			}
			if err := labSetDCB(root, nd, want); err != nil {
				return "", err
			}
			return fmt.Sprintf("udev re-applied %s: %s", DCBPersistPath(nd), describeDCB(want)), nil
		},
	})
}

// udevReplay describes one of roce's udev rules for labReplayUdev.
type udevReplay struct {
	rule, ruleLine string // the rule file and roce's rule in it
	dir            string // where the persisted files are
	kind           string // what a file is named after ("netdev")
	what           string // what nothing re-applies without the rule
	// name returns the netdev or device a persisted file path is for.
	name func(p string) (string, bool)
	// apply re-applies one persisted file's content and says what it
	// set; "" when udev would not run the rule for it.
	apply func(s *System, name string, data []byte) (string, error)
}

// labReplayUdev plays one of roce's udev rules on a lab host after a
// driver reload: when the rule is installed, every persisted file in
// r.dir is read (beneath the root, never through a symlink) and applied.
// Returns one sentence per file, or why nothing was re-applied.
func labReplayUdev(ctx context.Context, root string, r udevReplay) ([]string, error) {
	if err := checkLabRoot(root); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := Open(root)
	if err != nil {
		return nil, err
	}
	rule, _, err := s.readBeneath(r.rule)
	if errors.Is(err, fs.ErrNotExist) {
		return []string{"no " + r.rule + ": nothing re-applies " + r.what}, nil
	}
	if err != nil {
		return nil, err
	}
	if !hasLine(rule, r.ruleLine) {
		return []string{r.rule + " does not hold roce's rule: nothing re-applied"}, nil
	}
	ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(r.dir)))
	if errors.Is(err, fs.ErrNotExist) {
		return []string{"udev rule present but " + r.dir + " is empty: nothing re-applied"}, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		p := r.dir + "/" + e.Name()
		n, ok := r.name(p)
		if !ok {
			continue
		}
		b, _, err := s.readBeneath(p)
		if err != nil {
			return out, err
		}
		said, err := r.apply(s, n, b)
		if err != nil {
			return out, err
		}
		if said != "" {
			out = append(out, said)
		}
	}
	if len(out) == 0 {
		out = append(out, "udev rule present but no "+r.kind+" has a file in "+r.dir+": nothing re-applied")
	}
	return out, nil
}

// exactLinesSpec is the content check of one of roce's udev rule files:
// every line must be one of lines (a udev rule runs its program as root).
func exactLinesSpec(lines []string) fileSpec {
	return fileSpec{format: FormatLines, ownFile: true, line: func(l string) error {
		for _, w := range lines {
			if l == w {
				return nil
			}
		}
		return fmt.Errorf("line %q is not roce's rule (a udev rule runs its program as root: roce writes only %q)", l, lines[len(lines)-1])
	}}
}

// labSetDCB sets a lab netdev's emulated DCB state as `dcb -b` would set
// it from a persisted batch: host IEEE DCBX, the PFC map, the DSCP APP
// entries (`app replace`: an entry for the same DSCP is replaced).
// It writes the lab's store directly, so it works from outside the lab
// host's namespace, like LabNICReset.
func labSetDCB(root, netdev string, want *DCBState) error {
	st := defaultLabDCB()
	if _, err := loadLab(root, "dcb", netdev, &st); err != nil {
		return fmt.Errorf("lab host %s: DCB state of %s: %w", root, netdev, err)
	}
	if want.DCBX&DCBXHost != 0 {
		st.DCBX = dcbxTarget(st.DCBX)
	}
	st.PFC.Enabled = want.PFCEnabled
	// app replace: an entry for the same DSCP is replaced, others stay.
	replaced := map[uint16]bool{}
	for _, a := range want.DSCPApps {
		replaced[uint16(a.DSCP)] = true
	}
	kept := st.Apps[:0]
	for _, a := range st.Apps {
		if a.Selector != AppSelDSCP || !replaced[a.Protocol] {
			kept = append(kept, a)
		}
	}
	st.Apps = kept
	for _, a := range want.DSCPApps {
		st.Apps = append(st.Apps, DCBApp{Selector: AppSelDSCP, Priority: uint8(a.Priority), Protocol: uint16(a.DSCP)})
	}
	return saveLab(root, "dcb", netdev, st)
}

func describeDCB(d *DCBState) string {
	return PFCString(d.PFCEnabled) + "; " + TrustString(d) + "; " + DCBXString(d.DCBX)
}

// hasLine reports whether data holds line l (trailing spaces ignored).
func hasLine(data []byte, l string) bool {
	lines, _ := splitLines(data)
	for _, x := range lines {
		if strings.TrimRight(x, " \t\r") == l {
			return true
		}
	}
	return false
}
