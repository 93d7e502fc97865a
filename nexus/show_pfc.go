package nexus

import (
	"fmt"
	"strconv"
	"strings"
)

// PFCStatus is one row of `show interface priority-flow-control`.
type PFCStatus struct {
	Interface, Mode string // Mode as printed: "Auto", "On", "Off"
	Oper            bool
	VLBitmap        uint8 // bit n = CoS n is no-drop, e.g. 0x08 = CoS 3
	RxPPP, TxPPP    uint64
}

// ParseShowPFC reads `show interface priority-flow-control` (docs/nxos.md):
//
//	Ethernet1/47       Auto Off           7316       762946
//	Ethernet1/2        Auto On   (8)      4088353    1890
//
// The VL bitmap in parentheses is hex. Lines that do not start with an
// interface (the echoed command, banners, warnings, log lines) are skipped;
// without the header (output cut by `| include`) the rows still read.
func ParseShowPFC(text string) ([]PFCStatus, error) {
	var out []PFCStatus
	header := false
	for i, l := range splitLines(text) {
		t := strings.TrimSpace(l)
		switch {
		case t == "" || strings.HasPrefix(t, "==="):
			continue
		case strings.HasPrefix(t, "Port") && strings.Contains(t, "Mode"):
			header = true
			continue
		}
		f := strings.Fields(t)
		if !pfcPortName(f[0]) || len(f) < 2 {
			if header && len(f) >= 5 && isPFCMode(f[1]) {
				return nil, fmt.Errorf("show interface priority-flow-control: line %d: %q is not an interface", i+1, f[0])
			}
			continue // the command echo, a banner, a warning or log line
		}
		if !header && !isPFCMode(f[1]) {
			continue // not a row of a table whose header was cut off (| include Eth)
		}
		// name mode oper [(bmap)] rx tx  — "(8)" may also be glued: "On(8)"
		var bmap string
		if len(f) >= 3 {
			if j := strings.IndexByte(f[2], '('); j > 0 {
				bmap = f[2][j:]
				f[2] = f[2][:j]
			}
		}
		if len(f) >= 4 && strings.HasPrefix(f[3], "(") {
			bmap = f[3]
			f = append(f[:3], f[4:]...)
		}
		if len(f) != 5 {
			return nil, fmt.Errorf("show interface priority-flow-control: line %d: %q: want port, mode, oper, [(bitmap)], RxPPP, TxPPP", i+1, t)
		}
		s := PFCStatus{Interface: f[0], Mode: f[1]}
		switch strings.ToLower(f[2]) {
		case "on":
			s.Oper = true
		case "off":
		default:
			return nil, fmt.Errorf("show interface priority-flow-control: line %d: oper state %q is neither On nor Off", i+1, f[2])
		}
		if bmap != "" {
			if !strings.HasSuffix(bmap, ")") {
				return nil, fmt.Errorf("show interface priority-flow-control: line %d: bad VL bitmap %q", i+1, bmap)
			}
			v, err := strconv.ParseUint(strings.Trim(bmap, "()"), 16, 8)
			if err != nil {
				return nil, fmt.Errorf("show interface priority-flow-control: line %d: VL bitmap %q is not a hex byte", i+1, bmap)
			}
			s.VLBitmap = uint8(v)
		}
		var err error
		if s.RxPPP, err = strconv.ParseUint(f[3], 10, 64); err != nil {
			return nil, fmt.Errorf("show interface priority-flow-control: line %d: RxPPP %q is not a counter", i+1, f[3])
		}
		if s.TxPPP, err = strconv.ParseUint(f[4], 10, 64); err != nil {
			return nil, fmt.Errorf("show interface priority-flow-control: line %d: TxPPP %q is not a counter", i+1, f[4])
		}
		out = append(out, s)
	}
	if !header && len(out) == 0 {
		return nil, fmt.Errorf("show interface priority-flow-control: no 'Port Mode Oper(VL bmap) RxPPP TxPPP' header and no port rows")
	}
	return out, nil
}

// pfcPortName reports a first column the table prints for a port: the
// Ethernet and port-channel names roce manages, and the other names NX-OS
// lists in the same table — Vethernet9547, a FEX or IOM port
// Ethernet1/1/2, a breakout port Br-Ethernet1/17/1 on a UCS fabric
// interconnect (testdata/corpus/README.md). Such rows are read with their
// name as printed.
func pfcPortName(s string) bool {
	if _, ok := CanonicalInterface(s); ok {
		return true
	}
	i := strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' })
	if i <= 0 || !strings.Contains(s[i:], "/") && !strings.HasPrefix(strings.ToLower(s), "veth") {
		return false
	}
	for _, r := range s[:i] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-') {
			return false
		}
	}
	for _, r := range s[i:] {
		if !(r >= '0' && r <= '9' || r == '/' || r == '.') {
			return false
		}
	}
	return true
}

// isPFCMode reports the Mode column values: Auto, On, Off.
func isPFCMode(s string) bool {
	switch strings.ToLower(s) {
	case "auto", "on", "off":
		return true
	}
	return false
}

// FormatShowPFC prints rows as the switch does.
func FormatShowPFC(rows []PFCStatus) string {
	var b strings.Builder
	bar := strings.Repeat("=", 60)
	b.WriteString(bar + "\nPort               Mode Oper(VL bmap)  RxPPP      TxPPP\n" + bar + "\n\n")
	for _, r := range rows {
		oper := "Off"
		if r.Oper {
			oper = fmt.Sprintf("On   (%x)", r.VLBitmap)
		}
		fmt.Fprintf(&b, "%-18s %-4s %-13s %-10d %d\n", r.Interface, r.Mode, oper, r.RxPPP, r.TxPPP)
	}
	return b.String()
}
