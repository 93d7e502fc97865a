package nexus

import (
	"errors"
	"strings"
	"testing"
)

// Check refuses what the switch would refuse when it loads the file, naming
// each line; it accepts what the switch accepts, in any layout.
func TestCheck(t *testing.T) {
	good := "ip access-list roce-acl\n  10 permit udp any any eq 4791\n" +
		"class-map type qos match-all roce\n  match access-group name roce-acl\n" +
		"policy-map type qos roce-in\n  class roce\n    set qos-group 3\n  class class-default\n" +
		"class-map type network-qos roce-nq\n  match qos-group 3\n" +
		"policy-map type network-qos roce-nq-pol\n  class type network-qos roce-nq\n    pause no-drop\n    mtu 9216\n" +
		"system qos\n  service-policy type qos input roce-in\n  service-policy type network-qos roce-nq-pol\n" +
		"interface Ethernet1/1\n  switchport mode trunk\n  priority-flow-control mode on\n"
	tests := []struct {
		name, kind, text string
		lines            []int // the lines reported, in order
		want             string
	}{
		{"accepted as is", "nexus5000", good, nil, ""},
		{"accepted flat", "nexus5000", flat(good), nil, ""},
		{"cos out of range", "nexus5000", "class-map type qos match-all c\n  match cos 8\n", []int{2}, "Invalid command"},
		{"mtu out of range", "nexus5000", strings.Replace(good, "mtu 9216", "mtu 10000", 1), []int{14}, "Invalid"},
		{"undefined class-map", "nexus5000", strings.Replace(good, "  class roce\n", "  class roce-typo\n", 1), []int{6, 7}, "class-map roce-typo of type qos does not exist"},
		{"undefined policy-map", "nexus5000", strings.Replace(good, "input roce-in\n", "input roce-inn\n", 1), []int{16}, "policy-map roce-inn of type qos does not exist"},
		{"undefined access-list", "nexus5000", strings.Replace(good, "name roce-acl", "name nope", 1), []int{4}, "access-list nope does not exist"},
		{"bad pfc mode", "nexus5000", strings.Replace(good, "mode on\n", "mode maybe\n", 1), []int{20}, "Invalid"},
		{"network-qos class-map on a 7000", "nexus7000", "class-map type network-qos x\n  match qos-group 3\n", []int{1}, "system-defined"},
		{"pfc on an M-series port", "nexus7000", "interface Ethernet2/1\n  priority-flow-control mode on\n", []int{2}, "M-series"},
		{"lines of other features not judged", "nexus5000", "feature lldp\nvlan 10\n  name x\nrouter bgp 65000\n  neighbor 10.0.0.1\n    remote-as 1\n" +
			"interface Ethernet1/2\n  channel-group 10 mode active\n  ip address 10.0.0.1/24\n", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPlatform(t, tt.kind)
			mods := []Module{{Slot: 1, Ports: 48, Model: "N7K-F248XP-25", Series: "F"}, {Slot: 2, Ports: 48, Model: "N7K-M148GT-11", Series: "M"}}
			c, err := Check(tt.text, p, mods)
			if c == nil {
				t.Fatalf("Check returned no config: %v", err)
			}
			var got []int
			for _, e := range unjoin(err) {
				var le *LineError
				if !errors.As(e, &le) {
					t.Fatalf("error without a line: %v", e)
				}
				got = append(got, le.Line)
			}
			if len(tt.lines) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if len(got) < 1 || got[0] != tt.lines[0] || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("lines %v, error %v; want lines %v and %q", got, err, tt.lines, tt.want)
			}
		})
	}
}

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func flat(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString(strings.TrimSpace(l) + "\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
