package nexus

import (
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

// A foreign class-map matching an IP access-list whose first rule RoCE v2
// packets (UDP to 4791, from the ephemeral source ports, with the class's
// DSCP) can hit is a permit overlaps; the rule is read field by field:
// addresses, source and destination port operators, protocol numbers,
// DSCP, and a deny of every such packet that comes first.
func TestOverlapIPACL(t *testing.T) {
	cur := func(rules ...string) string { return aclClassConfig("ip", "v2", rules...) }
	udp := &policies.Lossless{Name: "rocev2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791}, Priority: 4, MTU: 9216}
	udp26 := &policies.Lossless{Name: "rocev2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 4, MTU: 9216}
	tests := []struct {
		name  string
		class *policies.Lossless
		rules []string
		want  string // "" = accepted
	}{
		{"the RoCE port", udp, []string{"10 permit udp any any eq 4791"}, `rule "10 permit udp any any eq 4791" (UDP 4791)`},
		{"a range with it", udp, []string{"10 permit udp any any range 4000 5000"}, `(UDP 4791)`},
		{"above a lower port", udp, []string{"10 permit udp any any gt 4790"}, `(UDP 4791)`},
		{"every port but another", udp, []string{"10 permit udp any any neq 53"}, `(UDP 4791)`},
		{"every port but a named one", udp, []string{"10 permit udp any any neq domain"}, `(UDP 4791)`},
		{"above a named port", udp, []string{"10 permit udp any any gt domain"}, `rule "10 permit udp any any gt domain" (UDP 4791)`},
		{"source ports above a named one", udp, []string{"10 permit udp any gt bootpc any"}, `rule "10 permit udp any gt bootpc any" (UDP 4791)`},
		{"a range written high to low", udp, []string{"10 permit udp any any range 5000 4000"}, `(UDP 4791)`},
		{"a deny on packet length first", udp, []string{"10 deny udp any any packet-length lt 100", "20 permit udp any any eq 4791"}, `rule "20 permit udp any any eq 4791"`},
		{"a permit on packet length", udp, []string{"10 permit udp any any eq 4791 packet-length gt 1000"}, `(UDP 4791, for the packet lengths or TTL it names)`},
		{"a deny on TTL first", udp, []string{"10 deny ip any any ttl 1", "20 permit udp any any eq 4791"}, `rule "20 permit udp any any eq 4791"`},
		{"UDP by number", udp, []string{"10 permit 17 any any"}, `rule "10 permit 17 any any"`},
		{"a host", udp, []string{"10 permit udp host 10.0.0.1 any eq 4791"}, "for the addresses, source ports or DSCP it names"},
		{"an address and wildcard", udp, []string{"10 permit udp 10.0.0.0 0.0.0.255 any"}, "for the addresses"},
		{"the ephemeral source ports", udp, []string{"10 permit udp any range 49152 65535 any"}, `rule "10 permit udp any range 49152 65535 any" (UDP 4791)`},
		{"some ephemeral source ports", udp, []string{"10 permit udp any gt 60000 any"}, "for the addresses, source ports"},
		{"the class's DSCP", udp26, []string{"10 permit udp any any eq 4791 dscp af31"}, `(UDP 4791, for the addresses, source ports or DSCP it names)`},
		{"a DSCP when the class names none", udp, []string{"10 permit udp any any eq 4791 dscp 46"}, "DSCP it names"},
		{"a partial deny first", udp, []string{"10 deny udp host 10.0.0.1 any", "20 permit ip any any"}, `rule "20 permit ip any any"`},
		{"another port", udp, []string{"10 permit udp any any eq 5060"}, ""},
		{"a named port", udp, []string{"10 permit udp any any eq domain"}, ""},
		{"a range without it", udp, []string{"10 permit udp any any range 100 200"}, ""},
		{"not the RoCE port", udp, []string{"10 permit udp any any neq 4791"}, ""},
		{"below a named port", udp, []string{"10 permit udp any any lt non500-isakmp"}, ""},
		{"below it", udp, []string{"10 permit udp any any lt 4791"}, ""},
		{"source port 4791", udp, []string{"10 permit udp any eq 4791 any"}, ""},
		{"TCP", udp, []string{"10 permit tcp any any eq 4791"}, ""},
		{"another DSCP than the class's", udp26, []string{"10 permit udp any any eq 4791 dscp 46"}, ""},
		{"a port group (not judged)", udp, []string{"10 permit udp any any portgroup pg"}, ""},
		{"denied first", udp, []string{"10 deny udp any any eq 4791", "20 permit ip any any"}, ""},
		{"denied first with the class's DSCP", udp26, []string{"10 deny udp any any dscp 26", "20 permit ip any any"}, ""},
		{"a remark", udp, []string{"10 remark eq 4791"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Intent{Platform: testPlatform(t, "nexus5000"), Classes: []*policies.Lossless{tt.class}, Interfaces: []string{"Ethernet1/1"}}
			if tt.want == "" {
				checkRefusal(t, cur(tt.rules...), in, "", "")
				return
			}
			checkRefusal(t, cur(tt.rules...), in, "a class whose IP ACL takes RoCE v2 packets", tt.want, "overlaps class voice of policy-map site-in", "Fix one side")
		})
	}
}

// An ipv6 access-list is read as an IPv4 one is: RoCE v2 over IPv6 is UDP
// to the same port.
func TestOverlapIPv6ACL(t *testing.T) {
	udp := &policies.Lossless{Name: "rocev2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791}, Priority: 4, MTU: 9216}
	in := Intent{Platform: testPlatform(t, "nexus5000"), Classes: []*policies.Lossless{udp}, Interfaces: []string{"Ethernet1/1"}}
	for _, tt := range []struct {
		name  string
		rules []string
		want  string
	}{
		{"the RoCE port", []string{"10 permit udp any any eq 4791"}, `rule "10 permit udp any any eq 4791" (UDP 4791)`},
		{"every IPv6 packet", []string{"10 permit ipv6 any any"}, `rule "10 permit ipv6 any any" (UDP 4791)`},
		{"a prefix", []string{"10 permit udp 2001:db8::/32 any eq 4791"}, "for the addresses"},
		{"denied first", []string{"10 deny udp any any eq 4791", "20 permit ipv6 any any"}, ""},
		{"another port", []string{"10 permit udp any any eq 53"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := aclClassConfig("ipv6", "v6", tt.rules...)
			if tt.want == "" {
				checkRefusal(t, cfg, in, "", "")
				return
			}
			checkRefusal(t, cfg, in, "a class whose IPv6 ACL takes RoCE v2 packets", tt.want, "overlaps class voice of policy-map site-in", "Fix one side")
		})
	}
}

// FuzzReadIPRule: any line is read without panicking, and a rule read is
// a permit or deny line that can be matched.
func FuzzReadIPRule(f *testing.F) {
	for _, s := range []string{"10 permit udp any any eq 4791", "deny udp host 10.0.0.1 range 49152 65535 10.0.0.0/8 gt 4000 dscp af31 log",
		"permit 17 10.0.0.0 0.0.0.255 any portgroup pg precedence 3", "9 permit udp any eq",
		"deny udp any gt bootpc any range non500-isakmp 4000 packet-length range 100 200 ttl 3", "permit udp any any packet-length"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, ok := readIPRule(line)
		if !ok {
			return
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.Contains(line, "permit") && !strings.Contains(line, "deny") {
			t.Fatalf("%q read as a rule", line)
		}
		tr := traffic{cos: []int{4}, udpPort: 4791, dscp: []int{26}}
		if r.every(tr) && !r.matches(tr) && r.dstPort == nil && !r.unknown && !r.noRoCE && (r.proto == "ip" || r.proto == "udp") {
			t.Fatalf("%q: every packet but not one", line)
		}
	})
}
