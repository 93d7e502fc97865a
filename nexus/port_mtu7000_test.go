package nexus

import (
	"slices"
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// On a Nexus 7000 a Layer 2 port frames at its own MTU, 1500 unless it has
// an `mtu` line, and takes only 1500 or the system jumbomtu
// (docs/nxos.md#port-mtu). roce sets `mtu <jumbomtu>` on managed Layer 2
// ports that have no mtu line when a class needs more than 1500, refuses a
// class above the jumbomtu, and never touches an mtu line that is there.
// Routed ports and the Nexus 5000 keep the older rule (an explicit lower
// mtu is refused, nothing is added).
func TestRenderPortMTU(t *testing.T) {
	class := func(mtu int) []*policies.Lossless {
		return []*policies.Lossless{{Name: "rdma", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{4}}, Priority: 4, MTU: mtu}}
	}
	const (
		l2      = "interface Ethernet2/1\n  switchport\n  switchport mode trunk\n"
		routed  = "interface Ethernet2/1\n  no switchport\n  ip address 10.0.0.1/30\n"
		fiveK   = "interface Ethernet1/1\n  switchport\n"
		refusal = "Fix one side"
	)
	tests := []struct {
		name, kind, cur string
		line            string // Intent.JumboMTULine: read apart from cur, as the provider does
		mtu             int
		want            []string // the port's lines after the plan, in order; nil when refused
		refuse          []string // what the refusal must say
	}{
		{name: "L2 port without mtu gets the default jumbomtu", kind: "nexus7000", cur: l2, mtu: 9216,
			want: []string{"switchport", "switchport mode trunk", "priority-flow-control mode on", "mtu 9216"}},
		{name: "a RoCE 4096 MTU class also needs the jumbo port MTU", kind: "nexus7000", cur: l2, mtu: 4200,
			want: []string{"switchport", "switchport mode trunk", "priority-flow-control mode on", "mtu 9216"}},
		{name: "port missing from the config is created with the jumbo MTU", kind: "nexus7000", cur: l2Default7000, mtu: 9216,
			want: []string{"priority-flow-control mode on", "mtu 9216"}},
		{name: "port missing from a config whose ports default to Layer 3 refused", kind: "nexus7000", cur: "", mtu: 9216,
			refuse: []string{"Ethernet2/1 is a routed port", "without `system default switchport`", "give the port `mtu 9216` yourself"}},
		{name: "port without a switchport line under the Layer 3 default refused", kind: "nexus7000", cur: "interface Ethernet2/1\n  description x\n", mtu: 9216,
			refuse: []string{"Ethernet2/1 is a routed port"}},
		{name: "system jumbomtu 8000 is the value set", kind: "nexus7000", cur: "system jumbomtu 8000\n" + l2, mtu: 4200,
			want: []string{"switchport", "switchport mode trunk", "priority-flow-control mode on", "mtu 8000"}},
		{name: "class above system jumbomtu 8000 refused", kind: "nexus7000", cur: "system jumbomtu 8000\n" + l2, mtu: 9216,
			refuse: []string{`lossless "rdma" has mtu 9216`, "Ethernet2/1 is a Layer 2 port", "system jumbomtu, here 8000", "raise the switch's `system jumbomtu` to 9216", "lower the class's mtu to 8000", refusal}},
		{name: "NX-OSv system jumbomtu 0 refused", kind: "nexus7000", cur: "system jumbomtu 0\n" + l2, mtu: 4200,
			refuse: []string{"system jumbomtu, here 0", "longer than 0 bytes"}},
		{name: "unreadable jumbomtu names the line", kind: "nexus7000", cur: "system jumbomtu 99999\n" + l2, mtu: 9216,
			refuse: []string{`"system jumbomtu 99999"`, "correct it on the switch"}},
		{name: "jumbomtu read apart from the configuration", kind: "nexus7000", cur: l2, line: "system jumbomtu 8000", mtu: 4200,
			want: []string{"switchport", "switchport mode trunk", "priority-flow-control mode on", "mtu 8000"}},
		{name: "the line read apart wins over the configuration's", kind: "nexus7000", cur: "system jumbomtu 9216\n" + l2, line: "system jumbomtu 8000", mtu: 9216,
			refuse: []string{"system jumbomtu, here 8000"}},
		{name: "unreadable line read apart names it", kind: "nexus7000", cur: l2, line: "system jumbomtu big", mtu: 9216,
			refuse: []string{`"system jumbomtu big"`}},
		{name: "explicit mtu 1500 on an L2 port refused", kind: "nexus7000", cur: l2 + "  mtu 1500\n", mtu: 9216,
			refuse: []string{"Ethernet2/1 is configured with mtu 1500", "raise the port's mtu to 9216, the system jumbomtu", "not roce's to change", refusal}},
		{name: "explicit mtu at jumbomtu kept as it is", kind: "nexus7000", cur: l2 + "  mtu 9216\n", mtu: 9216,
			want: []string{"switchport", "switchport mode trunk", "mtu 9216", "priority-flow-control mode on"}},
		{name: "class at 1500 adds nothing", kind: "nexus7000", cur: l2, mtu: 1500,
			want: []string{"switchport", "switchport mode trunk", "priority-flow-control mode on"}},
		{name: "class without mtu adds nothing", kind: "nexus7000", cur: l2, mtu: 0,
			want: []string{"switchport", "switchport mode trunk", "priority-flow-control mode on"}},
		{name: "routed port without mtu refused", kind: "nexus7000", cur: routed, mtu: 9216,
			refuse: []string{"Ethernet2/1 is a routed port (no switchport", "give the port `mtu 9216` yourself", "routing neighbours compare it"}},
		{name: "routed 5000 port without mtu refused", kind: "nexus5000", cur: "interface Ethernet1/1\n  no switchport\n  ip address 10.0.0.1/30\n", mtu: 9216,
			refuse: []string{"Ethernet1/1 is a routed port (no switchport"}},
		{name: "routed port without mtu, class at 1500", kind: "nexus7000", cur: routed, mtu: 1500,
			want: []string{"no switchport", "ip address 10.0.0.1/30", "priority-flow-control mode on"}},
		{name: "routed port ignores jumbomtu", kind: "nexus7000", cur: "system jumbomtu 1500\n" + routed + "  mtu 9216\n", mtu: 9216,
			want: []string{"no switchport", "ip address 10.0.0.1/30", "mtu 9216", "priority-flow-control mode on"}},
		{name: "routed port with a lower mtu refused", kind: "nexus7000", cur: routed + "  mtu 1500\n", mtu: 9216,
			refuse: []string{"Ethernet2/1 is configured with mtu 1500", "raise the port's mtu to 9216 (it is not roce's to change)"}},
		{name: "5000 L2 port unchanged", kind: "nexus5000", cur: fiveK, mtu: 9216,
			want: []string{"switchport", "priority-flow-control mode on"}},
		{name: "5000 ignores system jumbomtu", kind: "nexus5000", cur: "system jumbomtu 1500\n" + fiveK, mtu: 9216,
			want: []string{"switchport", "priority-flow-control mode on"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur, err := Parse(tt.cur)
			if err != nil {
				t.Fatal(err)
			}
			in := Intent{Platform: testPlatform(t, tt.kind), Classes: class(tt.mtu), JumboMTULine: tt.line}
			port := "Ethernet1/1"
			if tt.kind == "nexus7000" {
				in.Modules, port = testModules7000, "Ethernet2/1"
			}
			in.Interfaces = []string{port}
			des, err := Render(in, cur)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("accepted; want a refusal saying %q", tt.refuse)
				}
				for _, w := range tt.refuse {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("refusal lacks %q:\n%v", w, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got := des.Interface(port).Lines; !slices.Equal(got, tt.want) {
				t.Errorf("port lines %q, want %q", got, tt.want)
			}
			// Applied as the switch would, the second plan is empty.
			roundTrip(t, in, cur)
		})
	}
}

// The mtu line roce adds is shown in the plan as roce's change to the
// port (the interface change's commands and its After), and a plan
// against the applied configuration is empty.
func TestPlanShowsPortMTU7000(t *testing.T) {
	in := intentFor(t, "nexus7000", "cos", "realistic")
	cur := loadStart(t, "nexus7000", "realistic")
	_, changes, _ := renderDiff(t, in, cur)
	for _, ifn := range in.Interfaces {
		i := slices.IndexFunc(changes, func(c plan.Change) bool { return c.Address == "interface "+ifn })
		if i < 0 {
			t.Fatalf("no change for %s", ifn)
		}
		c := changes[i]
		if !slices.Contains(c.Commands, "mtu 9216") || !strings.Contains(c.After, "  mtu 9216\n") || strings.Contains(c.Before, "mtu") {
			t.Errorf("%s: commands %q, before %q, after %q; want mtu 9216 added", ifn, c.Commands, c.Before, c.After)
		}
	}
	script := roundTrip(t, in, cur)
	if n := strings.Count(strings.Join(script, "\n"), "\nmtu 9216\n"); n < len(in.Interfaces) {
		t.Errorf("the script sets the port MTU %d times, want at least %d:\n%s", n, len(in.Interfaces), strings.Join(script, "\n"))
	}
}

// What a Nexus 7000 answers to `mtu N` on a Layer 2 port: 1500 and the
// system jumbomtu are taken, anything else is refused with the switch's
// line (the MadNetworks capture: "ERROR: Ethernet3/9: MTU on L2
// interfaces can only be set to default or system-jumboMTU").
func TestPortMTURefusal(t *testing.T) {
	const refusal = "ERROR: Ethernet3/9: MTU on L2 interfaces can only be set to default or system-jumboMTU"
	tests := []struct {
		name, kind, cur, line, want string
	}{
		{"default jumbo", "nexus7000", "", "mtu 9216", ""},
		{"default", "nexus7000", "", "mtu 1500", ""},
		{"blog's 8000", "nexus7000", "interface Ethernet3/9\n  switchport\n", "mtu 8000", refusal},
		{"abbreviated", "nexus7000", "", "mt 8000", refusal},
		{"lowered jumbomtu taken", "nexus7000", "system jumbomtu 8000\n", "mtu 8000", ""},
		{"lowered jumbomtu: 9216 refused", "nexus7000", "system jumbomtu 8000\n", "mtu 9216", refusal},
		{"routed port takes any", "nexus7000", "interface Ethernet3/9\n  no switchport\n", "mtu 8000", ""},
		{"not a number left to the grammar", "nexus7000", "", "mtu jumbo", ""},
		{"other commands", "nexus7000", "", "speed 10000", ""},
		{"no mtu", "nexus7000", "", "no mtu 8000", ""},
		{"5000 untouched", "nexus5000", "", "mtu 8000", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur, err := Parse(l2Default7000 + tt.cur)
			if err != nil {
				t.Fatal(err)
			}
			ce := PortMTURefusal(testPlatform(t, tt.kind), cur, "Ethernet3/9", tt.line)
			switch {
			case tt.want == "" && ce != nil:
				t.Errorf("refused: %v", ce)
			case tt.want != "" && (ce == nil || ce.Message != tt.want || ce.Kind != "error"):
				t.Errorf("got %+v, want the error %q", ce, tt.want)
			}
		})
	}
	// Without `system default switchport` a port with no switchport line
	// is a routed one: any mtu in range is taken.
	l3, err := Parse("interface Ethernet3/9\n  description x\n")
	if err != nil {
		t.Fatal(err)
	}
	if ce := PortMTURefusal(testPlatform(t, "nexus7000"), l3, "Ethernet3/9", "mtu 8000"); ce != nil {
		t.Errorf("a port under the Layer 3 default refused mtu 8000: %v", ce)
	}
}

// FuzzJumboMTU: any configuration's jumbomtu reads without panicking, is
// within 0-9216 when read, and PortMTURefusal answers every line.
func FuzzJumboMTU(f *testing.F) {
	for _, s := range []string{"system jumbomtu 9216\n", "system jumbomtu 0\n", "system jumbomtu\n", "system jumbomtu -1\n", "system jumbomtu 8000 extra\n", "interface Ethernet1/1\n  no switchport\n"} {
		f.Add(s, "mtu 8000")
	}
	p7 := testPlatform(f, "nexus7000")
	f.Fuzz(func(t *testing.T, cfg, line string) {
		c, err := Parse(cfg)
		if err != nil {
			return
		}
		j, err := JumboMTU(c)
		if err == nil && (j < 0 || j > DefaultJumboMTU) {
			t.Fatalf("jumbomtu %d out of range from %q", j, cfg)
		}
		if j, err := ParseJumboMTU(line); err == nil && (j < 0 || j > DefaultJumboMTU) {
			t.Fatalf("jumbomtu %d out of range from line %q", j, line)
		}
		if ce := PortMTURefusal(p7, c, "Ethernet1/1", line); ce != nil && !strings.HasPrefix(ce.Message, "ERROR: Ethernet1/1: ") {
			t.Fatalf("refusal %q", ce.Message)
		}
	})
}
