package nexus

import (
	"slices"
	"strings"
	"testing"
)

// The helpers below replace allocating forms (strings.Fields, building an
// object's Key or text to compare it) in Render and Diff's hot paths
// (issue 19: render + diff of 10,000 switches). Each must answer exactly
// what the form it replaces answers.

func TestFieldsUpTo(t *testing.T) {
	for _, tt := range []struct {
		in   string
		size int
		want []string
	}{
		{"", 4, nil},
		{"   \t ", 4, nil},
		{"mtu 9216", 4, []string{"mtu", "9216"}},
		{"  set  qos-group\t3  ", 4, []string{"set", "qos-group", "3"}},
		{"a b c d e", 2, []string{"a", "b"}},
		{"service-policy type qos input ROCE-QOS-IN", 6, []string{"service-policy", "type", "qos", "input", "ROCE-QOS-IN"}},
		{"x\u00a0y\u2003z", 4, []string{"x", "y", "z"}}, // non-ASCII space, as strings.Fields
		{"\xffa b", 4, []string{"\xffa", "b"}},          // invalid UTF-8 is not a space
	} {
		got := fieldsUpTo(tt.in, make([]string, tt.size))
		if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("fieldsUpTo(%q, %d) = %q, want %q", tt.in, tt.size, got, tt.want)
		}
	}
}

func FuzzFieldsUpTo(f *testing.F) {
	for _, s := range []string{"", "mtu 9216", " set qos-group 3", "a\u00a0b", "\xff \x85x", "flowcontrol  send on"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		all := strings.Fields(s)
		for size := range 4 {
			got := fieldsUpTo(s, make([]string, size))
			want := all[:min(size, len(all))]
			if !slices.Equal(got, want) {
				t.Fatalf("fieldsUpTo(%q, %d) = %q, strings.Fields gives %q", s, size, got, want)
			}
		}
		if len(all) >= 2 {
			if got, want := joinedFields(s, all[0], all[1]), all[0]+" "+all[1]; got != want {
				t.Fatalf("joinedFields(%q) = %q, want %q", s, got, want)
			}
		}
	})
}

// servicePolicyFields is parseServicePolicy as written with strings.Fields,
// kept on purpose as the oracle FuzzLineKey checks the allocation-free
// parser against.
func servicePolicyFields(l string) (ServicePolicy, bool) {
	f := strings.Fields(l)
	if len(f) < 4 || f[0] != "service-policy" || f[1] != "type" {
		return ServicePolicy{}, false
	}
	sp := ServicePolicy{Type: f[2]}
	rest := f[3:]
	if rest[0] == "input" || rest[0] == "output" {
		sp.Direction = rest[0]
		rest = rest[1:]
	}
	if len(rest) != 1 {
		return ServicePolicy{}, false
	}
	sp.Name = rest[0]
	return sp, true
}

func FuzzLineKey(f *testing.F) {
	for _, s := range []string{"set qos-group 3", "set  cos 3", "flowcontrol\tsend on", "untagged", "mtu 9216",
		"service-policy type qos input X", "service-policy type network-qos X", "service-policy type qos input", "service-policy type qos input X Y",
		"service-policy type qos output X Y Z", "priority-flow-control mode on", "match cos 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, l string) {
		// lineKey's only change is how it splits fields and joins the
		// first two; the rest of its rules are covered by the editor tests.
		if f := strings.Fields(l); len(f) > 1 && (f[0] == "set" || f[0] == "flowcontrol" || f[0] == "untagged") {
			if got, want := lineKey(l), f[0]+" "+f[1]; got != want {
				t.Fatalf("lineKey(%q) = %q, want %q", l, got, want)
			}
		}
		gsp, gok := parseServicePolicy(l)
		wsp, wok := servicePolicyFields(l)
		if gsp != wsp || gok != wok {
			t.Fatalf("parseServicePolicy(%q) = %+v %v, want %+v %v", l, gsp, gok, wsp, wok)
		}
	})
}

// checkObjectHelpers checks keyIs, id and sameText against Key and String
// for every pair of objects of the two configs.
func checkObjectHelpers(t *testing.T, a, b *Config) {
	t.Helper()
	m, scan := pairIndex(a, b), objIndex{a: a.Objects, b: b.Objects}
	for _, x := range append(slices.Clone(a.Objects), b.Objects...) {
		if x.Kind == KindRaw {
			continue
		}
		if got, want := scan.get(x.id()), m[x.id()]; got != want {
			t.Fatalf("scanning finds %v for %s, the map %v", got, x.Key(), want)
		}
	}
	for _, x := range a.Objects {
		if !x.keyIs(x.Key()) {
			t.Fatalf("keyIs(own Key %q) is false", x.Key())
		}
		for _, y := range b.Objects {
			if got, want := x.keyIs(y.Key()), x.Key() == y.Key(); got != want {
				t.Fatalf("%q.keyIs(%q) = %v, want %v", x.Key(), y.Key(), got, want)
			}
			if got, want := x.id() == y.id(), x.Key() == y.Key(); got != want {
				t.Fatalf("id(%q) == id(%q) is %v, want %v", x.Key(), y.Key(), got, want)
			}
			if got, want := sameText(x, y), x.String() == y.String(); got != want {
				t.Fatalf("sameText(%q, %q) = %v, want %v", x.String(), y.String(), got, want)
			}
			if x.textLen() != len(x.String()) {
				t.Fatalf("textLen %d, String has %d bytes", x.textLen(), len(x.String()))
			}
		}
	}
}

func TestObjectHelpers(t *testing.T) {
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		cur, err := Parse(readStartForFuzz(kind))
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"udp_port", "cos", "all"} {
			in := intentFor(t, kind, mode, "foreign")
			des, err := Render(in, cur)
			if err != nil {
				continue // a mode the platform cannot express
			}
			checkObjectHelpers(t, cur, des)
		}
	}
	// Same Key, different text; and text that matches although the parts
	// differ (a body line that reads like a class header).
	line := &Object{Kind: KindPolicyMap, Type: TypeQoS, Name: "P", Lines: []string{"class C"}}
	class := &Object{Kind: KindPolicyMap, Type: TypeQoS, Name: "P", Classes: []*PolicyClass{{Name: "C"}}}
	other := &Object{Kind: KindPolicyMap, Type: TypeQoS, Name: "P", Classes: []*PolicyClass{{Name: "C", Actions: []string{"set qos-group 2"}}}}
	cm1 := &Object{Kind: KindClassMap, Type: TypeQoS, Name: "C", Match: "match-any"}
	cm2 := &Object{Kind: KindClassMap, Type: TypeQoS, Name: "C", Match: "match-all"}
	checkObjectHelpers(t, &Config{Objects: []*Object{line, class, other, cm1, cm2}}, &Config{Objects: []*Object{class, line, cm2, cm1, other}})
	if !sameText(line, class) {
		t.Fatal("a body line 'class C' prints as class C does; sameText must say so")
	}
}

func FuzzObjectHelpers(f *testing.F) {
	f.Add(readStartForFuzz("nexus5000"), readStartForFuzz("nexus7000"))
	f.Add("policy-map type qos P\n  class C\n    set qos-group 2\n", "policy-map type qos P\n  class C\n    set qos-group 3\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		ca, err1 := Parse(a)
		cb, err2 := Parse(b)
		if err1 != nil || err2 != nil || len(ca.Objects)*len(cb.Objects) > 4000 {
			return
		}
		checkObjectHelpers(t, ca, cb)
	})
}

// TestCloneIsDeepAndCapped: a clone shares nothing with its source, and
// appending to one object's lines (the clone carves them from one array)
// never changes another's.
func TestCloneIsDeepAndCapped(t *testing.T) {
	src, err := Parse(readStartForFuzz("nexus5000"))
	if err != nil {
		t.Fatal(err)
	}
	want := src.String()
	c := src.Clone()
	if c.String() != want {
		t.Fatal("clone prints differently")
	}
	snapshot := make([]string, len(c.Objects))
	for i, o := range c.Objects {
		snapshot[i] = o.String()
	}
	for i, o := range c.Objects {
		o.Lines = append(o.Lines, "added")
		if len(o.Lines) > 1 {
			o.Lines[0] = "changed"
		}
		for _, pc := range o.Classes {
			pc.Actions = append(pc.Actions, "added")
			pc.Name = "changed"
		}
		for j, other := range c.Objects {
			if j > i && other.String() != snapshot[j] {
				t.Fatalf("editing %s changed %s", o.Key(), other.Key())
			}
		}
	}
	if src.String() != want {
		t.Fatal("editing the clone changed the source")
	}
}

// TestRenderSharesOnlyWhatItKeeps: Render shares the objects it leaves
// unchanged with the current config (no copy of the whole running config
// per switch), never edits current, and every object it changes is its
// own copy, so editing the desired config's changed objects cannot reach
// the current one.
func TestRenderSharesOnlyWhatItKeeps(t *testing.T) {
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		for _, start := range []string{"empty", "foreign", "ours-earlier", "fcoe-defaults"} {
			for _, mode := range []string{"udp_port", "cos", "dscp", "ethertype", "all"} {
				cur := loadStart(t, kind, start)
				in := intentFor(t, kind, mode, start)
				before := cur.Clone()
				des, err := Render(in, cur)
				if err != nil {
					continue // a mode the platform cannot express
				}
				if cur.String() != before.String() {
					t.Fatalf("%s/%s/%s: Render edited the current config", kind, start, mode)
				}
				shared := map[*Object]bool{}
				for _, o := range cur.Objects {
					shared[o] = true
				}
				for _, o := range des.Objects {
					prev := before.Find(o.Key())
					if shared[o] && (prev == nil || prev.String() != o.String()) {
						t.Fatalf("%s/%s/%s: %s is changed but shared with the current config", kind, start, mode, o.Key())
					}
					if !shared[o] {
						for i := range o.Lines {
							o.Lines[i] = "edited"
						}
						for _, c := range o.Classes {
							for i := range c.Actions {
								c.Actions[i] = "edited"
							}
						}
					}
				}
				if cur.String() != before.String() {
					t.Fatalf("%s/%s/%s: editing the desired config's own objects changed the current config", kind, start, mode)
				}
			}
		}
	}
}

// TestReconcileClasses: classes that stay keep the existing order (a name
// the existing policy repeats is kept once, with the last wanted actions),
// new ones go before class-default in the order wanted, dropped ones go.
func TestReconcileClasses(t *testing.T) {
	pc := func(name string, actions ...string) *PolicyClass { return &PolicyClass{Name: name, Actions: actions} }
	names := func(cls []*PolicyClass) string {
		var b strings.Builder
		for _, c := range cls {
			b.WriteString(c.Name + "[" + strings.Join(c.Actions, ",") + "] ")
		}
		return b.String()
	}
	for _, tt := range []struct {
		existing []*PolicyClass
		want     []*PolicyClass
		out      string
	}{
		{nil, nil, ""},
		{[]*PolicyClass{pc("A", "mtu 1500"), pc("B"), pc("class-default", "mtu 1500")},
			[]*PolicyClass{pc("C", "pause no-drop"), pc("A", "mtu 9216"), pc("class-default", "mtu 1500")},
			"A[mtu 9216] C[pause no-drop] class-default[mtu 1500] "},
		{[]*PolicyClass{pc("A"), pc("A", "x")},
			[]*PolicyClass{pc("A", "set qos-group 2"), pc("A", "set qos-group 3"), pc("N"), pc("N", "y")},
			"A[set qos-group 3] N[] N[y] "},
	} {
		got := reconcileClasses(&Object{Kind: KindPolicyMap, Type: TypeQoS, Name: "P", Classes: tt.existing}, tt.want)
		if names(got) != tt.out {
			t.Errorf("reconcileClasses(%s, %s) = %q, want %q", names(tt.existing), names(tt.want), names(got), tt.out)
		}
	}
}
