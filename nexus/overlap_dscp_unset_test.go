package nexus

import (
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

// Issue #15, the acceptance audit's finding: a lossless class that leaves
// the DSCP open (udp_port without dscp, or a class the switch matches by
// CoS) takes RoCE packets whatever DSCP the host marks them with, so a
// foreign class of the type qos policy under system qos that matches a
// DSCP or an IP precedence classified some RoCE packets before roce's
// class went first. Every pair of a lossless class's match and a foreign
// match line is listed, with whether their packets can meet:
//
//   - DSCP: open for udp_port without dscp and for cos and ethertype
//     classes (a Nexus renders an ethertype class as `match cos`, and a
//     CoS class takes RoCE v2 packets too); a dscp class and udp_port with
//     dscp take only their DSCP; RoCE v1 frames (an ethertype class matched
//     by a MAC access-list) carry no DSCP at all.
//   - CoS: RoCE packets carry the class's priority, the CoS the policy has
//     the hosts mark and the only one PFC pauses, so a foreign `match cos`
//     of another CoS never meets them.
//   - IP access-list: a dscp, cos or ethertype class takes RoCE v2 packets
//     (UDP to 4791) too, so a rule permitting them overlaps.
//   - MAC access-list: a cos or ethertype class takes RoCE v1 frames
//     (Ethertype 0x8915) on its CoS; a rule on another Ethertype never
//     meets them.
func TestOverlapDSCPUnset(t *testing.T) {
	lossless := func(name string, m policies.Match) *policies.Lossless {
		return &policies.Lossless{Name: name, Match: m, Priority: 4, MTU: 9216}
	}
	udp := lossless("rocev2", policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791})
	udp26 := lossless("rocev2", policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}})
	udp46 := lossless("rocev2", policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{46}})
	dscp26 := lossless("rocev2dscp", policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}})
	cos4 := lossless("rdma", policies.Match{Kind: policies.MatchCoS, CoS: []int{4}})
	ether := lossless("rocev1", policies.Match{Kind: policies.MatchEthertype, Ethertype: 0x8915})

	cm := func(match string, lines ...string) string {
		return "class-map type qos " + match + " voice\n  " + strings.Join(lines, "\n  ") + "\n"
	}
	acl := func(typ string, rules ...string) string {
		return typ + " access-list v\n  " + strings.Join(rules, "\n  ") + "\n" + cm("match-all", "match access-group name v")
	}
	tests := []struct {
		name    string
		cm      string // the foreign class-map voice (and its access-list)
		class   *policies.Lossless
		macACL  bool     // render the ethertype class as a MAC access-list (EthertypeACLInQoS)
		want    []string // nil = accepted
		comment string
	}{
		// The audit's exact cases: udp_port, no dscp.
		{name: "audit: udp_port without dscp, match dscp 26", cm: cm("match-all", "match dscp 26"), class: udp,
			want: []string{`lossless "rocev2" overlaps class voice of policy-map site-in (attached under system qos)`,
				"class-map voice matches DSCP 26 (match dscp 26), and the class's packets can carry it",
				`lossless "rocev2" matches UDP port 4791 and names no dscp`, "the first class that matches, so whichever goes first takes those packets: ahead of voice, roce's class would take them from it",
				`Fix one side: give lossless "rocev2" a dscp (dscp = [1], which no class of policy-map site-in matches`, "take those values out of class-map voice, or class voice out of policy-map site-in"}},
		{name: "audit: udp_port without dscp, match dscp 0-63", cm: cm("match-all", "match dscp 0-63"), class: udp,
			want: []string{"class-map voice matches DSCP 0-63 (match dscp 0-63)", "names no dscp",
				`Fix one side: take those values out of class-map voice, or class voice out of policy-map site-in (no dscp on lossless "rocev2" would keep it clear`}},
		{name: "audit: udp_port without dscp, match precedence 3", cm: cm("match-all", "match precedence 3"), class: udp,
			want: []string{"class-map voice matches DSCP 24-31 (IP precedence 3) (match precedence 3)", "names no dscp", "dscp = [1]"}},
		{name: "udp_port without dscp, DSCP by name", cm: cm("match-any", "match dscp ef"), class: udp,
			want: []string{"matches DSCP 46 (match dscp ef)", "dscp = [26]"}},
		{name: "udp_port without dscp, match-all on RoCE's CoS and a DSCP", cm: cm("match-all", "match cos 4", "match dscp 26"), class: udp,
			want: []string{"matches CoS 4 (match cos 4) and DSCP 26 (match dscp 26)"}},
		{name: "udp_port without dscp, match-all on another CoS and a DSCP", cm: cm("match-all", "match cos 5", "match dscp 26"), class: udp,
			comment: "RoCE packets carry CoS 4: none is CoS 5"},
		{name: "udp_port without dscp, another CoS", cm: cm("match-all", "match cos 5"), class: udp,
			comment: "the policy fixes RoCE's CoS (priority 4)"},
		{name: "udp_port without dscp, an ACL rule on a DSCP", cm: acl("ip", "10 permit udp any any eq 4791 dscp 46"), class: udp,
			want: []string{`access-list v rule "10 permit udp any any eq 4791 dscp 46" (UDP 4791, for the addresses, source ports or DSCP it names)`}},

		// A class that names its DSCP: disjoint values are no overlap.
		{name: "udp_port with dscp 26, match dscp 26", cm: cm("match-all", "match dscp 26"), class: udp26,
			want: []string{"matches DSCP 26 (match dscp 26), which the class's packets carry", "give the lossless class a priority/DSCP/match no other class uses"}},
		{name: "udp_port with dscp 26, match dscp 46", cm: cm("match-all", "match dscp 46"), class: udp26, comment: "disjoint DSCP"},
		{name: "udp_port with dscp 26, match dscp 0-63", cm: cm("match-all", "match dscp 0-63"), class: udp26, want: []string{"matches DSCP 26 (match dscp 0-63)"}},
		{name: "udp_port with dscp 26, match precedence 3", cm: cm("match-all", "match precedence 3"), class: udp26, want: []string{"DSCP 26 (IP precedence 3)"}},
		{name: "udp_port with dscp 46, match precedence 3", cm: cm("match-all", "match precedence 3"), class: udp46, comment: "46 is precedence 5"},
		{name: "udp_port with dscp 26, an ACL rule on another DSCP", cm: acl("ip", "10 permit udp any any eq 4791 dscp 46"), class: udp26, comment: "disjoint DSCP"},
		{name: "dscp 26, match dscp 26", cm: cm("match-all", "match dscp 26"), class: dscp26, want: []string{"matches DSCP 26 (match dscp 26), which the class's packets carry"}},
		{name: "dscp 26, match dscp 46", cm: cm("match-all", "match dscp 46"), class: dscp26, comment: "disjoint DSCP"},
		{name: "dscp 26, match dscp 0-63", cm: cm("match-all", "match dscp 0-63"), class: dscp26, want: []string{"matches DSCP 26 (match dscp 0-63)"}},
		{name: "dscp 26, match precedence 3", cm: cm("match-all", "match precedence 3"), class: dscp26, want: []string{"DSCP 26 (IP precedence 3)"}},
		{name: "dscp 26, another CoS", cm: cm("match-all", "match cos 5"), class: dscp26, comment: "RoCE's CoS is 4"},
		// RoCE v2 packets marked 26 are UDP to 4791: an ACL class on that port took them.
		{name: "dscp 26, an ACL on the RoCE port", cm: acl("ip", "10 permit udp any any eq 4791"), class: dscp26,
			want: []string{`access-list v rule "10 permit udp any any eq 4791" (UDP 4791)`}},
		{name: "dscp 26, an ACL on the RoCE port and another DSCP", cm: acl("ip", "10 permit udp any any eq 4791 dscp 46"), class: dscp26, comment: "disjoint DSCP"},
		{name: "dscp 26, an ACL on TCP", cm: acl("ip", "10 permit tcp any any eq 3260"), class: dscp26, comment: "RoCE is UDP"},

		// A cos class takes RoCE v2 packets of any DSCP and RoCE v1 frames.
		{name: "cos 4, match dscp 26", cm: cm("match-all", "match dscp 26"), class: cos4,
			want: []string{`lossless "rdma" overlaps class voice of policy-map site-in`, "matches DSCP 26 (match dscp 26), and the class's packets can carry it",
				`lossless "rdma" is matched by CoS (match cos 4), not by DSCP`, `Fix one side: match lossless "rdma" by RoCE v2 and a DSCP instead (udp_port = 4791, dscp = [1]`}},
		{name: "cos 4, match dscp 0-63", cm: cm("match-all", "match dscp 0-63"), class: cos4, want: []string{"matches DSCP 0-63", "no dscp on lossless \"rdma\" would keep it clear"}},
		{name: "cos 4, match precedence 3", cm: cm("match-all", "match precedence 3"), class: cos4, want: []string{"DSCP 24-31 (IP precedence 3)"}},
		{name: "cos 4, another CoS", cm: cm("match-all", "match cos 5"), class: cos4, comment: "disjoint CoS"},
		{name: "cos 4, an ACL on the RoCE port", cm: acl("ip", "10 permit udp any any eq 4791"), class: cos4, want: []string{`rule "10 permit udp any any eq 4791" (UDP 4791)`}},
		{name: "cos 4, an ACL on TCP", cm: acl("ip", "10 permit tcp any any eq 3260"), class: cos4, comment: "RoCE is UDP"},
		{name: "cos 4, a MAC ACL on RoCE v1", cm: acl("mac", "10 permit any any 0x8915"), class: cos4, want: []string{`rule "10 permit any any 0x8915" (Ethertype 0x8915)`}},
		{name: "cos 4, a MAC ACL on another Ethertype", cm: acl("mac", "10 permit any any 0x0806"), class: cos4, comment: "ARP is not RoCE"},
		{name: "cos 4, a MAC ACL on RoCE v1 at another CoS", cm: acl("mac", "10 permit any any 0x8915 cos 5"), class: cos4, comment: "disjoint CoS"},

		// An ethertype class is rendered as match cos <priority> on a Nexus.
		{name: "ethertype as match cos, match dscp 26", cm: cm("match-all", "match dscp 26"), class: ether,
			want: []string{`lossless "rocev1" is matched by CoS 4 on nexus5000 (an ethertype class is rendered as match cos`, "udp_port = 4791, dscp = [1]"}},
		{name: "ethertype as match cos, an ACL on the RoCE v2 port", cm: acl("ip", "10 permit udp any any eq 4791"), class: ether, want: []string{"(UDP 4791)"}},
		{name: "ethertype as match cos, a MAC ACL on another Ethertype", cm: acl("mac", "10 permit any any 0x0806"), class: ether, comment: "ARP is not RoCE"},
		// With a MAC access-list (EthertypeACLInQoS, UNCONFIRMED on a Nexus)
		// the class takes RoCE v1 frames only: no DSCP, no UDP.
		{name: "ethertype as a MAC ACL, match dscp 26", cm: cm("match-all", "match dscp 26"), class: ether, macACL: true, comment: "RoCE v1 frames carry no DSCP"},
		{name: "ethertype as a MAC ACL, match precedence 3", cm: cm("match-all", "match precedence 3"), class: ether, macACL: true, comment: "RoCE v1 frames carry no DSCP"},
		{name: "ethertype as a MAC ACL, an ACL on the RoCE v2 port", cm: acl("ip", "10 permit udp any any eq 4791"), class: ether, macACL: true, comment: "not IP"},
		{name: "ethertype as a MAC ACL, a MAC ACL on RoCE v1", cm: acl("mac", "10 permit any any 0x8915"), class: ether, macACL: true, want: []string{"(Ethertype 0x8915)"}},
		{name: "ethertype as a MAC ACL, a MAC ACL on another Ethertype", cm: acl("mac", "10 permit any any 0x0806"), class: ether, macACL: true, comment: "ARP is not RoCE"},
		{name: "ethertype as a MAC ACL, RoCE's CoS", cm: cm("match-all", "match cos 4"), class: ether, macACL: true, want: []string{"matches CoS 4 (match cos 4)"}},

		// Lines roce cannot judge still never count.
		{name: "udp_port without dscp, match protocol", cm: cm("match-all", "match protocol iscsi"), class: udp, comment: "not judged"},
		{name: "udp_port without dscp, an unreadable DSCP", cm: cm("match-all", "match dscp bogus"), class: udp, comment: "no value read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := tt.cm + "policy-map type qos site-in\n  class voice\n    set qos-group 2\n  class class-default\n" +
				"system qos\n  service-policy type qos input site-in\n"
			p := testPlatform(t, "nexus5000")
			p.Caps.EthertypeACLInQoS = tt.macACL
			in := Intent{Platform: p, Classes: []*policies.Lossless{tt.class}, Interfaces: []string{"Ethernet1/1"}}
			if tt.want == nil {
				if tt.comment == "" {
					t.Fatal("an accepted pair needs the reason its packets cannot meet")
				}
				checkRefusal(t, cur, in, "", "")
				return
			}
			checkRefusal(t, cur, in, "a lossless class whose packets class voice classified before", tt.want[0], append(tt.want[1:], "Fix one side")...)
		})
	}
}

// The refusal comes before anything is planned, and a class given a DSCP
// the foreign class does not match (the fix the refusal names) plans,
// puts roce's new class after the foreign one (which keeps its traffic)
// and leaves that byte-identical.
func TestOverlapDSCPUnsetFix(t *testing.T) {
	cur, err := Parse("class-map type qos match-all af31\n  match dscp 26\n" +
		"policy-map type qos site-in\n  class af31\n    set qos-group 3\n  class class-default\n" +
		"system qos\n  service-policy type qos input site-in\n")
	if err != nil {
		t.Fatal(err)
	}
	in := intentFor(t, "nexus5000", "udp_port", "")
	_, err = Render(in, cur)
	if err == nil || !strings.Contains(err.Error(), `give lossless "rocev2" a dscp (dscp = [1]`) {
		t.Fatalf("udp_port without dscp next to match dscp 26: %v, want it refused with the fix", err)
	}
	fixed := *in.Classes[0]
	fixed.Match.DSCP = []int{1}
	in.Classes = []*policies.Lossless{&fixed}
	des, err := Render(in, cur)
	if err != nil {
		t.Fatalf("with the DSCP the refusal named: %v", err)
	}
	pm := des.PolicyMap(TypeQoS, DefaultPrefix+qosPolicySuffix)
	if pm == nil || len(pm.Classes) < 3 || pm.Classes[0].Name != "af31" || pm.Classes[1].Name != DefaultPrefix+"rocev2" {
		t.Fatalf("roce's policy does not put its new class after af31:\n%v", pm)
	}
	planAndReplan(t, cur, des, in)
}
