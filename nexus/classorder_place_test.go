package nexus

import (
	"slices"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

// Where roce's classes go in the type qos policy it attaches on a 5000
// (issue #15): a class new to that policy goes after the foreign classes
// it carries, so they keep their traffic; a class an earlier roce wrote
// first keeps its place (no re-ordering plan on an upgrade), and only
// then does ClassOrderWarnings speak. The order holds through render →
// diff → apply → diff: the switch model (the Editor) ends up with the
// order rendered, and the second plan is empty.
func TestClassOrderPlacement(t *testing.T) {
	web := "ip access-list WEB\n  permit tcp any any eq 80\nclass-map type qos match-any WEB\n  match access-group name WEB\n"
	foreign := web + "policy-map type qos FOREIGN\n  class WEB\n    set qos-group 2\n  class class-default\nsystem qos\n  service-policy type qos input FOREIGN\n"
	roceFirst := web + "class-map type qos match-all ROCE-rdma\n  match cos 4\n" +
		"policy-map type qos ROCE-QOS-IN\n  class ROCE-rdma\n    set qos-group 3\n  class WEB\n    set qos-group 2\n  class class-default\n" +
		"system qos\n  service-policy type qos input ROCE-QOS-IN\n"
	cos := &policies.Lossless{Name: "rdma", Priority: 4, Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{4}}}
	dscp := &policies.Lossless{Name: "rdma2", Priority: 3, Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}}
	tests := []struct {
		name      string
		cfg       string
		classes   []*policies.Lossless
		wantOrder []string
		wantWarn  []string // substrings, one warning each; nil = no warning
	}{
		{"fresh install beside a foreign WEB class: roce's class after WEB, no warning",
			foreign, []*policies.Lossless{cos},
			[]string{"WEB", "ROCE-rdma", "class-default"}, nil},
		{"existing roce-first policy: the order is kept and said",
			roceFirst, []*policies.Lossless{cos},
			[]string{"ROCE-rdma", "WEB", "class-default"},
			[]string{`lossless "rdma" is matched by CoS 4 and goes ahead of class(es) WEB of policy-map ROCE-QOS-IN`}},
		{"a class that replaces roce's old one goes after WEB; nothing to say",
			roceFirst, []*policies.Lossless{dscp},
			[]string{"WEB", "ROCE-rdma2", "class-default"}, nil},
		{"first install with no foreign class: only roce's class, as before",
			web, []*policies.Lossless{cos},
			[]string{"ROCE-rdma"}, nil},
		{"fresh install of a dscp class beside WEB: after it, no warning",
			foreign, []*policies.Lossless{dscp},
			[]string{"WEB", "ROCE-rdma2", "class-default"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cur, err := Parse(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			in := Intent{Platform: testPlatform(t, "nexus5000"), Classes: tc.classes, Interfaces: []string{"Ethernet1/1"}}
			des, err := Render(in, cur)
			if err != nil {
				t.Fatal(err)
			}
			if got := classNames(des.PolicyMap(TypeQoS, DefaultPrefix+qosPolicySuffix)); !slices.Equal(got, tc.wantOrder) {
				t.Errorf("rendered order %q, want %q", got, tc.wantOrder)
			}
			_, script, err := Diff(cur, des, in.Platform)
			if err != nil {
				t.Fatal(err)
			}
			applied := cur.Clone()
			if err := ApplyCommands(applied, in.Platform, nil, script); err != nil {
				t.Fatalf("apply: %v\n%s", err, strings.Join(script, "\n"))
			}
			if got := classNames(applied.PolicyMap(TypeQoS, DefaultPrefix+qosPolicySuffix)); !slices.Equal(got, tc.wantOrder) {
				t.Errorf("order on the switch after apply %q, want %q\n%s", got, tc.wantOrder, strings.Join(script, "\n"))
			}
			if ex := cur.PolicyMap(TypeQoS, DefaultPrefix+qosPolicySuffix); ex != nil {
				for _, l := range script {
					name := strings.TrimPrefix(l, "no class ")
					if name != l && ex.Class(name) != nil && slices.Contains(tc.wantOrder, name) {
						t.Errorf("the plan re-orders the existing policy: %q\n%s", l, strings.Join(script, "\n"))
					}
				}
			}
			planAndReplan(t, cur, des, in)
			warns := ClassOrderWarnings(in, des)
			if len(warns) != len(tc.wantWarn) {
				t.Fatalf("warnings %q, want %d", warns, len(tc.wantWarn))
			}
			for i, w := range tc.wantWarn {
				if !strings.Contains(warns[i], w) || !strings.Contains(warns[i], "no class ROCE-rdma") {
					t.Errorf("warning %q, want it to contain %q and the fix", warns[i], w)
				}
			}
		})
	}
}

func classNames(pm *Object) []string {
	if pm == nil {
		return nil
	}
	var out []string
	for _, c := range pm.Classes {
		out = append(out, c.Name)
	}
	return out
}

// BenchmarkClassOrderWarnings10k is what the warning adds to a plan of
// 10,000 switches: it reads the config the plan rendered anyway (rendered
// here before the timer starts; compare BenchmarkRenderDiff10k).
func BenchmarkClassOrderWarnings10k(b *testing.B) {
	fleet := scaleFleet(b, scaleConfigs)
	desired := make([]*Config, len(fleet))
	for i, c := range fleet {
		d, err := Render(c.in, c.cur)
		if err != nil {
			b.Fatal(err)
		}
		desired[i] = d
	}
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime(b)
	n := 0
	for b.Loop() {
		n = 0
		for i, c := range fleet {
			n += len(ClassOrderWarnings(c.in, desired[i]))
		}
	}
	b.ReportMetric((cpuTime(b)-c0).Seconds()/float64(b.N), "cpu-s/10k")
	b.ReportMetric(float64(n), "warnings/10k")
}
