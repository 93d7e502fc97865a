package plan

import (
	"strings"
	"testing"
)

// labWarning is a warning every lab host carries, as the host provider
// gives it, and nxWarning one all Nexus 7000 switches of a plan share.
const (
	labWarning = "lab host: DCB, VLAN devices and RDMA sysfs/configfs are emulated (lab-emulated backend)"
	nxWarning  = "nexus7000: at most 1 user no-drop class(es) enforced"
	n5kWarning = "nexus5000: the contents of the built-in fcoe-default-* policies are UNCONFIRMED in detail"
)

// fixtureGroupedPlan: a drift plan of a lab where one switch changed,
// two switches share a warning, one of them also has its own, one more
// switch is up to date with a warning of its own, and four hosts are up to
// date but carry the lab warning.
func fixtureGroupedPlan() *Plan {
	p := &Plan{FormatVersion: FormatVersion}
	p.Targets = append(p.Targets,
		&TargetPlan{Address: "switch.n7k-1", Kind: "nexus7000", Endpoint: "127.0.0.1:2201",
			Warnings: []string{nxWarning, "ports Ethernet1/3 are down"},
			Changes: []Change{{Address: "policy-map type network-qos ROCE-nq-6e", Action: ActionUpdate, Drift: true,
				Before: "class c-nq-6e-ndrop\n  mtu 9216\n", After: "class c-nq-6e-ndrop\n  pause no-drop\n  mtu 9216\n", Disrupt: DisruptionNone}}},
		&TargetPlan{Address: "switch.n7k-2", Kind: "nexus7000", Endpoint: "127.0.0.1:2202", Changes: []Change{},
			Warnings: []string{nxWarning}},
		&TargetPlan{Address: "switch.n5k-1", Kind: "nexus5000", Endpoint: "127.0.0.1:2203", Changes: []Change{},
			Warnings: []string{n5kWarning}},
	)
	for _, h := range []string{"host.a", "host.b", "host.c", "host.d"} {
		p.Targets = append(p.Targets, &TargetPlan{Address: h, Kind: "host", Changes: []Change{}, Warnings: []string{labWarning, labWarning}})
	}
	return p
}

// A warning several targets share is printed once, naming them; targets
// that have nothing but shared warnings are not listed (the summary counts
// them); a target's own warning stays in its section (in Markdown, in the
// warnings list, without a table row when the target is up to date).
func TestRenderGroupsSharedWarnings(t *testing.T) {
	txt, md, _ := renderAll(t, fixtureGroupedPlan())
	checkGolden(t, "grouped.txt", []byte(txt))
	checkGolden(t, "grouped.md", []byte(md))
	for _, tc := range []struct {
		name, out string
		escape    func(string) string
	}{{"text", txt, func(s string) string { return s }}, {"markdown", md, mdEscape}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range []string{labWarning, nxWarning, n5kWarning, "ports Ethernet1/3 are down"} {
				if n := strings.Count(tc.out, tc.escape(w)); n != 1 {
					t.Errorf("warning %q printed %d times, want once:\n%s", w, n, tc.out)
				}
			}
			for _, want := range []string{"on 4 hosts: host.a, host.b, host.c, host.d", "on 2 switches: switch.n7k-1, switch.n7k-2"} {
				if !strings.Contains(tc.out, want) {
					t.Errorf("missing %q:\n%s", want, tc.out)
				}
			}
		})
	}
	if !strings.Contains(txt, "switch.n5k-1 (nexus5000, 127.0.0.1:2203) is up to date\n  warning: "+n5kWarning+"\n") {
		t.Errorf("the up-to-date switch's own warning is not in its section:\n%s", txt)
	}
	if strings.Contains(md, "| `switch.n5k-1`") {
		t.Errorf("an up-to-date target has a table row for its warning alone:\n%s", md)
	}
	for _, h := range []string{"host.a (", "host.b (", "host.c (", "host.d ("} {
		if strings.Contains(txt, h) {
			t.Errorf("%s listed only for a shared warning:\n%s", h, txt)
		}
	}
	if !strings.Contains(txt, "switch.n7k-1 (nexus7000, 127.0.0.1:2201) will be changed") {
		t.Errorf("the changed switch is not listed:\n%s", txt)
	}
}

func TestOnTargets(t *testing.T) {
	for _, tc := range []struct {
		addrs []string
		want  string
	}{
		{[]string{"host.a", "host.b"}, "on 2 hosts: host.a, host.b"},
		{[]string{"switch.s1", "switch.s2", "switch.s3"}, "on 3 switches: switch.s1, switch.s2, switch.s3"},
		{[]string{"switch.s1", "host.a"}, "on 2 targets: switch.s1, host.a"},
	} {
		if got := onTargets(tc.addrs); got != tc.want {
			t.Errorf("onTargets(%q) = %q, want %q", tc.addrs, got, tc.want)
		}
	}
}
