package nxos

import (
	"strings"
	"testing"
)

func TestInterfaceList(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"Ethernet1/1"}, "Ethernet1/1"},
		{[]string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/3"}, "Ethernet1/1-3"},
		{[]string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/4", "Ethernet2/5", "Ethernet2/6"}, "Ethernet1/1-2,Ethernet1/4,Ethernet2/5-6"},
		{[]string{"Ethernet1/3", "Ethernet1/2"}, "Ethernet1/3,Ethernet1/2"},
		{[]string{"port-channel10", "Ethernet101/1/1", "Ethernet101/1/2"}, "port-channel10,Ethernet101/1/1-2"},
	} {
		if got := interfaceList(tc.in); got != tc.want {
			t.Errorf("interfaceList(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseCurrentVDC(t *testing.T) {
	for _, tc := range []struct {
		in      string
		id      int
		name    string
		wantErr bool
	}{
		{in: "Current vdc is 1 - N7K-A", id: 1, name: "N7K-A"},
		{in: "\nCurrent vdc is 3 - prod\n", id: 3, name: "prod"},
		{in: "% Invalid command at '^' marker.", wantErr: true},
		{in: "Current vdc is x - prod", wantErr: true},
	} {
		id, name, err := parseCurrentVDC(tc.in)
		if (err != nil) != tc.wantErr || id != tc.id || name != tc.name {
			t.Errorf("parseCurrentVDC(%q) = %d %q %v", tc.in, id, name, err)
		}
	}
}

func TestSplitSessionLog(t *testing.T) {
	log := "N5K-A# sh ver\nCisco Nexus Operating System\n  system:    version 5.2(1)N1(4)\nN5K-A# show mod\nMod Ports\nN5K-A# show running-config\nversion 5.2(1)N1(4)\nsystem qos\nN5K-A# exit\n"
	got := splitSessionLog(log)
	for cmd, want := range map[string]string{
		"show version":        "Cisco Nexus Operating System\n  system:    version 5.2(1)N1(4)\n",
		"show module":         "Mod Ports\n",
		"show running-config": "version 5.2(1)N1(4)\nsystem qos\n",
	} {
		if got[cmd] != want {
			t.Errorf("%s: got %q, want %q", cmd, got[cmd], want)
		}
	}
}

func FuzzSplitSessionLog(f *testing.F) {
	f.Add("sw1# show version\nx\nsw1(config)# show run\ny\n")
	f.Add("no prompt at all")
	f.Fuzz(func(t *testing.T, s string) {
		for cmd, out := range splitSessionLog(s) {
			for _, l := range strings.Split(out, "\n") {
				if promptLine.MatchString(l) {
					t.Fatalf("prompt line %q leaked into the output of %q", l, cmd)
				}
			}
		}
	})
}

func FuzzParseCurrentVDC(f *testing.F) {
	f.Add("Current vdc is 1 - N7K")
	f.Add("Current vdc is 99999999999999999999 - x")
	f.Fuzz(func(t *testing.T, s string) {
		id, name, err := parseCurrentVDC(s)
		if err == nil && (id < 0 || name == "") {
			t.Fatalf("accepted %q as %d %q", s, id, name)
		}
	})
}

// TestPlanWarnsOfUnconfirmedFacts: the plan says, once, in plain words and
// citing their sources, which UNCONFIRMED facts the rendering rests on.
func TestPlanWarnsOfUnconfirmedFacts(t *testing.T) {
	tests := []struct {
		kind, start, mode string
		want              []string
	}{
		{"nexus7000", "empty", "cos", []string{
			"egress queuing is pinned as a system output queuing policy",
			"default-nq-* template classes and their CoS sets",
		}},
		{"nexus7000", "empty", "udp_port", []string{
			`lossless "rocev2" matches by udp_port, but nexus7000 network-qos templates classify by CoS only (docs/nxos.md#qos), so it is rendered as 'match cos 4'`,
		}},
		{"nexus5000", "fcoe-defaults", "cos", []string{
			"fcoe-default-* policies are UNCONFIRMED in detail (docs/nxos.md#qos)",
			"at most 1 user no-drop class(es) enforced; the real limit is UNCONFIRMED (docs/nxos.md#qos)",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.kind+"/"+tc.start+"/"+tc.mode, func(t *testing.T) {
			r := newRig(t, rigOpts{kind: tc.kind, start: tc.start, mode: tc.mode})
			tp := r.plan(t)
			all := strings.Join(tp.Warnings, "\n")
			for _, w := range tc.want {
				if strings.Count(all, w) != 1 {
					t.Errorf("want %q exactly once in the plan's warnings:\n%s", w, all)
				}
			}
			seen := map[string]bool{}
			for _, w := range tp.Warnings {
				if seen[w] {
					t.Errorf("warning repeated: %q", w)
				}
				seen[w] = true
			}
			// Still there when the plan is empty: the applied config rests
			// on the same facts.
			if res, err := r.apply(t, tp); err != nil {
				t.Fatalf("apply: %s %v", res.Status, err)
			}
			again := r.plan(t)
			if again.HasChanges() || strings.Join(again.Warnings, "\n") != all {
				t.Errorf("second plan: changes %v, warnings %q, want none and %q", again.Commands, again.Warnings, all)
			}
		})
	}
}
