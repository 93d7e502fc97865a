package nxsim

import (
	"slices"
	"strings"
	"testing"
)

// The simulated release decides, as on the device, whether a release-
// dependent command exists (docs/nxos.md#version-rules): a Nexus 7000 on a
// release before 6.2(2) refuses the eight-queue (4q8q) templates with the
// parser's caret under the template's name and keeps nothing; from 6.2(2)
// the same line is taken.
func TestConfigLineRefusedByRelease(t *testing.T) {
	const line = "policy-map type queuing default-8e-4q8q-out-policy"
	for _, tc := range []struct {
		release string
		refused bool
	}{
		{"6.1(2)", true},
		{"5.2(9)", true},
		{"6.2(1)", true},
		{"6.2(2)", false},
		{"6.2(14)", false},
		{"7.3(1)D1(1)", false},
	} {
		t.Run(tc.release, func(t *testing.T) {
			opts := Options{Platform: "nexus7000", Version: tc.release}
			if tc.release == "5.2(9)" {
				opts.Modules = sup1Era() // the default Supervisor 2 needs 6.1(1)
			}
			sw := newTestSwitch(t, opts)
			screen := runScript(t, sw, []string{"configure terminal", line, "end"})
			// From the typed line (after its prompt) on: the answer, then
			// the prompt `end` is typed at.
			all := strings.Split(screen, "\n")
			at := slices.IndexFunc(all, func(l string) bool { return strings.HasSuffix(l, "# "+line) })
			if at < 1 {
				t.Fatalf("screen:\n%s", screen)
			}
			lines := append(all[at-1:], "", "")
			typed := lines[1]
			kept := strings.Contains(sw.RunningConfig(), "policy-map type queuing default-8e-4q8q-out-policy")
			if !tc.refused {
				if strings.Contains(screen, "Invalid command") || !kept {
					t.Fatalf("release %s refused the line (kept=%v):\n%s", tc.release, kept, screen)
				}
				if !strings.Contains(lines[2], "(config-pmap-que)#") {
					t.Errorf("not in the policy-map's mode after it: %q", lines[2])
				}
				return
			}
			if kept {
				t.Fatalf("release %s kept the refused line:\n%s", tc.release, sw.RunningConfig())
			}
			want := strings.Index(typed, "default-8e-4q8q-out-policy")
			if lines[2] != strings.Repeat(" ", want)+"^" || lines[3] != "% Invalid command at '^' marker." {
				t.Fatalf("answer is not the caret under the template name (column %d):\n%s", want, screen)
			}
			if !strings.HasSuffix(lines[4], "(config)# end") {
				t.Errorf("mode changed after the refusal: %q", lines[4])
			}
		})
	}
}

// The other platform, and a release-independent line, are not judged by
// the 7000's rule.
func TestConfigLineNotRefusedElsewhere(t *testing.T) {
	sw := newTestSwitch(t, Options{Platform: "nexus5000", Version: "5.0(3)N1(1)"})
	screen := runScript(t, sw, []string{"configure terminal", "policy-map type queuing default-8e-4q8q-out-policy", "end"})
	if strings.Contains(screen, "Invalid command") {
		t.Fatalf("a Nexus 5000 refused a 7000 release rule:\n%s", screen)
	}
	sw = newTestSwitch(t, Options{Platform: "nexus7000", Version: "6.1(2)"})
	screen = runScript(t, sw, []string{"configure terminal", "policy-map type queuing default-4q-8e-out-policy", "end"})
	if strings.Contains(screen, "Invalid command") {
		t.Fatalf("6.1(2) refused a four-queue template name:\n%s", screen)
	}
}

// A startup configuration holding a line its release does not have fails
// to load, naming the line and the release that has it; on that release it
// loads.
func TestStartupConfigRefusedByRelease(t *testing.T) {
	startup := "hostname n7k\npolicy-map type queuing default-8e-4q8q-out-policy\n  class type queuing class-default\n"
	_, err := New(Options{Platform: "nexus7000", Version: "6.1(2)", StartupConfig: startup})
	if err == nil {
		t.Fatal("6.1(2) loaded a startup config with a 4q8q template")
	}
	for _, want := range []string{"startup config", "line 2", "default-8e-4q8q-out-policy", "not in NX-OS 6.1(2)", "upgrade to 6.2(2) or later"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	sw, err := New(Options{Platform: "nexus7000", Version: "6.2(2)", StartupConfig: startup})
	if err != nil {
		t.Fatalf("6.2(2): %v", err)
	}
	if !strings.Contains(sw.RunningConfig(), "default-8e-4q8q-out-policy") {
		t.Errorf("6.2(2) dropped the line:\n%s", sw.RunningConfig())
	}
}
