package nexus

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// PolicyMapInterface is one interface of `show policy-map interface
// [IFACE] [type T]`: the service-policies in effect on it.
type PolicyMapInterface struct {
	Interface string
	Policies  []AttachedPolicy
}

// AttachedPolicy is one "Service-policy (TYPE) DIRECTION:   NAME" block.
type AttachedPolicy struct {
	Type      string // qos | queuing | network-qos
	Direction string // input | output | "" (network-qos)
	Name      string
	SNMPIndex string // "SNMP Policy Index:" as printed; "" when not printed
	Classes   []ClassStats
}

// ClassStats is one "Class-map (TYPE):   NAME (match-any)" block with what
// the switch prints under it.
type ClassStats struct {
	Name  string
	Match string // match-any | match-all | "" when not printed
	// Priority: the class has a "priority" or "priority level N" line;
	// PriorityLevel is N (0 for a bare "priority").
	Priority      bool
	PriorityLevel int
	// BandwidthPercent and BandwidthRemainingPercent are the "bandwidth
	// percent N" and "bandwidth remaining percent N" lines; -1 when absent.
	BandwidthPercent, BandwidthRemainingPercent int
	// Packets and Bytes are the first "N packets M bytes" line (the class's
	// match counters); HasPackets says whether there was one.
	Packets, Bytes uint64
	HasPackets     bool
	// Counters are the "NAME : N" lines in order, e.g. "queue dropped pkts".
	Counters []PolicyCounter
	// Lines are every other line of the block as printed, trimmed: actions
	// ("set qos-group 4", "Match: cos 3", "police cir 0 bps"), slots and
	// rates.
	Lines []string
}

// PolicyCounter is one "NAME : N" line of a class block.
type PolicyCounter struct {
	Name  string
	Value uint64
}

// Counter returns the value of the counter called name.
func (c ClassStats) Counter(name string) (uint64, bool) {
	for _, k := range c.Counters {
		if k.Name == name {
			return k.Value, true
		}
	}
	return 0, false
}

var (
	rePMService = regexp.MustCompile(`^Service-policy\s*\(([\w-]+)\)\s*(input|output)?\s*:\s*(\S+)\s*$`)
	rePMClass   = regexp.MustCompile(`^Class-map\s*\(([\w-]+)\)\s*:\s*(\S+)(?:\s+\((match-any|match-all)\))?\s*$`)
	rePMSNMP    = regexp.MustCompile(`^SNMP Policy Index\s*:\s*(\d+)\s*$`)
	rePMPackets = regexp.MustCompile(`^(\d+) packets,?\s+(\d+) bytes\s*$`)
	rePMPrio    = regexp.MustCompile(`^priority(?:\s+level\s+(\d+))?\s*$`)
	rePMBw      = regexp.MustCompile(`^bandwidth\s+(remaining\s+)?percent\s+(\d+)\s*$`)
	rePMCounter = regexp.MustCompile(`^([A-Za-z][\w /-]*?)\s*:\s*(\d+)\s*$`)
)

// ParseShowPolicyMapInterface reads `show policy-map interface [IFACE]
// [type qos|queuing|network-qos]` (docs/nxos.md, "show policy-map
// interface"):
//
//	Ethernet1/2
//
//	  Service-policy (queuing) output:   default-8q-out-policy
//	    SNMP Policy Index:  301990739
//
//	    Class-map (queuing):   c-out-8q-q7 (match-any)
//	      priority level 1
//	      queue dropped pkts : 0
//
// Blocks are found by their keywords, not by indentation (copies of the
// output in documents often lose it). Lines before the first interface
// (the command echo, "Global statistics status", banners) are skipped. A
// Service-policy before any interface, a Class-map outside a
// Service-policy, a class of another type than its policy, or a counter
// too large for 64 bits is an error naming the line.
func ParseShowPolicyMapInterface(text string) ([]PolicyMapInterface, error) {
	var out []PolicyMapInterface
	var pol *AttachedPolicy
	var cls *ClassStats
	other := false // a line before the first interface that is not the statistics line
	for i, l := range splitLines(text) {
		t := strings.TrimSpace(l)
		fail := func(format string, a ...any) error {
			return fmt.Errorf("show policy-map interface: line %d: %q: %s", i+1, t, fmt.Sprintf(format, a...))
		}
		if t == "" {
			continue
		}
		if f := strings.Fields(t); len(f) == 1 && policyMapInterfaceName(t) {
			out = append(out, PolicyMapInterface{Interface: t})
			pol, cls = nil, nil
			continue
		}
		if m := rePMService.FindStringSubmatch(t); m != nil {
			if len(out) == 0 {
				return nil, fail("a Service-policy before any interface line")
			}
			ifc := &out[len(out)-1]
			ifc.Policies = append(ifc.Policies, AttachedPolicy{Type: m[1], Direction: m[2], Name: m[3]})
			pol, cls = &ifc.Policies[len(ifc.Policies)-1], nil
			continue
		}
		if m := rePMClass.FindStringSubmatch(t); m != nil {
			if pol == nil {
				return nil, fail("a Class-map outside a Service-policy block")
			}
			if m[1] != pol.Type {
				return nil, fail("a class of type %s inside the %s policy %s", m[1], pol.Type, pol.Name)
			}
			c, _ := ClassStatsFromLines(m[2], m[3], nil)
			pol.Classes = append(pol.Classes, c)
			cls = &pol.Classes[len(pol.Classes)-1]
			continue
		}
		if cls == nil {
			if m := rePMSNMP.FindStringSubmatch(t); m != nil && pol != nil {
				pol.SNMPIndex = m[1]
			}
			other = other || (len(out) == 0 && !strings.HasPrefix(t, "Global statistics status"))
			continue // "Global statistics status", "policy statistics status", echo, banners
		}
		if err := cls.read(t); err != nil {
			return nil, fail("%v", err)
		}
	}
	if len(out) == 0 && other {
		return nil, fmt.Errorf("show policy-map interface: no interface line (e.g. \"Ethernet1/1\") in the output")
	}
	return out, nil
}

// ClassStatsFromLines builds the class block a switch prints for a class
// with these lines under it, read as ParseShowPolicyMapInterface reads
// them (a simulator prints its configured actions this way).
func ClassStatsFromLines(name, match string, lines []string) (ClassStats, error) {
	c := ClassStats{Name: name, Match: match, BandwidthPercent: -1, BandwidthRemainingPercent: -1}
	for _, l := range lines {
		if err := c.read(strings.TrimSpace(l)); err != nil {
			return ClassStats{}, fmt.Errorf("class %s: %q: %w", name, l, err)
		}
	}
	return c, nil
}

// read takes one line of a class block.
func (c *ClassStats) read(t string) error {
	num := func(s string) (uint64, error) {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("counter %s does not fit in 64 bits", s)
		}
		return n, nil
	}
	if m := rePMPackets.FindStringSubmatch(t); m != nil {
		if c.HasPackets {
			c.Lines = append(c.Lines, t) // a later slot's or an aggregate's counters
			return nil
		}
		p, err := num(m[1])
		if err != nil {
			return err
		}
		b, err := num(m[2])
		if err != nil {
			return err
		}
		c.Packets, c.Bytes, c.HasPackets = p, b, true
		return nil
	}
	if m := rePMPrio.FindStringSubmatch(t); m != nil {
		c.Priority = true
		if m[1] != "" {
			n, err := strconv.Atoi(m[1])
			if err != nil || n < 1 || n > 8 {
				return fmt.Errorf("priority level %s is not 1-8", m[1])
			}
			c.PriorityLevel = n
		}
		return nil
	}
	if m := rePMBw.FindStringSubmatch(t); m != nil {
		n, err := strconv.Atoi(m[2])
		if err != nil || n > 100 {
			return fmt.Errorf("bandwidth percent %s is not 0-100", m[2])
		}
		if m[1] != "" {
			c.BandwidthRemainingPercent = n
		} else {
			c.BandwidthPercent = n
		}
		return nil
	}
	if m := rePMCounter.FindStringSubmatch(t); m != nil {
		n, err := num(m[2])
		if err != nil {
			return err
		}
		c.Counters = append(c.Counters, PolicyCounter{Name: m[1], Value: n})
		return nil
	}
	c.Lines = append(c.Lines, t)
	return nil
}

// policyMapInterfaceName reports whether a one-word line names an
// interface as NX-OS prints it (Ethernet1/1, Ethernet101/1/1,
// port-channel10).
func policyMapInterfaceName(s string) bool {
	canon, ok := CanonicalInterface(s)
	return ok && canon == s
}

// FormatShowPolicyMapInterface prints ifs the way `show policy-map
// interface` does (docs/nxos.md): the global statistics line, then per
// interface its service-policies and their classes.
func FormatShowPolicyMapInterface(ifs []PolicyMapInterface) string {
	var b strings.Builder
	b.WriteString("\nGlobal statistics status :   enabled\n\n")
	for _, ifc := range ifs {
		fmt.Fprintf(&b, "%s\n\n", ifc.Interface)
		for _, p := range ifc.Policies {
			dir := ""
			if p.Direction != "" {
				dir = " " + p.Direction
			}
			fmt.Fprintf(&b, "  Service-policy (%s)%s:   %s\n", p.Type, dir, p.Name)
			if p.SNMPIndex != "" {
				fmt.Fprintf(&b, "    SNMP Policy Index:  %s\n", p.SNMPIndex)
			}
			b.WriteString("\n")
			for _, c := range p.Classes {
				match := ""
				if c.Match != "" {
					match = " (" + c.Match + ")"
				}
				fmt.Fprintf(&b, "    Class-map (%s):   %s%s\n", p.Type, c.Name, match)
				if c.HasPackets {
					fmt.Fprintf(&b, "      %d packets %d bytes\n", c.Packets, c.Bytes)
				}
				for _, l := range c.Lines {
					fmt.Fprintf(&b, "      %s\n", l)
				}
				switch {
				case c.PriorityLevel > 0:
					fmt.Fprintf(&b, "      priority level %d\n", c.PriorityLevel)
				case c.Priority:
					b.WriteString("      priority\n")
				}
				if c.BandwidthPercent >= 0 {
					fmt.Fprintf(&b, "      bandwidth percent %d\n", c.BandwidthPercent)
				}
				if c.BandwidthRemainingPercent >= 0 {
					fmt.Fprintf(&b, "      bandwidth remaining percent %d\n", c.BandwidthRemainingPercent)
				}
				for _, k := range c.Counters {
					fmt.Fprintf(&b, "      %s : %d\n", k.Name, k.Value)
				}
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}
