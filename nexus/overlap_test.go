package nexus

import (
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

// checkRefusal renders in against the config text cur. With want empty
// Render must accept it; otherwise it must refuse (what names what it must
// not accept) with an error containing want and every one of also.
func checkRefusal(t *testing.T, cur string, in Intent, what, want string, also ...string) {
	t.Helper()
	c, err := Parse(cur)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Render(in, c)
	if want == "" {
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatal("accepted " + what)
	}
	for _, w := range append([]string{want}, also...) {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
}

// A lossless class whose packets a foreign class of the attached type qos
// policy already classifies is refused, naming both sides and the fix;
// classes that cannot see those packets are left alone.
func TestRenderRefusesOverlappingClasses(t *testing.T) {
	foreign := func(cm, acl string) string {
		return acl + "class-map type qos " + cm + "\n" +
			"policy-map type qos site-in\n  class voice\n    set qos-group 2\n  class class-default\n" +
			"system qos\n  service-policy type qos input site-in\n"
	}
	cos4 := &policies.Lossless{Name: "rdma", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{4}}, Priority: 4, MTU: 9216}
	dscp26 := &policies.Lossless{Name: "rocev2", Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}, Priority: 4, MTU: 9216}
	udp := &policies.Lossless{Name: "rocev2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791}, Priority: 4, MTU: 9216}
	udpDSCP := &policies.Lossless{Name: "rocev2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 4, MTU: 9216}
	tests := []struct {
		name  string
		cur   string
		class *policies.Lossless
		want  string // "" = accepted
	}{
		{"same CoS", foreign("match-all voice\n  match cos 4", ""), cos4, "matches CoS 4 (match cos 4)"},
		{"CoS in a range", foreign("match-any voice\n  match cos 3-5", ""), cos4, "CoS 4"},
		{"other CoS", foreign("match-all voice\n  match cos 5", ""), cos4, ""},
		{"PCP of a DSCP class", foreign("match-all voice\n  match cos 4", ""), dscp26, "CoS 4"},
		{"DSCP by name", foreign("match-any voice\n  match dscp af31", ""), dscp26, "DSCP 26 (match dscp af31)"},
		{"DSCP by precedence", foreign("match-all voice\n  match precedence 3", ""), dscp26, "IP precedence 3"},
		{"other DSCP", foreign("match-all voice\n  match dscp 46", ""), dscp26, ""},
		{"match-all needs every line", foreign("match-all voice\n  match cos 4\n  match dscp 46", ""), dscp26, ""},
		{"match-any needs one line", foreign("match-any voice\n  match cos 4\n  match dscp 46", ""), dscp26, "CoS 4"},
		{"ACL with the RoCE port", foreign("match-all voice\n  match access-group name v", "ip access-list v\n  10 permit udp any any eq 4791\n"), udpDSCP, "UDP 4791"},
		{"ACL with any UDP", foreign("match-all voice\n  match access-group name v", "ip access-list v\n  10 permit udp 10.0.0.0/8 any\n"), udp, "UDP 4791"},
		{"ACL with another port", foreign("match-all voice\n  match access-group name v", "ip access-list v\n  10 permit udp any any eq 5060\n"), udp, ""},
		{"match any", foreign("match-any voice\n  match any", ""), udp, "every packet"},
		{"unknown match kept quiet", foreign("match-all voice\n  match protocol fcoe", ""), cos4, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Intent{Platform: testPlatform(t, "nexus5000"), Classes: []*policies.Lossless{tt.class}, Interfaces: []string{"Ethernet1/1"}}
			checkRefusal(t, tt.cur, in, "a class that steals class voice's traffic", tt.want, "class voice of policy-map site-in", "Fix one side", "class-map voice")
		})
	}
}

// A managed port whose own mtu is below the class's MTU would drop RoCE
// frames: refused, naming the port and both numbers; an equal or larger
// port MTU is fine.
func TestRenderRefusesPortMTUBelowClass(t *testing.T) {
	class := &policies.Lossless{Name: "rocev2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791}, Priority: 4, MTU: 9216}
	for mtu, want := range map[string]string{"1500": "port Ethernet1/1 is configured with mtu 1500", "9216": "", "9000": "mtu 9000"} {
		cur, err := Parse("interface Ethernet1/1\n  no switchport\n  mtu " + mtu + "\n")
		if err != nil {
			t.Fatal(err)
		}
		in := Intent{Platform: testPlatform(t, "nexus5000"), Classes: []*policies.Lossless{class}, Interfaces: []string{"Ethernet1/1"}}
		_, err = Render(in, cur)
		switch {
		case want == "" && err != nil:
			t.Errorf("mtu %s refused: %v", mtu, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "raise the port's mtu to 9216")):
			t.Errorf("mtu %s: %v, want an error naming %q and the fix", mtu, err, want)
		}
	}
}

// On a 5000 an L2 port's mtu line (show running-config all prints 1500)
// does not limit frames; the network-qos MTU does.
func TestRenderIgnoresL2PortMTUOn5000(t *testing.T) {
	class := &policies.Lossless{Name: "rocev2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791}, Priority: 4, MTU: 9216}
	cur, err := Parse("interface Ethernet1/1\n  switchport\n  mtu 1500\n")
	if err != nil {
		t.Fatal(err)
	}
	in := Intent{Platform: testPlatform(t, "nexus5000"), Classes: []*policies.Lossless{class}, Interfaces: []string{"Ethernet1/1"}}
	if _, err := Render(in, cur); err != nil {
		t.Fatalf("an L2 port's mtu line refused: %v", err)
	}
}

// On a Nexus 7000 a CoS belongs to one queue: a lossless class whose CoS
// a queuing class-map roce does not own already maps (a class-map of the
// default queuing policies whose CoS were changed, or anyone's own) is
// refused, naming the class-map, its line and the fix; CoS no queuing
// class-map matches, and roce's own queue classes, are fine. The
// class-map names follow the queue types of the Nexus 7000 QoS guide
// (1p3q4t, 8q2t); the exact names a running-config prints for them are
// UNCONFIRMED (docs/nxos.md#cos-queue).
func TestRender7000RefusesCoSMappedToAnotherQueue(t *testing.T) {
	rdma := func(cos int) *policies.Lossless {
		return &policies.Lossless{Name: "rdma", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{cos}}, Priority: cos, MTU: 9216}
	}
	tests := []struct {
		name, cur string
		class     *policies.Lossless
		want      string // "" = accepted
	}{
		{"system queue class with the CoS in a range", "class-map type queuing match-any 1p3q4t-out-q2\n  match cos 3-4\n", rdma(4),
			"queuing class-map 1p3q4t-out-q2 (not roce's) already maps CoS 4 to its queue (match cos 3-4)"},
		{"CoS in a list", "class-map type queuing match-any 8q2t-in-q3\n  match cos 2,4\n", rdma(4), "class-map 8q2t-in-q3"},
		{"someone's own queue class", "class-map type queuing match-any FCOE-Q\n  match cos 3\n", rdma(3), "class-map FCOE-Q"},
		{"other CoS", "class-map type queuing match-any 1p3q4t-out-pq1\n  match cos 5-7\n", rdma(4), ""},
		{"roce's own queue class", "class-map type queuing match-any ROCE-rdma\n  match cos 4\n", rdma(4), ""},
		{"qos class-maps are not queues", "class-map type qos match-all VOICE\n  match cos 4\n", rdma(4), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Intent{Platform: testPlatform(t, "nexus7000"), Classes: []*policies.Lossless{tt.class}, Interfaces: []string{"Ethernet2/1"}, Modules: testModules7000}
			checkRefusal(t, l2Default7000+tt.cur, in, "a CoS another queue already has", tt.want, "Fix one side", "drop and no-drop CoS must be in different queues")
		})
	}
	// The same check leaves a Nexus 5000 alone: its queuing class-maps
	// match qos-groups, never CoS.
	cur, _ := Parse(l2Default7000 + "class-map type queuing class-gold\n  match qos-group 4\n")
	in := Intent{Platform: testPlatform(t, "nexus5000"), Classes: []*policies.Lossless{rdma(4)}, Interfaces: []string{"Ethernet1/1"}}
	if _, err := Render(in, cur); err != nil {
		t.Fatalf("5000: %v", err)
	}
}
