package nexus

import (
	"fmt"
	"iter"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/policies"
)

// What the packets of a lossless class carry that another classifier could
// match on: the CoS (PCP) the hosts mark, the DSCP when the policy names
// one, the UDP port of RoCE v2, the Ethertype of RoCE v1.
type traffic struct {
	cos       []int
	dscp      []int
	udpPort   int
	ethertype uint16
	// anyDSCP: the class takes RoCE v2 packets whatever their DSCP (it
	// names none), so a foreign `match dscp`/`match precedence` line sees
	// some of them. Only orderTraffic sets it.
	anyDSCP bool
	// taken: with anyDSCP, the DSCP values an earlier class of a port's
	// policy already took (takers), so the packets that reach a later
	// class carry any DSCP but these.
	taken []int
}

// The RoCE v2 UDP destination port and the RoCE v1 Ethertype, the values
// the policies package expects of udp_port and ethertype.
const (
	roceV2UDPPort   = 4791
	roceV1Ethertype = 0x8915
)

func trafficOf(c *policies.Lossless) traffic {
	t := traffic{cos: []int{c.Priority}, dscp: slices.Clone(c.Match.DSCP)}
	switch c.Match.Kind {
	case policies.MatchCoS:
		t.cos = slices.Clone(c.Match.CoS)
	case policies.MatchUDPPort:
		t.udpPort = c.Match.UDPPort
	case policies.MatchEthertype:
		t.ethertype = c.Match.Ethertype
	}
	return t
}

// orderTraffic is what the RoCE packets roce's own class under system qos
// takes carry, for the question of class order (checkOverlaps). Their CoS
// is the one the hosts mark (the class's priority, or its CoS list): the
// policy fixes it and PFC works on that priority only. Their DSCP is the
// one the class names; when it names none the application picks it, so
// it can be any (anyDSCP). A class matched by CoS on the switch (a cos
// class, and an ethertype class rendered as `match cos`) takes RoCE v2 and
// RoCE v1 packets alike; a dscp class takes RoCE v2 packets (UDP to 4791)
// with its DSCP.
func (r *renderer) orderTraffic(c *policies.Lossless) traffic {
	t := trafficOf(c)
	switch c.Match.Kind {
	case policies.MatchCoS, policies.MatchEthertype:
		if c.Match.Kind == policies.MatchEthertype && r.p.Caps.EthertypeACLInQoS {
			break // a MAC access-list: RoCE v1 frames only, which carry no DSCP
		}
		t.udpPort = roceV2UDPPort
		if t.ethertype == 0 {
			t.ethertype = roceV1Ethertype
		}
		t.dscp, t.anyDSCP = nil, true
	case policies.MatchDSCP:
		t.udpPort = roceV2UDPPort
	case policies.MatchUDPPort:
		t.anyDSCP = len(t.dscp) == 0
	}
	return t
}

// overlapReason says why class-map cm (type qos) would classify packets of
// t, or "" when it would not. A match-any class-map takes them when one
// match line does, a match-all one when every match line does. Lines whose
// meaning is not known here (match protocol, match not …) never count as an
// overlap, so the check can miss one but never invents one.
func (r *renderer) overlapReason(cm *Object, t traffic) string {
	var hits []string
	lines := 0
	for _, l := range cm.Lines {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "match" {
			continue
		}
		lines++
		if why := r.lineOverlap(f[1:], t); why != "" {
			hits = append(hits, why+" ("+l+")")
		}
	}
	switch {
	case len(hits) == 0:
		return ""
	case cm.Match == "match-any" || lines == 1:
		return hits[0]
	case len(hits) == lines:
		return strings.Join(hits, " and ")
	}
	return ""
}

func (r *renderer) lineOverlap(f []string, t traffic) string {
	switch {
	case f[0] == "any":
		return "every packet"
	case f[0] == "cos" && len(f) == 2:
		if n := intersect(expandList(f[1], nil), t.cos); len(n) > 0 {
			return "CoS " + cosList(n)
		}
	case f[0] == "dscp" && len(f) == 2:
		if n := t.dscpIn(expandList(f[1], dscpName)); len(n) > 0 {
			return "DSCP " + cosList(n)
		}
	case f[0] == "precedence" && len(f) == 2:
		if n := t.dscpIn(precedenceDSCP(f[1])); len(n) > 0 {
			return "DSCP " + cosList(n) + " (IP precedence " + f[1] + ")"
		}
	case f[0] == "access-group" && len(f) == 3 && f[1] == "name":
		for _, typ := range []string{"ip", "mac"} {
			if acl := r.cur.Find(aclKey(typ, f[2])); acl != nil {
				if why := aclOverlap(acl, t); why != "" {
					return why
				}
			}
		}
		// An ipv6 access-list is not modelled (kept verbatim, as an
		// unmodelled block); its rules are read from the block's lines.
		if raw := r.cur.Find("raw ipv6 access-list " + f[2]); raw != nil {
			acl := &Object{Kind: KindACL, Type: "ipv6", Name: f[2], Lines: raw.Lines}
			if why := aclOverlap(acl, t); why != "" {
				return why
			}
		}
	}
	return ""
}

// dscpIn is the DSCP values of v that t's packets can carry: all of them
// (0-63) when t's DSCP is open, else those t names.
func (t traffic) dscpIn(v []int) []int {
	if t.anyDSCP {
		v = slices.DeleteFunc(slices.Clone(v), func(d int) bool { return d < 0 || d > 63 || slices.Contains(t.taken, d) })
		return intersect(v, v)
	}
	return intersect(v, t.dscp)
}

// aclKey is the Config key of an access-list.
func aclKey(typ, name string) string {
	return (&Object{Kind: KindACL, Type: typ, Name: name}).Key()
}

// aclOverlap reports the rule of an access-list that takes RoCE packets of
// t: the first rule they can hit, when it is a permit (a deny that every
// such packet hits first means the class-map never sees them). RoCE v2 is
// read against IP rules (ipRule), RoCE v1 against MAC rules (macRule).
func aclOverlap(acl *Object, t traffic) string {
	if acl.Type == "mac" {
		return macACLOverlap(acl, t)
	}
	// RoCE v2 over IPv6 is UDP to the same port: an ipv6 access-list's
	// rules read as IPv4 ones do (addresses are prefixes either way).
	if acl.Type != "ip" && acl.Type != "ipv6" || t.udpPort == 0 {
		return ""
	}
	for _, l := range acl.Lines {
		r, ok := readIPRule(l)
		if !ok || !r.matches(t) {
			continue
		}
		if !r.permit {
			if r.every(t) {
				return ""
			}
			continue
		}
		why := fmt.Sprintf("UDP %d", t.udpPort)
		if r.limited || r.dscp != nil {
			why += ", for the addresses, source ports or DSCP it names"
		}
		if r.sized {
			why += ", for the packet lengths or TTL it names"
		}
		return fmt.Sprintf("access-list %s rule %q (%s)", acl.Name, strings.TrimSpace(l), why)
	}
	return ""
}

// ipRule is one rule of an NX-OS IPv4 access-list, as the Nexus 5000/5500
// security command references give it ("permit (IPv4)", "permit udp"):
// "[sequence-number] permit|deny protocol source [operator port [port]]
// destination [operator port [port]] [dscp d | precedence p] [options]",
// source and destination each `any`, `host A`, `A/len`, `A wildcard` or
// `addrgroup NAME`, operators eq, neq, lt, gt, range (two ports) and
// portgroup NAME (docs/nxos.md#ip-acl).
type ipRule struct {
	permit  bool
	proto   string // "ip", "udp", or another protocol
	dstPort func(int) bool
	limited bool  // an address or a source port limits it
	sized   bool  // packet-length or ttl limits it
	dscp    []int // nil = any
	unknown bool  // a port group: the ports are not in the rule
	noRoCE  bool  // a source port condition no RoCE v2 packet meets
}

// roceSrcPortMin-roceSrcPortMax is the UDP source port range of RoCE v2
// packets: rdma-core (libibverbs/verbs.h, IB_ROCE_UDP_ENCAP_VALID_PORT_MIN
// and _MAX; used by the mlx5 and hns providers) and the Linux kernel pick
// them from the IANA ephemeral range 49152-65535 (docs/nxos.md#ip-acl).
const roceSrcPortMin, roceSrcPortMax = 0xC000, 0xFFFF

// ruleFields are the fields of an access-list rule from its action on
// (the sequence number dropped), or nil when the line is not a permit or
// deny rule (a remark, statistics per-entry).
func ruleFields(l string) []string {
	f := strings.Fields(l)
	if len(f) > 0 && f[0][0] >= '0' && f[0][0] <= '9' {
		f = f[1:]
	}
	if len(f) == 0 || f[0] != "permit" && f[0] != "deny" {
		return nil
	}
	return f
}

// readIPRule reads one IP access-list line; ok is false for a remark, a
// statistics line or anything it cannot read whole (never judged).
func readIPRule(l string) (r ipRule, ok bool) {
	f := ruleFields(l)
	if len(f) < 4 {
		return r, false
	}
	r.permit, r.proto = f[0] == "permit", f[1]
	switch r.proto {
	case "17":
		r.proto = "udp"
	case "ipv6": // every protocol, in an ipv6 access-list
		r.proto = "ip"
	}
	i := 2
	for side := range 2 { // source, destination
		switch {
		case i >= len(f):
			return r, false
		case f[i] == "any":
			i++
		case f[i] == "host" || f[i] == "addrgroup":
			if i+1 >= len(f) {
				return r, false
			}
			r.limited = true
			i += 2
		case strings.Contains(f[i], "/"):
			if _, err := netip.ParsePrefix(f[i]); err != nil {
				return r, false
			}
			r.limited = true
			i++
		default:
			if i+1 >= len(f) {
				return r, false
			}
			if _, err := netip.ParseAddr(f[i]); err != nil {
				return r, false
			}
			if _, err := netip.ParseAddr(f[i+1]); err != nil {
				return r, false
			}
			r.limited = true
			i += 2
		}
		if i >= len(f) || r.proto != "udp" && r.proto != "tcp" {
			continue
		}
		in, n, known := portOp(f[i:])
		if n == 0 {
			continue
		}
		if n < 0 {
			return r, false
		}
		i += n
		switch {
		case side == 0 && !known:
			r.unknown = true
		case side == 0:
			// RoCE v2 source ports are the ephemeral range
			some, all := false, true
			for p := roceSrcPortMin; p <= roceSrcPortMax; p++ {
				some, all = some || in(p), all && in(p)
			}
			r.noRoCE = r.noRoCE || !some
			r.limited = r.limited || !all
		case !known:
			r.unknown = true
		default:
			r.dstPort = in
		}
	}
	for i < len(f) {
		switch f[i] {
		case "dscp", "precedence":
			if i+1 >= len(f) {
				return r, false
			}
			var v []int
			if f[i] == "dscp" {
				v = expandList(f[i+1], dscpName)
			} else {
				v = precedenceDSCP(f[i+1])
			}
			if len(v) == 0 {
				return r, false
			}
			r.dscp = v
			i += 2
		case "packet-length", "ttl":
			// They choose packets: a deny with them does not stop every
			// RoCE packet, a permit takes only some.
			n := 2
			if f[i] == "packet-length" {
				n = 3
				if i+1 < len(f) && f[i+1] == "range" {
					n = 4
				}
			}
			if i+n > len(f) {
				return r, false
			}
			r.sized = true
			i += n
		default:
			i++ // log, fragments, time-range …: they do not change which packets match
		}
	}
	return r, true
}

// portOp reads a port operator at the start of f: the ports it takes, how
// many fields it used (0: none there, -1: unreadable) and whether its
// ports are in the rule (not a port group).
func portOp(f []string) (in func(int) bool, n int, known bool) {
	switch f[0] {
	case "eq", "neq", "lt", "gt":
		if len(f) < 2 {
			return nil, -1, false
		}
		v, ok := udpPortNumber(f[1])
		if !ok {
			return nil, -1, false
		}
		switch f[0] {
		case "eq":
			return func(p int) bool { return p == v }, 2, true
		case "neq":
			return func(p int) bool { return p != v }, 2, true
		case "lt":
			return func(p int) bool { return p < v }, 2, true
		}
		return func(p int) bool { return p > v }, 2, true
	case "range":
		if len(f) < 3 {
			return nil, -1, false
		}
		lo, ok1 := udpPortNumber(f[1])
		hi, ok2 := udpPortNumber(f[2])
		if !ok1 || !ok2 {
			return nil, -1, false
		}
		if lo > hi { // NX-OS takes the two ends in either order
			lo, hi = hi, lo
		}
		return func(p int) bool { return lo <= p && p <= hi }, 3, true
	case "portgroup":
		if len(f) < 2 {
			return nil, -1, false
		}
		return nil, 2, false
	}
	return nil, 0, false
}

// udpPortNumber reads a UDP port of an access-list rule: a number 0-65535
// or one of the names NX-OS takes for a UDP port (Batfish's NX-OS grammar,
// CiscoNxos_ip_access_list.g4 udp_port, with the IANA numbers;
// docs/nxos.md#ip-acl). Any other word (a TCP port name) is not read.
func udpPortNumber(s string) (int, bool) {
	if v, err := strconv.Atoi(s); err == nil {
		return v, v >= 0 && v <= 0xFFFF
	}
	switch s {
	case "echo":
		return 7, true
	case "discard":
		return 9, true
	case "time":
		return 37, true
	case "nameserver":
		return 42, true
	case "tacacs":
		return 49, true
	case "domain":
		return 53, true
	case "bootps":
		return 67, true
	case "bootpc":
		return 68, true
	case "tftp":
		return 69, true
	case "sunrpc":
		return 111, true
	case "ntp":
		return 123, true
	case "netbios-ns":
		return 137, true
	case "netbios-dgm":
		return 138, true
	case "netbios-ss":
		return 139, true
	case "snmp":
		return 161, true
	case "snmptrap":
		return 162, true
	case "xdmcp":
		return 177, true
	case "dnsix":
		return 195, true
	case "mobile-ip":
		return 434, true
	case "pim-auto-rp":
		return 496, true
	case "isakmp":
		return 500, true
	case "biff":
		return 512, true
	case "who":
		return 513, true
	case "syslog":
		return 514, true
	case "talk":
		return 517, true
	case "rip":
		return 520, true
	case "non500-isakmp":
		return 4500, true
	}
	return 0, false
}

// matches reports whether RoCE v2 packets of t (UDP to t's port, with t's
// DSCP when the class names one) can hit the rule.
func (r ipRule) matches(t traffic) bool {
	switch {
	case r.proto != "ip" && r.proto != "udp":
		return false
	case r.unknown || r.noRoCE:
		return false // a port group's ports are elsewhere: not judged
	case r.dstPort != nil && !r.dstPort(t.udpPort):
		return false
	case r.dscp != nil && len(t.dscp) > 0 && len(intersect(r.dscp, t.dscp)) == 0:
		return false
	case r.dscp != nil && t.anyDSCP && len(t.dscpIn(r.dscp)) == 0:
		return false // an earlier class took every DSCP the rule names
	}
	return true
}

// every reports whether the rule matches every RoCE v2 packet of t it can
// match at all: no address or source port narrows it, and it names every
// DSCP t's packets carry, or none.
func (r ipRule) every(t traffic) bool {
	return !r.limited && !r.sized && (r.dscp == nil || len(t.dscp) > 0 && len(intersect(r.dscp, t.dscp)) == len(intersect(t.dscp, t.dscp)))
}

// macACLOverlap is aclOverlap for a MAC access-list (RoCE v1 only).
func macACLOverlap(acl *Object, t traffic) string {
	if t.ethertype == 0 {
		return ""
	}
	for _, l := range acl.Lines {
		r, ok := readMACRule(l)
		if !ok || !r.matches(t) {
			continue
		}
		if !r.permit {
			if r.every(t) {
				return "" // denied before any permit: the class-map does not take them
			}
			continue
		}
		why := fmt.Sprintf("Ethertype 0x%04x", t.ethertype)
		if r.vlan != "" {
			why += " on VLAN " + r.vlan
		}
		if r.addressed {
			why += " between the addresses it names"
		}
		return fmt.Sprintf("access-list %s rule %q (%s)", acl.Name, strings.TrimSpace(l), why)
	}
	return ""
}

// macRule is one rule of an NX-OS MAC access-list, as the Nexus 5000/5500
// security command reference gives it ("permit (MAC)"): "[sequence-number]
// permit|deny source destination [protocol] [cos cos-value] [vlan
// vlan-id]", source and destination each `any` or a dotted MAC address and
// its mask, protocol a number 0x0-0xffff or a keyword (aarp, appletalk,
// decnet-iv, …). A second number after the protocol is read as its
// wildcard mask, the way the addresses are masked (docs/nxos.md#mac-acl:
// that form is UNCONFIRMED).
type macRule struct {
	permit    bool
	addressed bool   // a source or destination other than any
	proto     string // "" = every protocol
	etype     uint16 // proto as a number, when it is one
	named     bool   // proto is a keyword
	mask      uint16 // wildcard bits of etype
	cos       []int  // nil = any CoS
	vlan      string // "" = any VLAN
}

// readMACRule reads one MAC access-list line; ok is false for a remark, a
// statistics line or anything it cannot read whole (never judged).
func readMACRule(l string) (r macRule, ok bool) {
	f := ruleFields(l)
	if len(f) < 3 {
		return r, false
	}
	r.permit = f[0] == "permit"
	i := 1
	for range 2 { // source, destination
		switch {
		case i < len(f) && f[i] == "any":
			i++
		case i+1 < len(f) && isDottedMAC(f[i]) && isDottedMAC(f[i+1]):
			r.addressed = true
			i += 2
		default:
			return r, false
		}
	}
	if i < len(f) && f[i] != "cos" && f[i] != "vlan" {
		r.proto = f[i]
		i++
		if n, isNum := hex16(r.proto); isNum {
			r.etype = n
			if i < len(f) {
				if m, isMask := hex16(f[i]); isMask {
					r.mask = m
					i++
				}
			}
		} else {
			r.named = true
		}
	}
	for i < len(f) {
		if i+1 >= len(f) {
			return r, false
		}
		switch f[i] {
		case "cos":
			r.cos = expandList(f[i+1], nil)
			if len(r.cos) == 0 || slices.ContainsFunc(r.cos, func(c int) bool { return c < 0 || c > 7 }) {
				return r, false
			}
		case "vlan":
			r.vlan = f[i+1]
		default:
			return r, false
		}
		i += 2
	}
	return r, true
}

// hex16 reads "0x8915" (what NX-OS prints for a MAC protocol number).
func hex16(s string) (uint16, bool) {
	if len(s) < 3 || len(s) > 6 || (s[:2] != "0x" && s[:2] != "0X") {
		return 0, false
	}
	n, err := strconv.ParseUint(s[2:], 16, 16)
	return uint16(n), err == nil
}

// matches reports whether RoCE v1 frames of t can hit the rule: its
// protocol is t's Ethertype (under the mask) or absent, and its CoS, when
// it names one, is one t's frames carry. A protocol keyword names another
// protocol (none of the reference's keywords is 0x8915).
func (r macRule) matches(t traffic) bool {
	switch {
	case r.named:
		return false
	case r.proto != "" && (r.etype^t.ethertype)&^r.mask != 0:
		return false
	case r.cos != nil && len(intersect(r.cos, t.cos)) == 0:
		return false
	}
	return true
}

// every reports whether the rule matches every RoCE v1 frame of t it can
// match at all: no address or VLAN narrows it, and it names every CoS t's
// frames carry, or none.
func (r macRule) every(t traffic) bool {
	return !r.addressed && r.vlan == "" && (r.cos == nil || len(intersect(r.cos, t.cos)) == len(t.cos))
}

// checkOverlaps refuses a lossless class whose packets a foreign class of
// the attached type qos policy already classifies. NX-OS gives a packet to
// the first class that matches it: ahead of the foreign class, ours would
// silently take that traffic from it (and with it its marking, qos-group,
// queue); after it, RoCE would get the foreign class's actions, lossy.
// Refusing, with both sides named, is the only honest choice. A
// class that leaves the DSCP open (orderTraffic) overlaps every foreign
// DSCP or precedence match: some RoCE packets can carry those values.
func (r *renderer) checkOverlaps(classes []*policies.Lossless, carried []*PolicyClass) error {
	pol := attached(r.cur, TypeQoS, "input")
	for _, c := range classes {
		t := r.orderTraffic(c)
		for _, fc := range carried {
			if fc.Name == "class-default" || fc.Name == "class-fcoe" || r.ours(fc.Name) {
				continue
			}
			cm := r.cur.ClassMap(TypeQoS, fc.Name)
			if cm == nil {
				continue
			}
			why := r.overlapReason(cm, t)
			if why == "" {
				continue
			}
			closed := t
			closed.anyDSCP = false
			if !t.anyDSCP || r.overlapReason(cm, closed) != "" {
				return fmt.Errorf("nexus: lossless %q overlaps class %s of policy-map %s (attached under system qos): "+
					"class-map %s matches %s, which the class's packets carry. The switch gives a packet to the first class that matches, "+
					"so whichever goes first takes those packets: ahead of %s, roce's class would take that traffic from it (its marking and queue with it); after it, RoCE would get its actions and queue, lossy. "+
					"Fix one side: give the lossless class a priority/DSCP/match no other class uses, or take that value out of class-map %s",
					c.Name, fc.Name, pol, fc.Name, why, fc.Name, fc.Name)
			}
			return fmt.Errorf("nexus: lossless %q overlaps class %s of policy-map %s (attached under system qos): "+
				"class-map %s matches %s, and the class's packets can carry it: lossless %q %s, so it takes RoCE packets whatever their DSCP (the host or the application marks it), "+
				"including those marked with the values class %s classifies today. The switch gives a packet to the first class that matches, "+
				"so whichever goes first takes those packets: ahead of %s, roce's class would take them from it (its marking and queue with them); after it, they would get its actions and queue, lossy. "+
				"Fix one side: %s",
				c.Name, fc.Name, pol, fc.Name, why, c.Name, r.openDSCPText(c), fc.Name, fc.Name, r.openDSCPFix(c, carried, fc.Name, pol))
		}
	}
	return nil
}

// openDSCPText says why lossless class c takes packets of any DSCP.
func (r *renderer) openDSCPText(c *policies.Lossless) string {
	switch c.Match.Kind {
	case policies.MatchCoS:
		return "is matched by CoS (match cos " + cosList(c.Match.CoS) + "), not by DSCP"
	case policies.MatchEthertype:
		return fmt.Sprintf("is matched by CoS %d on %s (an ethertype class is rendered as match cos, docs/nxos.md#qos), not by DSCP", c.Priority, r.p.Kind)
	}
	return fmt.Sprintf("matches UDP port %d and names no dscp", c.Match.UDPPort)
}

// openDSCPFix is the fix for a class c whose open DSCP overlaps class fc
// of policy pol: name a DSCP no class of the policy matches
// (dscpCandidates), or take the values out of the foreign class.
func (r *renderer) openDSCPFix(c *policies.Lossless, carried []*PolicyClass, fc, pol string) string {
	other := fmt.Sprintf("take those values out of class-map %s, or class %s out of policy-map %s", fc, fc, pol)
	port := c.Match.UDPPort
	if port == 0 {
		port = roceV2UDPPort
	}
	for _, d := range dscpCandidates() {
		t := traffic{cos: []int{c.Priority}, dscp: []int{d}, udpPort: port}
		free := true
		for _, o := range carried {
			if o.Name == "class-default" || o.Name == "class-fcoe" || r.ours(o.Name) {
				continue
			}
			if cm := r.cur.ClassMap(TypeQoS, o.Name); cm != nil && r.overlapReason(cm, t) != "" {
				free = false
				break
			}
		}
		if !free {
			continue
		}
		give := fmt.Sprintf("give lossless %q a dscp (dscp = [%d]", c.Name, d)
		if c.Match.Kind != policies.MatchUDPPort {
			give = fmt.Sprintf("match lossless %q by RoCE v2 and a DSCP instead (udp_port = %d, dscp = [%d]", c.Name, port, d)
		}
		return fmt.Sprintf("%s, which no class of policy-map %s matches; the hosts must mark RoCE with it) so the two classes cannot meet, or %s", give, pol, other)
	}
	return fmt.Sprintf("%s (no dscp on lossless %q would keep it clear of every class of policy-map %s)", other, c.Name, pol)
}

// dscpCandidates are the DSCP values openDSCPFix may suggest, in order:
// 26 (AF31, what roce's examples mark RoCE with), then 1-63, then 0 (the
// DSCP of unmarked traffic).
func dscpCandidates() []int {
	out := []int{26}
	for d := 1; d < 64; d++ {
		if d != 26 {
			out = append(out, d)
		}
	}
	return append(out, 0)
}

// precedenceDSCP is the DSCP values an IP precedence list covers
// (precedence P is DSCP 8P…8P+7).
func precedenceDSCP(list string) []int {
	var out []int
	for _, p := range expandList(list, nil) {
		for d := 8 * p; d < 8*p+8; d++ {
			out = append(out, d)
		}
	}
	return out
}

// dscpName maps the DSCP names NX-OS accepts to their values.
func dscpName(s string) (int, bool) {
	switch {
	case s == "ef":
		return 46, true
	case s == "default":
		return 0, true
	case len(s) == 3 && s[:2] == "cs" && s[2] >= '0' && s[2] <= '7':
		return 8 * int(s[2]-'0'), true
	case len(s) == 4 && s[:2] == "af" && s[2] >= '1' && s[2] <= '4' && s[3] >= '1' && s[3] <= '3':
		return 8*int(s[2]-'0') + 2*int(s[3]-'0'), true
	}
	return 0, false
}

// expandList reads "1,3-5" (names through name, when given).
func expandList(s string, name func(string) (int, bool)) []int {
	var out []int
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		x, err := strconv.Atoi(a)
		if err != nil {
			if name == nil {
				continue
			}
			v, ok := name(a)
			if !ok {
				continue
			}
			x = v
		}
		y := x
		if isRange {
			if y, err = strconv.Atoi(b); err != nil {
				continue
			}
		}
		for v := x; v <= y && v-x <= 64; v++ {
			out = append(out, v)
		}
	}
	return out
}

func intersect(a, b []int) []int {
	var out []int
	for _, x := range a {
		if slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

// checkQueueCoS refuses, on a Nexus 7000, a lossless class whose CoS a
// queuing class-map roce does not own already maps to a queue. On the
// 7000 the CoS-to-queue map is the `match cos` lines of the queuing
// class-maps ("The class map names represent queues and match cos
// represents the CoS values mapped to them"; "The drop and no-drop CoS
// must be mapped to different queues", Nexus 7000 QoS guide,
// docs/nxos.md#cos-queue): the system class-maps of the default queuing
// policies (e.g. 1p3q4t-out-q2, printed once their CoS were changed) and
// any other queuing class-map. roce maps the class's CoS to a queue class
// of its own; with a second mapping the CoS would either stay in the
// foreign queue (shared with drop traffic, so not lossless) or be taken
// from it (that queue's traffic silently moved). Both sides are named,
// with the fix.
//
// It first runs checkAttachedQoS for the 7000 (the type qos policies on
// the managed ports), the other check of classes roce does not own.
func (r *renderer) checkQueueCoS() error {
	if !r.p.Is7000() {
		return nil
	}
	var classes []*policies.Lossless
	for _, c := range r.in.Classes {
		if c.Match.Kind != policies.MatchAll {
			classes = append(classes, c)
		}
	}
	if err := r.checkAttachedQoS(classes); err != nil {
		return err
	}
	for _, c := range r.in.Classes {
		if c.Match.Kind == policies.MatchAll {
			continue
		}
		for _, o := range r.cur.Objects {
			if o.Kind != KindClassMap || o.Type != TypeQueuing || r.ours(o.Name) {
				continue
			}
			for _, l := range o.Lines {
				f := strings.Fields(l)
				if len(f) < 3 || f[0] != "match" || f[1] != "cos" {
					continue
				}
				if n := intersect(expandList(strings.Join(f[2:], ","), nil), []int{c.Priority}); len(n) > 0 {
					return fmt.Errorf("nexus: lossless %q needs CoS %d in a no-drop queue of its own, but queuing class-map %s (not roce's) already maps CoS %d to its queue (%s). "+
						"On a Nexus 7000 a CoS belongs to one queue, and drop and no-drop CoS must be in different queues, so roce will not map it a second time. "+
						"Fix one side: give the lossless class a priority no queuing class-map matches, or take %d out of that queue in the default VDC "+
						"(class-map type queuing %s, then no %s and a match cos line without %d)",
						c.Name, c.Priority, o.Name, c.Priority, strings.TrimSpace(l), c.Priority, o.Name, strings.TrimSpace(l), c.Priority)
				}
			}
		}
	}
	return nil
}

// qosAttachment is one `service-policy type …` line of a configuration:
// under system qos, on an interface, or in another block (a `vlan
// configuration`, say).
type qosAttachment struct {
	obj  *Object // the block holding the line
	port string  // the interface's name, when on one
	line string
	sp   ServicePolicy
}

// attachments yields every service-policy line of c, in order, without
// building a list (Render runs this for every switch of a fleet).
func attachments(c *Config) iter.Seq[qosAttachment] {
	return func(yield func(qosAttachment) bool) {
		for _, o := range c.Objects {
			if o.Kind != KindSystemQoS && o.Kind != KindInterface && o.Kind != KindRaw {
				continue
			}
			for _, l := range o.Lines {
				l = strings.TrimSpace(l)
				if !strings.HasPrefix(l, "service-policy") {
					continue
				}
				sp, ok := parseServicePolicy(l)
				if !ok {
					continue
				}
				a := qosAttachment{obj: o, line: l, sp: sp}
				if o.Kind == KindInterface {
					a.port = o.Name
				}
				if !yield(a) {
					return
				}
			}
		}
	}
}

// attachedGroups are the qos-groups used by the foreign policies attached
// anywhere but under system qos (those roce carries, allocateGroups reads
// them): a type qos policy on an interface or a VLAN that sets a group
// classifies that port's packets into it, so a roce class given the same
// group would share its no-drop class, queue and MTU with them; a queuing
// policy there matches groups too.
func (r *renderer) attachedGroups() []int {
	var used []int
	add := func(g string) {
		if n, err := strconv.Atoi(g); err == nil && !slices.Contains(used, n) {
			used = append(used, n)
		}
	}
	for a := range attachments(r.cur) {
		if a.obj.Kind == KindSystemQoS || r.ours(a.sp.Name) {
			continue
		}
		pm := r.lookupPolicy(a.sp.Type, a.sp.Name)
		if pm == nil {
			continue
		}
		for _, c := range pm.Classes {
			if r.ours(c.Name) {
				continue
			}
			if a.sp.Type == TypeQoS {
				for _, act := range c.Actions {
					if f := strings.Fields(act); len(f) == 3 && f[0] == "set" && f[1] == "qos-group" {
						add(f[2])
					}
				}
				continue
			}
			if cm := r.cur.ClassMap(a.sp.Type, c.Name); cm != nil {
				for _, l := range cm.Lines {
					if f := strings.Fields(l); len(f) == 3 && f[0] == "match" && f[1] == "qos-group" {
						add(f[2])
					}
				}
			}
		}
	}
	return used
}

// at is where attachment a sits, for a message: the interface, or the
// block's header (`vlan configuration 100`, `system qos`).
func (a qosAttachment) at() string {
	if a.port != "" {
		return a.port
	}
	if a.obj.Kind == KindRaw {
		return strings.TrimSpace(a.obj.Header)
	}
	return a.obj.Key()
}

// portAttachment is a type qos policy that applies to a managed port, and
// how ("managed port Ethernet2/1 (a member of port-channel7)").
type portAttachment struct {
	qosAttachment
	how string
}

// place says where a sits and which managed port it applies to.
func (a portAttachment) place() string {
	if a.how == "managed port "+a.port {
		return "on " + a.how
	}
	return "on " + a.at() + ", which applies to " + a.how
}

// portCandidate reports a foreign type qos policy attached outside system
// qos (an interface, a VLAN): one that may apply to a managed port.
func (r *renderer) portCandidate(a qosAttachment) bool {
	if a.obj.Kind == KindSystemQoS || r.ours(a.sp.Name) {
		return false
	}
	return a.sp.Type == TypeQoS || a.sp.Type == TypeQueuing && a.sp.Direction == "output" && !r.p.Is7000()
}

// portVLANs are the VLANs Layer 2 port o carries, as ranges: its trunk's
// allowed VLANs (all when not restricted; `except` and `remove` are read
// as all, which can only add), or its access VLAN (1 by default); none on
// a routed port (`no switchport`).
func portVLANs(o *Object) [][2]int {
	if o == nil {
		return [][2]int{{1, 1}}
	}
	trunk, access := false, [][2]int{{1, 1}}
	var allowed [][2]int
	restricted := false
	for _, l := range o.Lines {
		f := strings.Fields(l)
		switch {
		case len(f) == 2 && f[0] == "no" && f[1] == "switchport":
			return nil
		case len(f) == 3 && f[0] == "switchport" && f[1] == "mode":
			trunk = f[2] == "trunk"
		case len(f) == 4 && f[0] == "switchport" && f[1] == "access" && f[2] == "vlan":
			access = vlanRanges(f[3])
		case len(f) >= 5 && f[0] == "switchport" && f[1] == "trunk" && f[2] == "allowed" && f[3] == "vlan":
			switch {
			case f[4] == "add" && len(f) == 6:
				allowed = append(allowed, vlanRanges(f[5])...)
			case f[4] == "none":
				restricted, allowed = true, nil
			case f[4] == "all" || f[4] == "except" || f[4] == "remove":
				restricted, allowed = false, nil
			default:
				restricted, allowed = true, vlanRanges(f[4])
			}
		}
	}
	switch {
	case !trunk:
		return access
	case restricted:
		return allowed
	}
	return [][2]int{{1, 4094}}
}

// vlanRanges reads "1,100-200" as ranges.
func vlanRanges(s string) [][2]int {
	var out [][2]int
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		lo, err := strconv.Atoi(a)
		if err != nil {
			continue
		}
		hi := lo
		if isRange {
			if hi, err = strconv.Atoi(b); err != nil {
				continue
			}
		}
		out = append(out, [2]int{lo, hi})
	}
	return out
}

// vlansShared is the first VLAN in both range lists, "" when none.
func vlansShared(a, b [][2]int) string {
	best := -1
	for _, x := range a {
		for _, y := range b {
			lo, hi := max(x[0], y[0]), min(x[1], y[1])
			if lo <= hi && (best < 0 || lo < best) {
				best = lo
			}
		}
	}
	if best < 0 {
		return ""
	}
	return strconv.Itoa(best)
}

// checkAttachedQoS refuses what a policy roce does not own, attached to a
// managed port or under system qos, would do to the lossless classes'
// traffic (docs/nxos.md#interface-policies):
//
//   - Nexus 5000: a type qos input policy on a managed port (or its
//     port-channel). A policy attached to an interface takes precedence
//     over the one under system qos, where roce classifies, so the port's
//     RoCE packets would never get roce's qos-group.
//   - Nexus 7000: a class of a type qos policy on a managed port that
//     matches the class's packets (the same overlap test as under system
//     qos) and does something to them other than keep their CoS.
//   - Both: a class that sets the no-drop CoS (`set cos <priority>`) on
//     packets that are not the lossless class's own, in a type qos policy
//     on a managed port or a type qos or network-qos policy under system
//     qos: that traffic would be queued, and paused, with RoCE here and at
//     every next hop.
//
// Which policies reach a managed port follows the Nexus 7000 QoS guide: a
// policy on a physical port takes effect when the port is not a member
// of a port-channel, one on the port-channel takes effect for its
// members, one on a VLAN (`vlan configuration N`) applies to the ports in
// that VLAN without a policy of their own. On a 5000 (no such statement
// found) both the port's and its port-channel's count, and VLAN policies
// are not judged.
func (r *renderer) checkAttachedQoS(classes []*policies.Lossless) error {
	if len(classes) == 0 {
		return nil
	}
	// One pass: policies on interfaces are judged as they come; those on
	// VLANs (7000, usually none) once every port's own are known.
	var pcs []string // the port-channel of each managed port, read at the first policy on a port
	var own []uint8  // per managed port: the directions it has a policy of its own for
	var vlans []qosAttachment
	for a := range attachments(r.cur) {
		switch {
		// roce's own policies too: they carry the foreign classes
		case a.obj.Kind == KindSystemQoS && (a.sp.Type == TypeQoS || a.sp.Type == TypeNetworkQoS):
			if err := r.checkSetCoS(classes, "under system qos", a); err != nil {
				return err
			}
		case !r.portCandidate(a):
		case a.port == "":
			if r.p.Is7000() && a.obj.Kind == KindRaw && a.sp.Type == TypeQoS {
				vlans = append(vlans, a)
			}
		default:
			if pcs == nil {
				pcs, own = r.portChannels(), make([]uint8, len(r.in.Interfaces))
			}
			for i, ifn := range r.in.Interfaces {
				how := ""
				switch {
				case a.port == ifn && (pcs[i] == "" || !r.p.Is7000()):
					how = "managed port " + ifn
				case a.port == pcs[i]:
					how = "managed port " + ifn + " (a member of " + pcs[i] + ")"
				default:
					continue
				}
				if a.sp.Type == TypeQoS {
					own[i] |= dirBit(a.sp.Direction)
				}
				if err := r.judgePortPolicy(classes, ifn, portAttachment{a, how}); err != nil {
					return err
				}
			}
		}
	}
	for _, a := range vlans {
		f := strings.Fields(a.obj.Header)
		if len(f) != 3 || f[0] != "vlan" || f[1] != "configuration" {
			continue
		}
		for i, ifn := range r.in.Interfaces {
			if own != nil && own[i]&dirBit(a.sp.Direction) != 0 {
				continue // the port's own policy for that direction wins
			}
			if shared := vlansShared(portVLANs(r.cur.Interface(ifn)), vlanRanges(f[2])); shared != "" {
				if err := r.judgePortPolicy(classes, ifn, portAttachment{a, "managed port " + ifn + " (it carries VLAN " + shared + ")"}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// dirBit is a direction as a bit of checkAttachedQoS's own.
func dirBit(dir string) uint8 {
	if dir == "output" {
		return 2
	}
	return 1
}

// portChannels is the port-channel each managed port is a member of
// (`channel-group N`), "" for none.
func (r *renderer) portChannels() []string {
	out := make([]string, len(r.in.Interfaces))
	for i, ifn := range r.in.Interfaces {
		if o := r.cur.Interface(ifn); o != nil {
			for _, l := range o.Lines {
				var buf [3]string
				if f := fieldsUpTo(l, buf[:]); len(f) >= 2 && f[0] == "channel-group" {
					out[i] = "port-channel" + f[1]
				}
			}
		}
	}
	return out
}

// judgePortPolicy runs the checks of a type qos policy that applies to a
// managed port.
func (r *renderer) judgePortPolicy(classes []*policies.Lossless, ifn string, a portAttachment) error {
	if a.sp.Type == TypeQueuing {
		return portQueuing5000(classes, a)
	}
	var err error
	if r.p.Is7000() {
		err = r.checkPortPolicy7000(classes, ifn, a)
	} else if a.sp.Direction == "input" {
		err = r.portPolicy5000(classes[0], ifn, a)
	}
	if err != nil {
		return err
	}
	return r.checkSetCoS(classes, a.place(), a.qosAttachment)
}

// firstTaker is the first class of policy pm (type qos) whose class-map
// matches t's packets, and why ("" when none does).
func (r *renderer) firstTaker(pm *Object, t traffic) (*PolicyClass, string) {
	for c, why := range r.takers(pm, t) {
		return c, why
	}
	return nil, ""
}

// takers yields, in order, each class of policy pm (type qos) that takes
// some of t's packets, and why, up to the first that takes all that are
// left: class-default, or a class whose match does not hang on a DSCP t
// leaves open. When t leaves the DSCP open (anyDSCP), RoCE packets of
// one DSCP go to one class and those of another DSCP to a later one: a
// class that takes some DSCPs only sets them aside (traffic.taken), and
// the later classes are judged on the packets that still reach them.
func (r *renderer) takers(pm *Object, t traffic) iter.Seq2[*PolicyClass, string] {
	return func(yield func(*PolicyClass, string) bool) {
		for _, c := range pm.Classes {
			if c.Name == "class-default" {
				yield(c, "every packet no other class matches")
				return
			}
			cm := r.cur.ClassMap(TypeQoS, c.Name)
			if cm == nil {
				continue
			}
			why := r.overlapReason(cm, t)
			if why == "" {
				continue
			}
			if !yield(c, why) || !t.anyDSCP {
				return
			}
			took, all := r.dscpSplit(cm, t)
			if all {
				return // nothing reaches a later class
			}
			t.taken = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(t.taken), took...))))
		}
	}
}

// takesByDSCP reports whether class-map cm takes t's packets only for
// some of the DSCPs t leaves open (a match dscp or match precedence, an
// access-list rule that names a DSCP), not whatever their DSCP.
func (r *renderer) takesByDSCP(cm *Object, t traffic) bool {
	if !t.anyDSCP {
		return false
	}
	_, all := r.dscpSplit(cm, t)
	return !all
}

// dscpSplit is, for t whose DSCP is open, the DSCP values (of those no
// earlier class took) for which class-map cm takes t's packets, and
// whether that is every one of them. Only the values cm names
// (dscpNamed) can set one DSCP apart from another, so each of those is
// tried, and one value it does not name stands for all the others.
func (r *renderer) dscpSplit(cm *Object, t traffic) (took []int, all bool) {
	named := r.dscpNamed(cm)
	probe := t
	probe.anyDSCP = false
	takes := func(d int) bool {
		probe.dscp = []int{d}
		return r.overlapReason(cm, probe) != ""
	}
	open := 0
	var others []int // the open values cm does not name
	for d := 0; d < 64; d++ {
		switch {
		case slices.Contains(t.taken, d):
		case slices.Contains(named, d):
			open++
			if takes(d) {
				took = append(took, d)
			}
		default:
			open++
			others = append(others, d)
		}
	}
	if len(others) > 0 && takes(others[0]) {
		took = append(took, others...)
		slices.Sort(took)
	}
	return took, len(took) == open
}

// dscpNamed is every DSCP value class-map cm's match lines name: `match
// dscp`, `match precedence`, and the dscp or precedence of the rules of
// the IP and IPv6 access-lists it matches (lineOverlap's DSCP sources;
// values out of 0-63 are named but never carried).
func (r *renderer) dscpNamed(cm *Object) []int {
	var out []int
	for _, l := range cm.Lines {
		var buf [5]string
		f := fieldsUpTo(l, buf[:])
		switch {
		case len(f) == 3 && f[0] == "match" && f[1] == "dscp":
			out = append(out, expandList(f[2], dscpName)...)
		case len(f) == 3 && f[0] == "match" && f[1] == "precedence":
			out = append(out, precedenceDSCP(f[2])...)
		case len(f) == 4 && f[0] == "match" && f[1] == "access-group" && f[2] == "name":
			for _, key := range []string{aclKey("ip", f[3]), "raw ipv6 access-list " + f[3]} {
				acl := r.cur.Find(key)
				if acl == nil {
					continue
				}
				for _, rl := range acl.Lines {
					if rule, ok := readIPRule(rl); ok {
						out = append(out, rule.dscp...)
					}
				}
			}
		}
	}
	return out
}

// portPolicy5000 refuses a Nexus 5000 managed port with a type qos input
// policy of its own, naming the class of it that would take c's packets.
func (r *renderer) portPolicy5000(c *policies.Lossless, ifn string, a portAttachment) error {
	fate := fmt.Sprintf("no class of policy-map %s matches them, so they get qos-group 0 (class-default, drop)", a.sp.Name)
	if pm := r.lookupPolicy(TypeQoS, a.sp.Name); pm != nil {
		if fc, why := r.firstTaker(pm, trafficOf(c)); fc != nil {
			fate = fmt.Sprintf("class %s of policy-map %s takes them (%s) and gives them %s", fc.Name, a.sp.Name, why, actionsText(fc.Actions, "no qos-group, so qos-group 0 (class-default, drop)"))
		}
	}
	return fmt.Errorf("nexus: lossless %q: %s has its own type qos input policy %s (`%s` on %s). On a Nexus 5000 a policy attached to an interface takes precedence over the one under system qos, where roce classifies the lossless classes (docs/nxos.md#interface-policies), "+
		"so RoCE packets arriving on %s would never reach roce's class: %s, not roce's no-drop qos-group. "+
		"Fix: move the classes of %s into the type qos policy under system qos (roce keeps other classes there, after its own) and remove it from the port (interface %s, then no %s), or leave %s out of the switch's interfaces",
		c.Name, a.how, a.sp.Name, a.line, a.at(), ifn, fate, a.sp.Name, a.at(), a.line, ifn)
}

// portQueuing5000 refuses a lossless class that asks for a bandwidth share
// when a Nexus 5000 managed port has a queuing output policy of its own:
// on that port it takes precedence over the one under system qos, where
// roce gives the class its share, and it has no class for roce's
// qos-group (allocateGroups never picks a group such a policy matches),
// so the share asked for would not be given there.
func portQueuing5000(classes []*policies.Lossless, a portAttachment) error {
	for _, c := range classes {
		if c.BandwidthPercent == 0 {
			continue // no share asked for: the port's own policy decides, as for any class
		}
		return fmt.Errorf("nexus: lossless %q asks bandwidth_percent = %d, but %s has its own type queuing output policy %s (`%s` on %s). "+
			"On a Nexus 5000 a policy attached to an interface takes precedence over the one under system qos, where roce gives the class its share (docs/nxos.md#interface-policies), "+
			"and %s has no class for the class's qos-group, so the share would not be given on that port. "+
			"Fix: remove the policy from the port (interface %s, then no %s), leave bandwidth_percent unset (the port's policy then decides), or leave the port out of the switch's interfaces",
			c.Name, c.BandwidthPercent, a.how, a.sp.Name, a.line, a.at(), a.sp.Name, a.at(), a.line)
	}
	return nil
}

// actionsText prints a class's actions for a message (none when empty).
func actionsText(actions []string, none string) string {
	if len(actions) == 0 {
		return none
	}
	return "`" + strings.Join(actions, "`, `") + "`"
}

// checkPortPolicy7000 refuses a class of type qos policy a (on a managed
// port of a Nexus 7000) that takes a lossless class's packets and acts on
// them: remarking their CoS moves them out of the no-drop CoS, and any
// other action (policing, another DSCP or qos-group) is something roce
// cannot vouch for on lossless traffic. `set cos <priority>` (and `set
// dscp` to a DSCP the class names) keep them where they are. A class that
// names no DSCP (orderTraffic) carries any, so every class of a that takes
// RoCE packets of some DSCP is judged (takers), not only the first.
func (r *renderer) checkPortPolicy7000(classes []*policies.Lossless, ifn string, a portAttachment) error {
	pm := r.lookupPolicy(TypeQoS, a.sp.Name)
	if pm == nil {
		return nil
	}
	for _, c := range classes {
		t := r.orderTraffic(c)
		for fc, why := range r.takers(pm, t) {
			if r.ours(fc.Name) {
				continue
			}
			bad := movingActions(fc, c, t)
			if len(bad) == 0 {
				continue
			}
			matches := "class-map " + fc.Name + " matches " + why + ", which the class's packets carry"
			fix := "take that value out of class-map " + fc.Name + " (or those actions out of class " + fc.Name + ")"
			switch {
			case fc.Name == "class-default":
				matches = "no other class of it matches them, so class-default takes " + why + ", which the class's packets carry"
				fix = "take those actions out of class class-default, add a class before it that matches the lossless traffic and keeps its CoS"
			case r.takesByDSCP(r.cur.ClassMap(TypeQoS, fc.Name), t):
				matches = "class-map " + fc.Name + " matches " + why + ", which the class's packets can carry: lossless " + strconv.Quote(c.Name) + " " + r.openDSCPText(c) +
					", so its RoCE packets carry whatever DSCP the host or the application marks"
				fix = "take those values out of class-map " + fc.Name + " (or those actions out of class " + fc.Name + ")"
				if give, ok := r.portDSCPFix(c, pm); ok {
					fix = give + ", or " + fix
				} else {
					fix += " (no dscp on lossless " + strconv.Quote(c.Name) + " would keep its packets clear of the classes of policy-map " + a.sp.Name + ")"
				}
			}
			return fmt.Errorf("nexus: lossless %q overlaps class %s of policy-map %s, attached to %s (`%s` on %s): %s, and the class applies `%s` to them. "+
				"The switch gives a packet to the first class that matches, so RoCE packets on %s would leave CoS %d, the no-drop CoS, or be policed or re-marked by a class roce does not own. "+
				"Fix one side: %s, remove policy-map %s from %s, or give the lossless class a priority/DSCP/match no class of %s takes",
				c.Name, fc.Name, a.sp.Name, a.how, a.line, a.at(), matches, strings.Join(bad, "`, `"),
				ifn, c.Priority, fix, a.sp.Name, a.at(), a.sp.Name)
		}
	}
	return nil
}

// movingActions is the actions of class fc that do not keep packets of c
// (t) in c's no-drop CoS (keepsLossless).
func movingActions(fc *PolicyClass, c *policies.Lossless, t traffic) []string {
	var bad []string
	for _, act := range fc.Actions {
		if !keepsLossless(act, c, t) {
			bad = append(bad, strings.TrimSpace(act))
		}
	}
	return bad
}

// portDSCPFix is the fix for lossless class c, whose open DSCP lets a
// class of port policy pm (type qos) act on its packets: a DSCP
// (dscpCandidates) whose RoCE v2 packets the first class of pm that takes
// them leaves in the no-drop CoS, for the hosts to mark RoCE with. A cos
// or ethertype class cannot name a DSCP, so it is told to match RoCE v2
// by UDP port and that DSCP instead. ok is false when no DSCP does.
func (r *renderer) portDSCPFix(c *policies.Lossless, pm *Object) (fix string, ok bool) {
	port := c.Match.UDPPort
	if port == 0 {
		port = roceV2UDPPort
	}
	for _, d := range dscpCandidates() {
		t := traffic{cos: []int{c.Priority}, dscp: []int{d}, udpPort: port}
		if fc, _ := r.firstTaker(pm, t); fc != nil && !r.ours(fc.Name) && len(movingActions(fc, c, t)) > 0 {
			continue
		}
		give := fmt.Sprintf("give lossless %q a dscp (dscp = [%d]", c.Name, d)
		if c.Match.Kind != policies.MatchUDPPort {
			give = fmt.Sprintf("match lossless %q by RoCE v2 and a DSCP instead (udp_port = %d, dscp = [%d]", c.Name, port, d)
		}
		return fmt.Sprintf("%s, which policy-map %s leaves in CoS %d; the hosts must mark RoCE with it)", give, pm.Name, c.Priority), true
	}
	return "", false
}

// keepsLossless reports whether class action act leaves a packet of c in
// c's no-drop CoS: setting that CoS, or a DSCP c matches.
func keepsLossless(act string, c *policies.Lossless, t traffic) bool {
	f := strings.Fields(act)
	if len(f) != 3 || f[0] != "set" {
		return false
	}
	switch f[1] {
	case "cos":
		n, err := strconv.Atoi(f[2])
		return err == nil && n == c.Priority
	case "dscp": // a number or a name (af31, ef, cs3, …)
		v := expandList(f[2], dscpName)
		return len(v) == 1 && slices.Contains(t.dscp, v[0])
	}
	return false
}

// checkSetCoS refuses a class of policy a (type qos or network-qos) that
// sets a lossless class's priority as the CoS of packets that are not
// that class's own, or (network-qos) makes them no-drop on that priority
// (`pause no-drop pfc-cos` with it: PFC pauses per priority). where says where a sits and what it applies to
// ("under system qos", "on port-channel7, which applies to …").
func (r *renderer) checkSetCoS(classes []*policies.Lossless, where string, a qosAttachment) error {
	pm := r.lookupPolicy(a.sp.Type, a.sp.Name)
	if pm == nil {
		return nil
	}
	for _, fc := range pm.Classes {
		if r.ours(fc.Name) {
			continue
		}
		for _, act := range fc.Actions {
			var buf [5]string
			f := fieldsUpTo(act, buf[:]) // no allocation: this runs on every plan
			var cos []int
			pfc := false
			switch {
			case len(f) == 3 && f[0] == "set" && f[1] == "cos":
				if n, err := strconv.Atoi(f[2]); err == nil {
					cos = []int{n}
				}
			case len(f) == 4 && f[0] == "pause" && f[1] == "no-drop" && f[2] == "pfc-cos" && a.sp.Type == TypeNetworkQoS:
				cos, pfc = expandList(f[3], nil), true
			}
			for _, c := range classes {
				if !slices.Contains(cos, c.Priority) {
					continue
				}
				what, own := r.classTraffic(a.sp.Type, fc.Name, trafficOf(c))
				if own {
					continue
				}
				if pfc {
					return fmt.Errorf("nexus: lossless %q: class %s of policy-map %s (type network-qos, `%s` %s) is no-drop on CoS %d (%s), the priority of lossless %q, for %s. "+
						"PFC pauses a priority, not a class, so congestion in that class would pause RoCE's priority %d (and RoCE's would pause that traffic), and the two would share the no-drop buffers. "+
						"Fix one side: give class %s of policy-map %s a pfc-cos of its own, or give the lossless class a priority no other no-drop class uses",
						c.Name, fc.Name, a.sp.Name, a.line, where, c.Priority, strings.TrimSpace(act), c.Name, what, c.Priority, fc.Name, a.sp.Name)
				}
				return fmt.Errorf("nexus: lossless %q: class %s of policy-map %s (type %s, `%s` %s) sets CoS %d (%s), the no-drop priority of lossless %q, on %s. "+
					"That traffic would be queued and paused with RoCE, here and at every next hop that trusts the CoS, and RoCE would share its no-drop buffers with it. "+
					"Fix one side: remove `%s` from class %s of policy-map %s (or set another CoS), or give the lossless class a priority nothing else is marked with",
					c.Name, fc.Name, a.sp.Name, a.sp.Type, a.line, where, c.Priority, strings.TrimSpace(act), c.Name, what,
					strings.TrimSpace(act), fc.Name, a.sp.Name)
			}
		}
	}
	return nil
}

// classTraffic says which packets class name (of a policy of type typ)
// carries, and whether they are only t's own: a type qos class by its
// class-map (a match-all one is t's own when one of its lines selects only
// t's CoS or DSCP, a match-any one when every line does); a network-qos
// class by the type qos classes, in the policies attached under system qos
// and on interfaces, that set the qos-group it matches.
func (r *renderer) classTraffic(typ, name string, t traffic) (string, bool) {
	if name == "class-default" {
		return "every packet no other class of it matches", false
	}
	cm := r.cur.ClassMap(typ, name)
	if cm == nil {
		return "the packets of class-map " + name + " (built in, not read)", false
	}
	if typ == TypeNetworkQoS {
		return r.groupTraffic(cm, t)
	}
	var lines, own []string
	for _, l := range cm.Lines {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "match" {
			continue
		}
		lines = append(lines, strings.TrimSpace(l))
		if lineWithin(f[1:], t) {
			own = append(own, l)
		}
	}
	what := "the packets class-map " + name + " matches (" + strings.Join(lines, ", ") + ")"
	if len(lines) == 0 {
		return "the packets of class-map " + name + ", which has no match line", false
	}
	if cm.Match == "match-any" {
		return what, len(own) == len(lines)
	}
	return what, len(own) > 0
}

// lineWithin reports whether match line f (without "match") selects only
// packets of t: a CoS or DSCP list inside t's.
func lineWithin(f []string, t traffic) bool {
	if len(f) != 2 {
		return false
	}
	var v, of []int
	switch f[0] {
	case "cos":
		v, of = expandList(f[1], nil), t.cos
	case "dscp":
		v, of = expandList(f[1], dscpName), t.dscp
	default:
		return false
	}
	return len(v) > 0 && len(intersect(v, of)) == len(slices.Compact(slices.Sorted(slices.Values(v))))
}

// groupTraffic is classTraffic for a network-qos class-map: the qos-groups
// it matches, and the type qos classes setting them.
func (r *renderer) groupTraffic(cm *Object, t traffic) (string, bool) {
	var groups []string
	for _, l := range cm.Lines {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "match" && f[1] == "qos-group" {
			groups = append(groups, f[2])
		}
	}
	if len(groups) == 0 {
		return "the packets of class-map " + cm.Name + ", which matches no qos-group", false
	}
	var from []string
	own := true
	for a := range attachments(r.cur) {
		if a.sp.Type != TypeQoS {
			continue
		}
		pm := r.lookupPolicy(TypeQoS, a.sp.Name)
		if pm == nil {
			continue
		}
		for _, qc := range pm.Classes {
			for _, act := range qc.Actions {
				f := strings.Fields(act)
				if len(f) != 3 || f[0] != "set" || f[1] != "qos-group" || !slices.Contains(groups, f[2]) {
					continue
				}
				what, mine := r.classTraffic(TypeQoS, qc.Name, t)
				from = append(from, "class "+qc.Name+" of "+a.sp.Name+": "+what)
				own = own && mine
			}
		}
	}
	if len(from) == 0 {
		return "", true // no packet gets there
	}
	return "qos-group " + strings.Join(groups, ",") + ", the packets of " + strings.Join(from, "; "), own
}
