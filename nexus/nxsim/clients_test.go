package nxsim

import (
	"strings"
	"testing"
)

// The client commands and output filters, over a real SSH exec channel
// (the interop tests drive the same through netmiko and Ansible when
// those are installed).
func TestClientCommandsAndFilters(t *testing.T) {
	srv := startServer(t, Options{Platform: "nexus5000", Hostname: "leaf9", StartupConfig: "class-map type qos match-all c1\n  match cos 4\n" +
		"policy-map type qos p1\n  class c1\n    set qos-group 4\nsystem qos\n  service-policy type qos input p1\n" +
		"interface Ethernet1/3\n  mtu 9216\n  shutdown\n"})
	sw := srv.Switch()
	tests := []struct {
		line string
		want []string // substrings, in order
		not  string
	}{
		{"show version | include Device", []string{"  Device name: leaf9"}, "Processor"},
		{`show version | exclude "^ |^$|Cisco|TAC|Documents|Copyright|owned|other|Some|License|http"`, []string{"Software\nHardware\nKernel uptime is 0 day(s)", "\nLast reset at ", " usecs after  ", "\nplugin"}, "BIOS"},
		{"show version | begin ^Hardware | include Board", []string{"  Processor Board ID FOC17153X08"}, "BIOS"},
		{"show interface Ethernet1/3", []string{"Ethernet1/3 is down (Administratively down)", "MTU 9216 bytes"}, ""},
		{"show interface | count", []string{"1728"}, ""}, // 48 ports × 36 lines
		{"show running-config | section ^policy-map", []string{"policy-map type qos p1\n  class c1\n    set qos-group 4"}, "system qos"},
		{"show running-config | sec qos-group", []string{"    set qos-group 4"}, "class"},
		{"show class-map", []string{"  Type qos class-maps\n  ====================\n\n    class-map type qos match-all c1\n      match cos 4"}, ""},
		{"show policy-map system", []string{"  Type qos policy-maps\n  =====================\n\n  policy-map type qos p1\n    class type qos c1\n      set qos-group 4"}, ""},
		{"show policy-map type queuing", nil, "policy-map"},
		{"show policy-map nope", []string{"ERROR: policy-map nope not found"}, ""},
		{"show inventory", []string{`NAME: "Chassis",  DESCR: "Nexus5596 Chassis"`, "PID: N5K-C5596UP         ,  VID: V01 ,  SN: FOC17153X08"}, ""},
		{"show license host-id", []string{"License hostid: VDH=FOC17153X08"}, ""},
		{"show ver | frobnicate", []string{"\n% Invalid command at '^' marker."}, ""},
		{"show ?", []string{"  class-map\n", "  inventory\n", "  version"}, "<CR>"},
		{"show inv?", []string{"  inventory"}, "version"},
		{"show inventory ?", []string{"  <CR>"}, ""},
		{"show bogus ?", []string{"^\n% Invalid command"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			s := &session{sw: sw}
			out, err := s.execFiltered(tt.line, 0)
			if err != nil {
				t.Fatal(err)
			}
			rest := out
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
			if strings.Contains(tt.line, "frobnicate") && !strings.HasPrefix(out, strings.Repeat(" ", 11)+"^\n") {
				t.Fatalf("caret not under the filter word:\n%s", out)
			}
			if tt.not != "" && strings.Contains(out, tt.not) {
				t.Fatalf("output has %q:\n%s", tt.not, out)
			}
		})
	}
}
