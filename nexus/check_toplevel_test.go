package nexus

import (
	"slices"
	"strings"
	"testing"
)

// A QoS sub-mode command fallen out of its block (issue #15) is refused
// at the top level, with its line number, in the same one round as the
// other refusals; a command the top level has, and one roce has no
// grammar for, is kept.
func TestCheckTopLevelSubModeCommands(t *testing.T) {
	tests := []struct {
		name, kind string
		text       string
		refused    []int
		why        string // in the first refusal's message
	}{
		// the file: every line but `feature lacp` refused, in one round
		{"issue 15", "nexus5000", "feature lacp\nmatch cos 3\nset qos-group 2\nservice-policy type qos input X\npause no-drop\n", []int{2, 3, 4, 5}, "match is a command of a class-map, not of the top level"},
		{"match", "nexus5000", "match cos 3\n", []int{1}, "Invalid command at '^' marker. (at column 1)"},
		{"match dscp out of range", "nexus5000", "match dscp 99\n", []int{1}, "class-map"},
		{"no match", "nexus5000", "no match cos 3\n", []int{1}, "(at column 4): match is a command of a class-map"},
		{"set", "nexus5000", "set cos 3\n", []int{1}, "a policy-map's class"},
		{"class", "nexus5000", "class type network-qos c-nq3\n", []int{1}, "class is a command of a policy-map, not of the top level (where it could only abbreviate class-map"},
		{"no class", "nexus5000", "no class c1\n", []int{1}, "a policy-map"},
		{"class 7000", "nexus7000", "class c-nq1\n", []int{1}, "a policy-map"},
		{"pause", "nexus7000", "pause no-drop pfc-cos 3\n", []int{1}, "a policy-map's class"},
		{"bandwidth", "nexus5000", "bandwidth percent 50\n", []int{1}, "a policy-map's class"},
		{"bandwidth without percent", "nexus5000", "bandwidth 50\n", []int{1}, "a policy-map's class"},
		{"priority", "nexus5000", "priority\n", []int{1}, "a policy-map's class"},
		{"congestion-control", "nexus5000", "congestion-control tail-drop\n", []int{1}, "a policy-map's class"},
		{"queue-limit", "nexus5000", "queue-limit 100000 bytes\n", []int{1}, "a policy-map's class"},
		{"mtu", "nexus5000", "mtu 9216\n", []int{1}, "a policy-map's class or an interface"},
		{"mtu 7000", "nexus7000", "mtu 9216\n", []int{1}, "a policy-map's class"},
		{"service-policy", "nexus7000", "service-policy type queuing output default-4q-8e-out-policy\n", []int{1}, "system qos or an interface"},
		{"priority-flow-control mode", "nexus5000", "priority-flow-control mode on\n", []int{1}, "an interface"},
		{"priority-flow-control bad mode", "nexus5000", "priority-flow-control mode sometimes\n", []int{1}, "an interface"},
		{"after a block", "nexus5000", "class-map type qos match-all c1\n  match cos 3\nset qos-group 2\n", []int{3}, "a policy-map's class"},
		{"with Parse's refusals", "nexus5000", "match cos 3\nhostname {{ name }}\n", []int{1, 2}, "class-map"},
		// kept: the top level has them, or roce has no grammar for them
		{"in their blocks", "nexus5000", "class-map type qos match-all c1\n  match cos 3\npolicy-map type qos p1\n  class c1\n    set qos-group 2\nsystem qos\n  service-policy type qos input p1\n", nil, ""},
		{"flat file", "nexus5000", "class-map type qos match-all c1\nmatch cos 3\npolicy-map type qos p1\nclass c1\nset qos-group 2\nsystem qos\nservice-policy type qos input p1\n", nil, ""},
		{"system jumbomtu", "nexus7000", "system jumbomtu 9216\n", nil, ""},
		{"class-map and policy-map", "nexus5000", "class-map type qos match-all c1\npolicy-map type qos p1\n", nil, ""},
		{"global pfc watchdog", "nexus5000", "priority-flow-control watch-dog-interval on\n", nil, ""},
		{"police (no grammar)", "nexus7000", "police cir 1 gbps\n", nil, ""},
		{"description", "nexus5000", "description x\n", nil, ""},
		{"unknown command", "nexus5000", "feature lacp\nfoo bar baz\nsettle down\n", nil, ""},
		{"abbreviation", "nexus5000", "mat cos 3\n", nil, ""},
		{"inside an unmodelled block", "nexus5000", "router bgp 1\n  set community 1\n", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := refusedLines(t, tc.text, tc.kind, nil)
			if !slices.Equal(got, tc.refused) {
				t.Fatalf("refused lines %v, want %v; error:\n%v", got, tc.refused, err)
			}
			if tc.why != "" && !strings.Contains(err.Error(), tc.why) {
				t.Errorf("error does not say %q:\n%v", tc.why, err)
			}
		})
	}
}

// The refusal is a *LineError with the line as written.
func TestCheckTopLevelLineError(t *testing.T) {
	_, err := Check("feature lacp\n  \npause no-drop\n", testPlatform(t, "nexus5000"), nil)
	errs := unjoin(err)
	if len(errs) != 1 {
		t.Fatalf("want one refusal, got %v", err)
	}
	le, ok := errs[0].(*LineError)
	if !ok || le.Line != 3 || le.Text != "pause no-drop" {
		t.Fatalf("got %#v, want a *LineError for line 3 %q", errs[0], "pause no-drop")
	}
}

// The numbers of an ip access-list rule no NX-OS rule takes are refused,
// at their column; names and the other forms of a rule are kept.
func TestCheckACLRuleNumbers(t *testing.T) {
	acl := "ip access-list RDMA\n"
	tests := []struct {
		name, rule string
		refused    bool
		why        string
	}{
		{"port eq in range", "  10 permit udp any any eq 4791", false, ""},
		{"port eq 99999", "  10 permit udp any any eq 99999", true, "(at column 26): a port is 0-65535, not 99999"},
		{"source port gt too big", "  10 permit tcp any gt 70000 any", true, "a port is 0-65535, not 70000"},
		{"range second port too big", "  10 permit udp any any range 4791 65536", true, "not 65536"},
		{"range in range", "  10 permit udp any any range 4791 4792", false, ""},
		{"port name", "  10 permit tcp any any eq www", false, ""},
		{"no sequence number", "  permit udp 10.0.0.0/8 lt 100000 any", true, "not 100000"},
		{"dscp 46", "  10 permit ip any any dscp 46", false, ""},
		{"dscp 64", "  10 permit ip any any dscp 64", true, "a DSCP value is 0-63, not 64"},
		{"dscp name", "  10 permit ip any any dscp ef", false, ""},
		{"packet-length is no port", "  10 permit ip any any packet-length gt 70000", false, ""},
		{"remark", "  10 remark eq 99999", false, ""},
		{"no rule", "  no 10 permit udp any any eq 99999", false, ""},
		{"overflow", "  10 permit udp any any eq 99999999999999999999", true, "a port is 0-65535"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := refusedLines(t, acl+tc.rule+"\n", "nexus5000", nil)
			want := []int(nil)
			if tc.refused {
				want = []int{2}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("refused lines %v, want %v; error:\n%v", got, want, err)
			}
			if tc.why != "" && !strings.Contains(err.Error(), tc.why) {
				t.Errorf("error does not say %q:\n%v", tc.why, err)
			}
		})
	}
	// a mac access-list has no ports; the numbers of another ACL kind are not judged
	if got, err := refusedLines(t, "mac access-list M\n  10 permit any any 0x8915\nipv6 access-list V\n  10 permit udp any any eq 99999\n", "nexus5000", nil); got != nil {
		t.Errorf("refused %v: %v", got, err)
	}
}
