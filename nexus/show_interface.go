package nexus

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// InterfaceStatus is what `show interface` says about one Ethernet port (the
// values roce and its users read: state, MTU, mode, discards, pause frames).
type InterfaceStatus struct {
	Name        string
	Up          bool
	State       string // as printed: "up", "down", "administratively down" ("" = from Up)
	Reason      string // "Link not connected", "Administratively down", …
	Hardware    string // "1000/10000 Ethernet"
	MAC         string // "8c60.4f4e.93a8"
	Description string
	MTU         int
	Mode        string // "access" | "trunk" | "fex-fabric" | …
	Duplex      string // "full-duplex"
	Speed       string // "10 Gb/s"
	InPackets   uint64
	OutPackets  uint64
	CRC         uint64
	InDiscards  uint64
	OutDiscards uint64
	RxPause     uint64
	TxPause     uint64
}

var (
	reIfHead    = regexp.MustCompile(`^\s*(\S*\d\S*) is (up|down|administratively down)(?:\s*\(([^)]*)\))?(?:,.*)?\s*$`)
	reIfHW      = regexp.MustCompile(`^\s*Hardware(?::|\s+is)\s+([^,]+?)(?:,\s+address(?::|\s+is)\s+(\S+))?(?:\s+\(bia\s+\S+\))?\s*$`)
	reIfDescr   = regexp.MustCompile(`^\s*(?:Port )?[Dd]escription(?::| is)\s*(.*?)\s*$`)
	reIfMTU     = regexp.MustCompile(`^\s*MTU\s+(\d+)\s+bytes`)
	reIfMode    = regexp.MustCompile(`^\s*Port mode is (\S+)`)
	reIfDuplex  = regexp.MustCompile(`^\s*(\S+-duplex),\s+([^,]+?)(?:,\s+media type is .*)?\s*$`)
	reIfInPkts  = regexp.MustCompile(`^\s*(\d+)\s+input packets`)
	reIfOutPkts = regexp.MustCompile(`^\s*(\d+)\s+output packets`)
	reIfCRC     = regexp.MustCompile(`^\s*\d+\s+runts\s+\d+\s+giants\s+(\d+)\s+CRC`)
	reIfInDisc  = regexp.MustCompile(`(\d+)\s+input discard`)
	reIfOutDisc = regexp.MustCompile(`(\d+)\s+output discard`)
	reIfRxPause = regexp.MustCompile(`^\s*(\d+)\s+Rx pause`)
	reIfTxPause = regexp.MustCompile(`^\s*(\d+)\s+Tx pause`)
)

// ParseShowInterface reads `show interface [LIST]` output of a Nexus
// 5000/7000: one block per interface, starting "NAME is up|down". Lines it
// does not know (rates, load intervals, a banner or warning interleaved)
// are skipped; a block with no header is an error. Body lines are read
// with any indentation, none included: a document quoting the output may
// have lost it (nexus/testdata/corpus/README.md).
func ParseShowInterface(text string) ([]InterfaceStatus, error) {
	var out []InterfaceStatus
	var cur *InterfaceStatus
	num := func(s string) uint64 { n, _ := strconv.ParseUint(s, 10, 64); return n }
	for _, l := range splitLines(text) {
		if m := reIfHead.FindStringSubmatch(l); m != nil {
			out = append(out, InterfaceStatus{Name: m[1], Up: m[2] == "up", State: m[2], Reason: m[3]})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			continue
		}
		if m := reIfHW.FindStringSubmatch(l); m != nil && cur.Hardware == "" {
			cur.Hardware, cur.MAC = m[1], m[2]
		}
		if m := reIfDescr.FindStringSubmatch(l); m != nil {
			cur.Description = m[1]
		}
		if m := reIfMTU.FindStringSubmatch(l); m != nil {
			cur.MTU, _ = strconv.Atoi(m[1])
		}
		if m := reIfMode.FindStringSubmatch(l); m != nil {
			cur.Mode = m[1]
		}
		if m := reIfDuplex.FindStringSubmatch(l); m != nil {
			cur.Duplex, cur.Speed = m[1], m[2]
		}
		if m := reIfInPkts.FindStringSubmatch(l); m != nil {
			cur.InPackets = num(m[1])
		}
		if m := reIfOutPkts.FindStringSubmatch(l); m != nil {
			cur.OutPackets = num(m[1])
		}
		if m := reIfCRC.FindStringSubmatch(l); m != nil {
			cur.CRC = num(m[1])
		}
		if m := reIfInDisc.FindStringSubmatch(l); m != nil {
			cur.InDiscards = num(m[1])
		}
		if m := reIfOutDisc.FindStringSubmatch(l); m != nil {
			cur.OutDiscards = num(m[1])
		}
		if m := reIfRxPause.FindStringSubmatch(l); m != nil {
			cur.RxPause = num(m[1])
		}
		if m := reIfTxPause.FindStringSubmatch(l); m != nil {
			cur.TxPause = num(m[1])
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("show interface: no \"NAME is up|down\" line; is this show interface output?")
	}
	return out, nil
}

// FormatShowInterface prints ports the way a Nexus 5000 on NX-OS 5.x–7.x
// prints `show interface` for a physical Ethernet port (the layout of the
// real output cited in docs/nxos.md): every line is one ntc-templates'
// cisco_nxos_show_interface template knows.
func FormatShowInterface(ports []InterfaceStatus) string {
	var b strings.Builder
	for i, p := range ports {
		if i > 0 {
			b.WriteString("\n")
		}
		state := p.State
		if state == "" {
			state = "down"
			if p.Up {
				state = "up"
			}
		}
		if p.Reason != "" && !p.Up {
			fmt.Fprintf(&b, "%s is %s (%s)\n", p.Name, state, p.Reason)
		} else {
			fmt.Fprintf(&b, "%s is %s\n", p.Name, state)
		}
		b.WriteString(" Dedicated Interface\n")
		fmt.Fprintf(&b, "  Hardware: %s, address: %s (bia %s)\n", p.Hardware, p.MAC, p.MAC)
		if p.Description != "" {
			fmt.Fprintf(&b, "  Description: %s\n", p.Description)
		}
		fmt.Fprintf(&b, "  MTU %d bytes, BW 10000000 Kbit, DLY 10 usec\n", p.MTU)
		b.WriteString("  reliability 255/255, txload 1/255, rxload 1/255\n")
		b.WriteString("  Encapsulation ARPA\n")
		fmt.Fprintf(&b, "  Port mode is %s\n", p.Mode)
		if p.Up {
			fmt.Fprintf(&b, "  %s, %s, media type is 10G\n", p.Duplex, p.Speed)
		} else {
			b.WriteString("  auto-duplex, 10 Gb/s, media type is 10G\n")
		}
		b.WriteString("  Beacon is turned off\n")
		b.WriteString("  Input flow-control is off, output flow-control is off\n")
		b.WriteString("  Rate mode is dedicated\n")
		b.WriteString("  Switchport monitor is off \n")
		b.WriteString("  EtherType is 0x8100 \n")
		b.WriteString("  Last link flapped never\n")
		b.WriteString("  Last clearing of \"show interface\" counters never\n")
		b.WriteString("  0 interface resets\n")
		b.WriteString("  30 seconds input rate 0 bits/sec, 0 packets/sec\n")
		b.WriteString("  30 seconds output rate 0 bits/sec, 0 packets/sec\n")
		b.WriteString("  Load-Interval #2: 5 minute (300 seconds)\n")
		b.WriteString("    input rate 0 bps, 0 pps; output rate 0 bps, 0 pps\n")
		b.WriteString("  RX\n")
		fmt.Fprintf(&b, "    %d unicast packets  0 multicast packets  0 broadcast packets\n", p.InPackets)
		fmt.Fprintf(&b, "    %d input packets  0 bytes\n", p.InPackets)
		b.WriteString("    0 jumbo packets  0 storm suppression bytes\n")
		fmt.Fprintf(&b, "    0 runts  0 giants  %d CRC  0 no buffer\n", p.CRC)
		b.WriteString("    0 input error  0 short frame  0 overrun   0 underrun  0 ignored\n")
		b.WriteString("    0 watchdog  0 bad etype drop  0 bad proto drop  0 if down drop\n")
		fmt.Fprintf(&b, "    0 input with dribble  %d input discard\n", p.InDiscards)
		fmt.Fprintf(&b, "    %d Rx pause\n", p.RxPause)
		b.WriteString("  TX\n")
		fmt.Fprintf(&b, "    %d unicast packets  0 multicast packets  0 broadcast packets\n", p.OutPackets)
		fmt.Fprintf(&b, "    %d output packets  0 bytes\n", p.OutPackets)
		b.WriteString("    0 jumbo packets\n")
		b.WriteString("    0 output error  0 collision  0 deferred  0 late collision\n")
		fmt.Fprintf(&b, "    0 lost carrier  0 no carrier  0 babble %d output discard\n", p.OutDiscards)
		fmt.Fprintf(&b, "    %d Tx pause\n", p.TxPause)
	}
	return b.String()
}
