package nexus

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Patterns from docs/nxos.md (ntc-templates samples): the system version
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
	return FormatShowVersionReport(VersionReport{Version: v})
}

// VersionReport is the whole of `show version` as NX-OS 5.x–7.x prints it on
// a Nexus 5000/5500/5600 or 7000/7700: the lines roce reads (Version) and the
// ones other clients read (ntc-templates' cisco_nxos_show_version, Ansible's
// cisco.nxos cliconf and nxos_facts): BIOS, kickstart image, device name,
// serial, uptime and last reset (its time and reason). The layout follows
// real outputs; see docs/nxos.md for the sources.
type VersionReport struct {
	Version
	BIOS           string // "3.6.0"
	KickstartImage string // "bootflash:///n5000-uk9-kickstart.7.1.4.N1.1.bin"
	// Hardware is the hardware line after "cisco ", verbatim, e.g.
	// `Nexus 5596 Chassis ("O2 48X10GE/Modular Supervisor")`. Empty: built
	// from Version.Platform and Version.Chassis.
	Hardware    string
	CPU         string // `Intel(R) Xeon(R) CPU         with 8253848 kB of memory.`
	Serial      string // Processor Board ID
	DeviceName  string
	Bootflash   string // "2007040 kB"
	Uptime      time.Duration
	ResetReason string // "Unknown", "Disruptive upgrade", …
	// LastReset is when the switch was last reset, to the microsecond
	// ("Last reset at 958444 usecs after  Wed Nov  1 21:20:35 2017").
	// Zero: not known, and the line is a bare "Last reset ".
	LastReset time.Time
}

// lastResetLayout is the date of the "Last reset at" line: C's ctime
// layout (day of month padded to two columns), without a zone on the
// 5000/7000, printed after two blanks — in the 5548/5596 samples of
// networktocode/ntc-templates (nexus/testdata/corpus/show) and in the
// pattern Cisco's own client tests match, `Last reset at \d+ usecs after
// (.*)` with two blanks (cisco/cisco-network-node-utils
// tests/test_node_ext.rb @ 96fe27a0).
const lastResetLayout = "Mon Jan _2 15:04:05 2006"

// FormatShowVersionReport prints r the way a Nexus 5000/7000 on NX-OS 5.x–7.x
// prints `show version` (the layout of the 5596 7.1(4)N1(1) and 7010
// 6.2(16) outputs cited in docs/nxos.md). Compile-time lines are left out:
// no client reads them and roce has no real value for them.
func FormatShowVersionReport(r VersionReport) string {
	var b strings.Builder
	b.WriteString("Cisco Nexus Operating System (NX-OS) Software\n")
	b.WriteString("TAC support: http://www.cisco.com/tac\n")
	b.WriteString("Documents: http://www.cisco.com/en/US/products/ps9372/tsd_products_support_series_home.html\n")
	b.WriteString("Copyright (c) 2002-2016, Cisco Systems, Inc. All rights reserved.\n")
	b.WriteString("The copyrights to certain works contained herein are owned by\n")
	b.WriteString("other third parties and are used and distributed under license.\n")
	b.WriteString("Some parts of this software are covered under the GNU Public\n")
	b.WriteString("License. A copy of the license is available at\n")
	b.WriteString("http://www.gnu.org/licenses/gpl.html.\n\n")
	b.WriteString("Software\n")
	if r.BIOS != "" {
		fmt.Fprintf(&b, "  BIOS:      version %s\n", r.BIOS)
	}
	if r.Kickstart != "" {
		fmt.Fprintf(&b, "  kickstart: version %s\n", r.Kickstart)
	}
	fmt.Fprintf(&b, "  system:    version %s\n", r.OS)
	if r.KickstartImage != "" {
		fmt.Fprintf(&b, "  kickstart image file is: %s\n", r.KickstartImage)
	}
	if r.Image != "" {
		fmt.Fprintf(&b, "  system image file is:    %s\n", r.Image)
	}
	b.WriteString("\n\nHardware\n")
	hw := r.Hardware
	if hw == "" {
		hw = strings.TrimSpace(r.Platform + " " + r.Chassis)
	}
	fmt.Fprintf(&b, "  cisco %s\n", hw)
	if r.CPU != "" {
		fmt.Fprintf(&b, "  %s\n", r.CPU)
	}
	if r.Serial != "" {
		fmt.Fprintf(&b, "  Processor Board ID %s\n", r.Serial)
	}
	b.WriteString("\n")
	if r.DeviceName != "" {
		fmt.Fprintf(&b, "  Device name: %s\n", r.DeviceName)
	}
	if r.Bootflash != "" {
		fmt.Fprintf(&b, "  bootflash:    %s\n", r.Bootflash)
	}
	up := r.Uptime
	if up < 0 {
		up = 0
	}
	s := int64(up / time.Second)
	fmt.Fprintf(&b, "\nKernel uptime is %d day(s), %d hour(s), %d minute(s), %d second(s)\n\n",
		s/86400, s%86400/3600, s%3600/60, s%60)
	reason := r.ResetReason
	if reason == "" {
		reason = "Unknown"
	}
	if r.LastReset.IsZero() {
		b.WriteString("Last reset \n")
	} else {
		// The time is followed by a blank line on the 5000/7000 outputs.
		fmt.Fprintf(&b, "Last reset at %d usecs after  %s\n\n", r.LastReset.Nanosecond()/1000, r.LastReset.Format(lastResetLayout))
	}
	fmt.Fprintf(&b, "  Reason: %s\n  System version: %s\n  Service: \n\n", reason, r.OS)
	b.WriteString("plugin\n  Core Plugin, Ethernet Plugin\n")
	return b.String()
}

var (
	reBIOS        = regexp.MustCompile(`^\s*BIOS:\s+version\s+(\S+)`)
	reKickImage   = regexp.MustCompile(`^\s*kickstart image file is:\s+(\S+)`)
	reHWLine      = regexp.MustCompile(`^\s*cisco\s+(\S.*?)\s*$`)
	reCPU         = regexp.MustCompile(`^\s*(\S.* with \d+ kB of memory\.)\s*$`)
	reBoardID     = regexp.MustCompile(`^\s*Processor [Bb]oard ID\s+(\S+)`)
	reDeviceName  = regexp.MustCompile(`^\s*Device name:\s*(\S+)`)
	reBootflash   = regexp.MustCompile(`^\s*bootflash:\s+(\d+ kB)`)
	reUptime      = regexp.MustCompile(`^\s*Kernel uptime is (\d+) day\(s\), (\d+) hour\(s\), (\d+) minute\(s\), (\d+) second\(s\)`)
	reResetReason = regexp.MustCompile(`^\s*Reason:\s*(.*?)\s*$`)
	// The date is read without a zone (a Nexus 9000 may add one: "… 2019
	// EDT"; it is ignored and the time taken as UTC).
	reLastReset = regexp.MustCompile(`^\s*Last reset at (\d{1,6}) usecs after\s+(\w{3} \w{3} +\d{1,2} \d{2}:\d{2}:\d{2} \d{4})`)
)

// parseLastReset reads the time of a "Last reset at N usecs after DATE"
// line; ok is false for any other line or a date that does not parse.
func parseLastReset(l string) (t time.Time, ok bool) {
	m := reLastReset.FindStringSubmatch(l)
	if m == nil {
		return time.Time{}, false
	}
	// ctime pads a one-digit day with a blank; so does the layout, but
	// the line may have collapsed blanks: normalise to the layout's width.
	f := strings.Fields(m[2])
	date := fmt.Sprintf("%s %s %2s %s %s", f[0], f[1], f[2], f[3], f[4])
	t, err := time.Parse(lastResetLayout, date)
	if err != nil {
		return time.Time{}, false
	}
	us, _ := strconv.Atoi(m[1])
	return t.Add(time.Duration(us) * time.Microsecond), true
}

// ParseShowVersionReport reads everything FormatShowVersionReport prints
// from real or simulated `show version` output. The Version part has the
// same requirements as ParseShowVersion; the rest is filled when present.
func ParseShowVersionReport(text string) (VersionReport, error) {
	v, err := ParseShowVersion(text)
	if err != nil {
		return VersionReport{}, err
	}
	r := VersionReport{Version: v}
	inHW := false
	for _, l := range splitLines(text) {
		switch strings.TrimSpace(l) {
		case "Hardware":
			inHW = true
			continue
		case "Software":
			inHW = false
		}
		first := func(dst *string, re *regexp.Regexp) {
			if m := re.FindStringSubmatch(l); m != nil && *dst == "" {
				*dst = m[1]
			}
		}
		first(&r.BIOS, reBIOS)
		first(&r.KickstartImage, reKickImage)
		first(&r.Serial, reBoardID)
		first(&r.DeviceName, reDeviceName)
		first(&r.ResetReason, reResetReason)
		if inHW {
			first(&r.Hardware, reHWLine)
			first(&r.CPU, reCPU)
			first(&r.Bootflash, reBootflash)
		}
		if t, ok := parseLastReset(l); ok && r.LastReset.IsZero() {
			r.LastReset = t
		}
		if m := reUptime.FindStringSubmatch(l); m != nil {
			var n [4]int
			for i := range n {
				n[i], _ = strconv.Atoi(m[i+1])
			}
			r.Uptime = time.Duration(n[0])*24*time.Hour + time.Duration(n[1])*time.Hour +
				time.Duration(n[2])*time.Minute + time.Duration(n[3])*time.Second
		}
	}
	return r, nil
}
