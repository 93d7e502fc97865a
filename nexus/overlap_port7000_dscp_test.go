package nexus

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

// Issue #15 on a Nexus 7000: roce classifies by CoS there and adds no type
// qos policy, so a managed port's own type qos policy sees the RoCE
// packets first. A lossless class that names no DSCP (cos, ethertype,
// udp_port without dscp) takes RoCE packets whatever DSCP the host marks,
// so a class of the port's policy that matches a DSCP or an IP precedence
// takes some of them: its actions are judged, and the packets of the
// other DSCPs go on to the later classes, which are judged on what still
// reaches them, up to one that takes them all.
func TestOverlapPort7000OpenDSCP(t *testing.T) {
	// pol attaches policy-map port-qos to managed port Ethernet2/1, one
	// class per {match line, action}: c, cx, cxx, … ("" = no action).
	pol := func(classes ...[2]string) string {
		var cms, pm strings.Builder
		pm.WriteString("policy-map type qos port-qos\n")
		for i, c := range classes {
			name := "c" + strings.Repeat("x", i)
			cms.WriteString("class-map type qos match-any " + name + "\n  " + c[0] + "\n")
			pm.WriteString("  class " + name + "\n")
			if c[1] != "" {
				pm.WriteString("    " + c[1] + "\n")
			}
		}
		return l2Default7000 + cms.String() + pm.String() + "interface Ethernet2/1\n  service-policy type qos input port-qos\n"
	}
	withACL := func(rule string, cur string) string {
		return "ip access-list roce-acl\n  10 " + rule + "\n" + cur
	}
	withDefault := func(action, cur string) string {
		return strings.Replace(cur, "interface Ethernet2/1", "  class class-default\n    "+action+"\ninterface Ethernet2/1", 1)
	}
	lossless := func(name string, m policies.Match) *policies.Lossless {
		return &policies.Lossless{Name: name, Match: m, Priority: 4, MTU: 9216}
	}
	udp := lossless("rocev2", policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791})
	udp26 := lossless("rocev2", policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}})
	cos4 := lossless("rdma", policies.Match{Kind: policies.MatchCoS, CoS: []int{4}})
	ether := lossless("rocev1", policies.Match{Kind: policies.MatchEthertype, Ethertype: 0x8915})
	const head = "overlaps class c of policy-map port-qos, attached to managed port Ethernet2/1 (`service-policy type qos input port-qos` on Ethernet2/1)"
	tests := []struct {
		name  string
		cur   string
		class *policies.Lossless
		want  []string // nil = planned
	}{
		{"udp_port without dscp, a DSCP class re-marks the CoS", pol([2]string{"match dscp 26", "set cos 2"}), udp,
			[]string{`lossless "rocev2" ` + head,
				"class-map c matches DSCP 26 (match dscp 26), which the class's packets can carry", `lossless "rocev2" matches UDP port 4791 and names no dscp`,
				"applies `set cos 2`", "would leave CoS 4",
				// 26 is the class's, so the first DSCP the policy leaves alone.
				`Fix one side: give lossless "rocev2" a dscp (dscp = [1], which policy-map port-qos leaves in CoS 4; the hosts must mark RoCE with it), or take those values out of class-map c`,
				"remove policy-map port-qos from Ethernet2/1"}},
		{"udp_port with that dscp", pol([2]string{"match dscp 26", "set cos 2"}), udp26,
			[]string{`lossless "rocev2" ` + head, "matches DSCP 26 (match dscp 26), which the class's packets carry, and the class applies `set cos 2`",
				"take that value out of class-map c"}},
		{"udp_port with a dscp the policy leaves alone", pol([2]string{"match dscp 46", "set cos 2"}), udp26, nil},
		// The realistic 7000's MARK-IN (providers/nxos testdata) on a RoCE port.
		{"cos class, AF21-AF23 re-marked to CoS 2", pol([2]string{"match dscp 18,20,22", "set cos 2"}), cos4,
			[]string{`lossless "rdma" ` + head, "class-map c matches DSCP 18,20,22 (match dscp 18,20,22), which the class's packets can carry",
				`lossless "rdma" is matched by CoS (match cos 4), not by DSCP`, "applies `set cos 2`",
				`Fix one side: match lossless "rdma" by RoCE v2 and a DSCP instead (udp_port = 4791, dscp = [26], which policy-map port-qos leaves in CoS 4`}},
		{"ethertype class, a precedence re-marked", pol([2]string{"match precedence 5", "set cos 0"}), ether,
			[]string{`lossless "rocev1" ` + head, "matches DSCP 40-47 (IP precedence 5) (match precedence 5), which the class's packets can carry",
				"is matched by CoS 4 on nexus7000", "`set cos 0`", `match lossless "rocev1" by RoCE v2 and a DSCP instead (udp_port = 4791, dscp = [26]`}},
		{"cos class, a DSCP class policing", pol([2]string{"match dscp 46", "police cir 10 mbps"}), cos4,
			[]string{"matches DSCP 46 (match dscp 46), which the class's packets can carry", "applies `police cir 10 mbps`"}},
		{"cos class, a DSCP class with no action", pol([2]string{"match dscp 46", ""}), cos4, nil},
		{"cos class, a DSCP class setting the no-drop CoS", pol([2]string{"match dscp 26", "set cos 4"}), udp, []string{
			// RoCE marked 26 keeps CoS 4, but other traffic marked 26 is moved into it.
			`class c of policy-map port-qos (type qos, ` + "`service-policy type qos input port-qos`", "sets CoS 4 (set cos 4), the no-drop priority"}},
		// The first class leaves RoCE marked EF alone; RoCE of every other
		// DSCP goes on to the second, which moves it out.
		{"cos class, a later class takes the other DSCPs", pol([2]string{"match dscp 46", ""}, [2]string{"match cos 4", "set cos 2"}), cos4,
			[]string{"overlaps class cx of policy-map port-qos", "matches CoS 4 (match cos 4), which the class's packets carry", "`set cos 2`", "take that value out of class-map cx"}},
		{"cos class, a later class behind one that takes every CoS-4 packet", pol([2]string{"match cos 4", "set cos 4"}, [2]string{"match dscp 10", "set cos 2"}), cos4, nil},
		// Only what an earlier class left reaches a later one.
		{"cos class, a later class of the DSCPs an earlier one took", pol([2]string{"match dscp 26", ""}, [2]string{"match dscp 26", "set cos 2"}), cos4, nil},
		{"cos class, a later class of some DSCPs an earlier one took", pol([2]string{"match dscp 26", ""}, [2]string{"match dscp 26,28", "set cos 2"}), cos4,
			[]string{"overlaps class cx of policy-map port-qos", "matches DSCP 28 (match dscp 26,28), which the class's packets can carry",
				// 26 goes to class c, which leaves it alone.
				"dscp = [26], which policy-map port-qos leaves in CoS 4"}},
		{"cos class, a precedence taken before", pol([2]string{"match precedence 3", ""}, [2]string{"match dscp 24-27,46", "set cos 2"}), cos4,
			[]string{"overlaps class cx of policy-map port-qos", "matches DSCP 46 (match dscp 24-27,46), which the class's packets can carry"}},
		{"cos class, an access-list's DSCP taken before", withACL("permit udp any any eq 4791 dscp 26", pol([2]string{"match access-group name roce-acl", ""}, [2]string{"match dscp 26,28", "set cos 2"})), cos4,
			[]string{"overlaps class cx of policy-map port-qos", "matches DSCP 28 (match dscp 26,28), which the class's packets can carry"}},
		// The access-list denies EF first: RoCE marked EF goes on to cx.
		{"cos class, an access-list's DSCP passed on", withACL("deny udp any any eq 4791 dscp 46\n  20 permit udp any any eq 4791", pol([2]string{"match access-group name roce-acl", ""}, [2]string{"match dscp 26,46", "set cos 2"})), cos4,
			[]string{"overlaps class cx of policy-map port-qos", "matches DSCP 46 (match dscp 26,46), which the class's packets can carry"}},
		{"cos class, every DSCP taken before class-default", withDefault("set cos 0", pol([2]string{"match dscp 0-63", ""})), cos4, nil},
		{"cos class, class-default takes the DSCPs left", withDefault("set cos 0", pol([2]string{"match dscp 0-62", ""})), cos4,
			[]string{"overlaps class class-default of policy-map port-qos", "class-default takes every packet no other class matches", "`set cos 0`"}},
		{"cos class, no DSCP free", pol([2]string{"match dscp 0-31", "set cos 2"}, [2]string{"match dscp 32-63", "set cos 2"}), cos4,
			[]string{"take those values out of class-map c (or those actions out of class c) (no dscp on lossless \"rdma\" would keep its packets clear of the classes of policy-map port-qos)"}},
		// An access-list rule that names a DSCP: judged on the DSCPs still open.
		{"cos class, an access-list rule of a DSCP taken before", withACL("permit udp any any eq 4791 dscp 26", pol([2]string{"match dscp 26", ""}, [2]string{"match access-group name roce-acl", "set cos 2"})), cos4, nil},
		{"cos class, an access-list rule of another DSCP", withACL("permit udp any any eq 4791 dscp 46", pol([2]string{"match dscp 26", ""}, [2]string{"match access-group name roce-acl", "set cos 2"})), cos4,
			[]string{"overlaps class cx of policy-map port-qos", `access-list roce-acl rule "10 permit udp any any eq 4791 dscp 46"`, "`set cos 2`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Intent{Platform: testPlatform(t, "nexus7000"), Classes: []*policies.Lossless{tt.class}, Interfaces: []string{"Ethernet2/1"}, Modules: testModules7000}
			if tt.want != nil {
				checkRefusal(t, tt.cur, in, "a port class acting on RoCE packets of a DSCP the class leaves open", tt.want[0], append(tt.want[1:], "Fix one side")...)
				return
			}
			cur, err := Parse(tt.cur)
			if err != nil {
				t.Fatal(err)
			}
			des, _, _ := renderDiff(t, in, cur)
			planAndReplan(t, cur, des, in)
		})
	}
}

// The same judgement reaches a managed port through its port-channel's
// policy and a VLAN's: the message names how the policy applies.
func TestOverlapPort7000OpenDSCPReach(t *testing.T) {
	const policy = "class-map type qos match-any CRITICAL-DATA\n  match dscp 18,20,22\npolicy-map type qos MARK-IN\n  class CRITICAL-DATA\n    set cos 2\n"
	cos4 := &policies.Lossless{Name: "rdma", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{4}}, Priority: 4, MTU: 9216}
	tests := []struct{ name, cur, how string }{
		{"port-channel", "interface port-channel7\n  switchport\n  service-policy type qos input MARK-IN\ninterface Ethernet2/1\n  switchport\n  channel-group 7 mode active\n",
			"attached to managed port Ethernet2/1 (a member of port-channel7)"},
		{"VLAN", "vlan configuration 300\n  service-policy type qos input MARK-IN\ninterface Ethernet2/1\n  switchport\n  switchport mode trunk\n  switchport trunk allowed vlan 300\n",
			"attached to managed port Ethernet2/1 (it carries VLAN 300)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Intent{Platform: testPlatform(t, "nexus7000"), Classes: []*policies.Lossless{cos4}, Interfaces: []string{"Ethernet2/1"}, Modules: testModules7000}
			checkRefusal(t, l2Default7000+policy+tt.cur, in, "a port class re-marking RoCE packets of an open DSCP",
				`lossless "rdma" overlaps class CRITICAL-DATA of policy-map MARK-IN, `+tt.how,
				"matches DSCP 18,20,22 (match dscp 18,20,22), which the class's packets can carry", "`set cos 2`", "dscp = [26]")
		})
	}
}

// BenchmarkPortPolicy7000OpenDSCP renders a cos class onto the 48 ports
// of the test 7000's F-series card, each with a port policy of eight DSCP
// classes with no action (they leave RoCE in its CoS; one that set the
// no-drop CoS would be refused, checkSetCoS). DSCP 7, 15, … match none of
// them, so every class is judged on each port and sets its DSCPs aside
// (a probe per DSCP it names).
func BenchmarkPortPolicy7000OpenDSCP(b *testing.B) {
	var cfg strings.Builder
	cfg.WriteString(l2Default7000 + "policy-map type qos port-qos\n")
	for i := range 8 {
		cfg.WriteString("  class d" + strconv.Itoa(i) + "\n")
	}
	for i := range 8 {
		cfg.WriteString("class-map type qos match-any d" + strconv.Itoa(i) + "\n  match dscp " + strconv.Itoa(8*i) + "-" + strconv.Itoa(8*i+6) + "\n")
	}
	var ports []string
	for p := 1; p <= 48; p++ {
		ifn := "Ethernet2/" + strconv.Itoa(p)
		ports = append(ports, ifn)
		cfg.WriteString("interface " + ifn + "\n  service-policy type qos input port-qos\n")
	}
	cur, err := Parse(cfg.String())
	if err != nil {
		b.Fatal(err)
	}
	in := Intent{Platform: testPlatform(b, "nexus7000"), Classes: modeClasses()["cos"], Interfaces: ports, Modules: testModules7000}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(in, cur); err != nil {
			b.Fatal(err)
		}
	}
}
