package nexus

import (
	"fmt"
	"iter"
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
}

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
		if n := intersect(expandList(f[1], dscpName), t.dscp); len(n) > 0 {
			return "DSCP " + cosList(n)
		}
	case f[0] == "precedence" && len(f) == 2:
		var covered []int
		for _, p := range expandList(f[1], nil) {
			for d := 8 * p; d < 8*p+8; d++ {
				covered = append(covered, d)
			}
		}
		if n := intersect(covered, t.dscp); len(n) > 0 {
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
	}
	return ""
}

// aclKey is the Config key of an access-list.
func aclKey(typ, name string) string {
	return (&Object{Kind: KindACL, Type: typ, Name: name}).Key()
}

// aclOverlap reports a permit rule of an access-list that RoCE packets of t
// would hit: for RoCE v2, an IP rule permitting UDP (or any IP) to any port
// or to t's port, unless a rule denying all of them (any to any, that port
// or none) comes first; for RoCE v1, the first MAC rule whose Ethertype (and CoS,
// when it names one) RoCE v1 frames carry, when it permits them (a deny
// rule matching every such frame first means the class never sees them).
func aclOverlap(acl *Object, t traffic) string {
	if acl.Type == "mac" {
		return macACLOverlap(acl, t)
	}
	for _, l := range acl.Lines {
		f := strings.Fields(l)
		if len(f) > 0 && f[0][0] >= '0' && f[0][0] <= '9' {
			f = f[1:]
		}
		if len(f) < 2 || (f[0] != "permit" && f[0] != "deny") {
			continue
		}
		if acl.Type == "ip" && t.udpPort > 0 && (f[1] == "ip" || f[1] == "udp") {
			port := ""
			for i := 2; i+1 < len(f); i++ {
				if f[i] == "eq" {
					port = f[i+1]
				}
			}
			if port != "" && port != strconv.Itoa(t.udpPort) {
				continue
			}
			if f[0] == "deny" {
				// Denied before any permit: the class-map never takes
				// them, when the rule names nothing but the port.
				if len(f) == 4 && f[2] == "any" && f[3] == "any" || len(f) == 6 && f[2] == "any" && f[3] == "any" && f[4] == "eq" {
					return ""
				}
				continue
			}
			return fmt.Sprintf("access-list %s rule %q (UDP %d)", acl.Name, strings.Join(f, " "), t.udpPort)
		}
	}
	return ""
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
	f := strings.Fields(l)
	if len(f) > 0 && f[0][0] >= '0' && f[0][0] <= '9' {
		f = f[1:]
	}
	if len(f) < 3 || (f[0] != "permit" && f[0] != "deny") {
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
// the first class that matches it, and roce puts its classes first: the
// foreign class would silently stop seeing that traffic (and with it its
// marking, qos-group, queue). Refusing, with both sides named, is the only
// honest choice: putting ours after theirs would leave RoCE lossy.
func (r *renderer) checkOverlaps(classes []*policies.Lossless, carried []*PolicyClass) error {
	pol := attached(r.cur, TypeQoS, "input")
	for _, c := range classes {
		t := trafficOf(c)
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
			return fmt.Errorf("nexus: lossless %q overlaps class %s of policy-map %s (attached under system qos): "+
				"class-map %s matches %s, which the class's packets carry. The switch gives a packet to the first class that matches, "+
				"and roce's class goes first, so %s would stop receiving that traffic (its marking and queue with it). "+
				"Fix one side: give the lossless class a priority/DSCP/match no other class uses, or take that value out of class-map %s",
				c.Name, fc.Name, pol, fc.Name, why, fc.Name, fc.Name)
		}
	}
	return nil
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

// portsOf are the interfaces whose policies apply to managed port ifn's
// traffic: the port, and the port-channel it is a member of
// (`channel-group N`), whose policies its members take.
func (r *renderer) portsOf(ifn string) []string {
	out := []string{ifn}
	if o := r.cur.Interface(ifn); o != nil {
		for _, l := range o.Lines {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "channel-group" {
				out = append(out, "port-channel"+f[1])
			}
		}
	}
	return out
}

// onPort describes where attachment a applies to managed port ifn.
func onPort(ifn string, a qosAttachment) string {
	if a.port == ifn {
		return "managed port " + ifn
	}
	return "managed port " + ifn + " (a member of " + a.port + ")"
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
func (r *renderer) checkAttachedQoS(classes []*policies.Lossless) error {
	if len(classes) == 0 {
		return nil
	}
	for a := range attachments(r.cur) {
		if a.port == "" || a.sp.Type != TypeQoS || r.ours(a.sp.Name) {
			continue
		}
		for _, ifn := range r.in.Interfaces {
			if ifn != a.port && !(strings.HasPrefix(a.port, "port-channel") && slices.Contains(r.portsOf(ifn), a.port)) {
				continue
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
			if err := r.checkSetCoS(classes, onPort(ifn, a), a); err != nil {
				return err
			}
		}
	}
	for a := range attachments(r.cur) {
		// roce's own policies too: they carry the foreign classes
		if a.obj.Kind != KindSystemQoS || (a.sp.Type != TypeQoS && a.sp.Type != TypeNetworkQoS) {
			continue
		}
		if err := r.checkSetCoS(classes, "system qos", a); err != nil {
			return err
		}
	}
	return nil
}

// firstTaker is the first class of policy pm (type qos) whose class-map
// matches t's packets, and why ("" when none does).
func (r *renderer) firstTaker(pm *Object, t traffic) (*PolicyClass, string) {
	for _, c := range pm.Classes {
		if c.Name == "class-default" {
			return c, "every packet no other class matches"
		}
		cm := r.cur.ClassMap(TypeQoS, c.Name)
		if cm == nil {
			continue
		}
		if why := r.overlapReason(cm, t); why != "" {
			return c, why
		}
	}
	return nil, ""
}

// portPolicy5000 refuses a Nexus 5000 managed port with a type qos input
// policy of its own, naming the class of it that would take c's packets.
func (r *renderer) portPolicy5000(c *policies.Lossless, ifn string, a qosAttachment) error {
	fate := fmt.Sprintf("no class of policy-map %s matches them, so they get qos-group 0 (class-default, drop)", a.sp.Name)
	if pm := r.lookupPolicy(TypeQoS, a.sp.Name); pm != nil {
		if fc, why := r.firstTaker(pm, trafficOf(c)); fc != nil {
			fate = fmt.Sprintf("class %s of policy-map %s takes them (%s) and gives them %s", fc.Name, a.sp.Name, why, actionsText(fc.Actions, "no qos-group, so qos-group 0 (class-default, drop)"))
		}
	}
	return fmt.Errorf("nexus: lossless %q: %s has its own type qos input policy %s (`%s` on %s). On a Nexus 5000 a policy attached to an interface takes precedence over the one under system qos, where roce classifies the lossless classes (docs/nxos.md#interface-policies), "+
		"so RoCE packets arriving on %s would never reach roce's class: %s, not roce's no-drop qos-group. "+
		"Fix: move the classes of %s into the type qos policy under system qos (roce keeps other classes there, after its own) and remove it from the port (interface %s, then no %s), or leave %s out of the switch's interfaces",
		c.Name, onPort(ifn, a), a.sp.Name, a.line, a.port, ifn, fate, a.sp.Name, a.port, a.line, ifn)
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
// dscp` to a DSCP the class names) keep them where they are.
func (r *renderer) checkPortPolicy7000(classes []*policies.Lossless, ifn string, a qosAttachment) error {
	pm := r.lookupPolicy(TypeQoS, a.sp.Name)
	if pm == nil {
		return nil
	}
	for _, c := range classes {
		t := trafficOf(c)
		fc, why := r.firstTaker(pm, t)
		if fc == nil || r.ours(fc.Name) {
			continue
		}
		var bad []string
		for _, act := range fc.Actions {
			if !keepsLossless(act, c, t) {
				bad = append(bad, strings.TrimSpace(act))
			}
		}
		if len(bad) == 0 {
			continue
		}
		return fmt.Errorf("nexus: lossless %q overlaps class %s of policy-map %s, attached to %s (`%s` on %s): class-map %s matches %s, which the class's packets carry, and the class applies `%s` to them. "+
			"The switch gives a packet to the first class that matches, so RoCE packets on %s would leave CoS %d, the no-drop CoS, or be policed or re-marked by a class roce does not own. "+
			"Fix one side: take that value out of class-map %s (or those actions out of class %s), remove policy-map %s from %s, or give the lossless class a priority/DSCP/match no class of %s takes",
			c.Name, fc.Name, a.sp.Name, onPort(ifn, a), a.line, a.port, fc.Name, why, strings.Join(bad, "`, `"),
			ifn, c.Priority, fc.Name, fc.Name, a.sp.Name, a.port, a.sp.Name)
	}
	return nil
}

// keepsLossless reports whether class action act leaves a packet of c in
// c's no-drop CoS: setting that CoS, or a DSCP c matches.
func keepsLossless(act string, c *policies.Lossless, t traffic) bool {
	f := strings.Fields(act)
	if len(f) != 3 || f[0] != "set" {
		return false
	}
	n, err := strconv.Atoi(f[2])
	switch {
	case err != nil:
		return false
	case f[1] == "cos":
		return n == c.Priority
	case f[1] == "dscp":
		return slices.Contains(t.dscp, n)
	}
	return false
}

// checkSetCoS refuses a class of policy a (type qos or network-qos) that
// sets a lossless class's priority as the CoS of packets that are not
// that class's own. where says where a applies.
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
			var buf [4]string
			f := fieldsUpTo(act, buf[:]) // no allocation: this runs on every plan
			if len(f) != 3 || f[0] != "set" || f[1] != "cos" {
				continue
			}
			n, err := strconv.Atoi(f[2])
			if err != nil {
				continue
			}
			for _, c := range classes {
				if c.Priority != n {
					continue
				}
				what, own := r.classTraffic(a.sp.Type, fc.Name, trafficOf(c))
				if own {
					continue
				}
				return fmt.Errorf("nexus: lossless %q: class %s of policy-map %s (type %s, `%s` on %s) sets CoS %d (%s), the no-drop priority of lossless %q, on %s. "+
					"That traffic would be queued and paused with RoCE, here and at every next hop that trusts the CoS, and RoCE would share its no-drop buffers with it. "+
					"Fix one side: remove `%s` from class %s of policy-map %s (or set another CoS), or give the lossless class a priority nothing else is marked with",
					c.Name, fc.Name, a.sp.Name, a.sp.Type, a.line, where, n, strings.TrimSpace(act), c.Name, what,
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
