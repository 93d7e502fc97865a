package nexus

import (
	"fmt"
	"strings"
	"testing"
)

// Which foreign type qos policies reach a managed port of a Nexus 7000,
// by the 7000 QoS guide's rules (docs/nxos.md#interface-policies): a
// member of a port-channel takes the port-channel's policy, not its own;
// a VLAN's policy reaches the ports that carry the VLAN and have no
// policy of their own for that direction. The policy here feeds EF (DSCP
// 46) into the no-drop CoS 4, so it is refused wherever it applies; the
// harmless one re-marks CoS 2 only (one matching a DSCP would re-mark
// RoCE packets carrying it, overlap_dscp_unset_test.go).
func TestOverlapPolicyReach7000(t *testing.T) {
	const feeder = "class-map type qos match-any voice\n  match dscp 46\npolicy-map type qos feed\n  class voice\n    set cos 4\n" +
		"class-map type qos match-any other\n  match cos 2\npolicy-map type qos harmless\n  class other\n    set cos 1\n"
	port := func(lines ...string) string {
		return "interface Ethernet2/1\n  " + strings.Join(lines, "\n  ") + "\n"
	}
	vlanPolicy := "vlan configuration 100\n  service-policy type qos input feed\n"
	tests := []struct {
		name, cur string
		want      string // "" = accepted
	}{
		{"member's own policy does not take effect", port("switchport", "channel-group 7 mode active", "service-policy type qos input feed") + "interface port-channel7\n  switchport\n", ""},
		{"the port-channel's policy does", port("switchport", "channel-group 7 mode active") + "interface port-channel7\n  service-policy type qos input feed\n",
			"on port-channel7, which applies to managed port Ethernet2/1 (a member of port-channel7)"},
		{"VLAN policy, trunk carrying it", vlanPolicy + port("switchport", "switchport mode trunk", "switchport trunk allowed vlan 10,100-110"),
			"on vlan configuration 100, which applies to managed port Ethernet2/1 (it carries VLAN 100)"},
		{"VLAN policy, trunk with every VLAN", vlanPolicy + port("switchport", "switchport mode trunk"), "(it carries VLAN 100)"},
		{"VLAN policy, VLAN added to the trunk", vlanPolicy + port("switchport", "switchport mode trunk", "switchport trunk allowed vlan 10", "switchport trunk allowed vlan add 100"), "(it carries VLAN 100)"},
		{"VLAN policy, access port in it", vlanPolicy + port("switchport", "switchport access vlan 100"), "(it carries VLAN 100)"},
		{"VLAN policy, range of VLANs", "vlan configuration 50-150\n  service-policy type qos input feed\n" + port("switchport", "switchport access vlan 100"), "(it carries VLAN 100)"},
		{"VLAN policy, trunk without it", vlanPolicy + port("switchport", "switchport mode trunk", "switchport trunk allowed vlan 200"), ""},
		{"VLAN policy, access port elsewhere", vlanPolicy + port("switchport", "switchport access vlan 200"), ""},
		{"VLAN policy, routed port", vlanPolicy + port("no switchport", "mtu 9216"), ""},
		{"VLAN policy, port with its own", vlanPolicy + port("switchport", "switchport access vlan 100", "service-policy type qos input harmless"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := intentFor(t, "nexus7000", "cos", "")
			in.Interfaces = []string{"Ethernet2/1"}
			if tt.want == "" {
				checkRefusal(t, feeder+tt.cur, in, "", "")
				return
			}
			checkRefusal(t, feeder+tt.cur, in, "a policy that reaches a managed port", tt.want, "class voice of policy-map feed", "sets CoS 4 (set cos 4)", "remove `set cos 4` from class voice of policy-map feed")
		})
	}
	// A Nexus 5000 counts a member's own policy too (no source says it
	// does not take effect there): refused.
	in := intentFor(t, "nexus5000", "cos", "")
	in.Interfaces = []string{"Ethernet1/1"}
	checkRefusal(t, "policy-map type qos own\n  class class-default\n    set qos-group 0\ninterface Ethernet1/1\n  channel-group 7\n  service-policy type qos input own\n", in,
		"a 5000 member port's own policy", "managed port Ethernet1/1 has its own type qos input policy own")
}

// portVLANs reads the VLANs a port carries from its switchport lines.
func TestPortVLANs(t *testing.T) {
	tests := []struct {
		lines []string
		want  string
	}{
		{nil, "[[1 1]]"},
		{[]string{"switchport"}, "[[1 1]]"},
		{[]string{"switchport", "switchport access vlan 30"}, "[[30 30]]"},
		{[]string{"switchport mode trunk"}, "[[1 4094]]"},
		{[]string{"switchport mode trunk", "switchport trunk allowed vlan 1,5-7"}, "[[1 1] [5 7]]"},
		{[]string{"switchport mode trunk", "switchport trunk allowed vlan 5", "switchport trunk allowed vlan add 9"}, "[[5 5] [9 9]]"},
		{[]string{"switchport mode trunk", "switchport trunk allowed vlan none"}, "[]"},
		{[]string{"switchport mode trunk", "switchport trunk allowed vlan except 5"}, "[[1 4094]]"},
		{[]string{"no switchport"}, "[]"},
	}
	for _, tt := range tests {
		o := &Object{Kind: KindInterface, Name: "Ethernet2/1", Lines: tt.lines}
		if got := fmt.Sprint(portVLANs(o)); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.lines, got, tt.want)
		}
	}
}
