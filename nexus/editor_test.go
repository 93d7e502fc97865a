package nexus

import (
	"strings"
	"testing"
)

func TestEditorLines(t *testing.T) {
	base5k := []string{
		"ip access-list A", "permit udp any any eq 4791",
		"class-map type qos match-all C", "match cos 4",
		"class-map type network-qos C", "match qos-group 3",
		"class-map type queuing C", "match qos-group 3",
		"policy-map type qos PQ", "class C", "set qos-group 3",
		"policy-map type network-qos PN", "class type network-qos C", "pause no-drop",
		"policy-map type queuing PO", "class type queuing C", "bandwidth percent 60",
		"class type queuing class-default", "bandwidth percent 40",
		"system qos", "service-policy type network-qos PN",
	}
	tests := []struct {
		name     string
		kind     string
		setup    []string
		line     string
		wantKind string // "" = accepted
		wantPos  int
		wantMsg  string
		wantMode string
	}{
		{"unknown word", "nexus5000", nil, "frobnicate", "invalid", 0, msgInvalid, "config"},
		{"caret at bad arg", "nexus5000", nil, "class-map type bogus X", "invalid", 15, msgInvalid, "config"},
		{"incomplete", "nexus5000", nil, "class-map type qos", "incomplete", 18, msgIncomplete, "config"},
		{"abbreviation", "nexus5000", nil, "int eth1/1", "", 0, "", "config-if"},
		{"enter cmap", "nexus5000", nil, "class-map type qos match-any X", "", 0, "", "config-cmap-qos"},
		{"cos out of range", "nexus5000", []string{"class-map type qos X"}, "match cos 9", "invalid", 10, msgInvalid, "config-cmap-qos"},
		{"acl must exist", "nexus5000", []string{"class-map type qos X"}, "match access-group name NOPE", "error", 0, "does not exist", "config-cmap-qos"},
		{"nq class-map matches qos-group", "nexus5000", []string{"class-map type network-qos X"}, "match cos 3", "invalid", 6, msgInvalid, "config-cmap-nqos"},
		{"class needs class-map", "nexus5000", []string{"policy-map type qos P"}, "class MISSING", "error", 0, "does not exist", "config-pmap-qos"},
		{"class-default always exists", "nexus5000", []string{"policy-map type network-qos P"}, "class type network-qos class-default", "", 0, "", "config-pmap-nqos-c"},
		{"class-default not no-drop", "nexus5000", []string{"policy-map type network-qos P", "class type network-qos class-default"}, "pause no-drop", "error", 0, "class-default", "config-pmap-nqos-c"},
		{"queue-limit refused on no-drop", "nexus5000", base5k[:14], "queue-limit 1000 bytes", "error", 0, "no-drop", "config-pmap-nqos-c"},
		{"mtu range", "nexus5000", base5k[:14], "mtu 99999", "invalid", 4, msgInvalid, "config-pmap-nqos-c"},
		{"falls back to parent mode", "nexus5000", base5k[:14], "class type network-qos class-default", "", 0, "", "config-pmap-nqos-c"},
		{"falls back to config", "nexus5000", base5k[:14], "system qos", "", 0, "", "config-sys-qos"},
		{"attached policy not deletable", "nexus5000", base5k, "no policy-map type network-qos PN", "error", 0, "attached", "config-sys-qos"},
		{"used class-map not deletable", "nexus5000", base5k, "no class-map type qos C", "error", 0, "being used", "config-sys-qos"},
		{"used acl not deletable", "nexus5000", append(append([]string{}, base5k...), "class-map type qos U", "match access-group name A"), "no ip access-list A", "error", 0, "used by class-map U", "config-cmap-qos"},
		{"attach missing policy", "nexus5000", []string{"system qos"}, "service-policy type qos input NOPE", "error", 0, "does not exist", "config-sys-qos"},
		{"attach builtin", "nexus5000", []string{"system qos"}, "service-policy type network-qos fcoe-default-nq-policy", "", 0, "", "config-sys-qos"},
		{"qos type is input only", "nexus5000", base5k, "service-policy type qos output PQ", "invalid", 24, msgInvalid, "config-sys-qos"},
		{"queuing over 100", "nexus5000", append(append([]string{}, base5k...), "policy-map type queuing PO", "class type queuing class-default", "bandwidth percent 50", "system qos"), "service-policy type queuing output PO", "error", 0, "more than 100", "config-sys-qos"},
		{"switchport mode typo", "nexus5000", []string{"interface Ethernet1/1"}, "switchport mode trunkk", "invalid", 16, msgInvalid, "config-if"},
		{"switchport mode abbreviated", "nexus5000", []string{"interface Ethernet1/1"}, "switchport mode tr", "", 0, "", "config-if"},
		{"switchport mode with a word it does not take", "nexus5000", []string{"interface Ethernet1/1"}, "switchport mode access now", "invalid", 23, msgInvalid, "config-if"},
		{"switchport mode without a mode", "nexus5000", []string{"interface Ethernet1/1"}, "switchport mode", "incomplete", 15, msgIncomplete, "config-if"},
		{"other switchport lines kept as typed", "nexus5000", []string{"interface Ethernet1/1"}, "switchport access vlan 10", "", 0, "", "config-if"},
		{"no switchport mode", "nexus5000", []string{"interface Ethernet1/1", "switchport mode trunk"}, "no switchport mode trunk", "", 0, "", "config-if"},
		{"port mtu out of range", "nexus5000", []string{"interface Ethernet1/1"}, "mtu 99999", "invalid", 4, msgInvalid, "config-if"},
		{"port mtu not a number", "nexus5000", []string{"interface Ethernet1/1"}, "mtu big", "invalid", 4, msgInvalid, "config-if"},
		{"port mtu two numbers", "nexus5000", []string{"interface Ethernet1/1"}, "mtu 9216 9000", "invalid", 9, msgInvalid, "config-if"},
		{"port mtu in range", "nexus5000", []string{"interface Ethernet1/1"}, "mtu 9216", "", 0, "", "config-if"},
		{"7000 Layer 2 port mtu below 1500", "nexus7000", []string{"interface Ethernet2/1", "switchport"}, "mtu 1000", "invalid", 4, msgInvalid, "config-if"},
		{"7000 routed port mtu below 1500", "nexus7000", []string{"interface Ethernet2/1"}, "mtu 1000", "", 0, "", "config-if"},
		{"7000 routed port mtu below 576", "nexus7000", []string{"interface Ethernet2/1"}, "mtu 500", "invalid", 4, msgInvalid, "config-if"},
		{"pfc vs llfc", "nexus5000", []string{"interface Ethernet1/1", "flowcontrol send on"}, "priority-flow-control mode on", "error", 0, "link-level flowcontrol", "config-if"},
		{"llfc vs pfc", "nexus5000", []string{"interface Ethernet1/1", "priority-flow-control mode on"}, "flowcontrol receive on", "error", 0, "priority-flow-control", "config-if"},
		{"qos copy only on 7000", "nexus5000", nil, "qos copy policy-map type network-qos default-nq-7e-policy prefix X-", "invalid", 0, msgInvalid, "config"},
		{"7000 nq from scratch refused", "nexus7000", nil, "policy-map type network-qos MINE", "error", 0, "qos copy", "config"},
		{"7000 qos copy", "nexus7000", nil, "qos copy policy-map type network-qos default-nq-7e-policy prefix X-", "", 0, "", "config"},
		{"7000 copy twice", "nexus7000", []string{"qos copy policy-map type network-qos default-nq-7e-policy prefix X-"}, "qos copy policy-map type network-qos default-nq-7e-policy prefix X-", "error", 0, "already exists", "config"},
		{"7000 not a template", "nexus7000", nil, "qos copy policy-map type network-qos nope prefix X-", "error", 0, "not a network-qos template", "config"},
		{"7000 only template classes", "nexus7000", []string{"qos copy policy-map type network-qos default-nq-7e-policy prefix X-", "policy-map type network-qos X-nq-7e"}, "class type network-qos class-default", "error", 0, "template copy", "config-pmap-nqos"},
		{"7000 edit copy", "nexus7000", []string{"qos copy policy-map type network-qos default-nq-7e-policy prefix X-", "policy-map type network-qos X-nq-7e", "class type network-qos c-nq-7e-ndrop-fcoe"}, "mtu 9216", "", 0, "", "config-pmap-nqos-c"},
		{"7000 M-series pfc", "nexus7000", []string{"interface Ethernet3/1"}, "priority-flow-control mode on", "error", 0, "module 3 (N7K-M148GT-11L, M-series)", "config-if"},
		{"7000 F-series pfc", "nexus7000", []string{"interface Ethernet2/1"}, "priority-flow-control mode on", "", 0, "", "config-if"},
		{"set cos in type qos", "nexus7000", []string{"class-map type qos V", "policy-map type qos P", "class V"}, "set cos 5", "", 0, "", "config-pmap-c-qos"},
		{"set dscp range", "nexus5000", []string{"class-map type qos V", "policy-map type qos P", "class V"}, "set dscp 64", "invalid", 9, msgInvalid, "config-pmap-c-qos"},
		{"bare switchport", "nexus7000", []string{"interface Ethernet2/1"}, "no switchport", "", 0, "", "config-if"},
		{"acl seq", "nexus5000", []string{"ip access-list A", "permit udp any any eq 4791"}, "10 permit tcp any any", "error", 0, "already exists", "config-acl"},
		{"acl bad address", "nexus5000", []string{"ip access-list A"}, "permit udp 300.1.1.1/8 any", "invalid", 11, msgInvalid, "config-acl"},
		{"mac acl ethertype", "nexus5000", []string{"mac access-list M"}, "permit any any 0x8915", "", 0, "", "config-mac-acl"},
		{"mac acl bad ethertype", "nexus5000", []string{"mac access-list M"}, "permit any any 0x18915", "invalid", 15, msgInvalid, "config-mac-acl"},
		{"mac acl cos option", "nexus5000", []string{"mac access-list M"}, "permit any any 0x8915 cos 4", "", 0, "", "config-mac-acl"},
		{"mac acl vlan option", "nexus5000", []string{"mac access-list M"}, "permit any any 0x8915 vlan 10", "", 0, "", "config-mac-acl"},
		{"mac acl cos and vlan", "nexus5000", []string{"mac access-list M"}, "deny any any cos 3 vlan 4094", "", 0, "", "config-mac-acl"},
		{"mac acl protocol keyword", "nexus5000", []string{"mac access-list M"}, "permit any any appletalk", "", 0, "", "config-mac-acl"},
		{"mac acl cos out of range", "nexus5000", []string{"mac access-list M"}, "permit any any 0x8915 cos 8", "invalid", 26, msgInvalid, "config-mac-acl"},
		{"mac acl vlan 0", "nexus5000", []string{"mac access-list M"}, "permit any any vlan 0", "invalid", 20, msgInvalid, "config-mac-acl"},
		{"mac acl protocol mask refused", "nexus5000", []string{"mac access-list M"}, "permit any any 0x8915 0x0", "invalid", 22, msgInvalid, "config-mac-acl"},
		{"mac acl cos without value", "nexus5000", []string{"mac access-list M"}, "permit any any cos", "incomplete", 18, "", "config-mac-acl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPlatform(t, tt.kind)
			cfg := &Config{}
			e := NewEditor(cfg, p, testModules7000)
			for _, l := range tt.setup {
				if err := e.Line(l); err != nil {
					t.Fatalf("setup %q: %v", l, err)
				}
			}
			err := e.Line(tt.line)
			if tt.wantKind == "" {
				if err != nil {
					t.Fatalf("%q refused: %v", tt.line, err)
				}
			} else {
				ce, ok := err.(*CLIError)
				if !ok {
					t.Fatalf("%q: got %v (%T), want a *CLIError", tt.line, err, err)
				}
				if ce.Kind != tt.wantKind || ce.Pos != tt.wantPos || !strings.Contains(ce.Message, tt.wantMsg) {
					t.Fatalf("%q: got %+v (pos %d), want kind %s pos %d message containing %q", tt.line, ce, ce.Pos, tt.wantKind, tt.wantPos, tt.wantMsg)
				}
			}
			if e.Mode() != tt.wantMode {
				t.Fatalf("mode %q, want %q", e.Mode(), tt.wantMode)
			}
		})
	}
}

func TestEditorExitAndEnd(t *testing.T) {
	e := NewEditor(&Config{}, testPlatform(t, "nexus5000"), nil)
	steps := []struct{ line, mode string }{
		{"policy-map type qos P", "config-pmap-qos"},
		{"class class-default", "config-pmap-c-qos"},
		{"exit", "config-pmap-qos"},
		{"exit", "config"},
		{"interface Ethernet1/1", "config-if"},
		{"end", ""},
	}
	for _, s := range steps {
		if err := e.Line(s.line); err != nil {
			t.Fatalf("%q: %v", s.line, err)
		}
		if e.Mode() != s.mode {
			t.Fatalf("after %q mode %q, want %q", s.line, e.Mode(), s.mode)
		}
	}
	if e.InConfig() {
		t.Fatal("still in config after end")
	}
	if err := e.Line("system qos"); err == nil {
		t.Fatal("lines after end must be refused")
	}
	e2 := NewEditor(&Config{}, testPlatform(t, "nexus5000"), nil)
	_ = e2.Line("exit")
	if e2.InConfig() {
		t.Fatal("exit from config must leave config mode")
	}
}

func TestEditorNoRemoves(t *testing.T) {
	p := testPlatform(t, "nexus5000")
	cfg := &Config{}
	lines := []string{
		"ip access-list A", "permit udp any any eq 4791", "permit tcp any any eq 3260", "no 10",
		"class-map type qos X", "match cos 3", "match dscp 26", "no match cos 3",
		"policy-map type network-qos N", "class type network-qos class-default", "mtu 9216", "multicast-optimize", "no mtu",
		"interface Ethernet1/1", "priority-flow-control mode on", "untagged cos 4", "no priority-flow-control mode on", "no untagged cos 4",
	}
	if err := ApplyCommands(cfg, p, nil, lines); err != nil {
		t.Fatal(err)
	}
	want := "ip access-list A\n  20 permit tcp any any eq 3260\n" +
		"class-map type qos match-all X\n  match dscp 26\n" +
		"policy-map type network-qos N\n  class type network-qos class-default\n    multicast-optimize\n" +
		"interface Ethernet1/1\n"
	if cfg.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", cfg, want)
	}
	err := ApplyCommands(cfg, p, nil, []string{"system qos", "service-policy type qos input NOPE"})
	if err == nil || !strings.Contains(err.Error(), `command 2 "service-policy type qos input NOPE"`) {
		t.Fatalf("ApplyCommands error must name the line: %v", err)
	}
}
