package nexus

import (
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

// A lossless class the switch matches by CoS or DSCP that an earlier roce
// put ahead of the foreign classes of its attached type qos policy (roce
// keeps that order) also takes their non-RoCE traffic of that CoS/DSCP:
// the plan says so, naming the classes that can see such traffic and only
// those. A class roce adds goes after them (classorder_place_test.go).
func TestClassOrderWarnings(t *testing.T) {
	web := "ip access-list WEB\n  permit tcp any any eq 80\nclass-map type qos match-any WEB\n  match access-group name WEB\n"
	// attach is the policy an earlier roce left: its class first, then
	// the foreign classes it carried.
	attach := func(classes ...string) string {
		s := "class-map type qos match-all ROCE-rdma\n  match cos 4\npolicy-map type qos ROCE-QOS-IN\n  class ROCE-rdma\n    set qos-group 3\n"
		for _, c := range classes {
			s += "  class " + c + "\n    set qos-group 2\n"
		}
		return s + "system qos\n  service-policy type qos input ROCE-QOS-IN\n"
	}
	foreign := "policy-map type qos FOREIGN\n  class WEB\n    set qos-group 2\nsystem qos\n  service-policy type qos input FOREIGN\n"
	cos := &policies.Lossless{Name: "rdma", Priority: 4, Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{4}}}
	dscp := &policies.Lossless{Name: "rdma", Priority: 4, Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}}
	udp := &policies.Lossless{Name: "rdma", Priority: 4, Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791}}
	ether := &policies.Lossless{Name: "rdma", Priority: 4, Match: policies.Match{Kind: policies.MatchEthertype, Ethertype: 0x8915}}
	tests := []struct {
		name, kind, cfg string
		class           *policies.Lossless
		want            string // "" = no warning
	}{
		{"cos class ahead of an access-list class", "nexus5000", web + attach("WEB"), cos, `lossless "rdma" is matched by CoS 4 and goes ahead of class(es) WEB of policy-map ROCE-QOS-IN`},
		{"a class roce adds goes after the access-list class", "nexus5000", web + foreign, cos, ""},
		{"dscp class ahead of an access-list class", "nexus5000", web + attach("WEB"), dscp, `matched by DSCP 26 and goes ahead of class(es) WEB`},
		{"ethertype class, rendered as match cos", "nexus5000", web + attach("WEB"), ether, `matched by CoS 4`},
		{"udp_port class: an access-list for RoCE v2 only", "nexus5000", web + attach("WEB"), udp, ""},
		{"a foreign class of another CoS never meets CoS 4", "nexus5000", "class-map type qos match-any VM\n  match cos 2\n" + attach("VM"), cos, ""},
		{"a foreign CoS class meets a dscp class", "nexus5000", "class-map type qos match-any VM\n  match cos 2\n" + attach("VM"), dscp, "class(es) VM"},
		// The cos class takes RoCE packets of any DSCP, so EF would see
		// some: Render refuses that (overlap.go), and the plan says so.
		{"a foreign DSCP class a cos class meets is refused, not warned", "nexus5000", "class-map type qos match-any EF\n  match dscp 46\n" + attach("EF"), cos, ""},
		{"a foreign class of another DSCP never meets DSCP 26", "nexus5000", "class-map type qos match-any EF\n  match dscp ef\n" + attach("EF"), dscp, ""},
		{"only the classes that can share are named", "nexus5000", web + "class-map type qos match-any VM\n  match cos 2\n" + attach("VM", "WEB"), cos, "class(es) WEB of"},
		{"the built-in FCoE policy", "nexus5000", "system qos\n  service-policy type qos input fcoe-default-in-policy\n", cos, ""},
		{"roce's own policy carrying a foreign class (the second plan)", "nexus5000",
			web + "class-map type qos match-all ROCE-rdma\n  match cos 4\npolicy-map type qos ROCE-QOS-IN\n  class ROCE-rdma\n    set qos-group 3\n  class WEB\n    set qos-group 2\nsystem qos\n  service-policy type qos input ROCE-QOS-IN\n",
			cos, "class(es) WEB of policy-map ROCE-QOS-IN"},
		{"nothing attached", "nexus5000", web, cos, ""},
		{"a 7000 gets no type qos policy from roce", "nexus7000", web + attach("WEB"), cos, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cur, err := Parse(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			in := Intent{Platform: testPlatform(t, tc.kind), Classes: []*policies.Lossless{tc.class}}
			var got []string
			if des, err := Render(in, cur); err == nil { // a refused intent: no warning, the plan reports the refusal
				got = ClassOrderWarnings(in, des)
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("want no warning, got %q", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want) || !strings.Contains(got[0], "docs/nxos.md#overlap")):
				t.Errorf("want one warning with %q, got %q", tc.want, got)
			}
		})
	}
}
