package nexus

import (
	"fmt"
	"regexp"
	"strings"
)

// Patterns from reference §4 (ntc-templates samples): the system version
// line ("system:    version 5.2(1)N1(4)" or "NXOS: version 9.3(15)"), the
// kickstart line, the image line, and the hardware line
// ("cisco Nexus5548 Chassis (...)", "cisco Nexus 5596 Chassis (...)",
// "cisco Nexus7000 C7010 (10 Slot) Chassis (...)").
var (
	reSystemVersion = regexp.MustCompile(`^\s*(?:system|NXOS):\s+version\s+(\S+)`)
	reKickstart     = regexp.MustCompile(`^\s*kickstart:\s+version\s+(\S+)`)
	reSystemImage   = regexp.MustCompile(`^\s*(?:system|NXOS) image file is:\s+(\S+)`)
	reHardware      = regexp.MustCompile(`^\s*cisco\s+(Nexus\s?\d+\S*)\s*(.*)$`)
)

// ParseShowVersion reads `show version`. It needs at least the system (or
// NXOS) version line and the "cisco Nexus..." hardware line.
func ParseShowVersion(text string) (Version, error) {
	var v Version
	for _, l := range splitLines(text) {
		if m := reSystemVersion.FindStringSubmatch(l); m != nil && v.OS == "" {
			v.OS = m[1]
		}
		if m := reKickstart.FindStringSubmatch(l); m != nil && v.Kickstart == "" {
			v.Kickstart = m[1]
		}
		if m := reSystemImage.FindStringSubmatch(l); m != nil && v.Image == "" {
			v.Image = m[1]
		}
		if m := reHardware.FindStringSubmatch(l); m != nil && v.Platform == "" {
			v.Platform = strings.ReplaceAll(m[1], " ", "")
			v.Chassis = strings.TrimSpace(m[2])
		}
	}
	switch {
	case v.OS == "":
		return Version{}, fmt.Errorf("show version: no 'system: version' (or 'NXOS: version') line; is this NX-OS output?")
	case v.Platform == "":
		return Version{}, fmt.Errorf("show version: no 'cisco Nexus...' hardware line; cannot tell the platform")
	}
	return v, nil
}

// FormatShowVersion prints v as a Nexus 5000/7000 `show version` does
// (the lines ParseShowVersion reads, inside the usual banner).
func FormatShowVersion(v Version) string {
	var b strings.Builder
	b.WriteString("Cisco Nexus Operating System (NX-OS) Software\n")
	b.WriteString("TAC support: http://www.cisco.com/tac\n")
	b.WriteString("Copyright (c) 2002-2026, Cisco Systems, Inc. All rights reserved.\n\n")
	b.WriteString("Software\n")
	if v.Kickstart != "" {
		fmt.Fprintf(&b, "  kickstart: version %s\n", v.Kickstart)
	}
	fmt.Fprintf(&b, "  system:    version %s\n", v.OS)
	if v.Image != "" {
		fmt.Fprintf(&b, "  system image file is:    %s\n", v.Image)
	}
	b.WriteString("\nHardware\n")
	fmt.Fprintf(&b, "  cisco %s", v.Platform)
	if v.Chassis != "" {
		b.WriteString(" " + v.Chassis)
	}
	b.WriteString("\n")
	return b.String()
}
