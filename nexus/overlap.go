package nexus

import (
	"fmt"
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
// or to t's port; for RoCE v1, a MAC rule permitting t's Ethertype or any.
func aclOverlap(acl *Object, t traffic) string {
	for _, l := range acl.Lines {
		f := strings.Fields(l)
		if len(f) > 0 && f[0][0] >= '0' && f[0][0] <= '9' {
			f = f[1:]
		}
		if len(f) < 2 || f[0] != "permit" {
			continue
		}
		switch {
		case acl.Type == "ip" && t.udpPort > 0 && (f[1] == "ip" || f[1] == "udp"):
			port := ""
			for i := 2; i+1 < len(f); i++ {
				if f[i] == "eq" {
					port = f[i+1]
				}
			}
			if port == "" || port == strconv.Itoa(t.udpPort) {
				return fmt.Sprintf("access-list %s rule %q (UDP %d)", acl.Name, strings.Join(f, " "), t.udpPort)
			}
		case acl.Type == "mac" && t.ethertype != 0:
			last := f[len(f)-1]
			if len(f) == 3 || strings.EqualFold(last, fmt.Sprintf("0x%04x", t.ethertype)) {
				return fmt.Sprintf("access-list %s rule %q (Ethertype 0x%04x)", acl.Name, strings.Join(f, " "), t.ethertype)
			}
		}
	}
	return ""
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
func (r *renderer) checkQueueCoS() error {
	if !r.p.Is7000() {
		return nil
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
