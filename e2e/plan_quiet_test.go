package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// The demo lab's human plan output says each warning once (issue #18): the
// lab-host warning once for the four hosts, no per-switch copy of
// validation's "Class narrowed to its DSCP", so a no-change plan lists no
// gNMI switch or host, and a drift plan lists the changed switch and one
// summary line for the rest.
func TestDemoPlanWarnsOnce(t *testing.T) {
	l := startLab(t)
	if r := roce(t, l, "", "roce-apply", "-auto-approve", l.Dir); r.code != 0 {
		t.Fatalf("apply\n%s", r)
	}
	r := roce(t, l, "", "roce-plan", "-detailed-exitcode", l.Dir)
	if r.code != 0 {
		t.Fatalf("plan after apply: want exit 0 (no changes)\n%s", r)
	}
	checkWarnsOnce(t, r.stdout)
	for _, quiet := range []string{"switch.eos-1", "switch.sonic-1", "switch.srl-1", "host.h1", "host.h2", "host.h3", "host.h4"} {
		if regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(quiet) + ` `).MatchString(r.stdout) {
			t.Errorf("%s has nothing to change and no warning of its own, yet it is listed:\n%s", quiet, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "No changes.") {
		t.Errorf("no-change plan does not say so:\n%s", r.stdout)
	}

	// Drift on one switch: that switch is listed as changed, the summary
	// counts the rest.
	if out := typeOnSwitch(t, l, "n5k-1",
		"configure terminal",
		"policy-map type network-qos ROCE-NQ",
		"class type network-qos ROCE-rocev2",
		"no pause no-drop pfc-cos 4",
		"end"); strings.Contains(out, "% Invalid") {
		t.Fatalf("the switch refused the edit:\n%s", out)
	}
	r = roce(t, l, "", "roce-plan", "-detailed-exitcode", l.Dir)
	if r.code != 2 {
		t.Fatalf("plan after drift: want exit 2\n%s", r)
	}
	checkWarnsOnce(t, r.stdout)
	listed := regexp.MustCompile(`(?m)^((?:switch|host)\.\S+) \(.*\) (will be changed|is up to date)$`).FindAllStringSubmatch(r.stdout, -1)
	var changed []string
	for _, m := range listed {
		if m[2] == "will be changed" {
			changed = append(changed, m[1])
		}
	}
	if strings.Join(changed, ",") != "switch.n5k-1" {
		t.Errorf("changed targets listed = %v, want only switch.n5k-1:\n%s", changed, r.stdout)
	}
	if !strings.Contains(r.stdout, "on 1 of 9 targets") {
		t.Errorf("the summary does not count the other targets:\n%s", r.stdout)
	}
}

// checkWarnsOnce: no warning line is printed twice, the lab-host warning
// is printed once naming the four hosts, and no switch repeats the UDP
// narrowing that validation already reported.
func checkWarnsOnce(t *testing.T, out string) {
	t.Helper()
	seen := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		w := strings.TrimSpace(line)
		if !strings.HasPrefix(w, "warning: ") {
			continue
		}
		if seen[w] {
			t.Errorf("warning printed twice: %q\n%s", w, out)
		}
		seen[w] = true
	}
	if n := strings.Count(out, "lab host: "); n != 1 {
		t.Errorf("lab-host warning printed %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "on 4 hosts: host.h1, host.h2, host.h3, host.h4") {
		t.Errorf("the lab-host warning does not name the four hosts:\n%s", out)
	}
	if strings.Contains(out, "is not matchable") {
		t.Errorf("a switch repeats validation's UDP narrowing warning:\n%s", out)
	}
}
