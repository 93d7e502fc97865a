package nexus

import "testing"

// A port's mode: its own line decides, else the platform's default (a
// 7000's Layer 3 unless `system default switchport`).
func TestRouted(t *testing.T) {
	for _, tc := range []struct {
		name, kind, cfg string
		want            bool
	}{
		{"7000 no line, L3 default", "nexus7000", "interface Ethernet2/1\n  description x\n", true},
		{"7000 no line, system default switchport", "nexus7000", "system default switchport\ninterface Ethernet2/1\n  description x\n", false},
		{"7000 shutdown default is not the port mode", "nexus7000", "system default switchport shutdown\ninterface Ethernet2/1\n  description x\n", true},
		{"7000 switchport line", "nexus7000", "interface Ethernet2/1\n  switchport\n", false},
		{"7000 no switchport under the L2 default", "nexus7000", "system default switchport\ninterface Ethernet2/1\n  no switchport\n", true},
		{"7000 port not in the config, L2 default", "nexus7000", "system default switchport\n", false},
		{"7000 port not in the config, L3 default", "nexus7000", "hostname x\n", true},
		{"5000 no line", "nexus5000", "interface Ethernet2/1\n  description x\n", false},
		{"5000 no switchport", "nexus5000", "interface Ethernet2/1\n  no switchport\n", true},
	} {
		c, err := Parse(tc.cfg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := c.Routed(testPlatform(t, tc.kind), "Ethernet2/1"); got != tc.want {
			t.Errorf("%s: Routed = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The global lines a provider reads apart: the last jumbomtu line at the
// top level, and the default port mode (not its shutdown variant).
func TestSystemLines(t *testing.T) {
	for _, tc := range []struct {
		text, jumbo string
		l2          bool
	}{
		{"system jumbomtu 9216\r\nsystem default switchport\r\n", "system jumbomtu 9216", true},
		{"system jumbomtu 8000\nsystem jumbomtu 9000\n", "system jumbomtu 9000", false},
		{"system default switchport shutdown\n  system jumbomtu 1\n", "", false},
		{"system qos\n", "", false},
	} {
		j, l2 := SystemLines(tc.text)
		if j != tc.jumbo || l2 != tc.l2 {
			t.Errorf("SystemLines(%q) = %q, %v; want %q, %v", tc.text, j, l2, tc.jumbo, tc.l2)
		}
	}
}
