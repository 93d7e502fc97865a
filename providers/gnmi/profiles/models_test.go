package profiles

import (
	"fmt"
	"testing"
)

// Each profile's needed models, as targets advertise them: present, absent,
// older, newer, without a version, SR Linux's URN form.
func TestCheckModels(t *testing.T) {
	m := func(name, version string) Model { return Model{Name: name, Version: version} }
	cases := []struct {
		profile    string
		advertised []Model
		missing    string // fmt of Missing
		older      string // fmt of Older
	}{
		{"openconfig", []Model{m("openconfig-interfaces", "3.8.1"), m("openconfig-qos", "2.2.0")}, "[]", "[]"},
		{"openconfig", []Model{m("openconfig-interfaces", "3.8.1"), m("openconfig-qos", "2.1.9")}, "[]", "[openconfig-qos 2.1.9 (roce is validated against 2.2.0)]"},
		{"openconfig", []Model{m("openconfig-interfaces", "3.10.0"), m("openconfig-qos", "2.10")}, "[]", "[]"},
		{"openconfig", []Model{m("openconfig-interfaces", "3.8.1")}, "[openconfig-qos 2.2.0]", "[]"},
		{"arista", []Model{m("openconfig-interfaces", "3.8.1"), m("openconfig-qos", "2.0.1"), m("arista-qos-augments", "")}, "[]", "[]"},
		{"arista", []Model{m("openconfig-interfaces", "3.8.1"), m("openconfig-qos", "2.0.1"), m("arista-qos-augments", "0.0.3")}, "[]", "[arista-qos-augments 0.0.3 (roce is validated against 0.0.4)]"},
		{"arista", []Model{m("openconfig-interfaces", "3.8.1"), m("openconfig-qos", "2.0.1")}, "[arista-qos-augments 0.0.4]", "[]"},
		{"sonic", []Model{m("sonic-db", "0.1.0")}, "[]", "[]"},
		{"sonic", []Model{m("sonic-port-qos-map", "1.0")}, "[sonic-db 0.1.0]", "[]"},
		{"srlinux", []Model{m("urn:srl_nokia/qos:srl_nokia-qos", "2025-03-31"), m("urn:srl_nokia/interfaces:srl_nokia-interfaces", "2025-07-31")}, "[]", "[]"},
		{"srlinux", []Model{m("urn:srl_nokia/qos:srl_nokia-qos", "2024-10-31"), m("srl_nokia-interfaces", "2025-03-31")}, "[]", "[srl_nokia-qos 2024-10-31 (roce is validated against 2025-03-31)]"},
		{"srlinux", []Model{m("srl_nokia-qos", "v25.3.1"), m("srl_nokia-interfaces", "2025-03-31")}, "[]", "[]"}, // not comparable: not judged
		{"srlinux", nil, "[srl_nokia-qos 2025-03-31 srl_nokia-interfaces 2025-03-31]", "[]"},
	}
	for _, tc := range cases {
		p, err := New(tc.profile, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		c := CheckModels(p, tc.advertised)
		if got := fmt.Sprint(c.Missing); got != tc.missing {
			t.Errorf("%s %v: missing %s, want %s", tc.profile, tc.advertised, got, tc.missing)
		}
		if got := fmt.Sprint(c.Older); got != tc.older {
			t.Errorf("%s %v: older %s, want %s", tc.profile, tc.advertised, got, tc.older)
		}
	}
}

// The advertised names and versions come from the target: any string is
// taken without a panic, a module name never keeps a namespace, and the
// version order is antisymmetric and reflexive where it applies.
func FuzzCheckModels(f *testing.F) {
	for _, s := range [][3]string{
		{"urn:srl_nokia/qos:srl_nokia-qos", "2025-03-31", "2024-10-31"},
		{"openconfig-qos", "2.2.0", "2.10.1"},
		{"arista-qos-augments", "", "0.0.4"},
		{"sonic-db", "0.1.0", "v1"},
		{":", "9999-99-99", "1.-1"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	p, err := New("srlinux", Settings{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name, a, b string) {
		if n := ModelName(name); len(n) > len(name) || (len(n) > 0 && n[0] == ':') {
			t.Fatalf("ModelName(%q) = %q", name, n)
		}
		ab, ok1 := compareVersions(a, b)
		ba, ok2 := compareVersions(b, a)
		if ok1 != ok2 || (ok1 && ab != -ba) {
			t.Fatalf("compareVersions(%q, %q) = %d,%v but reversed %d,%v", a, b, ab, ok1, ba, ok2)
		}
		if aa, ok := compareVersions(a, a); ok && aa != 0 {
			t.Fatalf("compareVersions(%q, itself) = %d", a, aa)
		}
		c := CheckModels(p, []Model{{Name: name, Version: a}, {Name: "srl_nokia-interfaces", Version: b}})
		if len(c.Missing)+len(c.Older) > 2 {
			t.Fatalf("more findings than needed models: %+v", c)
		}
	})
}
