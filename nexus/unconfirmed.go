package nexus

import (
	"fmt"

	"github.com/rocefabric/roce/policies"
)

// Unconfirmed lists, in plain words, the facts marked UNCONFIRMED in
// reference/nxos.md that rendering this intent relies on, so a plan can show
// them as warnings next to the commands (empty when none apply).
func Unconfirmed(in Intent) []string {
	var out []string
	p := in.Platform
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	noDrop := 0
	for _, c := range in.Classes {
		switch c.Match.Kind {
		case policies.MatchEthertype:
			if p.Caps.EthertypeACLInQoS {
				add(fmt.Sprintf("lossless %q: a MAC ACL with an Ethertype in a type qos class-map is UNCONFIRMED on %s (reference §1.4)", c.Name, p.Kind))
			} else {
				add(fmt.Sprintf("lossless %q: Ethertype classification is rendered as 'match cos %d' (MAC ACLs in type qos are UNCONFIRMED, reference §1.4); hosts must tag RoCE v1 frames with PCP %d", c.Name, c.Priority, c.Priority))
			}
		case policies.MatchDSCP:
			if !p.Is7000() {
				add(fmt.Sprintf("lossless %q: the 'match dscp' argument syntax on %s is UNCONFIRMED (reference §1.2)", c.Name, p.Kind))
			}
		case policies.MatchAll:
			continue
		}
		noDrop++
		if p.Is7000() && c.BandwidthPercent > 0 {
			add(fmt.Sprintf("lossless %q: bandwidth_percent is not rendered on %s; the egress queuing policy the switch selects with the network-qos template applies (queuing template classes are UNCONFIRMED, reference §2.2)", c.Name, p.Kind))
		}
		if p.Caps.CoSOnly {
			add(fmt.Sprintf("lossless %q: %s classifies by CoS only, so hosts must mark PCP %d", c.Name, p.Kind, c.Priority))
		}
	}
	if noDrop > 0 && p.Caps.MaxNoDropClasses > 0 {
		add(fmt.Sprintf("%s: at most %d user no-drop class(es) enforced; the real limit is UNCONFIRMED (reference §1.1)", p.Kind, p.Caps.MaxNoDropClasses))
	}
	if noDrop > 0 && p.Is7000() {
		add("nexus7000: the default-nq-* template classes and CoS sets, and the qos copy name (prefix + template minus default-/-policy), are UNCONFIRMED (reference §2.3–§2.4); see nexus/templates.go")
	}
	if noDrop > 0 && !p.Is7000() && in.FCoE {
		add("nexus5000: the contents of the built-in fcoe-default-* policies are UNCONFIRMED in detail (reference §1.3, §4); read system qos from the device")
	}
	return out
}
