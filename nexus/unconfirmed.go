package nexus

import (
	"fmt"

	"github.com/rocefabric/roce/policies"
)

// Unconfirmed lists, in plain words, the facts marked UNCONFIRMED in
// docs/nxos.md that rendering this intent relies on (and what the
// rendering leaves out because of them), each once and citing the
// docs section by its anchor (docs/FILE.md#anchor), so a plan can show them as warnings next to the
// commands. Empty when none apply (no class, or only facts with a source).
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
		if c.Match.Kind == policies.MatchAll {
			continue
		}
		noDrop++
		switch {
		case p.Caps.CoSOnly:
			// The platform matches CoS whatever the policy says.
			if c.Match.Kind != policies.MatchCoS {
				add(fmt.Sprintf("lossless %q matches by %s, but %s network-qos templates classify by CoS only (docs/nxos.md#qos), so it is rendered as 'match cos %d': the switch sees the class only in frames tagged with PCP %d by the hosts", c.Name, c.Match.Kind, p.Kind, c.Priority, c.Priority))
			}
		case c.Match.Kind == policies.MatchEthertype && p.Caps.EthertypeACLInQoS:
			add(fmt.Sprintf("lossless %q: a MAC ACL with an Ethertype in a type qos class-map is UNCONFIRMED on %s (docs/nxos.md#qos)", c.Name, p.Kind))
		case c.Match.Kind == policies.MatchEthertype:
			add(fmt.Sprintf("lossless %q: Ethertype classification is rendered as 'match cos %d' (MAC ACLs in type qos are UNCONFIRMED, docs/nxos.md#qos); hosts must tag RoCE v1 frames with PCP %d", c.Name, c.Priority, c.Priority))
		case c.Match.Kind == policies.MatchDSCP:
			add(fmt.Sprintf("lossless %q: the 'match dscp' argument syntax on %s is UNCONFIRMED (docs/nxos.md#refuses)", c.Name, p.Kind))
		}
		if c.BandwidthPercent > 0 && p.Caps.BandwidthNotRendered != "" {
			add(fmt.Sprintf("lossless %q: bandwidth_percent = %d is not applied on %s: %s", c.Name, c.BandwidthPercent, p.Kind, p.Caps.BandwidthNotRendered))
		}
	}
	if noDrop > 0 && p.Caps.MaxNoDropClasses > 0 {
		add(fmt.Sprintf("%s: at most %d user no-drop class(es) enforced; the real limit is UNCONFIRMED (docs/nxos.md#qos)", p.Kind, p.Caps.MaxNoDropClasses))
	}
	if noDrop > 0 && p.Is7000() {
		add(p.Kind + ": the default-nq-* template classes and their CoS sets, and the name qos copy gives the copy (prefix + template minus default-/-policy), are UNCONFIRMED (docs/lab-upgrades.md#nexus-7000, templates: docs/nxos.md#qos): check the copied policy with 'show policy-map type network-qos' after apply")
	}
	if noDrop > 0 && p.Is7000() {
		add(p.Kind + ": egress queuing is pinned as a system output queuing policy with one queuing class-map per class ('match cos', 'bandwidth percent'); whether the 7000 takes it beside the default-4q-* queue classes is UNCONFIRMED (queuing and its sources: docs/lab-upgrades.md#pinned)")
	}
	if noDrop > 0 && !p.Is7000() && in.FCoE {
		add(p.Kind + ": the contents of the built-in fcoe-default-* policies are UNCONFIRMED in detail (docs/nxos.md#qos); the FCoE classes are carried over as read from the switch")
	}
	return out
}
