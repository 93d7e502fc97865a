package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A Nexus 7000 Layer 2 port frames at its own MTU, 1500 unless it has an
// `mtu` line (docs/nxos.md#port-mtu): the lab's n7k-1 ports are such ports
// and its lossless class has a 9214-byte MTU. The plan sets `mtu 9216`
// (the default system jumbomtu) on each managed port; after apply the
// switch itself reports 9216 in `show interface` read back over SSH, the
// unmanaged M1 port keeps 1500, and the next plan is empty. A port put
// back to 1500 by hand is named by roce-verify, which reads the port MTU.
func TestPlanApply7000PortMTU(t *testing.T) {
	l := startLab(t)
	addr := l.Sims["n7k-1"].Addr()
	managed := []string{"Ethernet3/1", "Ethernet3/2", "Ethernet3/3", "Ethernet3/4"}
	showMTU := func(port string) string {
		t.Helper()
		screen, _ := typeAt(t, addr, l.Password, []string{"show interface " + port})
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(port) + ` is [^\n]*\n(?:[^\n]*\n)*?\s+MTU (\d+) bytes`).FindStringSubmatch(strings.ReplaceAll(screen, "\r\n", "\n"))
		if m == nil {
			t.Fatalf("show interface %s printed no MTU:\n%s", port, screen)
		}
		return m[1]
	}
	for _, p := range append(managed, "Ethernet4/1") {
		if got := showMTU(p); got != "1500" {
			t.Fatalf("before the plan %s has MTU %s, want the 7000 default 1500", p, got)
		}
	}

	planFile := filepath.Join(t.TempDir(), "plan.roce")
	r := roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", "switch.n7k-1", "-out", planFile, l.Dir)
	if r.code != 2 {
		t.Fatalf("first plan: want exit 2 (changes)\n%s", r)
	}
	for _, p := range managed {
		_, after, ok := strings.Cut(r.stdout, "~ interface "+p+" ")
		if end := strings.Index(after, "\n  ~ "); end >= 0 {
			after = after[:end]
		}
		if !ok || !regexp.MustCompile(`(?m)^\s+\+\s+mtu 9216$`).MatchString(after) {
			t.Errorf("the plan does not show roce setting mtu 9216 on %s:\n%s", p, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "~ interface Ethernet4/1") {
		t.Errorf("the plan changes the unmanaged port Ethernet4/1:\n%s", r.stdout)
	}

	if r := roce(t, l, "", "roce-apply", planFile); r.code != 0 {
		t.Fatalf("apply of the saved plan failed\n%s", r)
	}
	for _, p := range managed {
		if got := showMTU(p); got != "9216" {
			t.Errorf("after apply %s has MTU %s, want 9216 (the system jumbomtu)", p, got)
		}
	}
	if got := showMTU("Ethernet4/1"); got != "1500" {
		t.Errorf("after apply the unmanaged Ethernet4/1 has MTU %s, want 1500", got)
	}

	r = roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", "switch.n7k-1", l.Dir)
	if r.code != 0 || !strings.Contains(r.stdout, "No changes") {
		t.Fatalf("second plan: want exit 0 and no changes\n%s", r)
	}

	// The whole fabric applied, roce-verify passes; then someone removes
	// the MTU of h2's port, and roce-verify reads the port MTU back from
	// the switch and names it.
	if r := roce(t, l, "", "roce-apply", "-auto-approve", l.Dir); r.code != 0 {
		t.Fatalf("apply of the fabric\n%s", r)
	}
	if r := roce(t, l, "", "roce-verify", l.Dir); r.code != 0 {
		t.Fatalf("verify of the applied fabric: want exit 0\n%s", r)
	}
	if err := l.Sims["n7k-1"].Switch().Configure("interface Ethernet3/1", "no mtu 9216"); err != nil {
		t.Fatal(err)
	}
	if got := showMTU("Ethernet3/1"); got != "1500" {
		t.Fatalf("after removing the mtu line Ethernet3/1 has MTU %s, want 1500", got)
	}
	r = roce(t, l, "", "roce-verify", l.Dir)
	if r.code != 3 || !strings.Contains(r.stdout, "cause: mtu on switch.n7k-1: MTU 1500 is below the NICs'") {
		t.Fatalf("verify with Ethernet3/1 back at 1500: want exit 3 naming the MTU on switch.n7k-1\n%s", r)
	}
}

// A switch whose system jumbomtu is below the lossless class's MTU cannot
// carry the class on a Layer 2 port (docs/nxos.md#port-mtu): roce-plan
// refuses it, naming the switch, the port, the jumbomtu and the fix, and
// nothing is pushed.
func TestPlan7000ClassAboveJumboMTURefused(t *testing.T) {
	l := startLab(t)
	sw := l.Sims["n7k-1"].Switch()
	if err := sw.ReplaceRunningConfig(sw.RunningConfig() + "system jumbomtu 8000\n"); err != nil {
		t.Fatal(err)
	}
	before := sw.RunningConfig()
	r := roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", "switch.n7k-1", l.Dir)
	if r.code != 1 {
		t.Fatalf("want exit 1 (refused)\n%s", r)
	}
	out := r.stdout + r.stderr
	for _, want := range []string{"switch.n7k-1", `lossless "rocev2" has mtu 9214`, "Ethernet3/1 is a Layer 2 port", "system jumbomtu, here 8000", "raise the switch's `system jumbomtu` to 9214"} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal does not say %q\n%s", want, r)
		}
	}
	if r := roce(t, l, "", "roce-apply", "-auto-approve", "-target", "switch.n7k-1", l.Dir); r.code == 0 {
		t.Errorf("apply went through a refused plan\n%s", r)
	}
	if sw.RunningConfig() != before {
		t.Error("the refused switch was changed")
	}
}
