package nxsim

import (
	"encoding/json"
	"strings"
	"testing"
)

// `show interface` prints "Port mode is routed" for a Layer 3 port, as a
// real capture does (nexus/testdata/corpus/show/ntc-interface-01.txt), and
// its `| json` form has "eth_mode": "routed" (the NX-OSv 7.3(1)D1(1)
// capture, testdata/json): a `no switchport` port, and a 7000 port without
// a switchport line unless the configuration has `system default
// switchport`. A Layer 2 port prints its `switchport mode`, else access.
func TestShowInterfacePortMode(t *testing.T) {
	tests := []struct {
		name, platform, version, startup string
		want                             string
	}{
		{name: "5000 default is access", platform: "nexus5000", version: "7.3(0)N1(1)", want: "access"},
		{name: "5000 switchport mode trunk", platform: "nexus5000", version: "7.3(0)N1(1)",
			startup: "interface Ethernet1/9\n  switchport mode trunk\n", want: "trunk"},
		{name: "5000 no switchport is routed", platform: "nexus5000", version: "7.3(0)N1(1)",
			startup: "interface Ethernet1/9\n  no switchport\n", want: "routed"},
		{name: "7000 default is Layer 3", platform: "nexus7000", version: "7.3(1)D1(1)", want: "routed"},
		{name: "7000 system default switchport is access", platform: "nexus7000", version: "7.3(1)D1(1)",
			startup: "system default switchport\n", want: "access"},
		{name: "7000 switchport line with trunk mode", platform: "nexus7000", version: "7.3(1)D1(1)",
			startup: "interface Ethernet1/9\n  switchport\n  switchport mode trunk\n", want: "trunk"},
		{name: "7000 no switchport under the Layer 2 default", platform: "nexus7000", version: "7.3(1)D1(1)",
			startup: "system default switchport\ninterface Ethernet1/9\n  no switchport\n", want: "routed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sw := newTestSwitch(t, Options{Platform: tt.platform, Version: tt.version, StartupConfig: tt.startup})
			s := &session{sw: sw}
			text, err := s.execFiltered("show interface Ethernet1/9 | include Port.mode", 0)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := strings.TrimSpace(text), "Port mode is "+tt.want; got != want {
				t.Errorf("show interface: %q, want %q", got, want)
			}
			js, err := s.execFiltered("show interface Ethernet1/9 | json", 0)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Table struct {
					Row struct {
						Mode string `json:"eth_mode"`
					} `json:"ROW_interface"`
				} `json:"TABLE_interface"`
			}
			if err := json.Unmarshal([]byte(js), &got); err != nil {
				t.Fatalf("| json: %v\n%s", err, js)
			}
			if got.Table.Row.Mode != tt.want {
				t.Errorf("| json eth_mode %q, want %q", got.Table.Row.Mode, tt.want)
			}
		})
	}
}
