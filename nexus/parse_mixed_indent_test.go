package nexus

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Issue #15: NX-OS ignores indentation when it loads a file. After a
// mode-entering command the session is in that mode; a line the mode has
// stays there, a line it does not have falls back to the parent (global)
// mode. Parse must read a file that mixes indented and flat lines the same
// way, whatever the indentation says.
func TestParseMixedIndentation(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string // Config.String() of what Parse read
	}{
		{
			// The acceptance audit's example: the three flat lines are
			// interface commands, not global ones.
			name: "flat lines after an indented interface line",
			text: "interface Ethernet1/1\n  description a\nswitchport mode trunk\nmtu 9216\npriority-flow-control mode on\n",
			want: "interface Ethernet1/1\n  description a\n  switchport mode trunk\n  mtu 9216\n  priority-flow-control mode on\n",
		},
		{
			name: "unindented service-policy under an interface",
			text: "policy-map type qos PM\n  class class-default\n    set qos-group 0\n" +
				"interface Ethernet1/1\n  description host\nservice-policy type qos input PM\n" +
				"interface Ethernet1/2\n  description other\n",
			want: "policy-map type qos PM\n  class class-default\n    set qos-group 0\n" +
				"interface Ethernet1/1\n  description host\n  service-policy type qos input PM\n" +
				"interface Ethernet1/2\n  description other\n",
		},
		{
			name: "indented lines after flat blocks",
			text: "interface Ethernet1/1\ndescription a\n    priority-flow-control mode on\nhostname x\n" +
				"policy-map type network-qos N\nclass type network-qos C\n  pause no-drop\nmtu 9216\n" +
				"system qos\nservice-policy type network-qos N\n      service-policy type queuing output Q\n",
			want: "interface Ethernet1/1\n  description a\n  priority-flow-control mode on\nhostname x\n" +
				"policy-map type network-qos N\n  class type network-qos C\n    pause no-drop\n    mtu 9216\n" +
				"system qos\n  service-policy type network-qos N\n  service-policy type queuing output Q\n",
		},
		{
			// A command only the global mode has leaves the interface at
			// any indentation, and the session is then in global mode, as
			// the Editor's fall-back leaves it: what follows at the same
			// or a smaller indentation is not the interface's any more.
			name: "global commands indented under an interface",
			text: "interface Ethernet1/1\n  description a\n  hostname x\n  feature lldp\n" +
				"interface Ethernet1/2\n  priority-flow-control mode on\n    feature lacp\n  mtu 9216\n",
			want: "interface Ethernet1/1\n  description a\nhostname x\nfeature lldp\n" +
				"interface Ethernet1/2\n  priority-flow-control mode on\nfeature lacp\nmtu 9216\n",
		},
		{
			name: "block headers indented under another block",
			text: "interface Ethernet1/1\n  mtu 9216\n  system qos\n    service-policy type network-qos N\n" +
				"  ip access-list A\n10 permit udp any any eq 4791\n   interface Ethernet1/2\nflowcontrol receive on\n",
			want: "interface Ethernet1/1\n  mtu 9216\nsystem qos\n  service-policy type network-qos N\n" +
				"ip access-list A\n  10 permit udp any any eq 4791\ninterface Ethernet1/2\n  flowcontrol receive on\n",
		},
		{
			// The class actions are the class's at any indentation; its
			// description is the policy-map's (a class has no such
			// command, so the switch takes it in the parent mode).
			name: "policy-map, class and actions at odd indents",
			text: "policy-map type network-qos N\n class type network-qos C1\n       pause no-drop\n   mtu 9216\n     description lossless\n" +
				"class type network-qos class-default\n         mtu 1500\n" +
				" policy-map type queuing Q\nclass type queuing C1\n  bandwidth percent 60\n   class type queuing class-default\nbandwidth percent 40\n",
			want: "policy-map type network-qos N\n  description lossless\n" +
				"  class type network-qos C1\n    pause no-drop\n    mtu 9216\n  class type network-qos class-default\n    mtu 1500\n" +
				"policy-map type queuing Q\n  class type queuing C1\n    bandwidth percent 60\n  class type queuing class-default\n    bandwidth percent 40\n",
		},
		{
			name: "tabs mixed with spaces",
			text: "interface Ethernet1/1\n\tdescription a\n  \tmtu 9216\npriority-flow-control mode on\n\t\tservice-policy type qos input PM\n" +
				"system qos\n \tservice-policy type network-qos N\n" +
				"class-map type qos match-all C\n\t match cos 4\n",
			want: "interface Ethernet1/1\n  description a\n  mtu 9216\n  priority-flow-control mode on\n  service-policy type qos input PM\n" +
				"system qos\n  service-policy type network-qos N\n" +
				"class-map type qos match-all C\n  match cos 4\n",
		},
		{
			// Lines roce does not know either way: an interface takes
			// them (it has too many commands to list); another modelled
			// block keeps one indented deeper than its header as one of
			// its nested lines, and leaves one at the header's column to
			// the top level, as a flat file has always been read.
			name: "unknown commands",
			text: "interface Ethernet1/1\n  description a\nlacp rate fast\nip route 0.0.0.0/0 10.0.0.1\n" +
				"class-map type qos match-any C\n  match cos 4\n    frobnicate x\nfrobnicate y\n",
			want: "interface Ethernet1/1\n  description a\n  lacp rate fast\nip route 0.0.0.0/0 10.0.0.1\n" +
				"class-map type qos match-any C\n  match cos 4\n  frobnicate x\nfrobnicate y\n",
		},
		{
			// roce does not know these blocks' grammar: a deeper line
			// stays (a VRF's own ip route), except a header of a block
			// roce models; at the header's column the flat-file rule
			// holds: a top-level command closes the block.
			name: "blocks roce does not model",
			text: "vrf context management\n  ip route 0.0.0.0/0 10.0.0.1\n    interface Ethernet1/1\nmtu 9216\n" +
				"router ospf 1\nrouter-id 10.0.0.1\n  log-adjacency-changes\nhostname x\n",
			want: "vrf context management\n  ip route 0.0.0.0/0 10.0.0.1\ninterface Ethernet1/1\n  mtu 9216\n" +
				"router ospf 1\n  router-id 10.0.0.1\n    log-adjacency-changes\nhostname x\n",
		},
		{
			// Interface commands whose first words a global command
			// shares (Batfish's NX-OS grammar and its test configs; the
			// Nexus Layer 2 guides for spanning-tree): they stay in the
			// interface at any indentation, while the global forms close
			// it.
			name: "interface commands that look global",
			text: "interface Ethernet1/1\nfex associate 101\n  hardware multicast hw-hash\n no port-channel port load-defer\n" +
				"spanning-tree port type edge trunk\n  spanning-tree mst 4 cost 17031970\n  spanning-tree vlan 10 port-priority 64\n" +
				"  hsrp 10\n    track 1 decrement 20\n" +
				"spanning-tree port type edge default\n" +
				"interface Ethernet1/2\n  mtu 9216\nspanning-tree vlan 10 priority 4096\n" +
				"interface Ethernet1/3\n  mtu 9216\n  track 2 interface Ethernet1/3 line-protocol\n" +
				"interface Ethernet1/4\n  mtu 9216\nfex 101\n  description rack1\n" +
				"interface Ethernet1/5\n  mtu 9216\n  hardware access-list tcam region racl 512\n" +
				"interface Ethernet1/6\n  mtu 9216\nport-channel load-balance src-dst ip\n",
			want: "interface Ethernet1/1\n  fex associate 101\n  hardware multicast hw-hash\n  no port-channel port load-defer\n" +
				"  spanning-tree port type edge trunk\n  spanning-tree mst 4 cost 17031970\n  spanning-tree vlan 10 port-priority 64\n" +
				"  hsrp 10\n  track 1 decrement 20\n" +
				"spanning-tree port type edge default\n" +
				"interface Ethernet1/2\n  mtu 9216\nspanning-tree vlan 10 priority 4096\n" +
				"interface Ethernet1/3\n  mtu 9216\ntrack 2 interface Ethernet1/3 line-protocol\n" +
				"interface Ethernet1/4\n  mtu 9216\nfex 101\n  description rack1\n" +
				"interface Ethernet1/5\n  mtu 9216\nhardware access-list tcam region racl 512\n" +
				"interface Ethernet1/6\n  mtu 9216\nport-channel load-balance src-dst ip\n",
		},
		{
			name: "comments, end and blank lines between mixed lines",
			text: "interface Ethernet1/1\n  description a\n!\n\npriority-flow-control mode on\n# note\n  mtu 9216\nend\nhostname x\n",
			want: "interface Ethernet1/1\n  description a\n  priority-flow-control mode on\n  mtu 9216\nhostname x\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.String(); got != tt.want {
				t.Fatalf("read as\n%s\nwant\n%s", got, tt.want)
			}
			// What Parse read prints back to text that reads the same.
			again, err := Parse(c.String())
			if err != nil || again.String() != c.String() {
				t.Fatalf("String() does not read back the same (%v):\n%s", err, again)
			}
		})
	}
}

// The port policy of an unindented service-policy line is the interface's:
// the overlap checks must see it.
func TestParseUnindentedServicePolicyIsThePorts(t *testing.T) {
	c, err := Parse("interface Ethernet1/1\n  description host\nservice-policy type qos input PM\n  priority-flow-control mode on\n")
	if err != nil {
		t.Fatal(err)
	}
	o := c.Interface("Ethernet1/1")
	if o == nil {
		t.Fatalf("no Ethernet1/1 in\n%s", c)
	}
	want := []ServicePolicy{{Type: TypeQoS, Direction: "input", Name: "PM"}}
	if got := o.ServicePolicies(); !slices.Equal(got, want) {
		t.Fatalf("Ethernet1/1 service policies %v, want %v", got, want)
	}
	if len(c.Objects) != 1 {
		t.Fatalf("%d objects, want only the interface:\n%s", len(c.Objects), c)
	}
}

// Parse and the simulator's Editor (the switch's grammar as roce models it)
// agree on every mixed file made of lines the Editor knows: replayed line by
// line through the Editor, whose mode alone decides where a line goes, the
// file gives the same objects with the same lines.
func TestParseAgreesWithEditorOnMixedFiles(t *testing.T) {
	defs := "class-map type qos match-all C\n  match cos 4\nclass-map type network-qos C\nmatch qos-group 3\n" +
		"class-map type queuing C\n    match qos-group 3\n" +
		"policy-map type qos PQ\nclass C\n        set qos-group 3\n" +
		"policy-map type network-qos PN\n  class type network-qos C\npause no-drop\n mtu 9216\n" +
		"policy-map type queuing PO\n class type queuing C\n bandwidth percent 60\n\tclass type queuing class-default\n  bandwidth percent 40\n"
	tests := map[string]string{
		"interface lines flat after an indented one": defs +
			"interface Ethernet1/1\n  description a\npriority-flow-control mode on\nservice-policy type qos input PQ\nshutdown\n",
		"global block headers indented under an interface": defs +
			"interface Ethernet1/1\n  priority-flow-control mode on\n  system qos\n    service-policy type network-qos PN\n" +
			"service-policy type queuing output PO\n      interface Ethernet1/2\nflowcontrol receive on\n",
		"class actions and classes at odd indents": defs +
			"policy-map type queuing PO2\n      class type queuing C\n  bandwidth percent 50\n class type queuing class-default\n          bandwidth percent 50\n",
		"tabs and spaces": defs +
			"interface Ethernet1/1\n\t  description a\n \tservice-policy type qos input PQ\nsystem qos\n\t\tservice-policy type network-qos PN\n",
	}
	p := testPlatform(t, "nexus5000")
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			parsed, err := Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			edited := &Config{}
			if err := ApplyCommands(edited, p, nil, strings.Split(text, "\n")); err != nil {
				t.Fatalf("the Editor refuses the file: %v", err)
			}
			if got, want := describeObjects(parsed, true), describeObjects(edited, true); got != want {
				t.Fatalf("Parse read\n%s\nthe Editor made\n%s", got, want)
			}
		})
	}
}

// A refused header takes its block with it, found by the same rule as any
// block's lines: a flat interface line after an indented one is the
// refused interface's, not reported again and not a global line.
func TestParseRefusedBlockInMixedFile(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // the lines the error names, in order
	}{
		{"abbreviated interface", "int e1/1\n  description a\npriority-flow-control mode on\nhostname {{ h }}\n", []string{"line 1:", "line 4:"}},
		{"placeholder header", "interface <name>\n  description a\nservice-policy type qos input {{ p }}\nmtu 9216\nfeature lldp\n", []string{"line 1:", "line 3:"}},
		{"class-map without its name", "class-map type qos\nmatch cos 4\n   match cos 5\nclass-map type qos match-all {{ n }}\n", []string{"line 1:", "line 4:"}},
		{"policy-map with a placeholder, class actions flat", "policy-map type qos {{ p }}\nclass C\nset qos-group 3\n  set dscp 10\ninterface Ethernet1/1\n  mtu {{ m }}\n", []string{"line 1:", "line 6:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.text)
			if err == nil {
				t.Fatal("Parse took the file")
			}
			var got []string
			for _, l := range strings.Split(err.Error(), "\n") {
				if i := strings.Index(l, ":"); strings.HasPrefix(l, "line ") && i > 0 {
					got = append(got, l[:i+1])
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("errors name %v, want %v:\n%v", got, tt.want, err)
			}
		})
	}
}

// Every corpus configuration reads to the objects recorded under
// testdata/golden/parse (go test ./nexus -run TestParseCorpusObjects
// -update rewrites them), and what it reads prints back to text that reads
// the same.
func TestParseCorpusObjects(t *testing.T) {
	for name, text := range corpusConfigs(t) {
		t.Run(name, func(t *testing.T) {
			c, err := Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("parse", strings.TrimSuffix(name, ".cfg")+".txt"), describeObjects(c, false))
			again, err := Parse(c.String())
			if err != nil || again.String() != c.String() {
				t.Fatalf("String() does not read back the same (%v)", err)
			}
		})
	}
}

// describeObjects lists a configuration's objects, their lines and their
// classes' actions, one per line. sorted lists them by key, with classes
// by name (the Editor inserts objects in its own order, and new classes
// before class-default); a modelled class-map's match keyword, which the
// Editor sets to its default, is left out then.
func describeObjects(c *Config, sorted bool) string {
	var objs []string
	for _, o := range c.Objects {
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n", o.Key())
		if !sorted && o.Kind == KindClassMap && o.Match != "" {
			fmt.Fprintf(&b, "  match-keyword %s\n", o.Match)
		}
		for _, l := range o.Lines {
			fmt.Fprintf(&b, "  line %q\n", l)
		}
		classes := slices.Clone(o.Classes)
		if sorted {
			slices.SortFunc(classes, func(a, b *PolicyClass) int { return strings.Compare(a.Name, b.Name) })
		}
		for _, cl := range classes {
			fmt.Fprintf(&b, "  class %s\n", cl.Name)
			for _, a := range cl.Actions {
				fmt.Fprintf(&b, "    action %q\n", a)
			}
		}
		objs = append(objs, b.String())
	}
	if sorted {
		slices.Sort(objs)
	}
	return strings.Join(objs, "")
}
