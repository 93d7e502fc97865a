package nxsim

import (
	"strings"
	"testing"
)

// The 7000 personality's Layer 2 port MTU (docs/nxos.md#port-mtu, after
// the MadNetworks blog "MTU–Nexus 7000"): `show interface` prints 1500 on
// a port without an mtu line; `mtu N` on an L2 port takes only 1500 or the
// system jumbomtu (9216 unless the configuration has `system jumbomtu N`),
// anything else is refused with the switch's line naming the port and
// changes nothing; a routed port takes other values; `show running-config`
// echoes the line under the interface; the 5000 is unchanged.
func TestPortMTU7000(t *testing.T) {
	// A 7000's ports are Layer 3 unless the configuration says
	// `system default switchport` (nexus.Config.Routed).
	const l2Default = "system default switchport\n"
	const refused = "ERROR: Ethernet1/9: MTU on L2 interfaces can only be set to default or system-jumboMTU"
	tests := []struct {
		name, platform, startup string
		lines                   []string
		want, absent            []string // on the screen
		mtu                     string   // the MTU show interface prints for Ethernet1/9 at the end
	}{
		{name: "default 1500, blog's 8000 refused, jumbomtu 9216 taken", platform: "nexus7000", startup: l2Default,
			lines:  []string{"show interface ethernet1/9", "configure terminal", "int e1/9", "mtu 8000", "mtu 9216", "end", "show running-config interface ethernet1/9"},
			want:   []string{"MTU 1500 bytes", "(config-if)# mtu 8000\n" + refused + "\n", "interface Ethernet1/9\n  mtu 9216\n"},
			absent: []string{"(config-if)# mtu 9216\nERROR"}, mtu: "9216"},
		{name: "refusal changes nothing", platform: "nexus7000", startup: l2Default,
			lines: []string{"configure terminal", "interface Ethernet1/9", "mtu 8000", "end"},
			want:  []string{refused}, mtu: "1500"},
		{name: "lowered system jumbomtu is the only jumbo value", platform: "nexus7000", startup: "system jumbomtu 8000\ninterface Ethernet1/9\n  switchport\n",
			lines: []string{"configure terminal", "interface Ethernet1/9", "mtu 9216", "mtu 8000", "end"},
			want:  []string{"(config-if)# mtu 9216\n" + refused + "\n"}, mtu: "8000"},
		{name: "the port followed across interface lines", platform: "nexus7000", startup: l2Default,
			lines: []string{"configure terminal", "interface Ethernet1/8", "interface Ethernet1/9", "mtu 4000", "end"},
			want:  []string{refused}, mtu: "1500"},
		{name: "routed port takes any MTU", platform: "nexus7000", startup: "interface Ethernet1/9\n  no switchport\n",
			lines:  []string{"configure terminal", "interface Ethernet1/9", "mtu 8000", "end"},
			absent: []string{"ERROR"}, mtu: "8000"},
		{name: "a port without a switchport line is routed under the Layer 3 default", platform: "nexus7000", startup: "hostname sw1\n",
			lines:  []string{"configure terminal", "interface Ethernet1/9", "mtu 8000", "end"},
			absent: []string{"ERROR"}, mtu: "8000"},
		{name: "5000 unchanged", platform: "nexus5000",
			lines:  []string{"configure terminal", "interface Ethernet1/9", "mtu 8000", "end"},
			absent: []string{"ERROR"}, mtu: "8000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sw := newTestSwitch(t, Options{Platform: tt.platform, StartupConfig: tt.startup})
			screen := runScript(t, sw, append(tt.lines, "show interface ethernet1/9"))
			for _, w := range tt.want {
				if !strings.Contains(screen, w) {
					t.Errorf("screen lacks %q:\n%s", w, screen)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(screen, a) {
					t.Errorf("screen has %q:\n%s", a, screen)
				}
			}
			last := screen[strings.LastIndex(screen, "show interface ethernet1/9"):]
			if !strings.Contains(last, "MTU "+tt.mtu+" bytes") {
				t.Errorf("show interface at the end, want MTU %s:\n%s", tt.mtu, last)
			}
		})
	}
}
