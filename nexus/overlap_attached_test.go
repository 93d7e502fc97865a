package nexus

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

// A Nexus 5000 managed port with a type qos input policy of its own never
// sends its packets through roce's class under system qos (an interface
// policy takes precedence): refused, naming the port, the policy, the
// class that takes the packets and the fix. Policies elsewhere, or of
// another type, are no reason to refuse.
func TestOverlapPortPolicy5000(t *testing.T) {
	voice := "class-map type qos match-all voice\n  match cos 4\n" +
		"policy-map type qos port-in\n  class voice\n    set qos-group 3\n  class class-default\n"
	cos4 := modeClasses()["cos"][0]
	tests := []struct {
		name, cur string
		want      []string // nil = accepted
	}{
		{"class of the port policy takes RoCE", voice + "interface Ethernet1/2\n  service-policy type qos input port-in\n",
			[]string{`lossless "rdma": managed port Ethernet1/2 has its own type qos input policy port-in`, "`service-policy type qos input port-in` on Ethernet1/2",
				"class voice of policy-map port-in takes them (CoS 4 (match cos 4)) and gives them `set qos-group 3`",
				"interface Ethernet1/2, then no service-policy type qos input port-in", "or leave Ethernet1/2 out of the switch's interfaces"}},
		{"nothing of the port policy matches", "class-map type qos match-all voice\n  match cos 5\npolicy-map type qos port-in\n  class voice\n    set qos-group 3\n" +
			"interface Ethernet1/1\n  service-policy type qos input port-in\n",
			[]string{"managed port Ethernet1/1 has its own type qos input policy port-in", "no class of policy-map port-in matches them, so they get qos-group 0", "Fix: move the classes of port-in"}},
		{"class-default of the port policy", "policy-map type qos port-in\n  class class-default\n    set qos-group 0\n" +
			"interface Ethernet1/1\n  service-policy type qos input port-in\n",
			[]string{"class class-default of policy-map port-in takes them", "`set qos-group 0`"}},
		{"policy on the port-channel of a member", voice + "interface port-channel10\n  service-policy type qos input port-in\ninterface Ethernet1/1\n  channel-group 10 mode active\n",
			[]string{"managed port Ethernet1/1 (a member of port-channel10) has its own type qos input policy port-in", "on port-channel10", "interface port-channel10, then no service-policy"}},
		{"the built-in FCoE policy on the port", "interface Ethernet1/1\n  service-policy type qos input fcoe-default-in-policy\n",
			[]string{"policy fcoe-default-in-policy", "class class-default of policy-map fcoe-default-in-policy takes them"}},
		{"policy on an unmanaged port", voice + "interface Ethernet1/9\n  service-policy type qos input port-in\n", nil},
		{"queuing output policy on the managed port, bandwidth asked", "interface Ethernet1/1\n  service-policy type queuing output default-out-policy\n",
			[]string{`lossless "rdma" asks bandwidth_percent = 40, but managed port Ethernet1/1 has its own type queuing output policy default-out-policy`,
				"interface Ethernet1/1, then no service-policy type queuing output default-out-policy", "leave bandwidth_percent unset"}},
		{"queuing input policy on the managed port", "interface Ethernet1/1\n  service-policy type queuing input fcoe-default-in-policy\n", nil},
		{"port-channel of another port", voice + "interface port-channel10\n  service-policy type qos input port-in\ninterface Ethernet1/9\n  channel-group 10\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Intent{Platform: testPlatform(t, "nexus5000"), Classes: []*policies.Lossless{cos4}, Interfaces: []string{"Ethernet1/1", "Ethernet1/2"}}
			if tt.want == nil {
				checkRefusal(t, tt.cur, in, "", "")
				return
			}
			checkRefusal(t, tt.cur, in, "a managed port whose own policy bypasses system qos", tt.want[0], tt.want[1:]...)
		})
	}
}

// A qos-group a foreign policy sets on an interface or a VLAN, or matches
// in a queuing policy there, is never given to a roce class: those
// packets carry it whatever system qos says. When such policies leave no
// group free, the plan is refused.
func TestOverlapInterfaceGroupNeverReused(t *testing.T) {
	setter := func(pol string, g int) string {
		return "class-map type qos match-all " + pol + "-c\n  match cos 1\npolicy-map type qos " + pol + "\n  class " + pol + "-c\n    set qos-group " + strconv.Itoa(g) + "\n"
	}
	tests := []struct {
		name, cur string
		avoid     []int
		refuse    string
	}{
		{"type qos on an unmanaged port", setter("site-in", 2) + "interface Ethernet1/9\n  service-policy type qos input site-in\n", []int{2}, ""},
		{"type qos on a VLAN", setter("vlan-in", 2) + "vlan configuration 100\n  service-policy type qos input vlan-in\n", []int{2}, ""},
		{"queuing class on a port", "class-map type queuing q3\n  match qos-group 2\npolicy-map type queuing port-out\n  class type queuing q3\n    bandwidth percent 20\n" +
			"interface Ethernet1/9\n  service-policy type queuing output port-out\n", []int{2}, ""},
		{"two ports, two groups", setter("a-in", 2) + setter("b-in", 3) + "interface Ethernet1/8\n  service-policy type qos input a-in\ninterface Ethernet1/9\n  service-policy type qos input b-in\n", []int{2, 3}, ""},
		{"every user group taken on ports", setter("a-in", 2) + setter("b-in", 3) + setter("c-in", 4) + setter("d-in", 5) +
			"interface Ethernet1/6\n  service-policy type qos input a-in\ninterface Ethernet1/7\n  service-policy type qos input b-in\n" +
			"interface Ethernet1/8\n  service-policy type qos input c-in\ninterface Ethernet1/9\n  service-policy type qos input d-in\n", nil,
			"no free qos-group on nexus5000 (user groups [2 3 4 5], in use [0 2 3 4 5])"},
		{"an unattached policy does not count", setter("spare", 2), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur, err := Parse(tt.cur)
			if err != nil {
				t.Fatal(err)
			}
			in := intentFor(t, "nexus5000", "cos", "")
			des, err := Render(in, cur)
			if tt.refuse != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refuse) {
					t.Fatalf("got %v, want a refusal naming %q", err, tt.refuse)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g := groupOf(t, des, DefaultPrefix+in.Classes[0].Name)
			for _, a := range tt.avoid {
				if g == a {
					t.Fatalf("roce's class got qos-group %d, which a foreign policy attached outside system qos uses", g)
				}
			}
			if len(tt.avoid) == 0 && g != 2 {
				t.Fatalf("qos-group %d, want the lowest free user group 2 (nothing attached uses it)", g)
			}
			planAndReplan(t, cur, des, in)
		})
	}
}

// groupOf is the qos-group roce's type qos class name sets in des.
func groupOf(t *testing.T, des *Config, name string) int {
	t.Helper()
	pm := des.PolicyMap(TypeQoS, DefaultPrefix+qosPolicySuffix)
	if pm == nil || pm.Class(name) == nil {
		t.Fatalf("no class %s in roce's type qos policy:\n%v", name, pm)
	}
	for _, a := range pm.Class(name).Actions {
		if f := strings.Fields(a); len(f) == 3 && f[1] == "qos-group" {
			n, _ := strconv.Atoi(f[2])
			return n
		}
	}
	t.Fatalf("class %s sets no qos-group", name)
	return 0
}

// l2Default7000 makes a 7000 test configuration's ports without a
// switchport line Layer 2, as the lab's and the NAPALM captures' are
// (without it they are Layer 3: Config.Routed).
const l2Default7000 = "system default switchport\n"

// On a Nexus 7000 roce classifies by CoS and adds no type qos policy, so
// a managed port's own type qos policy sees the RoCE packets: a class of
// it that takes them and moves them out of the no-drop CoS (or acts on
// them otherwise) is refused, as is one that feeds other traffic into the
// no-drop CoS (`set cos 4` on DSCP 46, the audit's probe).
func TestOverlapPortPolicy7000(t *testing.T) {
	pol := func(match, action, dir string) string {
		return "class-map type qos match-any voice\n  " + match + "\npolicy-map type qos port-qos\n  class voice\n    " + action + "\n" +
			"interface Ethernet2/1\n  service-policy type qos " + dir + " port-qos\n"
	}
	tests := []struct {
		name, cur string
		want      []string // nil = accepted
	}{
		{"EF re-marked into the no-drop CoS", pol("match dscp 46", "set cos 4", "input"),
			[]string{`class voice of policy-map port-qos (type qos, ` + "`service-policy type qos input port-qos` on managed port Ethernet2/1) sets CoS 4 (set cos 4)",
				"on the packets class-map voice matches (match dscp 46)", "Fix one side: remove `set cos 4` from class voice of policy-map port-qos"}},
		{"RoCE re-marked out of the no-drop CoS", pol("match cos 4", "set cos 2", "input"),
			[]string{`lossless "rdma" overlaps class voice of policy-map port-qos, attached to managed port Ethernet2/1`, "matches CoS 4 (match cos 4)",
				"applies `set cos 2`", "would leave CoS 4", "remove policy-map port-qos from Ethernet2/1"}},
		{"output policy re-marks RoCE", pol("match cos 3-5", "set cos 0", "output"), []string{"overlaps class voice of policy-map port-qos", "`set cos 0`"}},
		{"policy on the member's port-channel", "class-map type qos match-any voice\n  match cos 4\npolicy-map type qos port-qos\n  class voice\n    set dscp 10\n" +
			"interface port-channel7\n  service-policy type qos input port-qos\ninterface Ethernet2/2\n  channel-group 7 mode active\n",
			[]string{"attached to managed port Ethernet2/2 (a member of port-channel7)", "`set dscp 10`"}},
		{"class-default re-marks RoCE", "policy-map type qos port-qos\n  class class-default\n    set cos 0\ninterface Ethernet2/1\n  service-policy type qos input port-qos\n",
			[]string{"overlaps class class-default of policy-map port-qos", "no other class of it matches them, so class-default takes every packet",
				"applies `set cos 0`", "take those actions out of class class-default, add a class before it"}},
		{"RoCE kept in its CoS", pol("match cos 4", "set cos 4", "input"), nil},
		// match-any: EF packets beside RoCE's CoS get CoS 4 too.
		{"RoCE's CoS or EF marked with CoS 4", pol("match cos 4\n  match dscp 46", "set cos 4", "input"),
			[]string{"class voice of policy-map port-qos", "sets CoS 4 (set cos 4)", "(match cos 4, match dscp 46)"}},
		// match-all: only CoS 4 packets that are also EF, a part of RoCE's own CoS.
		{"RoCE's CoS and EF marked with CoS 4", strings.Replace(pol("match cos 4\n  match dscp 46", "set cos 4", "input"), "match-any", "match-all", 1), nil},
		// RoCE at CoS 4 can carry any DSCP (the cos class names none).
		{"RoCE marked EF re-marked out of the no-drop CoS", pol("match dscp 46", "set cos 5", "input"),
			[]string{"overlaps class voice of policy-map port-qos", "matches DSCP 46 (match dscp 46), which the class's packets can carry", "applies `set cos 5`"}},
		{"other traffic, other CoS", pol("match cos 5", "set cos 6", "input"), nil},
		{"same policy on an unmanaged port", strings.ReplaceAll(pol("match dscp 46", "set cos 4", "input"), "Ethernet2/1", "Ethernet2/9"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := intentFor(t, "nexus7000", "cos", "")
			cur := l2Default7000 + tt.cur
			if tt.want == nil {
				checkRefusal(t, cur, in, "", "")
				return
			}
			checkRefusal(t, cur, in, "a managed port's class that moves traffic into or out of the no-drop CoS", tt.want[0], tt.want[1:]...)
		})
	}
}

// A 7000 port class that sets the DSCP a lossless class matches keeps
// its packets lossless, whether the DSCP is written as a number or by
// name; another DSCP is refused.
func TestOverlapPortPolicy7000SetDSCP(t *testing.T) {
	pol := func(action string) string {
		return l2Default7000 + "class-map type qos match-any af\n  match dscp 26\npolicy-map type qos port-qos\n  class af\n    " + action + "\n" +
			"interface Ethernet2/1\n  service-policy type qos input port-qos\n"
	}
	in := intentFor(t, "nexus7000", "dscp", "")
	for _, action := range []string{"set dscp 26", "set dscp af31"} {
		t.Run(action, func(t *testing.T) { checkRefusal(t, pol(action), in, "", "") })
	}
	t.Run("set dscp ef", func(t *testing.T) {
		checkRefusal(t, pol("set dscp ef"), in, "a managed port's class that re-marks the lossless DSCP", "applies `set dscp ef`")
	})
}

// Under system qos of a Nexus 5000 a foreign class that marks other
// traffic with the no-drop CoS is refused, in the type qos policy and in
// the network-qos one (traced through the qos-group its class-map
// matches); marking the class's own traffic is fine. The foreign classes
// under system qos match another CoS: one matching a DSCP would overlap
// the cos class itself (RoCE at CoS 4 can carry any DSCP) and be refused
// for that first (overlap_dscp_unset_test.go).
func TestOverlapSetCoSUnderSystemQoS(t *testing.T) {
	sys := "system qos\n  service-policy type qos input site-in\n  service-policy type network-qos site-nq\n"
	qos := func(match, action string) string {
		return "class-map type qos match-any voice\n  " + match + "\npolicy-map type qos site-in\n  class voice\n    " + action + "\n  class class-default\n"
	}
	nq := func(action string) string {
		return "class-map type network-qos voice-nq\n  match qos-group 3\npolicy-map type network-qos site-nq\n  class type network-qos voice-nq\n    " + action + "\n" +
			"  class type network-qos class-default\n    mtu 1500\n"
	}
	tests := []struct {
		name, cur string
		class     string // mode
		want      []string
	}{
		{"type qos class marks CoS 2 with CoS 4", qos("match cos 2", "set cos 4") + nq("mtu 1500") + sys, "cos",
			[]string{"class voice of policy-map site-in (type qos, `service-policy type qos input site-in` under system qos) sets CoS 4", "match cos 2", "remove `set cos 4` from class voice"}},
		{"network-qos class marks another group with CoS 4", qos("match cos 2", "set qos-group 3") + nq("set cos 4") + sys, "cos",
			[]string{"class voice-nq of policy-map site-nq (type network-qos", "qos-group 3, the packets of class voice of site-in", "match cos 2"}},
		{"class-default marked with CoS 4", "policy-map type qos site-in\n  class class-default\n    set cos 4\n" + nq("mtu 1500") + sys, "cos",
			[]string{"class class-default of policy-map site-in", "every packet no other class of it matches"}},
		// The class's own DSCP arriving on an unmanaged port (under system
		// qos the class would overlap roce's and be refused for that).
		{"network-qos marks the class's own DSCP", qos("match dscp 26", "set qos-group 3") + nq("set cos 4") +
			"system qos\n  service-policy type network-qos site-nq\ninterface Ethernet1/9\n  service-policy type qos input site-in\n", "udp_dscp", nil},
		{"the same from another DSCP", qos("match dscp 46", "set qos-group 3") + nq("set cos 4") +
			"system qos\n  service-policy type network-qos site-nq\ninterface Ethernet1/9\n  service-policy type qos input site-in\n", "udp_dscp",
			[]string{"class voice-nq of policy-map site-nq", "qos-group 3, the packets of class voice of site-in", "(match dscp 46)"}},
		{"another CoS", qos("match cos 2", "set cos 5") + nq("mtu 1500") + sys, "cos", nil},
		{"network-qos class no-drop on CoS 4 for other traffic", qos("match cos 2", "set qos-group 3") + nq("pause no-drop pfc-cos 4") + sys, "cos",
			[]string{"class voice-nq of policy-map site-nq (type network-qos", "is no-drop on CoS 4 (pause no-drop pfc-cos 4)", "PFC pauses a priority, not a class",
				"give class voice-nq of policy-map site-nq a pfc-cos of its own"}},
		{"network-qos class no-drop on another CoS", qos("match cos 2", "set qos-group 3") + nq("pause no-drop pfc-cos 5") + sys, "cos", nil},
		{"a group nothing sets", qos("match cos 2", "set qos-group 2") + nq("set cos 4") + sys, "cos", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := intentFor(t, "nexus5000", "cos", "")
			if tt.class == "udp_dscp" {
				in.Classes = []*policies.Lossless{{Name: "rocev2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 4, MTU: 9216}}
			}
			if tt.want == nil {
				checkRefusal(t, tt.cur, in, "", "")
				return
			}
			checkRefusal(t, tt.cur, in, "a foreign class marking other traffic with the no-drop CoS", tt.want[0], tt.want[1:]...)
		})
	}
}

// A roce class that already has a qos-group gives it up when a foreign
// policy on an interface starts setting the same group (the plan moves
// roce's class, visibly, instead of sharing the group).
func TestOverlapInterfaceGroupTakenLater(t *testing.T) {
	in := intentFor(t, "nexus5000", "cos", "")
	cur, err := Parse("interface Ethernet1/1\ninterface Ethernet1/2\n")
	if err != nil {
		t.Fatal(err)
	}
	des, err := Render(in, cur)
	if err != nil {
		t.Fatal(err)
	}
	g := groupOf(t, des, DefaultPrefix+in.Classes[0].Name)
	_, script, err := Diff(cur, des, in.Platform)
	if err != nil {
		t.Fatal(err)
	}
	applied := cur.Clone()
	if err := ApplyCommands(applied, in.Platform, nil, script); err != nil {
		t.Fatal(err)
	}
	later, err := Parse(applied.String() + "class-map type qos match-all mgmt\n  match cos 1\npolicy-map type qos mgmt-in\n  class mgmt\n    set qos-group " + strconv.Itoa(g) + "\n" +
		"interface Ethernet1/9\n  service-policy type qos input mgmt-in\n")
	if err != nil {
		t.Fatal(err)
	}
	re, err := Render(in, later)
	if err != nil {
		t.Fatal(err)
	}
	if g2 := groupOf(t, re, DefaultPrefix+in.Classes[0].Name); g2 == g {
		t.Fatalf("roce's class kept qos-group %d, which policy mgmt-in on Ethernet1/9 now sets", g)
	}
	if nq := re.ClassMap(TypeNetworkQoS, DefaultPrefix+in.Classes[0].Name); nq == nil || slices.Contains(nq.Lines, "match qos-group "+strconv.Itoa(g)) {
		t.Fatalf("roce's network-qos class-map still matches qos-group %d:\n%v", g, nq)
	}
}

// A Nexus 5000 managed port's own queuing output policy decides the
// egress shares there: a class that asks for none plans, and so does a
// port-channel member whose port-channel has none.
func TestOverlapPortQueuing5000(t *testing.T) {
	noShare := *modeClasses()["cos"][0]
	noShare.BandwidthPercent = 0
	in := Intent{Platform: testPlatform(t, "nexus5000"), Classes: []*policies.Lossless{&noShare}, Interfaces: []string{"Ethernet1/1"}}
	checkRefusal(t, "interface Ethernet1/1\n  service-policy type queuing output default-out-policy\n", in, "", "")
	in.Classes = modeClasses()["cos"]
	checkRefusal(t, "interface port-channel5\n  service-policy type queuing output default-out-policy\ninterface Ethernet1/1\n  channel-group 5\n", in,
		"a share the port-channel's queuing policy overrides", "managed port Ethernet1/1 (a member of port-channel5) has its own type queuing output policy default-out-policy")
}
