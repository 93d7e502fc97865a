package nexus

import (
	"strings"
	"testing"
)

// A hand-written header that abbreviates or capitalises a keyword is
// reported with its line and the full keyword, not kept as an unmodelled
// line the overlap checks cannot see; its block is not reported again.
func TestParseAbbreviatedHeaders(t *testing.T) {
	tests := []struct{ text, full string }{
		{"int e1/1\n  priority-flow-control mode on\n", `"interface"`},
		{"inter Ethernet1/1\n", `"interface"`},
		{"INTERFACE Ethernet1/1\n", `"interface"`},
		{"class-m type qos ROCE\n  match cos 3\n", `"class-map"`},
		{"CLASS-MAP type qos ROCE\n  match cos 3\n", `"class-map"`},
		{"class-map TYPE qos ROCE\n", `"class-map type qos"`},
		{"class-map type NETWORK-QOS ROCE\n", `"class-map type network-qos"`},
		{"policy-m type queuing Q\n  class type queuing c\n", `"policy-map"`},
		{"Policy-Map type qos P\n", `"policy-map"`},
		{"sys qos\n  service-policy type qos input P\n", `"system qos"`},
		{"system q\n", `"system qos"`},
		{"ip access-l roce\n  10 permit udp any any eq 4791\n", `"ip access-list"`},
		{"MAC ACCESS-LIST roce\n", `"mac access-list"`},
	}
	for _, tt := range tests {
		t.Run(strings.SplitN(tt.text, "\n", 2)[0], func(t *testing.T) {
			_, err := Parse("feature lldp\n" + tt.text)
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if strings.Count(msg, "\n") != 0 || !strings.HasPrefix(msg, "line 2: ") || !strings.Contains(msg, "write the full keyword "+tt.full) {
				t.Fatalf("err %q, want one error at line 2 naming %s", msg, tt.full)
			}
		})
	}
	// What the switch prints, and commands that only look alike, are read
	// as before.
	for _, ok := range []string{
		"interface Ethernet1/1\n  description int e1/1\n",
		"system jumbomtu 9216\nsystem default switchport\n",
		"ip access-list roce\n  10 permit udp any any\nip access-group in\n",
		"feature interface-vlan\ninstall all\n",
		"class-map type control-plane match-any copp\n",
	} {
		if _, err := Parse(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}

// In a flat file a global PIM command after an interface is a global one
// (the interface mode does not have it, so the switch falls back to the
// global mode); the interface's own PIM commands stay in the interface.
func TestParseFlatGlobalPIMClosesInterface(t *testing.T) {
	text := "interface Ethernet1/1\nmtu 9216\nip pim sparse-mode\nip pim rp-address 10.0.0.1 group-list 224.0.0.0/4\n" +
		"interface Ethernet1/2\nip pim dr-priority 5\nip pim ssm range 232.0.0.0/8\n"
	c, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	want := "interface Ethernet1/1\n  mtu 9216\n  ip pim sparse-mode\n" +
		"ip pim rp-address 10.0.0.1 group-list 224.0.0.0/4\n" +
		"interface Ethernet1/2\n  ip pim dr-priority 5\n" +
		"ip pim ssm range 232.0.0.0/8\n"
	if c.String() != want {
		t.Fatalf("read as\n%s\nwant\n%s", c.String(), want)
	}
}
