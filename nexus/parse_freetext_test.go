package nexus

import (
	"strings"
	"testing"
)

// Free text (a description, a banner, a remark, …) may hold '<' and '>':
// NX-OS takes it, so a running-config with such a line must be readable,
// and it prints back unchanged.
func TestParseFreeTextKeepsAngleBrackets(t *testing.T) {
	tests := []struct{ name, text string }{
		{"interface description", "interface Ethernet1/1\n  description <to-core-1>\n  switchport mode trunk\n"},
		{"class-map description", "class-map type qos match-all roce\n  description <RoCE v2> traffic\n  match cos 3\n"},
		{"acl remark with sequence", "ip access-list roce-acl\n  10 remark <owner: storage team>\n  20 permit udp any any eq 4791\n"},
		{"snmp contact and location", "snmp-server contact <NOC team>\nsnmp-server location <rack 4 row B>\n"},
		{"username line", "username admin password 5 $1$abc$def role network-admin\nusername <ops> role network-operator\n"},
		{"one-line banner", "banner motd #Welcome to <ACME Corp>#\nhostname s1\n"},
		{"no description", "interface Ethernet1/2\n  no description <old>\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(tt.text)
			if err != nil {
				t.Fatalf("refused a line NX-OS accepts: %v", err)
			}
			if c.String() != tt.text {
				t.Fatalf("printed back as\n%s\nwant\n%s", c.String(), tt.text)
			}
		})
	}
}

// Outside free text a <name>, and anywhere a {{ }} or ${ }, is still a
// template placeholder, reported with its line.
func TestParsePlaceholdersOutsideFreeText(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"interface name", "interface <name>\n", `line 1: "<name>"`},
		{"vlan list", "interface Ethernet1/1\n  switchport trunk allowed vlan <vlans>\n", `line 2: "<vlans>"`},
		{"description keyword itself not free", "interface Ethernet1/1\n  mtu <mtu> description x\n", `line 2: "<mtu>"`},
		{"jinja in a description", "interface Ethernet1/1\n  description {{ peer }}\n", `line 2: "{{ peer }}"`},
		{"shell var in a remark", "ip access-list A\n  10 remark ${OWNER}\n", `line 2: "${OWNER}"`},
		{"jinja in a banner body", "banner motd #\nHello {{ site }}\n#\n", `line 2: "{{ site }}"`},
		{"jinja in a one-line banner", "banner motd #{{ motd }}#\n", `line 1: "{{ motd }}"`},
		{"snmp community is not free text", "snmp-server community <community> group network-operator\n", `line 1: "<community>"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to name %s", err, tt.want)
			}
		})
	}
}

// A multi-line banner is read to its closing delimiter: a `#` or `!` line
// inside it is banner text, the closing `#` is kept, and what follows is
// configuration again. It prints back exactly as it came.
func TestParseBannerRoundTrip(t *testing.T) {
	text := "hostname s1\n" +
		"banner motd #\n" +
		"Welcome to <ACME Corp>\n" +
		"!!! authorised use only !!!\n" +
		"    interface Ethernet1/9 is not configuration here\n" +
		"\n" +
		"#\n" +
		"banner exec @\n" +
		"second banner, closed mid-line@ and the rest of the line is not read\n" +
		"interface Ethernet1/1\n" +
		"  priority-flow-control mode on\n"
	for ending, in := range lineEndings(text) {
		t.Run(ending, func(t *testing.T) {
			c, err := Parse(in)
			if err != nil {
				t.Fatal(err)
			}
			if c.String() != text {
				t.Fatalf("printed back as\n%q\nwant\n%q", c.String(), text)
			}
			b := c.Find("raw banner motd #")
			if b == nil || len(b.Lines) != 5 || b.Lines[4] != "#" {
				t.Fatalf("banner motd: %+v (want its four text lines and the closing #)", b)
			}
			if e := c.Find("raw banner exec @"); e == nil || len(e.Lines) != 1 {
				t.Fatalf("banner exec: %+v", e)
			}
			if c.InterfaceConfig("Ethernet1/9") != "interface Ethernet1/9\n" {
				t.Fatal("a line of banner text was read as an interface")
			}
			if !strings.Contains(c.InterfaceConfig("Ethernet1/1"), "priority-flow-control mode on") {
				t.Fatalf("the configuration after the banners was not read:\n%s", c.String())
			}
		})
	}
}

func TestParseBannerNeverClosed(t *testing.T) {
	_, err := Parse("hostname s1\nbanner motd %\nWelcome\ninterface Ethernet1/1\n")
	if err == nil || !strings.Contains(err.Error(), `line 2: "banner motd %" opens a banner`) || !strings.Contains(err.Error(), "no later line closes") {
		t.Fatalf("err %v, want the unclosed banner named at line 2", err)
	}
}

// One error per problem: the lines of a block whose header was refused
// are not reported again as lines outside any block.
func TestParseRefusedHeaderTakesItsBlock(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"placeholder header", "interface <name>\n  description x\n  mtu 9216\ninterface Ethernet1/1\n  mtu 9216\n", []string{"line 1:"}},
		{"placeholder header, flat", "interface <name>\ndescription x\nmtu 9216\nfeature lldp\n", []string{"line 1:"}},
		{"header without name", "class-map type qos\n  match cos 3\npolicy-map type qos\n  class c\n", []string{"line 1:", "line 3:"}},
		{"placeholder in the refused block still named", "interface <name>\n  description x\n  mtu {{ mtu }}\n", []string{"line 1:", "line 3:"}},
		{"a refused class line keeps its policy-map", "policy-map type qos P\n  class C\n    set qos-group {{ g }}\n  class D\n    set qos-group 2\n  mtu <x>\n", []string{"line 3:", "line 6:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.text)
			if err == nil {
				t.Fatal("accepted")
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(tt.want) {
				t.Fatalf("%d errors, want %d:\n%v", len(got), len(tt.want), err)
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("error %d = %q, want it to start with %q", i, got[i], w)
				}
			}
		})
	}
}

// A switch's startup configuration with a banner and free-text
// descriptions loads (nxsim reads startup configs through CheckRelease).
func TestCheckReadsBannersAndFreeText(t *testing.T) {
	text := "version 5.2(1)N1(4)\nhostname s1\nbanner motd #\nNexus 5000 Switch <lab>\n#\n" +
		"class-map type qos match-all roce\n  description <RoCE>\n  match cos 3\n" +
		"interface Ethernet2/1\n  description <to-core-1>\n  priority-flow-control mode on\n"
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		c, err := CheckRelease(text, testPlatform(t, kind), testModules7000, "5.2(1)N1(4)")
		if err != nil || c == nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if c.String() != text {
			t.Fatalf("%s: printed back as\n%s", kind, c.String())
		}
	}
}

// The delimiter is one character, even one that takes several bytes: a
// line holding another character that shares its first byte does not
// close the banner.
func TestParseBannerMultibyteDelimiter(t *testing.T) {
	text := "banner motd §\nprice: 5 ¢ or 5 ©\n§\nhostname s1\n"
	c, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if b := c.Find("raw banner motd §"); b == nil || len(b.Lines) != 2 || c.String() != text {
		t.Fatalf("banner %+v, printed back as\n%s", b, c.String())
	}
}
