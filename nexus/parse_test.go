package nexus

import (
	"strings"
	"testing"
)

func TestParseReferenceSample(t *testing.T) {
	for ending, text := range lineEndings(readShow(t, "ipqos-ucs.txt")) {
		t.Run(ending, func(t *testing.T) {
			c, err := Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Header) != 2 || !strings.HasPrefix(c.Header[0], "!Command: show running-config ipqos") {
				t.Fatalf("header %q", c.Header)
			}
			fcoe := c.ClassMap(TypeQoS, "class-fcoe")
			if fcoe == nil || len(fcoe.Lines) != 0 || fcoe.Match != "" {
				t.Fatalf("built-in class-fcoe without match lines: %+v", fcoe)
			}
			nq := c.PolicyMap(TypeNetworkQoS, "system_nq_policy")
			if nq == nil || len(nq.Classes) != 2 || strings.Join(nq.Class("class-fcoe").Actions, "|") != "pause no-drop|mtu 2158" {
				t.Fatalf("network-qos policy: %+v", nq)
			}
			if c.PolicyMap(TypeQoS, "system_qos_policy").Class("class-default") == nil {
				t.Fatal("class-default without actions lost")
			}
			sps := c.SystemQoS().ServicePolicies()
			if len(sps) != 3 || sps[1] != (ServicePolicy{Type: TypeQueuing, Direction: "input", Name: "system_q_in_policy"}) {
				t.Fatalf("service policies %+v", sps)
			}
			raw := 0
			for _, o := range c.Objects {
				if o.Kind == KindRaw {
					raw++
				}
			}
			if raw != 2 { // version, logging level
				t.Fatalf("unmodelled lines kept: %d, want 2", raw)
			}
			want := strings.Join(strings.Split(readShow(t, "ipqos-ucs.txt"), "\n")[3:], "\n")
			if c.String() != want {
				t.Fatalf("String() does not print the config back:\n%s\nwant\n%s", c.String(), want)
			}
		})
	}
}

func TestParseKeepsUnmodelledLines(t *testing.T) {
	text := "feature lldp\nvlan 100\n  name storage\n  state active\nline vty\n  exec-timeout 5\n" +
		"interface Ethernet1/1\n  description x\n  channel-group 10 mode active\n" +
		"policy-map type qos P\n  description keep me\n  class C\n    set qos-group 2\n      nested thing\n" +
		"class-map type control-plane match-any copp\n  match access-group name copp-acl\n"
	c, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if c.String() != text {
		t.Fatalf("round trip:\n%s\nwant\n%s", c.String(), text)
	}
	if got := c.Find("raw class-map type control-plane match-any copp"); got == nil {
		t.Fatal("a class-map of a type we do not model must stay raw")
	}
	if got := c.InterfaceConfig("eth1/1", "Ethernet1/9"); got != "interface Ethernet1/1\n  description x\n  channel-group 10 mode active\ninterface Ethernet1/9\n" {
		t.Fatalf("InterfaceConfig: %q", got)
	}
	if got := c.Section("ipqos"); !strings.HasPrefix(got, "policy-map type qos P\n") {
		t.Fatalf("Section(ipqos): %q", got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"orphan indent", "  match cos 3\n", "line 1:"},
		{"class-map without name", "feature x\nclass-map type qos\n", "line 2:"},
		{"class-map two names", "class-map type qos match-all A B\n", "line 1:"},
		{"policy-map without name", "policy-map type queuing\n", "line 1:"},
		{"acl two names", "ip access-list A B\n", "line 1:"},
		{"jinja placeholder", "class-map type qos match-all roce\n  match cos {{ cos }}\n", "line 2: \"{{ cos }}\" is a template placeholder"},
		{"angle placeholder", "feature lldp\n\ninterface <name>\n", "line 3: \"<name>\""},
		{"shell placeholder", "policy-map type qos P\n  class C\n    set qos-group ${GROUP}\n", "line 3:"},
		{"every bad line named", "class-map type qos\npolicy-map type qos\n", "line 2:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to name %q", err, tt.want)
			}
		})
	}
}

func TestCanonicalInterface(t *testing.T) {
	for in, want := range map[string]string{"Ethernet1/1": "Ethernet1/1", "ethernet 1/1": "Ethernet1/1", "Eth1/2": "Ethernet1/2", "e101/1/3": "Ethernet101/1/3", "po10": "port-channel10", "port-channel 7": "port-channel7"} {
		if got, ok := CanonicalInterface(in); !ok || got != want {
			t.Errorf("CanonicalInterface(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "Ethernet", "Ethernet1", "vlan10", "Ethernet1/", "mgmt0", "e1/x"} {
		if got, ok := CanonicalInterface(bad); ok {
			t.Errorf("CanonicalInterface(%q) = %q, want refusal", bad, got)
		}
	}
}

// Typing a header again re-enters its block, as the switch does when it
// loads a file; so does a class inside a policy-map.
func TestParseReentersBlocks(t *testing.T) {
	c, err := Parse("class-map type qos A\n  match cos 1\npolicy-map type qos P\n  class A\n    set qos-group 2\n" +
		"class-map type qos A\n  description again\npolicy-map type qos P\n  class A\n    set dscp 10\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "class-map type qos match-all A\n  match cos 1\n  description again\npolicy-map type qos P\n  class A\n    set qos-group 2\n    set dscp 10\n"
	if len(c.Objects) != 2 || strings.Replace(c.String(), "class-map type qos A", "class-map type qos match-all A", 1) != want {
		t.Fatalf("got\n%s", c.String())
	}
}

// NX-OS reads a configuration file by command, not by indentation: the
// same configuration written flat, with tabs, with odd widths, with
// comments, `end`, trailing spaces and CRLF parses to the same objects.
func TestParseNestingByCommand(t *testing.T) {
	canonical := "feature lldp\n" +
		"ip access-list roce-acl\n  10 permit udp any any eq 4791\n" +
		"class-map type qos match-all roce\n  match access-group name roce-acl\n" +
		"policy-map type qos roce-in\n  class roce\n    set qos-group 3\n  class class-default\n" +
		"system qos\n  service-policy type qos input roce-in\n" +
		"vlan 100\n  name storage\n" +
		"interface Ethernet1/1\n  description uplink\n  switchport mode trunk\n  priority-flow-control mode on\n" +
		"line vty\n  exec-timeout 5\n"
	variants := map[string]string{
		"flat": "feature lldp\nip access-list roce-acl\n10 permit udp any any eq 4791\nclass-map type qos match-all roce\nmatch access-group name roce-acl\n" +
			"policy-map type qos roce-in\nclass roce\nset qos-group 3\nclass class-default\nsystem qos\nservice-policy type qos input roce-in\n" +
			"vlan 100\nname storage\ninterface Ethernet1/1\ndescription uplink\nswitchport mode trunk\npriority-flow-control mode on\nline vty\nexec-timeout 5\n",
		"tabs":          strings.NewReplacer("\n    ", "\n\t\t", "\n  ", "\n\t").Replace(canonical),
		"width 3 and 1": strings.NewReplacer("\n    ", "\n      ", "\n  ", "\n   ").Replace(canonical),
		"comments, end, trailing spaces, CRLF": strings.ReplaceAll("! roce lab switch\n# generated by hand\n"+
			strings.ReplaceAll(canonical, "\n", "   \n")+"!\nend\n", "\n", "\r\n"),
		"header-like lines misindented": strings.Replace(strings.Replace(canonical, "\nsystem qos", "\n    system qos", 1),
			"\ninterface Ethernet1/1", "\n  interface Ethernet1/1", 1),
	}
	for name, text := range variants {
		t.Run(name, func(t *testing.T) {
			c, err := Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			if c.String() != canonical {
				t.Fatalf("read as\n%s\nwant\n%s", c.String(), canonical)
			}
		})
	}
	// The switch's mode decides, not the indentation: a global-only
	// command (`ip pim rp-address`) closes an interface block, an interface
	// command that starts with the same words (`ip pim sparse-mode`) stays
	// in it, indented or not.
	for text, wantIn := range map[string]bool{
		"interface Ethernet1/1\n  mtu 9216\nip pim rp-address 10.0.0.1\n": false,
		"interface Ethernet1/1\nmtu 9216\nip pim sparse-mode\n":           true,
		"interface Ethernet1/1\n  mtu 9216\nip pim sparse-mode\n":         true,
	} {
		c, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		in := strings.Contains(c.InterfaceConfig("Ethernet1/1"), "ip pim")
		if in != wantIn {
			t.Errorf("%q: ip pim inside the interface = %v, want %v:\n%s", text, in, wantIn, c.String())
		}
	}
}
