package nexus

import (
	"slices"
	"strings"
	"testing"
)

// readMACRule reads the NX-OS MAC ACL rule syntax ("[seq] permit|deny
// source destination [protocol [mask]] [cos N] [vlan N]", docs/nxos.md#mac-acl)
// field by field, wherever the Ethertype is.
func TestReadMACRule(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
		want macRule
	}{
		{"10 permit any any 0x8915", true, macRule{permit: true, proto: "0x8915", etype: 0x8915}},
		{"permit any any 0x8915 cos 4", true, macRule{permit: true, proto: "0x8915", etype: 0x8915, cos: []int{4}}},
		{"20 permit any any 0x8915 vlan 10", true, macRule{permit: true, proto: "0x8915", etype: 0x8915, vlan: "10"}},
		{"30 permit any any 0x8915 0x0", true, macRule{permit: true, proto: "0x8915", etype: 0x8915}},
		{"permit any any 0x8900 0xff cos 3 vlan 7", true, macRule{permit: true, proto: "0x8900", etype: 0x8900, mask: 0xff, cos: []int{3}, vlan: "7"}},
		{"deny 0000.1111.2222 0000.0000.0000 any 0x8915", true, macRule{addressed: true, proto: "0x8915", etype: 0x8915}},
		{"permit any 0060.3e00.0000 0000.00ff.ffff", true, macRule{permit: true, addressed: true}},
		{"permit any any aarp", true, macRule{permit: true, proto: "aarp", named: true}},
		{"permit any any cos 4", true, macRule{permit: true, cos: []int{4}}},
		{"permit any any", true, macRule{permit: true}},
		{"10 remark RoCE", false, macRule{}},
		{"statistics per-entry", false, macRule{}},
		{"permit any", false, macRule{}},
		{"permit any any 0x8915 cos", false, macRule{}},
		{"permit any any 0x8915 log", false, macRule{}},
		{"permit any any 0x8915 cos 8", false, macRule{}},
		{"permit 0000.1111.2222 any 0x8915", false, macRule{}},
	}
	for _, tt := range tests {
		got, ok := readMACRule(tt.line)
		if ok != tt.ok {
			t.Errorf("%q: ok %v, want %v", tt.line, ok, tt.ok)
			continue
		}
		if ok && (got.permit != tt.want.permit || got.addressed != tt.want.addressed || got.proto != tt.want.proto || got.etype != tt.want.etype ||
			got.named != tt.want.named || got.mask != tt.want.mask || !slices.Equal(got.cos, tt.want.cos) || got.vlan != tt.want.vlan) {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.line, got, tt.want)
		}
	}
}

// A foreign class-map matching a MAC ACL whose rule takes RoCE v1 frames
// (Ethertype 0x8915 on the class's CoS) is refused, wherever the
// Ethertype sits in the rule and whatever options follow it; a rule on
// another Ethertype or CoS, or a deny that comes first, is not an overlap.
func TestOverlapMACACL(t *testing.T) {
	cur := func(rules ...string) string { return aclClassConfig("mac", "v1", rules...) }
	tests := []struct {
		name  string
		rules []string
		want  string // "" = accepted
	}{
		{"the Ethertype", []string{"10 permit any any 0x8915"}, `access-list v1 rule "10 permit any any 0x8915" (Ethertype 0x8915)`},
		{"Ethertype then CoS", []string{"10 permit any any 0x8915 cos 4"}, `rule "10 permit any any 0x8915 cos 4" (Ethertype 0x8915)`},
		{"Ethertype then VLAN", []string{"10 permit any any 0x8915 vlan 10"}, "(Ethertype 0x8915 on VLAN 10)"},
		{"Ethertype with a zero mask", []string{"10 permit any any 0x8915 0x0"}, `rule "10 permit any any 0x8915 0x0"`},
		{"Ethertype under a wildcard mask", []string{"10 permit any any 0x8900 0xff"}, `rule "10 permit any any 0x8900 0xff"`},
		{"addresses narrow it", []string{"10 permit 0000.1111.2222 0000.0000.0000 any 0x8915"}, "between the addresses it names"},
		{"any protocol", []string{"10 permit any any"}, `rule "10 permit any any"`},
		{"any protocol on the CoS", []string{"10 permit any any cos 4"}, `rule "10 permit any any cos 4"`},
		{"the later rule after a partial deny", []string{"10 deny any any 0x8915 vlan 10", "20 permit any any"}, `rule "20 permit any any"`},
		{"the later rule after a deny naming addresses", []string{"10 deny 0000.1111.2222 0000.0000.0000 any 0x8915", "20 permit any any"}, `rule "20 permit any any"`},
		{"another CoS", []string{"10 permit any any 0x8915 cos 5"}, ""},
		{"another Ethertype", []string{"10 permit any any 0x8906"}, ""},
		{"another Ethertype under its mask", []string{"10 permit any any 0x8900 0xf"}, ""},
		{"a protocol keyword", []string{"10 permit any any aarp"}, ""},
		{"denied first", []string{"10 deny any any 0x8915", "20 permit any any"}, ""},
		{"denied first on the CoS", []string{"10 deny any any 0x8915 cos 4", "20 permit any any"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := intentFor(t, "nexus5000", "ethertype", "")
			if tt.want == "" {
				checkRefusal(t, cur(tt.rules...), in, "", "")
				return
			}
			checkRefusal(t, cur(tt.rules...), in, "a class whose MAC ACL takes RoCE v1 frames", tt.want, "overlaps class voice of policy-map site-in", "Fix one side")
		})
	}
}

// FuzzReadMACRule: any line is read without panicking, and a rule read
// is a permit or deny line whose CoS values are 0-7 when it names them.
func FuzzReadMACRule(f *testing.F) {
	for _, s := range []string{"10 permit any any 0x8915 cos 4", "permit any any 0x8915 0x0 vlan 10", "deny 0000.1111.2222 0000.0000.0000 any aarp", "permit any any cos 3-5", "9 permit"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, ok := readMACRule(line)
		if !ok {
			return
		}
		f := strings.Fields(line)
		if !slices.Contains(f, "permit") && !slices.Contains(f, "deny") {
			t.Fatalf("%q read as a rule without permit or deny", line)
		}
		for _, c := range r.cos {
			if c < 0 || c > 7 {
				t.Fatalf("%q read with CoS %d", line, c)
			}
		}
		r.matches(traffic{cos: []int{4}, ethertype: 0x8915})
	})
}

// An IP access-list that denies every RoCE v2 packet (UDP or IP, any to
// any, the RoCE port or none) before a rule permitting them leaves them
// out of the class-map; a deny that names less does not.
func TestOverlapIPACLDenyFirst(t *testing.T) {
	cur := func(rules ...string) string { return aclClassConfig("ip", "v2", rules...) }
	tests := []struct {
		name  string
		rules []string
		want  string
	}{
		{"denied on the port first", []string{"10 deny udp any any eq 4791", "20 permit ip any any"}, ""},
		{"all UDP denied first", []string{"10 deny udp any any", "20 permit ip any any"}, ""},
		{"another port denied", []string{"10 deny udp any any eq 53", "20 permit ip any any"}, `rule "20 permit ip any any" (UDP 4791)`},
		{"a subnet denied", []string{"10 deny udp 10.0.0.0/8 any eq 4791", "20 permit ip any any"}, `rule "20 permit ip any any" (UDP 4791)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := intentFor(t, "nexus5000", "udp_port", "")
			if tt.want == "" {
				checkRefusal(t, cur(tt.rules...), in, "", "")
				return
			}
			checkRefusal(t, cur(tt.rules...), in, "a class whose IP ACL takes RoCE v2 packets", tt.want, "overlaps class voice of policy-map site-in")
		})
	}
}

// aclClassConfig is a configuration whose class voice (first in the type
// qos policy under system qos) matches access-list name of type typ with
// rules.
func aclClassConfig(typ, name string, rules ...string) string {
	return typ + " access-list " + name + "\n  " + strings.Join(rules, "\n  ") + "\n" +
		"class-map type qos match-all voice\n  match access-group name " + name + "\n" +
		"policy-map type qos site-in\n  class voice\n    set qos-group 2\n  class class-default\n" +
		"system qos\n  service-policy type qos input site-in\n"
}
