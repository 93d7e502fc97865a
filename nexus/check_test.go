package nexus

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Check refuses what the switch would refuse when it loads the file, naming
// each line; it accepts what the switch accepts, in any layout.
func TestCheck(t *testing.T) {
	good := "ip access-list roce-acl\n  10 permit udp any any eq 4791\n" +
		"class-map type qos match-all roce\n  match access-group name roce-acl\n" +
		"policy-map type qos roce-in\n  class roce\n    set qos-group 3\n  class class-default\n" +
		"class-map type network-qos roce-nq\n  match qos-group 3\n" +
		"policy-map type network-qos roce-nq-pol\n  class type network-qos roce-nq\n    pause no-drop\n    mtu 9216\n" +
		"system qos\n  service-policy type qos input roce-in\n  service-policy type network-qos roce-nq-pol\n" +
		"interface Ethernet1/1\n  switchport mode trunk\n  priority-flow-control mode on\n"
	tests := []struct {
		name, kind, text string
		lines            []int // the lines reported, in order
		want             string
	}{
		{"accepted as is", "nexus5000", good, nil, ""},
		{"accepted flat", "nexus5000", flat(good), nil, ""},
		{"cos out of range", "nexus5000", "class-map type qos match-all c\n  match cos 8\n", []int{2}, "Invalid command"},
		{"mtu out of range", "nexus5000", strings.Replace(good, "mtu 9216", "mtu 10000", 1), []int{14}, "Invalid"},
		{"undefined class-map", "nexus5000", strings.Replace(good, "  class roce\n", "  class roce-typo\n", 1), []int{6, 7}, "class-map roce-typo of type qos does not exist"},
		{"undefined policy-map", "nexus5000", strings.Replace(good, "input roce-in\n", "input roce-inn\n", 1), []int{16}, "policy-map roce-inn of type qos does not exist"},
		{"undefined access-list", "nexus5000", strings.Replace(good, "name roce-acl", "name nope", 1), []int{4}, "access-list nope does not exist"},
		{"bad pfc mode", "nexus5000", strings.Replace(good, "mode on\n", "mode maybe\n", 1), []int{20}, "Invalid"},
		{"network-qos class-map on a 7000", "nexus7000", "class-map type network-qos x\n  match qos-group 3\n", []int{1}, "system-defined"},
		{"pfc on an M-series port", "nexus7000", "interface Ethernet2/1\n  priority-flow-control mode on\n", []int{2}, "M-series"},
		{"lines of other features not judged", "nexus5000", "feature lldp\nvlan 10\n  name x\nrouter bgp 65000\n  neighbor 10.0.0.1\n    remote-as 1\n" +
			"interface Ethernet1/2\n  channel-group 10 mode active\n  ip address 10.0.0.1/24\n", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPlatform(t, tt.kind)
			mods := []Module{{Slot: 1, Ports: 48, Model: "N7K-F248XP-25", Series: "F"}, {Slot: 2, Ports: 48, Model: "N7K-M148GT-11", Series: "M"}}
			c, err := Check(tt.text, p, mods)
			if c == nil {
				t.Fatalf("Check returned no config: %v", err)
			}
			var got []int
			for _, le := range lineErrors(t, err) {
				got = append(got, le.Line)
			}
			if len(tt.lines) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if len(got) < 1 || got[0] != tt.lines[0] || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("lines %v, error %v; want lines %v and %q", got, err, tt.lines, tt.want)
			}
		})
	}
}

// lineErrors is the *LineError of each error joined in err; any other
// error fails the test.
func lineErrors(t testing.TB, err error) []*LineError {
	t.Helper()
	var out []*LineError
	for _, e := range unjoin(err) {
		var le *LineError
		if !errors.As(e, &le) {
			t.Fatalf("error without a line: %v", e)
		}
		out = append(out, le)
	}
	return out
}

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func flat(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString(strings.TrimSpace(l) + "\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// CheckRelease refuses what the running release does not have yet, naming
// the release that has it; the same line passes on that release and
// later, on a release it cannot read, and on the other platform.
func TestCheckRelease(t *testing.T) {
	q8 := "system qos\n  service-policy type queuing output default-8e-4q8q-out-policy\n"
	tests := []struct {
		name, kind, release, text string
		line                      int    // 0 = accepted
		want                      string // in the error
	}{
		{"4q8q before 6.2(2)", "nexus7000", "6.2(1)", q8, 2, "not in NX-OS 6.2(1): the eight-queue (4q8q) queuing templates exist from NX-OS 6.2(2)"},
		{"4q8q on 6.1(4a)", "nexus7000", "6.1(4a)", q8, 2, "not in NX-OS 6.1(4a)"},
		{"4q8q on 5.2(9)", "nexus7000", "5.2(9)", q8, 2, "upgrade to 6.2(2) or later"},
		{"4q8q on 6.2(2)", "nexus7000", "6.2(2)", q8, 0, ""},
		{"4q8q on 6.2(14)", "nexus7000", "6.2(14)", q8, 0, ""},
		{"4q8q on 7.3(1)D1(1)", "nexus7000", "7.3(1)D1(1)", q8, 0, ""},
		{"release unknown", "nexus7000", "", q8, 0, ""},
		{"4q4q is not a 6.2(2) template", "nexus7000", "6.2(1)", strings.Replace(q8, "4q8q", "4q4q", 1), 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPlatform(t, tt.kind)
			c, err := CheckRelease(tt.text, p, nil, tt.release)
			if c == nil {
				t.Fatalf("no config: %v", err)
			}
			var got []int
			for _, e := range unjoin(err) {
				var le *LineError
				if errors.As(e, &le) && strings.Contains(le.Error(), "not in NX-OS") {
					got = append(got, le.Line)
				}
			}
			if tt.line == 0 {
				if len(got) != 0 {
					t.Fatalf("refused for the release: %v", err)
				}
				return
			}
			if len(got) != 1 || got[0] != tt.line || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("lines %v, error %v; want line %d and %q", got, err, tt.line, tt.want)
			}
		})
	}
}

func TestParseRelease(t *testing.T) {
	for s, want := range map[string][3]int{"6.2(14)": {6, 2, 14}, "5.2(1)N1(4)": {5, 2, 1}, "7.3(1)D1(1)": {7, 3, 1}, "4.1(3)": {4, 1, 3}, "6.1(4a)": {6, 1, 4}} {
		if got, ok := parseRelease(s); !ok || got != want {
			t.Errorf("parseRelease(%q) = %v %v, want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "6", "6.2", "6.2(x)", "NXOS"} {
		if _, ok := parseRelease(s); ok {
			t.Errorf("parseRelease(%q) read a release", s)
		}
	}
	if !releaseBefore("5.2(9)", "6.2(2)") || releaseBefore("6.2(2)", "6.2(2)") || !releaseBefore("6.2(1)", "6.2(2)") || releaseBefore("6.10(1)", "6.2(2)") {
		t.Error("releaseBefore orders releases wrongly")
	}
}

// FuzzParseRelease: any string either reads as a release whose parts are
// non-negative, or does not read; a release is never before itself.
func FuzzParseRelease(f *testing.F) {
	for _, s := range []string{"6.2(14)", "5.2(1)N1(4)", "7.3(1)D1(1)", "6.1(4a)", "", "6.2(", "x.y(z)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := parseRelease(s)
		if !ok {
			return
		}
		if v[0] < 0 || v[1] < 0 || v[2] < 0 {
			t.Fatalf("parseRelease(%q) = %v", s, v)
		}
		if releaseBefore(s, s) {
			t.Fatalf("%q is before itself", s)
		}
	})
}

// CheckPushRelease judges the commands roce would send by the same rules:
// each line the release lacks is named by its position in the commands,
// with the release and the next step; the others (and every line on a
// release that has them, or one that cannot be read) pass.
func TestCheckPushRelease(t *testing.T) {
	cmds := []string{
		"qos copy policy-map type network-qos default-nq-7e-policy prefix RoCE-",
		"policy-map type queuing default-8e-4q8q-out-policy",
		"system qos",
		"  service-policy type queuing output default-7e-4q8q-out-policy",
		"  service-policy type network-qos RoCE-nq-7e",
	}
	p7, p5 := testPlatform(t, "nexus7000"), testPlatform(t, "nexus5000")
	tests := []struct {
		name    string
		p       Platform
		release string
		lines   []int
	}{
		{"6.1(2) refuses both 4q8q lines", p7, "6.1(2)", []int{2, 4}},
		{"6.2(1) refuses both", p7, "6.2(1)", []int{2, 4}},
		{"6.2(2) takes them", p7, "6.2(2)", nil},
		{"7.2(0)D1(1) takes them", p7, "7.2(0)D1(1)", nil},
		{"release unknown", p7, "", nil},
		{"not a 5000 rule", p5, "5.0(3)N1(1)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPushRelease(cmds, tt.p, tt.release)
			var got []int
			for _, le := range lineErrors(t, err) {
				got = append(got, le.Line)
				if le.Text != strings.TrimSpace(cmds[le.Line-1]) {
					t.Errorf("line %d text %q, want %q", le.Line, le.Text, cmds[le.Line-1])
				}
				for _, want := range []string{"not in NX-OS " + tt.release, "upgrade to 6.2(2) or later"} {
					if !strings.Contains(le.Error(), want) {
						t.Errorf("%q lacks %q", le.Error(), want)
					}
				}
			}
			if !slices.Equal(got, tt.lines) {
				t.Fatalf("refused lines %v, want %v (%v)", got, tt.lines, err)
			}
		})
	}
}

// ReleaseRefusal answers as the parser of an older release: an invalid
// command with the caret under the word it lacks; nothing for a release
// that has it.
func TestReleaseRefusal(t *testing.T) {
	p7 := testPlatform(t, "nexus7000")
	for _, tt := range []struct {
		line, release string
		col           int // -1: not refused
	}{
		{"policy-map type queuing default-8e-4q8q-out-policy", "6.1(2)", 24},
		{"service-policy type queuing output default-4e-4q8q-out-policy", "6.2(1)", 35},
		{"no policy-map type queuing default-8e-4q8q-out-policy", "6.1(2)", 27},
		{"qos copy policy-map type queuing default-6e-4q8q-out-policy prefix X-", "5.2(9)", 33},
		{"policy-map type queuing default-8e-4q8q-out-policy", "6.2(2)", -1},
		{"policy-map type queuing default-8e-4q8q-out-policy", "", -1},
		{"policy-map type queuing default-4q-8e-out-policy", "6.1(2)", -1},
		{"policy-map type queuing my-4q8q-policy", "6.1(2)", -1},
	} {
		ce := ReleaseRefusal(tt.line, p7, tt.release)
		switch {
		case tt.col < 0 && ce != nil:
			t.Errorf("%q on %s refused: %v", tt.line, tt.release, ce)
		case tt.col >= 0 && ce == nil:
			t.Errorf("%q on %s taken", tt.line, tt.release)
		case tt.col >= 0 && (ce.Kind != "invalid" || ce.Pos != tt.col || ce.Message != msgInvalid):
			t.Errorf("%q on %s: %+v, want invalid at %d", tt.line, tt.release, ce, tt.col)
		}
	}
	if ce := ReleaseRefusal("policy-map type queuing default-8e-4q8q-out-policy", testPlatform(t, "nexus5000"), "5.0(3)N1(1)"); ce != nil {
		t.Errorf("a 5000 refused a 7000 rule: %v", ce)
	}
}

// FuzzReleaseRefusal: for any line and release, the parser's refusal and
// the plan's judgement agree, and a caret never points past the line.
func FuzzReleaseRefusal(f *testing.F) {
	for _, s := range []string{
		"policy-map type queuing default-8e-4q8q-out-policy",
		"  service-policy type queuing output default-7e-4q8q-out-policy",
		"no qos copy policy-map type queuing default-4e-4q8q-out-policy prefix X-",
		"\tdefault-8e-4q8q-out-policy\tdefault-8e-4q8q-out-policy",
		"", "no", "default-",
	} {
		f.Add(s, "6.1(2)")
		f.Add(s, "6.2(2)")
	}
	p := testPlatform(f, "nexus7000")
	f.Fuzz(func(t *testing.T, line, release string) {
		ce := ReleaseRefusal(line, p, release)
		err := CheckPushRelease([]string{line}, p, release)
		if (ce == nil) != (err == nil) {
			t.Fatalf("%q on %q: parser %v, plan %v", line, release, ce, err)
		}
		if ce != nil && (ce.Pos < 0 || ce.Pos >= len(line)) {
			t.Fatalf("%q: caret at %d", line, ce.Pos)
		}
	})
}
