package nexus

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ErrQueuingLayout marks `show queuing interface` output in a layout
// ParseShowQueuing does not read (not the Nexus 5000 family's): the
// queues are unknown, which is not the same as having none.
var ErrQueuingLayout = errors.New("queuing output in a layout roce does not read")

// QueuingGroup is one qos-group of `show queuing interface`. TX groups come
// from the scheduling table (Bandwidth); RX groups from the per-group
// blocks (QSize, MTU, DropType, Discards, pause status).
type QueuingGroup struct {
	QoSGroup         int
	Direction        string // "RX" | "TX"
	DropType         string // "drop" | "no-drop"
	MTU              int    // HW MTU
	Bandwidth        int    // oper-bandwidth percent (TX)
	RxPause, TxPause string // "Active" | "Inactive"
	Discards         uint64 // "Pkts discarded on ingress"
	QSize            int
}

// QueuingInterface is one interface of `show queuing interface`.
type QueuingInterface struct {
	Interface string
	Groups    []QueuingGroup
}

var (
	reQIface   = regexp.MustCompile(`^(\S+) queuing information:\s*$`)
	reQSize    = regexp.MustCompile(`^q-size:\s*(\d+),\s*HW MTU:\s*(\d+)`)
	reDropType = regexp.MustCompile(`^drop-type:\s*([\w-]+)`)
	reTXRow    = regexp.MustCompile(`^(\d+)\s+(\S+)\s+(\d+)$`)
	reQGroup   = regexp.MustCompile(`^qos-group\s+(\d+)$`)
	rePause    = regexp.MustCompile(`^Per-priority-pause status\s*:\s*Rx \((\w+)\),\s*Tx \((\w+)\)`)
	reDiscard  = regexp.MustCompile(`^Pkts discarded on ingress\s*:\s*(\d+)`)
	// A pause status wrapped after "Tx" (a terminal or page narrower than
	// the line): the Tx state is on the next line, "(Inactive)".
	rePauseCut  = regexp.MustCompile(`^Per-priority-pause status\s*:\s*Rx \((\w+)\),\s*Tx$`)
	rePauseRest = regexp.MustCompile(`^\((\w+)\)$`)
	// The echoed command names the interface when the output was cut
	// before its "<interface> queuing information:" line.
	reQEcho = regexp.MustCompile(`(?i)\bsh(?:o(?:w)?)?\s+queu\w*\s+int\w*\s+(\S+(?:\s+\d+/\d+(?:/\d+)?)?)\s*$`)
)

// ParseShowQueuing reads `show queuing interface` (Nexus 5000 format,
// docs/nxos.md). Output cut before the "<interface> queuing information:"
// line (a paste that starts at "RX Queuing") still reads: the interface is
// then the one the echoed command names, or "" when there is no echo.
func ParseShowQueuing(text string) ([]QueuingInterface, error) {
	var out []QueuingInterface
	var cur *QueuingInterface
	var grp *QueuingGroup
	section := ""
	echoed := ""           // interface named by an echoed `show queuing interface X`
	pauseCut := ""         // Rx state of a pause line wrapped after "Tx"
	firstN, first := 0, "" // the first line that is not an echo, for the error
	fail := func(n int, what string) error {
		return fmt.Errorf("show queuing interface: line %d: %s", n, what)
	}
	for i, l := range splitLines(text) {
		n := i + 1
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if m := reQIface.FindStringSubmatch(t); m != nil {
			if _, ok := CanonicalInterface(m[1]); !ok {
				return nil, fail(n, fmt.Sprintf("%q is not an interface", m[1]))
			}
			out = append(out, QueuingInterface{Interface: m[1]})
			cur, grp, section = &out[len(out)-1], nil, ""
			continue
		}
		if m := reQEcho.FindStringSubmatch(t); m != nil {
			if c, ok := CanonicalInterface(m[1]); ok {
				echoed = c
			}
			continue
		}
		if cur == nil && (t == "TX Queuing" || t == "RX Queuing") {
			// no "… queuing information:" line: the output was cut
			out = append(out, QueuingInterface{Interface: echoed})
			cur = &out[len(out)-1]
		}
		if cur == nil {
			if first == "" {
				firstN, first = n, t
			}
			continue // command echo or banner before the first interface
		}
		switch t {
		case "TX Queuing":
			section, grp = "TX", nil
			continue
		case "RX Queuing":
			section, grp = "RX", nil
			continue
		}
		if section == "TX" {
			if strings.HasPrefix(t, "qos-group") && strings.Contains(t, "sched-type") {
				continue
			}
			m := reTXRow.FindStringSubmatch(t)
			if m == nil {
				continue // other TX detail lines we do not model
			}
			g, err1 := strconv.Atoi(m[1])
			bw, err2 := strconv.Atoi(m[3])
			if err1 != nil || err2 != nil || g > 7 || bw > 100 {
				return nil, fail(n, fmt.Sprintf("bad TX row %q", t))
			}
			cur.Groups = append(cur.Groups, QueuingGroup{QoSGroup: g, Direction: "TX", Bandwidth: bw})
			continue
		}
		if section != "RX" {
			continue
		}
		if m := reQGroup.FindStringSubmatch(t); m != nil {
			g, err := strconv.Atoi(m[1])
			if err != nil || g > 7 {
				return nil, fail(n, fmt.Sprintf("bad qos-group %q", t))
			}
			cur.Groups = append(cur.Groups, QueuingGroup{QoSGroup: g, Direction: "RX"})
			grp = &cur.Groups[len(cur.Groups)-1]
			continue
		}
		if grp == nil {
			continue
		}
		if pauseCut != "" {
			if m := rePauseRest.FindStringSubmatch(t); m != nil {
				grp.RxPause, grp.TxPause = pauseCut, m[1]
				pauseCut = ""
				continue
			}
			pauseCut = ""
		}
		var err error
		switch {
		case rePauseCut.MatchString(t):
			pauseCut = rePauseCut.FindStringSubmatch(t)[1]
		case reQSize.MatchString(t):
			m := reQSize.FindStringSubmatch(t)
			if grp.QSize, err = strconv.Atoi(m[1]); err != nil {
				return nil, fail(n, "q-size is not a number")
			}
			if grp.MTU, err = strconv.Atoi(m[2]); err != nil {
				return nil, fail(n, "HW MTU is not a number")
			}
		case reDropType.MatchString(t):
			grp.DropType = reDropType.FindStringSubmatch(t)[1]
		case reDiscard.MatchString(t):
			if grp.Discards, err = strconv.ParseUint(reDiscard.FindStringSubmatch(t)[1], 10, 64); err != nil {
				return nil, fail(n, "discard counter is not a number")
			}
		case rePause.MatchString(t):
			m := rePause.FindStringSubmatch(t)
			grp.RxPause, grp.TxPause = m[1], m[2]
		}
	}
	if len(out) == 0 {
		if first == "" {
			return nil, fmt.Errorf("show queuing interface: no output (no '<interface> queuing information:' block)")
		}
		// Another platform's layout (none of the Nexus 7000's was found
		// in public sources, docs/nxos.md) or a paste cut short: say what
		// was there instead of an empty result.
		if r := []rune(first); len(r) > 80 {
			first = string(r[:80]) + "…"
		}
		return nil, &QueuingLayoutError{Line: firstN, Text: first}
	}
	return out, nil
}

// QueuingLayoutError is `show queuing interface` output in a layout
// ParseShowQueuing does not read; errors.Is(err, ErrQueuingLayout) holds.
// Line and Text are its first line that is not an echo (Text cut to 80
// characters), which names the layout.
type QueuingLayoutError struct {
	Line int
	Text string
}

func (e *QueuingLayoutError) Error() string {
	return fmt.Sprintf("show queuing interface: no '<interface> queuing information:' block, the Nexus 5000-family layout roce reads; "+
		"line %d reads %q. If the switch prints another layout, roce cannot read its queues: send this output and the switch model to the roce maintainers: %v",
		e.Line, e.Text, ErrQueuingLayout)
}

// Short says the same in one clause, for a report that goes on without
// the queues (docs/nxos.md#queuing-7000 has the rest).
func (e *QueuingLayoutError) Short() string {
	return fmt.Sprintf("its output is not in the Nexus 5000-family layout roce reads (line %d reads %q)", e.Line, e.Text)
}

func (e *QueuingLayoutError) Unwrap() error { return ErrQueuingLayout }

// FormatShowQueuing prints ifs as a Nexus 5000 does.
func FormatShowQueuing(ifs []QueuingInterface) string {
	var b strings.Builder
	for _, qi := range ifs {
		fmt.Fprintf(&b, "%s queuing information:\n", qi.Interface)
		b.WriteString("  TX Queuing\n    qos-group  sched-type  oper-bandwidth\n")
		for _, g := range qi.Groups {
			if g.Direction == "TX" {
				fmt.Fprintf(&b, "        %d       WRR         %6d\n", g.QoSGroup, g.Bandwidth)
			}
		}
		b.WriteString("\n  RX Queuing\n")
		for _, g := range qi.Groups {
			if g.Direction != "RX" {
				continue
			}
			xon, xoff := 0, g.QSize
			if g.DropType == "no-drop" {
				xon, xoff = 20480, 40320
			}
			fmt.Fprintf(&b, "    qos-group %d\n", g.QoSGroup)
			fmt.Fprintf(&b, "    q-size: %d, HW MTU: %d (%d configured)\n", g.QSize, g.MTU, g.MTU)
			fmt.Fprintf(&b, "    drop-type: %s, xon: %d, xoff: %d\n", g.DropType, xon, xoff)
			b.WriteString("    Statistics:\n")
			b.WriteString("        Pkts received over the port             : 0\n")
			b.WriteString("        Ucast pkts sent to the cross-bar        : 0\n")
			b.WriteString("        Mcast pkts sent to the cross-bar        : 0\n")
			b.WriteString("        Ucast pkts received from the cross-bar  : 0\n")
			b.WriteString("        Pkts sent to the port                   : 0\n")
			fmt.Fprintf(&b, "        Pkts discarded on ingress               : %d\n", g.Discards)
			fmt.Fprintf(&b, "        Per-priority-pause status               : Rx (%s), Tx (%s)\n", g.RxPause, g.TxPause)
			b.WriteString("\n")
		}
	}
	return b.String()
}
