package nexus

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// modules5596 is a Nexus 5596 with its fixed 48 ports only (nxsim's
// default 5000).
var modules5596 = []Module{{Slot: 1, Ports: 48, Type: "O2 48X10GE/Modular Supervisor", Model: "N5K-C5596UP-SUP", Status: "active *"}}

// refusedLines runs Check and returns the line numbers it refuses, in the
// order the error gives them, and the error.
func refusedLines(t *testing.T, text, kind string, modules []Module) ([]int, error) {
	t.Helper()
	_, err := Check(text, testPlatform(t, kind), modules)
	var got []int
	for _, e := range unjoin(err) {
		got = append(got, errLine(e))
	}
	return got, err
}

// Each rule Check judges beyond the QoS grammar (check_lines.go), on the
// platform it is for: the lines refused, and a word of the reason.
func TestCheckLineRules(t *testing.T) {
	l2 := "system default switchport\n" // a 7000 port without a switchport line is then Layer 2
	tests := []struct {
		name, kind string
		modules    []Module
		text       string
		refused    []int
		why        string // in the first refusal's message
	}{
		// interface mtu on a Nexus 7000 Layer 2 port: 1500 or the jumbomtu
		{"7000 L2 mtu 9216", "nexus7000", nil, l2 + "interface Ethernet2/1\n  mtu 9216\n", nil, ""},
		{"7000 L2 mtu 1500", "nexus7000", nil, "interface Ethernet2/1\n  switchport\n  mtu 1500\n", nil, ""},
		{"7000 L2 mtu 8000", "nexus7000", nil, l2 + "interface Ethernet2/1\n  mtu 8000\n", []int{3}, "1500, the default, or the system jumbomtu, here 9216"},
		{"7000 L2 mtu 99999", "nexus7000", nil, l2 + "interface Ethernet2/1\n  mtu 99999\n", []int{3}, "outside 1500-9216"},
		{"7000 L2 mtu 4000", "nexus7000", nil, l2 + "interface Ethernet2/1\n  mtu 4000\n", []int{3}, "MTU on L2 interfaces can only be set to default or system-jumboMTU"},
		{"7000 L2 mtu not a number", "nexus7000", nil, l2 + "interface Ethernet2/1\n  mtu jumbo\n", []int{3}, "mtu takes a number"},
		{"7000 L2 mtu at a lowered jumbomtu", "nexus7000", nil, "system jumbomtu 9000\n" + l2 + "interface Ethernet2/1\n  mtu 9000\n", nil, ""},
		{"7000 L2 mtu above a lowered jumbomtu", "nexus7000", nil, "system jumbomtu 9000\n" + l2 + "interface Ethernet2/1\n  mtu 9216\n", []int{4}, "here 9000"},
		{"7000 L2 mtu with two values", "nexus7000", nil, l2 + "interface Ethernet2/1\n  mtu 9216 9216\n", []int{3}, "one number"},
		{"7000 port-channel L2 mtu 8000", "nexus7000", nil, l2 + "interface port-channel10\n  mtu 8000\n", []int{3}, "L2 interfaces"},
		{"no mtu", "nexus7000", nil, l2 + "interface Ethernet2/1\n  no mtu\n", nil, ""},
		// the port's mode at the line decides
		{"7000 mtu before switchport", "nexus7000", nil, "interface Ethernet2/1\n  mtu 4000\n  switchport\n", nil, ""},
		{"7000 mtu after switchport", "nexus7000", nil, "interface Ethernet2/1\n  switchport\n  mtu 4000\n", []int{3}, "L2 interfaces"},
		// routed ports (a 7000's default mode; no switchport)
		{"7000 routed mtu 576", "nexus7000", nil, "interface Ethernet2/1\n  mtu 576\n", nil, ""},
		{"7000 routed mtu 9216", "nexus7000", nil, "interface Ethernet2/1\n  no switchport\n  mtu 9216\n", nil, ""},
		{"7000 routed mtu 575", "nexus7000", nil, "interface Ethernet2/1\n  mtu 575\n", []int{2}, "routed port takes 576-9216"},
		{"7000 routed mtu 99999", "nexus7000", nil, "interface Ethernet2/1\n  mtu 99999\n", []int{2}, "routed port takes 576-9216"},
		{"5000 routed mtu 99999", "nexus5000", nil, "interface Ethernet1/1\n  no switchport\n  mtu 99999\n", []int{3}, "routed port"},
		// a Nexus 5000 Layer 2 port: only a value no NX-OS port takes
		{"5000 L2 mtu 9216", "nexus5000", nil, "interface Ethernet1/1\n  mtu 9216\n", nil, ""},
		{"5000 L2 mtu 99999", "nexus5000", nil, "interface Ethernet1/1\n  mtu 99999\n", []int{2}, "network-qos class's mtu"},
		{"5000 L2 mtu not a number", "nexus5000", nil, "interface Ethernet1/1\n  mtu big\n", []int{2}, "576 to 9216"},

		// system jumbomtu
		{"jumbomtu 9216", "nexus7000", nil, "system jumbomtu 9216\n", nil, ""},
		{"jumbomtu 0 (NX-OSv)", "nexus7000", nil, "system jumbomtu 0\n", nil, ""},
		{"jumbomtu 99999 on a 7000", "nexus7000", nil, "system jumbomtu 99999\n", []int{1}, "up to 9216"},
		{"jumbomtu 99999 on a 5000", "nexus5000", nil, "hostname s\nsystem jumbomtu 99999\n", []int{2}, "up to 9216"},
		{"jumbomtu not a number", "nexus5000", nil, "system jumbomtu big\n", []int{1}, "one number"},
		{"no jumbomtu", "nexus5000", nil, "no system jumbomtu 9216\n", nil, ""},

		// switchport mode
		{"mode trunk", "nexus5000", nil, "interface Ethernet1/1\n  switchport mode trunk\n", nil, ""},
		{"mode abbreviated", "nexus5000", nil, "interface Ethernet1/1\n  switchport mode tr\n", nil, ""},
		{"every mode", "nexus5000", nil, "interface Ethernet1/1\n  switchport mode access\n  switchport mode dot1q-tunnel\n  switchport mode fex-fabric\n  switchport mode fabricpath\n  switchport mode private-vlan host\n  switchport mode monitor buffer-limit 36000 packets\n", nil, ""},
		{"mode trunkk", "nexus5000", nil, "interface Ethernet1/1\n  switchport mode trunkk\n", []int{2}, `"trunkk" is not a port mode`},
		{"mode ambiguous", "nexus7000", nil, "interface Ethernet2/1\n  switchport mode f\n", []int{2}, "not a port mode"},
		{"mode with a tail", "nexus5000", nil, "interface Ethernet1/1\n  switchport mode trunk native\n", []int{2}, "takes nothing after it"},
		{"mode missing", "nexus5000", nil, "interface Ethernet1/1\n  switchport mode\n", []int{2}, "needs a mode"},
		{"no mode", "nexus5000", nil, "interface Ethernet1/1\n  no switchport mode trunkk\n", nil, ""},
		{"other switchport lines", "nexus5000", nil, "interface Ethernet1/1\n  switchport trunk allowed vlan 100\n  switchport access vlan 10\n", nil, ""},

		// QoS lines of an interface still go through the grammar
		{"priority-flow-control mode", "nexus5000", nil, "interface Ethernet1/1\n  priority-flow-control mode onn\n", []int{2}, "Invalid command"},
		{"untagged cos out of range", "nexus5000", nil, "interface Ethernet1/1\n  untagged cos 9\n", []int{2}, "Invalid command"},
		{"service-policy form", "nexus5000", nil, "interface Ethernet1/1\n  service-policy type qoss input P\n", []int{2}, "Invalid command"},

		// ports the modules do not have
		{"port above the module's count", "nexus5000", modules5596, "interface Ethernet1/60\n  description x\n  mtu 99999\n", []int{1}, "module 1 (N5K-C5596UP-SUP) has 48 ports, Ethernet1/1-48: there is no port 60"},
		{"last port", "nexus5000", modules5596, "interface Ethernet1/48\n", nil, ""},
		{"no module in the slot", "nexus5000", modules5596, "interface Ethernet2/1\n", []int{1}, "no module in slot 2"},
		{"a pre-provisioned slot", "nexus5000", modules5596, "slot 2\n  provision model N55-M16UP\ninterface Ethernet2/1\n", nil, ""},
		{"a supervisor's slot", "nexus7000", testModules7000, "interface Ethernet1/1\n", []int{1}, "module 1 (N7K-SUP2E) has no Ethernet ports"},
		{"a FEX port", "nexus5000", modules5596, "interface Ethernet101/1/1\n  switchport mode access\n", nil, ""},
		{"a breakout port", "nexus5000", modules5596, "interface Ethernet1/1/1\n", nil, ""},
		{"a breakout of a port the module lacks", "nexus5000", modules5596, "interface Ethernet1/49/1\n", []int{1}, "no port 49"},
		{"a subinterface", "nexus7000", testModules7000, "interface Ethernet2/1.100\n", nil, ""},
		{"a subinterface of a port the module lacks", "nexus7000", testModules7000, "interface Ethernet2/49.100\n", []int{1}, "has 48 ports"},
		{"port-channel, vlan, loopback, mgmt0", "nexus5000", modules5596, "interface port-channel4096\ninterface Vlan10\ninterface loopback0\ninterface mgmt0\n", nil, ""},
		{"modules unknown", "nexus5000", nil, "interface Ethernet9/60\n", nil, ""},
		{"a range of ports the module has", "nexus5000", modules5596, "interface Ethernet1/1-48\n  description x\n", nil, ""},
		{"a range past the module's count", "nexus5000", modules5596, "interface Ethernet1/47-49\n", []int{1}, "there is no port 49"},
		{"a range on a supervisor's slot, short port name", "nexus7000", testModules7000, "interface eth1/6-7\n", []int{1}, "module 1 (N7K-SUP2E) has no Ethernet ports"},
		{"a range of breakout ports", "nexus5000", modules5596, "interface Ethernet1/1/1-4\n", nil, ""},
		{"a list of ports", "nexus5000", modules5596, "interface Ethernet1/1, Ethernet1/60\n", nil, ""},
		{"modules without ports", "nexus7000", []Module{{Slot: 5, Model: "N7K-SUP1"}}, "interface Ethernet3/1\n", nil, ""},

		// top-level commands roce does not model are kept, not judged
		{"unknown top-level command", "nexus5000", nil, "foo bar baz\nhostname s\n", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := refusedLines(t, tt.text, tt.kind, tt.modules)
			if !slices.Equal(got, tt.refused) {
				t.Fatalf("refused lines %v, want %v (%v)", got, tt.refused, err)
			}
			if tt.why != "" && !strings.Contains(unjoin(err)[0].Error(), tt.why) {
				t.Errorf("refusal %q does not say %q", unjoin(err)[0], tt.why)
			}
		})
	}
}

// The acceptance audit's lines, each accepted on a 5000 and a 7000 before
// issue #15: all refused, in one round, with the template placeholders,
// sorted by line; `foo bar baz` is kept (roce keeps unmodelled top-level
// lines verbatim).
func TestCheckAuditOneRound(t *testing.T) {
	text := strings.Join([]string{
		"system jumbomtu 99999",             // 1
		"foo bar baz",                       // 2
		"class-map type qos match-all roce", // 3
		"  match cos {{ cos }}",             // 4
		"interface Ethernet1/60",            // 5
		"  mtu 9216",                        // 6
		"interface <name>",                  // 7
		"  mtu 99999",                       // 8: in the refused header's block
		"interface Ethernet2/1",             // 9
		"  switchport",                      // 10
		"  switchport mode trunkk",          // 11
		"  mtu 99999",                       // 12
		"  priority-flow-control mode on",   // 13
		"policy-map type qos P",             // 14
		"  class roce",                      // 15
		"    set qos-group ${GROUP}",        // 16
		"interface Ethernet2/2",             // 17
		"  service-policy type qos input P", // 18
	}, "\n") + "\n"
	mods := []Module{ // Ethernet1/60 is beyond slot 1's ports
		{Slot: 1, Ports: 32, Model: "N7K-F132XP-15"},
		{Slot: 2, Ports: 48, Model: "N7K-F248XP-25"},
		{Slot: 5, Model: "N7K-SUP2"},
	}
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		t.Run(kind, func(t *testing.T) {
			c, err := Check(text, testPlatform(t, kind), mods)
			if c != nil {
				t.Fatalf("Parse refuses the placeholders, so Check returns no Config; got one")
			}
			var got []int
			for _, e := range unjoin(err) {
				got = append(got, errLine(e))
			}
			want := []int{1, 4, 5, 7, 11, 12, 16}
			if !slices.Equal(got, want) {
				t.Fatalf("refused lines %v, want %v:\n%v", got, want, err)
			}
			msg := err.Error()
			for _, w := range []string{"line 1: \"system jumbomtu 99999\"", "line 4: \"{{ cos }}\" is a template placeholder", "there is no port 60", "line 7: \"<name>\"", "\"trunkk\" is not a port mode", "line 12: \"mtu 99999\"", "line 16: \"${GROUP}\""} {
				if !strings.Contains(msg, w) {
					t.Errorf("the error does not say %q:\n%s", w, msg)
				}
			}
			if strings.Contains(msg, "foo bar baz") || strings.Contains(msg, "roce-check") {
				t.Errorf("the error names a kept line or a stand-in of Check's own:\n%s", msg)
			}
		})
	}
}

// A line Parse refuses does not hide the others: each kind of Parse
// error, and the lines after it still judged.
func TestCheckOneRoundAfterParseErrors(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		refused []int
	}{
		{"placeholder inside a block", "class-map type qos match-all c\n  match cos {{ x }}\n  match cos 9\n", []int{2, 3}},
		{"placeholder header takes its block", "interface {{ port }}\n  mtu 99999\n  switchport mode trunkk\ninterface Ethernet1/1\n  mtu 99999\n", []int{1, 5}},
		{"placeholder header, flat", "interface <name>\nmtu 99999\nsystem jumbomtu 99999\n", []int{1, 3}},
		{"placeholder top-level line", "${SNIPPET}\nsystem jumbomtu 99999\n", []int{1, 2}},
		{"placeholder in a banner", "banner motd #\nhello {{ site }}\n#\nsystem jumbomtu 99999\n", []int{2, 4}},
		{"abbreviated header", "int e1/1\n  mtu 99999\ninterface Ethernet1/2\n  mtu 99999\n", []int{1, 4}},
		{"indented line outside a block", "  mtu 99999\nsystem jumbomtu 99999\n", []int{1, 2}},
		{"header without its name", "class-map type qos\n  match cos 3\nsystem jumbomtu 99999\n", []int{1, 3}},
		{"placeholder class line", "policy-map type qos P\n  class {{ c }}\n    set qos-group 3\nsystem jumbomtu 99999\n", []int{2, 3, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := refusedLines(t, tt.text, "nexus5000", nil)
			if !slices.Equal(got, tt.refused) {
				t.Fatalf("refused lines %v, want %v:\n%v", got, tt.refused, err)
			}
		})
	}
}

// The message names the first maxListed refused lines and counts the
// rest; Unwrap gives every one, each a line of the text.
func TestCheckRefusalsCapped(t *testing.T) {
	var b strings.Builder
	const n = maxListed + 7
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "interface Ethernet1/%d\n  switchport mode x%d\n", i, i)
	}
	_, err := Check(b.String(), testPlatform(t, "nexus5000"), nil)
	all := unjoin(err)
	if len(all) != n {
		t.Fatalf("%d refusals, want %d", len(all), n)
	}
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 {
		t.Errorf("errors.As finds %v, want the first refused line, 2", le)
	}
	msg := err.Error()
	if got := strings.Count(msg, "\nline ") + 1; got != maxListed {
		t.Errorf("the message names %d lines, want %d:\n%s", got, maxListed, msg)
	}
	if want := fmt.Sprintf("… and 7 more refused lines (%d in all)", n); !strings.HasSuffix(msg, want) {
		t.Errorf("the message ends %q, want %q", msg[strings.LastIndex(msg, "\n")+1:], want)
	}
	if _, err := Check("interface Ethernet1/1\n  switchport mode trunk\n", testPlatform(t, "nexus5000"), nil); err != nil {
		t.Errorf("a clean file: %v, want nil", err)
	}
}

// CheckRelease puts the release's refusals in the same round, in line
// order, with Parse's.
func TestCheckReleaseOneRound(t *testing.T) {
	text := "system jumbomtu 99999\ninterface Ethernet2/1\n  service-policy type queuing output default-8e-4q8q-out-policy\n  mtu {{ mtu }}\n"
	c, err := CheckRelease(text, testPlatform(t, "nexus7000"), testModules7000, "6.1(2)")
	if c != nil {
		t.Fatal("a placeholder: no Config")
	}
	var got []int
	for _, e := range unjoin(err) {
		got = append(got, errLine(e))
	}
	if !slices.Contains(got, 3) || !slices.Contains(got, 1) || !slices.Contains(got, 4) || !slices.IsSorted(got) {
		t.Fatalf("refused lines %v, want 1, 3 (the release) and 4, sorted:\n%v", got, err)
	}
}

// FuzzCheckOneRound: for any text, Check and CheckRelease never panic,
// every refusal names a line of the text, and they come sorted.
func FuzzCheckOneRound(f *testing.F) {
	addSeeds(f, "testdata/corpus/config")
	f.Add("interface <name>\n  mtu 99999\nsystem jumbomtu 99999\n")
	f.Add("int e1/1\n  {{ x }}\n  switchport mode trunkk\n")
	f.Add("banner motd #\n{{ x }}\n#\ninterface Ethernet1/60\n")
	p5, p7 := testPlatform(f, "nexus5000"), testPlatform(f, "nexus7000")
	f.Fuzz(func(t *testing.T, text string) {
		n := strings.Count(text, "\n") + strings.Count(text, "\r") + 1
		for _, p := range []Platform{p5, p7} {
			_, err := CheckRelease(text, p, testModules7000, "6.1(2)")
			var lines []int
			for _, e := range unjoin(err) {
				l := errLine(e)
				if l < 1 || l > n {
					t.Fatalf("refusal not tied to a line of the text: %v", e)
				}
				lines = append(lines, l)
			}
			if !slices.IsSorted(lines) {
				t.Fatalf("refusals not in line order: %v", lines)
			}
		}
	})
}

// BenchmarkCheckLarge loads a 5000 configuration of 2000 ports, each with
// a few lines (description, switchport mode, mtu, PFC, a policy), as the
// simulator loads a startup configuration.
func BenchmarkCheckLarge(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("system jumbomtu 9216\nclass-map type qos match-all roce\n  match cos 4\npolicy-map type qos P\n  class roce\n    set qos-group 3\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&sb, "interface Ethernet%d/%d\n  description port %d\n  switchport mode trunk\n  mtu 9216\n  priority-flow-control mode on\n  service-policy type qos input P\n", 1+i/48, 1+i%48, i)
	}
	text := sb.String()
	p := testPlatform(b, "nexus5000")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Check(text, p, nil); err != nil {
			b.Fatal(err)
		}
	}
}
