package nexus

import (
	"fmt"
	"strings"
	"testing"
)

// bigConfig5000 is a large, realistic Nexus 5500 running-config: the
// foreign start state plus many foreign QoS objects and 96 interfaces.
func bigConfig5000(b testing.TB) (string, []string) {
	var sb strings.Builder
	sb.WriteString(readStartForFuzz("nexus5000"))
	for i := range 60 {
		fmt.Fprintf(&sb, "ip access-list APP-%d\n  10 permit tcp any any eq %d\n  20 permit udp any any eq %d\n", i, 1000+i, 2000+i)
		fmt.Fprintf(&sb, "class-map type qos match-any APP-%d\n  match access-group name APP-%d\n", i, i)
		fmt.Fprintf(&sb, "policy-map type qos APP-POLICY-%d\n  class APP-%d\n    set qos-group 2\n  class class-default\n", i, i)
	}
	var ifs []string
	for p := 4; p < 100; p++ {
		name := fmt.Sprintf("Ethernet1/%d", p)
		ifs = append(ifs, name)
		fmt.Fprintf(&sb, "interface %s\n  description server-%d\n  switchport mode trunk\n  switchport trunk allowed vlan 10,20\n  spanning-tree port type edge trunk\n", name, p)
	}
	return sb.String(), ifs
}

func BenchmarkParse(b *testing.B) {
	text, _ := bigConfig5000(b)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := Parse(text); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderDiff(b *testing.B) {
	text, ifs := bigConfig5000(b)
	cur, err := Parse(text)
	if err != nil {
		b.Fatal(err)
	}
	in := intentFor(b, "nexus5000", "udp_port", "foreign")
	in.Interfaces = ifs
	for b.Loop() {
		des, err := Render(in, cur)
		if err != nil {
			b.Fatal(err)
		}
		if _, script, err := Diff(cur, des, in.Platform); err != nil || len(script) == 0 {
			b.Fatal(err, len(script))
		}
	}
}

func TestBigConfigRoundTrip(t *testing.T) {
	text, ifs := bigConfig5000(t)
	cur, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	in := intentFor(t, "nexus5000", "udp_port", "foreign")
	in.Interfaces = ifs
	des, _, script := renderDiff(t, in, cur)
	if err := ApplyCommands(cur, in.Platform, nil, script); err != nil {
		t.Fatal(err)
	}
	if _, again, _ := Diff(cur, des, in.Platform); len(again) != 0 {
		t.Fatalf("not empty: %v", again)
	}
}

func TestBuiltinPoliciesParse(t *testing.T) {
	c, err := Parse(n5kBuiltinPolicies)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Objects) != 8 {
		t.Fatalf("%d built-in policies, want 8", len(c.Objects))
	}
	p := testPlatform(t, "nexus5000")
	if LookupPolicy(&Config{}, p, TypeNetworkQoS, "fcoe-default-nq-policy").Class("class-fcoe") == nil {
		t.Fatal("fcoe-default-nq-policy has no class-fcoe")
	}
	p7 := testPlatform(t, "nexus7000")
	if LookupPolicy(&Config{}, p7, TypeNetworkQoS, "default-nq-7e-policy") == nil || LookupPolicy(&Config{}, p7, TypeNetworkQoS, "fcoe-default-nq-policy") != nil {
		t.Fatal("7000 built-ins are the default-nq templates only")
	}
}

func TestTemplates(t *testing.T) {
	for _, tt := range []struct {
		need []int
		want string
	}{{[]int{3}, "default-nq-7e-policy"}, {[]int{4}, "default-nq-6e-policy"}, {[]int{3, 4}, "default-nq-6e-policy"}, {[]int{1, 2}, "default-nq-4e-policy"}} {
		got, err := ChooseNQTemplate(tt.need)
		if err != nil || got.Name != tt.want {
			t.Errorf("ChooseNQTemplate(%v) = %s, %v; want %s", tt.need, got.Name, err, tt.want)
		}
	}
	if _, err := ChooseNQTemplate([]int{6}); err == nil {
		t.Error("no template makes CoS 6 no-drop; want an error")
	}
	tpl, _ := ChooseNQTemplate([]int{3})
	if tpl.CopyName("ROCE-") != "ROCE-nq-7e" {
		t.Errorf("copy name %q", tpl.CopyName("ROCE-"))
	}
}
