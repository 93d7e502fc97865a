package nxsim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nexus"
)

const policyMapStartup = "class-map type qos match-all roce\n  match cos 4\n" +
	"class-map type queuing q4\n  match qos-group 4\n" +
	"class-map type network-qos nq4\n  match qos-group 4\n" +
	"policy-map type qos roce-in\n  class roce\n    set qos-group 4\n" +
	"policy-map type queuing roce-out\n  class type queuing q4\n    bandwidth percent 40\n    priority\n" +
	"  class type queuing class-default\n    bandwidth percent 60\n" +
	"policy-map type network-qos roce-nq\n  class type network-qos nq4\n    pause no-drop\n    mtu 9216\n" +
	"system qos\n  service-policy type queuing output roce-out\n  service-policy type network-qos roce-nq\n" +
	"interface Ethernet1/3\n  service-policy type qos input roce-in\n"

// One parser, two sources: the Cisco guide's capture and what the
// simulator prints for `show policy-map interface` read to the values a
// person reads from them.
func TestShowPolicyMapInterfaceParsesLikeReal(t *testing.T) {
	sw, err := New(Options{Platform: "nexus5000", Hostname: "leaf1", StartupConfig: policyMapStartup})
	if err != nil {
		t.Fatal(err)
	}
	sim := func(line string) func(t *testing.T) string {
		return func(t *testing.T) string {
			s := &session{sw: sw}
			out, err := s.execFiltered(line, 0)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
	}
	real := func(t *testing.T) string {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "policymap", "n9k-ude-eth1-6-output-qos.txt"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	type class struct {
		policy, typ, dir, name, match string
		prio                          bool
		bw                            int
		dropped                       int64 // -1: no "queue dropped pkts" line
		packets                       int64 // -1: no packet counter
		lines                         string
	}
	tests := []struct {
		name  string
		text  func(t *testing.T) string
		iface string
		want  []class
	}{
		{"cisco-n9k-ude", real, "Ethernet1/6", []class{
			{"default-ndb-out-policy", "qos", "output", "class-ndb-default", "match-any", false, -1, -1, 61211339, "police cir 0 bps"},
		}},
		{"nxsim-port-policy-and-system", sim("show policy-map interface ethernet 1/3"), "Ethernet1/3", []class{
			{"roce-in", "qos", "input", "roce", "match-all", false, -1, -1, -1, "set qos-group 4"},
			{"roce-out", "queuing", "output", "q4", "match-any", true, 40, 0, -1, ""},
			{"roce-out", "queuing", "output", "class-default", "match-any", false, 60, 0, -1, ""},
			{"roce-nq", "network-qos", "", "nq4", "match-any", false, -1, -1, -1, "pause no-drop"},
		}},
		{"nxsim-type-and-direction", sim("show policy-map interface Eth1/1 output type queuing"), "Ethernet1/1", []class{
			{"roce-out", "queuing", "output", "q4", "match-any", true, 40, 0, -1, ""},
			{"roce-out", "queuing", "output", "class-default", "match-any", false, 60, 0, -1, ""},
		}},
		{"nxsim-no-port-qos-policy", sim("show policy-map interface Ethernet1/1 type qos"), "Ethernet1/1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := tt.text(t)
			ifs, err := nexus.ParseShowPolicyMapInterface(text)
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			if len(ifs) != 1 || ifs[0].Interface != tt.iface {
				t.Fatalf("interfaces %+v, want only %s", ifs, tt.iface)
			}
			var got []class
			for _, p := range ifs[0].Policies {
				for _, c := range p.Classes {
					k := class{p.Name, p.Type, p.Direction, c.Name, c.Match, c.Priority, c.BandwidthPercent, -1, -1, ""}
					if n, ok := c.Counter("queue dropped pkts"); ok {
						k.dropped = int64(n)
					}
					if c.HasPackets {
						k.packets = int64(c.Packets)
					}
					for _, l := range c.Lines {
						if strings.HasPrefix(l, "set ") || strings.HasPrefix(l, "police ") || strings.HasPrefix(l, "pause ") {
							k.lines = l
						}
					}
					got = append(got, k)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("classes\n%+v\nwant\n%+v\n%s", got, tt.want, text)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("class %d: %+v\nwant     %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// Errors the CLI gives for the command.
func TestShowPolicyMapInterfaceErrors(t *testing.T) {
	sw, err := New(Options{Platform: "nexus5000", Hostname: "leaf1", StartupConfig: policyMapStartup})
	if err != nil {
		t.Fatal(err)
	}
	s := &session{sw: sw}
	for line, want := range map[string]string{
		"show policy-map interface Ethernet1/3 type bogus": `ERROR: type "bogus": want qos, queuing or network-qos`,
		"show policy-map interface frob1/x":                `ERROR: "frob1/x" is not an interface name`,
		"show policy-map ?":                                "  interface\n",
	} {
		out, err := s.execFiltered(line, 0)
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("%s: %q, %v; want %q", line, out, err, want)
		}
	}
}
