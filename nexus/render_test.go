package nexus

import (
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

func TestRender7000RefusesMSeries(t *testing.T) {
	in := intentFor(t, "nexus7000", "cos", "empty")
	in.Interfaces = []string{"Ethernet2/1", "Ethernet3/1"}
	_, err := Render(in, loadStart(t, "nexus7000", "empty"))
	if err == nil {
		t.Fatal("a port on an M-series module was accepted")
	}
	for _, want := range []string{"Ethernet3/1", "slot 3", "N7K-M148GT-11L", "M-series", "F-series"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "Ethernet2/1") {
		t.Errorf("refusal names the F-series port too: %v", err)
	}
}

func TestRenderValidation(t *testing.T) {
	cos := func(name string, prio int) *policies.Lossless {
		return &policies.Lossless{Name: name, Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{prio}}, Priority: prio}
	}
	all := &policies.Lossless{Name: "all", Match: policies.Match{Kind: policies.MatchAll}}
	tests := []struct {
		name string
		kind string
		mod  func(*Intent)
		want string
	}{
		{"too many no-drop", "nexus5000", func(in *Intent) { in.Classes = []*policies.Lossless{cos("a", 4), cos("b", 5)} }, "at most 1"},
		{"all with others", "nexus5000", func(in *Intent) { in.Classes = []*policies.Lossless{all, cos("b", 5)} }, "must be the only class"},
		{"all traffic with FCoE 5000", "nexus5000", func(in *Intent) { in.Classes = []*policies.Lossless{all}; in.FCoE = true }, "needs PFC on CoS 3"},
		{"all traffic with FCoE 7000", "nexus7000", func(in *Intent) { in.Classes = []*policies.Lossless{all}; in.FCoE = true }, "needs PFC on CoS 3"},
		{"fcoe cos clash", "nexus5000", func(in *Intent) { in.Classes = []*policies.Lossless{cos("a", 3)}; in.FCoE = true }, "FCoE CoS"},
		{"mtu range", "nexus5000", func(in *Intent) { c := cos("a", 4); c.MTU = 12000; in.Classes = []*policies.Lossless{c} }, "outside"},
		{"bad name", "nexus5000", func(in *Intent) { in.Classes = []*policies.Lossless{cos("a b", 4)} }, "name"},
		{"non-canonical port", "nexus5000", func(in *Intent) { in.Interfaces = []string{"eth1/1"} }, "canonical"},
		{"7000 needs modules", "nexus7000", func(in *Intent) { in.Modules = nil }, "show module"},
		{"bandwidth does not fit", "nexus5000", func(in *Intent) { c := cos("a", 4); c.BandwidthPercent = 100; in.Classes = []*policies.Lossless{c} }, "bandwidth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := intentFor(t, tt.kind, "cos", "empty")
			tt.mod(&in)
			_, err := Render(in, loadStart(t, tt.kind, "empty"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestDiffChangesCarryDisruptionAndDrift(t *testing.T) {
	in := intentFor(t, "nexus5000", "cos", "ours-earlier")
	cur := loadStart(t, "nexus5000", "ours-earlier")
	_, changes, _ := renderDiff(t, in, cur)
	byAddr := map[string]plan.Change{}
	for _, c := range changes {
		byAddr[c.Address] = c
	}
	checks := []struct {
		addr    string
		action  plan.Action
		disrupt plan.Disruption
		drift   bool
		note    string
	}{
		{"class-map type qos ROCE-rdma", plan.ActionUpdate, plan.DisruptionNone, true, "'match cos 4' is missing"},
		{"policy-map type network-qos ROCE-NQ", plan.ActionUpdate, plan.DisruptionBrief, true, "class ROCE-rdma has 'mtu 2240' where roce wants 'mtu 9216'"},
		{"policy-map type qos ROCE-QOS-IN", plan.ActionUpdate, plan.DisruptionBrief, true, "class ROCE-legacy is not wanted any more"},
		{"ip access-list ROCE-ACL-legacy", plan.ActionDelete, plan.DisruptionNone, false, ""},
		{"class-map type qos ROCE-legacy", plan.ActionDelete, plan.DisruptionNone, false, ""},
	}
	for _, c := range checks {
		got, ok := byAddr[c.addr]
		if !ok {
			t.Errorf("no change for %s", c.addr)
			continue
		}
		if got.Action != c.action || got.Disrupt != c.disrupt || got.Drift != c.drift || !strings.Contains(got.Note, c.note) {
			t.Errorf("%s: got %s/%s drift=%v note %q; want %s/%s drift=%v note containing %q", c.addr, got.Action, got.Disrupt, got.Drift, got.Note, c.action, c.disrupt, c.drift, c.note)
		}
		if c.action == plan.ActionUpdate && (got.Before == "" || got.After == "") {
			t.Errorf("%s: update without before/after", c.addr)
		}
	}
	if _, ok := byAddr["system qos"]; ok {
		t.Error("system qos already carries our policies; it must not change")
	}
}

func TestDiffNotesForeignReplacementAndDrift(t *testing.T) {
	in := intentFor(t, "nexus5000", "udp_port", "foreign")
	cur := loadStart(t, "nexus5000", "foreign")
	des, changes, script := renderDiff(t, in, cur)
	var sys, iface *plan.Change
	for i := range changes {
		switch changes[i].Address {
		case "system qos":
			sys = &changes[i]
		case "interface Ethernet1/2":
			iface = &changes[i]
		}
	}
	if sys == nil || sys.Disrupt != plan.DisruptionBrief || !strings.Contains(sys.Note, "ROCE-NQ replaces STORAGE-NQP") || !strings.Contains(sys.Note, "left in place, detached") {
		t.Fatalf("system qos change: %+v", sys)
	}
	if iface == nil || iface.Disrupt != plan.DisruptionLink {
		t.Fatalf("interface change: %+v", iface)
	}
	// A manual edit removes pause no-drop from our class: the next plan says so.
	applied := cur.Clone()
	if err := ApplyCommands(applied, in.Platform, nil, append(script, "policy-map type network-qos ROCE-NQ", "class type network-qos ROCE-rocev2", "no pause no-drop")); err != nil {
		t.Fatal(err)
	}
	changes, script, err := Diff(applied, des, in.Platform)
	if err != nil || len(changes) != 1 {
		t.Fatalf("drift: %v %+v", err, changes)
	}
	c := changes[0]
	if !c.Drift || !strings.Contains(c.Note, "class ROCE-rocev2 no longer has 'pause no-drop pfc-cos 4'") || strings.Join(script, "|") != "policy-map type network-qos ROCE-NQ|class type network-qos ROCE-rocev2|pause no-drop pfc-cos 4" {
		t.Fatalf("drift change: %+v\n%v", c, script)
	}
}

func TestRenderKeepsQoSGroup(t *testing.T) {
	// ours-earlier uses qos-group 4 for ROCE-rdma: a new CoS keeps the group.
	in := intentFor(t, "nexus5000", "cos", "ours-earlier")
	des, err := Render(in, loadStart(t, "nexus5000", "ours-earlier"))
	if err != nil {
		t.Fatal(err)
	}
	if got := des.ClassMap(TypeNetworkQoS, "ROCE-rdma").Lines; len(got) != 1 || got[0] != "match qos-group 4" {
		t.Fatalf("qos-group not kept: %v", got)
	}
	// foreign uses qos-group 2: ours must take another one.
	in = intentFor(t, "nexus5000", "cos", "foreign")
	des, err = Render(in, loadStart(t, "nexus5000", "foreign"))
	if err != nil {
		t.Fatal(err)
	}
	if got := des.ClassMap(TypeNetworkQoS, "ROCE-rdma").Lines; len(got) != 1 || got[0] != "match qos-group 3" {
		t.Fatalf("qos-group collides with the foreign class: %v", got)
	}
}

// Flipping the UNCONFIRMED capabilities changes the rendering and still
// round-trips.
func TestRenderCapabilityFlags(t *testing.T) {
	p := testPlatform(t, "nexus5000")
	p.Caps.EthertypeACLInQoS = true
	p.Caps.QoSGroup1WithoutFCoE = true
	in := intentFor(t, "nexus5000", "ethertype", "empty")
	in.Platform = p
	cur := loadStart(t, "nexus5000", "empty")
	des, err := Render(in, cur)
	if err != nil {
		t.Fatal(err)
	}
	acl := des.Find("mac access-list ROCE-ACL-rocev1")
	if acl == nil || acl.Lines[0] != "10 permit any any 0x8915" {
		t.Fatalf("mac ACL not rendered: %v", acl)
	}
	if nq := des.PolicyMap(TypeNetworkQoS, "ROCE-NQ").Class("ROCE-rocev1"); nq.Actions[0] != "pause no-drop pfc-cos 4" {
		t.Fatalf("ACL-classified class needs pfc-cos: %v", nq.Actions)
	}
	if got := des.ClassMap(TypeNetworkQoS, "ROCE-rocev1").Lines[0]; got != "match qos-group 1" {
		t.Fatalf("group 1 allowed without FCoE: %s", got)
	}
	_, script, err := Diff(cur, des, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyCommands(cur, p, nil, script); err != nil {
		t.Fatal(err)
	}
	if _, again, _ := Diff(cur, des, p); len(again) != 0 {
		t.Fatalf("not empty after apply: %v", again)
	}
	if w := Unconfirmed(in); len(w) == 0 || !strings.Contains(strings.Join(w, "\n"), "MAC ACL") {
		t.Fatalf("Unconfirmed: %v", w)
	}
}

func TestRenderRemovingClassesRemovesOnlyOurs(t *testing.T) {
	in := intentFor(t, "nexus5000", "cos", "foreign")
	cur := loadStart(t, "nexus5000", "foreign")
	des, _ := Render(in, cur)
	_, script, _ := Diff(cur, des, in.Platform)
	if err := ApplyCommands(cur, in.Platform, nil, script); err != nil {
		t.Fatal(err)
	}
	in.Classes = nil
	empty, err := Render(in, cur)
	if err != nil {
		t.Fatal(err)
	}
	_, script, err = Diff(cur, empty, in.Platform)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range script {
		if strings.HasPrefix(l, "no ") && !strings.Contains(l, "ROCE-") {
			t.Errorf("removal touches a foreign object: %s", l)
		}
	}
	if err := ApplyCommands(cur, in.Platform, nil, script); err != nil {
		t.Fatal(err)
	}
	// Our superset policies stay attached because they carry STORAGE.
	if cur.PolicyMap(TypeQoS, "ROCE-QOS-IN") == nil || cur.ClassMap(TypeQoS, "ROCE-rdma") != nil {
		t.Fatalf("after removing the class:\n%s", cur)
	}
}

// roundTrip renders, diffs, applies and checks that nothing is left to do;
// it returns the script.
func roundTrip(t *testing.T, in Intent, cur *Config) []string {
	t.Helper()
	des, _, script := renderDiff(t, in, cur)
	applied := cur.Clone()
	if err := ApplyCommands(applied, in.Platform, in.Modules, script); err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(script, "\n"))
	}
	if _, again, err := Diff(applied, des, in.Platform); err != nil || len(again) != 0 {
		t.Fatalf("not empty after apply (%v): %v", err, again)
	}
	return script
}

func TestRenderUDPWithDSCP(t *testing.T) {
	in := intentFor(t, "nexus5000", "udp_port", "empty")
	in.Classes = []*policies.Lossless{{Name: "v2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{24, 26}}, Priority: 4}}
	script := strings.Join(roundTrip(t, in, loadStart(t, "nexus5000", "empty")), "\n")
	for _, want := range []string{"10 permit udp any any eq 4791 dscp 24", "20 permit udp any any eq 4791 dscp 26", "pause no-drop pfc-cos 4"} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	if strings.Contains(script, "mtu") {
		t.Errorf("MTU 0 means platform default; no mtu line expected:\n%s", script)
	}
}

func TestNothingToDo(t *testing.T) {
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		for _, start := range startsFor(t, kind) {
			cur := loadStart(t, kind, start)
			p := testPlatform(t, kind)
			if changes, script, err := Diff(cur, cur.Clone(), p); err != nil || len(changes)+len(script) != 0 {
				t.Errorf("%s/%s: Diff of a config with itself: %v %v", kind, start, err, script)
			}
			if start == "empty" {
				in := intentFor(t, kind, "cos", start)
				in.Classes = nil
				des, err := Render(in, cur)
				if err != nil {
					t.Fatal(err)
				}
				if _, script, _ := Diff(cur, des, p); len(script) != 0 {
					t.Errorf("%s: no classes on an empty switch produced %v", kind, script)
				}
			}
		}
	}
}

func TestScriptHasNoModeChanges(t *testing.T) {
	in := intentFor(t, "nexus5000", "cos", "fcoe-defaults")
	for _, l := range roundTrip(t, in, loadStart(t, "nexus5000", "fcoe-defaults")) {
		if l == "end" || l == "exit" || strings.HasPrefix(l, "configure") {
			t.Errorf("script contains %q; the provider owns entering and leaving config mode", l)
		}
	}
}

func TestRender7000FCoEAndTemplateChoice(t *testing.T) {
	in := intentFor(t, "nexus7000", "cos", "fcoe-defaults")
	in.Classes[0].Priority, in.Classes[0].Match.CoS = 3, []int{3}
	script := strings.Join(roundTrip(t, in, loadStart(t, "nexus7000", "fcoe-defaults")), "\n")
	if !strings.Contains(script, "qos copy policy-map type network-qos default-nq-7e-policy prefix ROCE-") ||
		!strings.Contains(script, "class type network-qos c-nq-7e-ndrop-fcoe\nmtu 9216") {
		t.Fatalf("CoS 3 with FCoE should edit the 7e copy:\n%s", script)
	}
	if strings.Contains(script, "no policy-map type network-qos default-nq-7e-policy") {
		t.Fatal("the template itself must never be deleted")
	}
}

// TestUnconfirmedNamesWhatThePlanRestsOn: each platform's unconfirmed facts
// are listed once, citing the page of docs/ that documents them.
func TestUnconfirmedNamesWhatThePlanRestsOn(t *testing.T) {
	tests := []struct {
		kind, mode, start string
		want              []string
	}{
		{"nexus7000", "dscp", "empty", []string{
			`lossless "rocev2dscp" matches by dscp, but nexus7000 network-qos templates classify by CoS only (docs/nxos.md#qos), so it is rendered as 'match cos 4'`,
			"default-nq-* template classes and their CoS sets",
			// A section users have, not a source file (issue #18).
			"are UNCONFIRMED (docs/lab-upgrades.md#nexus-7000, templates: docs/nxos.md#qos): check",
			"at most 1 user no-drop class(es) enforced; the real limit is UNCONFIRMED (docs/nxos.md#qos)",
		}},
		{"nexus7000", "cos", "empty", []string{
			"egress queuing is pinned as a system output queuing policy",
			"(queuing and its sources: docs/lab-upgrades.md#pinned)",
		}},
		{"nexus5000", "cos", "fcoe-defaults", []string{"fcoe-default-* policies are UNCONFIRMED in detail (docs/nxos.md#qos)"}},
		{"nexus5000", "dscp", "empty", []string{"'match dscp' argument syntax on nexus5000 is UNCONFIRMED (docs/nxos.md#refuses)"}},
	}
	for _, tc := range tests {
		t.Run(tc.kind+"/"+tc.mode+"/"+tc.start, func(t *testing.T) {
			w := Unconfirmed(intentFor(t, tc.kind, tc.mode, tc.start))
			all := strings.Join(w, "\n")
			for _, want := range tc.want {
				if !strings.Contains(all, want) {
					t.Errorf("missing %q in:\n%s", want, all)
				}
			}
			for _, s := range w {
				if !strings.Contains(s, "docs/") {
					t.Errorf("does not cite the documentation of the fact: %q", s)
				}
			}
		})
	}
	// 5000 bandwidth is rendered: no bandwidth warning there.
	if w := strings.Join(Unconfirmed(intentFor(t, "nexus5000", "cos", "empty")), "\n"); strings.Contains(w, "bandwidth") {
		t.Errorf("nexus5000 renders bandwidth_percent, but: %s", w)
	}
}
