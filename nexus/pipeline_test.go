package nexus

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// misplaced pastes lines[from:to] onto a session in the planned state
// before line from, with the lines in refused taken as refused by the
// switch, and after every line taken checks the session's configuration:
// every object, class and line in it must be in the configuration before
// the push or in the planned one after it (a line may be missing, as a
// refused line's is, but nothing may be where the plan does not put it).
// It returns the first violation ("" when none). It is the brute-force
// oracle for PushGroups: independent of its bookkeeping, it runs the paste.
func misplaced(t *testing.T, cfg *Config, p Platform, mods []Module, lines []string, from, to int, refused map[int]bool) string {
	t.Helper()
	plan := NewEditor(cfg.Clone(), p, mods)
	var start *Config
	var startState modeState
	seen := allowed{}
	seen.add(cfg)
	for i, l := range lines {
		if i == from {
			start, startState = plan.cfg.Clone(), plan.state()
		}
		if err := plan.Line(l); err != nil {
			t.Fatalf("the plan itself is refused at line %d %q: %v", i+1, l, err)
		}
		seen.add(plan.cfg)
	}
	if start == nil {
		t.Fatalf("group start %d beyond %d lines", from, len(lines))
	}
	ed, found := editorAt(start, p, mods, startState)
	if !found {
		t.Fatalf("no object for %v", startState)
	}
	for i := from; i < to; i++ {
		if refused[i] {
			continue
		}
		before := ed.state()
		if err := ed.Line(lines[i]); err != nil {
			continue
		}
		if bad := seen.outside(ed.cfg); bad != "" {
			return fmt.Sprintf("line %d %q typed in %s (now %s): %s", i+1, lines[i], before, ed.state(), bad)
		}
	}
	return ""
}

// allowed is everything the configuration holds before the push or after
// any line of the plan: object headers, lines, classes and their actions.
type allowed map[string]bool

func (a allowed) add(c *Config) {
	for _, o := range c.Objects {
		k := o.Key()
		a[k] = true
		a[k+"\x00header\x00"+o.canonicalHeader()] = true
		for _, l := range o.Lines {
			a[k+"\x00line\x00"+l] = true
		}
		for _, cl := range o.Classes {
			a[k+"\x00class\x00"+cl.Name] = true
			for _, l := range cl.Actions {
				a[k+"\x00class\x00"+cl.Name+"\x00"+l] = true
			}
		}
	}
}

// outside names what in got the plan never has, or "".
func (a allowed) outside(got *Config) string {
	for _, o := range got.Objects {
		k := o.Key()
		switch {
		case !a[k]:
			return "object " + k + " is not in the plan"
		case !a[k+"\x00header\x00"+o.canonicalHeader()]:
			return k + ": header " + o.canonicalHeader()
		}
		for _, l := range o.Lines {
			if !a[k+"\x00line\x00"+l] {
				return k + ": line " + l
			}
		}
		for _, cl := range o.Classes {
			if !a[k+"\x00class\x00"+cl.Name] {
				return k + ": class " + cl.Name
			}
			for _, l := range cl.Actions {
				if !a[k+"\x00class\x00"+cl.Name+"\x00"+l] {
					return k + " class " + cl.Name + ": " + l
				}
			}
		}
	}
	return ""
}

// groupsOf turns cuts into [from, to) ranges.
func groupsOf(cuts []PushCut, n int) [][2]int {
	var out [][2]int
	from := 0
	for _, c := range cuts {
		out = append(out, [2]int{from, c.Line})
		from = c.Line
	}
	return append(out, [2]int{from, n})
}

// checkNoMisplacement refuses, within every group, each mode-changing
// line of the plan and each pair of them, and requires the oracle to find
// nothing. A header written again is refused exactly when the line it
// repeats is (the switch answers the same top-level line the same way).
func checkNoMisplacement(t *testing.T, cfg *Config, p Platform, mods []Module, push *Push) {
	t.Helper()
	lines := push.Lines
	plan := NewEditor(cfg.Clone(), p, mods)
	var changing []int
	repeatOf := map[int]int{}
	for i, l := range lines {
		b := plan.state()
		if err := plan.Line(l); err != nil {
			t.Fatal(err)
		}
		if push.From[i] < 0 {
			for j := i - 1; j >= 0; j-- {
				if lines[j] == l && push.From[j] >= 0 {
					repeatOf[i] = j
					break
				}
			}
			if _, ok := repeatOf[i]; !ok {
				t.Fatalf("sent line %d %q repeats no plan line", i+1, l)
			}
			continue
		}
		if plan.state() != b {
			changing = append(changing, i)
		}
	}
	for _, g := range push.Groups() {
		var in []int
		for _, i := range changing {
			if i >= g[0] && i < g[1] {
				in = append(in, i)
			}
		}
		for a := 0; a < len(in); a++ {
			for b := a; b < len(in); b++ {
				refused := map[int]bool{in[a]: true, in[b]: true}
				for r, o := range repeatOf {
					refused[r] = refused[o]
				}
				if m := misplaced(t, cfg, p, mods, lines, g[0], g[1], refused); m != "" {
					t.Fatalf("group of sent lines %d-%d, %s and %s refused: %s", g[0]+1, g[1], push.Name(in[a]), push.Name(in[b]), m)
				}
			}
		}
	}
}

// planLines is the push without its repeated headers.
func planLines(p *Push) []string {
	var out []string
	for i, l := range p.Lines {
		if p.From[i] >= 0 {
			out = append(out, l)
		}
	}
	return out
}

// TestPushGroupsRendered: for every platform × mode × start state the
// rendered script's groups hold (the oracle finds no line taken elsewhere
// than the plan takes it, with any one or two mode changes refused), and
// the groups are recorded in golden files for review.
func TestPushGroupsRendered(t *testing.T) {
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		for _, start := range startsFor(t, kind) {
			for _, mode := range []string{"cos", "udp_port", "dscp", "ethertype", "all"} {
				t.Run(kind+"/"+mode+"/"+start, func(t *testing.T) {
					in := intentFor(t, kind, mode, start)
					cur := loadStart(t, kind, start)
					des, err := Render(in, cur)
					if err != nil {
						t.Fatalf("render: %v", err) // every combination renders today; a refusal here is a regression
					}
					_, script, err := Diff(cur, des, in.Platform)
					if err != nil {
						t.Fatal(err)
					}
					push, err := PlanPush(cur, in.Platform, in.Modules, script)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(planLines(push), script) {
						t.Fatalf("the push is not the script:\n%s", strings.Join(push.Lines, "\n"))
					}
					checkNoMisplacement(t, cur, in.Platform, in.Modules, push)
					// Without the headers written again, the plain groups
					// hold too (the fallback when they prove nothing).
					cuts, err := PushGroups(cur, in.Platform, in.Modules, script)
					if err != nil {
						t.Fatal(err)
					}
					checkNoMisplacement(t, cur, in.Platform, in.Modules, &Push{Lines: script, From: plainPush(script).From, Cuts: cuts})
					var b strings.Builder
					fmt.Fprintf(&b, "%d lines, %d groups without headers written again; pushed: %d lines, %d groups\n", len(script), len(cuts)+1, len(push.Lines), len(push.Cuts)+1)
					for i := range push.Lines {
						if push.From[i] < 0 {
							b.WriteString("written again: " + push.Name(i) + "\n")
						}
					}
					for _, c := range push.Cuts {
						b.WriteString(push.Explain(c) + "\n")
					}
					checkGolden(t, "pipeline-"+kind+"-"+mode+"-"+start+".txt", b.String())
				})
			}
		}
	}
}

// TestPushGroupsCutsWhereAPasteWouldMisplace: without its boundaries, the
// oracle finds the hazard each boundary is there for (so neither it nor
// PushGroups passes vacuously): line 10 `class ROCE-rdma` refused would
// leave line 11 `set qos-group 2` to run in class class-fcoe, the class
// before it (roce's new class goes after the foreign ones).
func TestPushGroupsCutsWhereAPasteWouldMisplace(t *testing.T) {
	in := intentFor(t, "nexus5000", "cos", "fcoe-defaults")
	cur := loadStart(t, "nexus5000", "fcoe-defaults")
	_, _, script := renderDiff(t, in, cur)
	if script[9] != "class ROCE-rdma" || script[10] != "set qos-group 2" {
		t.Fatalf("script changed; lines 10-11 are %q, %q", script[9], script[10])
	}
	m := misplaced(t, cur, in.Platform, nil, script, 0, len(script), map[int]bool{9: true})
	if !strings.Contains(m, `line 11 "set qos-group 2"`) || !strings.Contains(m, "class class-fcoe") {
		t.Errorf("oracle without boundaries: %q", m)
	}
	cuts, err := PushGroups(cur, in.Platform, nil, script)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range cuts {
		found = found || (c.Line > 9 && c.Line <= 10)
	}
	if !found {
		t.Errorf("no boundary between lines 10 and 11: %v", cuts)
	}
	// A script the grammar refuses is not grouped: the caller sends it
	// line by line.
	if _, err := PushGroups(cur, in.Platform, nil, []string{"system qos", "no-such-command"}); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("refused script: err %v", err)
	}
}

// BenchmarkPlanPush is the CPU an apply spends proving its groups (the
// 38-line Nexus 5000 script with FCoE).
func BenchmarkPlanPush(b *testing.B) {
	in := intentFor(b, "nexus5000", "cos", "fcoe-defaults")
	cur := loadStart(b, "nexus5000", "fcoe-defaults")
	_, _, script := renderDiff(b, in, cur)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PlanPush(cur, in.Platform, nil, script); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzPlanPush: any script (lines separated by newlines) onto a 5000's
// start state either is refused by the grammar or gets a push that is the
// script with headers written again and boundaries in order, inside it.
func FuzzPlanPush(f *testing.F) {
	f.Add("class-map type qos match-all X\nmatch cos 4\npolicy-map type qos P\nclass X\nset qos-group 2\nclass class-fcoe\nset qos-group 1")
	f.Add("interface Ethernet1/1\npriority-flow-control mode on\ninterface Ethernet1/2\nmtu 9216")
	f.Add("system qos\nservice-policy type qos input P\nexit\nexit")
	f.Fuzz(func(t *testing.T, text string) {
		p := testPlatform(t, "nexus5000")
		cur := loadStart(t, "nexus5000", "fcoe-defaults")
		lines := strings.Split(text, "\n")
		if len(lines) > 60 {
			return
		}
		push, err := PlanPush(cur, p, nil, lines)
		if err != nil {
			return
		}
		if !slices.Equal(planLines(push), lines) || len(push.From) != len(push.Lines) {
			t.Fatalf("push %q is not the script %q", push.Lines, lines)
		}
		prev := 0
		for _, c := range push.Cuts {
			if c.Line <= prev || c.Line >= len(push.Lines) || c.Origin >= c.Line {
				t.Fatalf("boundary %+v after %d in %d lines", c, prev, len(push.Lines))
			}
			prev = c.Line
		}
	})
}

// TestPipelinedPushRows: the capability rows the provider reads before it
// pipelines a push (docs/nxos.md#pipelined).
func TestPipelinedPushRows(t *testing.T) {
	for _, tc := range []struct {
		kind string
		want bool
	}{{"nexus5000", true}, {"nexus7000", true}, {"nexus9000", false}} {
		ok, why := Platform{Kind: tc.kind}.PipelinedPush("7.1(4)N1(1)")
		if ok != tc.want || why == "" {
			t.Errorf("%s: %v (%q), want %v with a reason", tc.kind, ok, why, tc.want)
		}
	}
}
