package nexus

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocefabric/roce/policies"
)

// ClassOrderWarnings says, for each lossless class a Nexus 5000 matches by
// CoS or DSCP (`cos`, `dscp`, and `ethertype`, rendered as `match cos`),
// that it sits ahead of foreign classes in the type qos policy roce
// leaves attached under system qos, naming those that can see traffic of
// that CoS or DSCP. Such a match also takes traffic that is not RoCE but
// carries that CoS or DSCP, which those classes classified before: the
// overlap check asks only which RoCE packets a foreign class sees, so
// this is said, never silent (docs/nxos.md#overlap). It reads the order
// Render produces: a class roce adds goes after the foreign classes and
// gets no warning; one an earlier roce wrote first keeps its place (no
// re-ordering plan on an upgrade) and gets one. A `udp_port` class
// renders an access-list that takes RoCE v2 only and gets no warning; a
// 7000 gets no type qos policy from roce. desired is what Render made of
// in (the caller has it already; an intent Render refuses gets no
// warning: the plan reports the refusal).
func ClassOrderWarnings(in Intent, desired *Config) []string {
	if in.Platform.Is7000() || desired == nil || !slices.ContainsFunc(in.Classes, sharesCoSOrDSCP) {
		return nil
	}
	name := attached(desired, TypeQoS, "input")
	pm := desired.PolicyMap(TypeQoS, name)
	if name == "" || pm == nil {
		return nil
	}
	var out []string
	for _, c := range in.Classes {
		var match, field string
		var values []int
		switch c.Match.Kind {
		case policies.MatchCoS, policies.MatchEthertype:
			values = []int{c.Priority}
			if c.Match.Kind == policies.MatchCoS && len(c.Match.CoS) > 0 {
				values = c.Match.CoS
			}
			match, field = "CoS "+cosList(values), "cos"
		case policies.MatchDSCP:
			values = c.Match.DSCP
			match, field = "DSCP "+cosList(values), "dscp"
		default:
			continue
		}
		own := in.prefix() + c.Name
		at := slices.IndexFunc(pm.Classes, func(pc *PolicyClass) bool { return pc.Name == own })
		if at < 0 {
			continue
		}
		var foreign []string
		for _, pc := range pm.Classes[at+1:] {
			if pc.Name == "class-default" || ownedBy(pc.Name, in.prefix()) || builtinClassMap(in.Platform, TypeQoS, pc.Name) {
				continue // class-fcoe takes FCoE frames, whose CoS a lossless class may not share
			}
			if cm := desired.ClassMap(TypeQoS, pc.Name); cm != nil && disjointMatch(cm, field, values) {
				continue
			}
			foreign = append(foreign, pc.Name)
		}
		if len(foreign) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("lossless %q is matched by %s and goes ahead of class(es) %s of policy-map %s under system qos "+
			"(an earlier roce put it first; roce keeps the order a switch has): traffic that is not RoCE but carries %s, which those classes "+
			"classified before, gets the lossless class (docs/nxos.md#overlap); to keep it out, match the class by RoCE v2 (udp_port = 4791, "+
			"with a dscp), which takes RoCE only, or take class %s out of policy-map %s (`no class %s` under it) and apply again: "+
			"roce adds a class after the foreign ones (RoCE is not lossless in between)",
			c.Name, match, strings.Join(foreign, ", "), name, match, own, name, own))
	}
	return out
}

// sharesCoSOrDSCP reports a class the switch matches by CoS or DSCP
// alone, which non-RoCE traffic of that value also meets.
func sharesCoSOrDSCP(c *policies.Lossless) bool {
	switch c.Match.Kind {
	case policies.MatchCoS, policies.MatchEthertype, policies.MatchDSCP:
		return true
	}
	return false
}

// disjointMatch reports whether every match line of class-map cm matches
// field ("cos" or "dscp") with values none of which is in values: then
// no packet carrying one of values meets it. Any other line (an
// access-list, another field, a value roce cannot read) may.
func disjointMatch(cm *Object, field string, values []int) bool {
	n := 0
	for _, l := range cm.Lines {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "match" {
			continue
		}
		n++
		if len(f) != 3 || f[1] != field {
			return false
		}
		var got []int
		if field == "dscp" {
			got = expandList(f[2], dscpName)
		} else {
			got = expandList(f[2], nil)
		}
		if len(got) == 0 || len(intersect(got, values)) > 0 {
			return false
		}
	}
	return n > 0
}
