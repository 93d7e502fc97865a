package nexus

import (
	"strings"
	"testing"
)

// Issue #15: once the switch has roce's `qos copy` of a network-qos
// template, only the lines roce sets in it (a no-drop class's pause and
// congestion-control, the mtu roce needs) may become changes; a template
// line the switch does not print, or one the template table lacks, is kept
// as the switch has it. The intent (CoS 3, MTU 9216) makes roce copy
// default-nq-7e-policy to ROCE-nq-7e.
func TestRender7000CopyEchoIsNotAChange(t *testing.T) {
	const (
		header = "policy-map type network-qos ROCE-nq-7e"
		drop   = "  class type network-qos c-nq-7e-drop\n"
		ndrop  = "  class type network-qos c-nq-7e-ndrop-fcoe\n"
	)
	tests := []struct {
		name string
		// from, to: the edit of the applied configuration's text that
		// makes the switch's copy ("" from: no copy on the switch yet).
		from, to string
		want     []string // the whole plan's script
		drift    bool     // the network-qos change is marked as drift
		// refused: what the switch's editor answers to the plan, which
		// adds a class to a copy (a template table wrong for the release).
		refused string
		mtu     int // roce's class MTU, 9216 when 0
	}{
		{name: "first copy", want: []string{
			"class-map type queuing ROCE-rdma", "match cos 3",
			"qos copy policy-map type network-qos default-nq-7e-policy prefix ROCE-",
			header, "class type network-qos c-nq-7e-ndrop-fcoe", "mtu 9216",
			"policy-map type queuing ROCE-QUEUING-OUT", "class type queuing ROCE-rdma", "bandwidth percent 40",
			"class type queuing class-default", "bandwidth percent 60",
			"system qos", "service-policy type network-qos ROCE-nq-7e", "service-policy type queuing output ROCE-QUEUING-OUT",
			"interface Ethernet2/1", "priority-flow-control mode on", "mtu 9216",
			"interface Ethernet2/2", "priority-flow-control mode on", "mtu 9216",
		}},
		{name: "copy as roce left it", from: drop, to: drop},
		{name: "copy without congestion-control tail-drop (the audit's case)",
			from: drop + "    congestion-control tail-drop\n", to: drop},
		{name: "copy with a line the template table lacks",
			from: drop + "    congestion-control tail-drop\n", to: drop + "    congestion-control tail-drop\n    multicast-optimize\n"},
		{name: "drop class mtu not printed",
			from: drop + "    congestion-control tail-drop\n    mtu 1500\n", to: drop + "    congestion-control tail-drop\n"},
		{name: "drop class with a higher mtu",
			from: drop + "    congestion-control tail-drop\n    mtu 1500\n", to: drop + "    congestion-control tail-drop\n    mtu 9216\n"},
		{name: "roce's class with a higher mtu than it needs",
			from: "    mtu 9216\n", to: "    mtu 9216\n    multicast-optimize\n"},
		{name: "copy missing roce's pause no-drop",
			from: ndrop + "    pause no-drop\n", to: ndrop, drift: true,
			want: []string{header, "class type network-qos c-nq-7e-ndrop-fcoe", "pause no-drop"}},
		{name: "tail-drop in roce's no-drop class instead of pause",
			from: ndrop + "    pause no-drop\n", to: ndrop + "    congestion-control tail-drop\n", drift: true,
			want: []string{header, "class type network-qos c-nq-7e-ndrop-fcoe", "no congestion-control tail-drop", "pause no-drop"}},
		{name: "roce's class mtu lowered",
			from: "    mtu 9216\n", to: "    mtu 2112\n", drift: true,
			want: []string{header, "class type network-qos c-nq-7e-ndrop-fcoe", "mtu 9216"}},
		{name: "roce's class mtu not printed (the template's is below roce's)",
			from: "    mtu 9216\n", to: "", drift: true,
			want: []string{header, "class type network-qos c-nq-7e-ndrop-fcoe", "mtu 9216"}},
		// Not printed: the default is UNCONFIRMED, so a class that must
		// carry frames above 1500 gets its line (loud) rather than trust it.
		{name: "roce's class mtu not printed (the template's covers roce's, but above 1500)",
			from: ndrop + "    pause no-drop\n    mtu 2112\n", to: ndrop + "    pause no-drop\n", mtu: 2112, drift: true,
			want: []string{header, "class type network-qos c-nq-7e-ndrop-fcoe", "mtu 2112"}},
		// A copy whose classes are not the template's is rendered from the
		// template, as before issue #15: every difference is a change.
		{name: "copy missing a template class",
			from: drop + "    congestion-control tail-drop\n    mtu 1500\n", to: "", drift: true,
			want:    []string{header, "class type network-qos c-nq-7e-drop", "congestion-control tail-drop", "mtu 1500"},
			refused: "class c-nq-7e-drop is not part of template copy ROCE-nq-7e"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := intentFor(t, "nexus7000", "cos", "empty")
			in.Classes[0].Priority, in.Classes[0].Match.CoS = 3, []int{3}
			if tc.mtu != 0 {
				in.Classes[0].MTU = tc.mtu
			}
			empty := loadStart(t, "nexus7000", "empty")
			_, _, first := renderDiff(t, in, empty)
			applied := empty.Clone()
			if err := ApplyCommands(applied, in.Platform, in.Modules, first); err != nil {
				t.Fatalf("%v\n%s", err, strings.Join(first, "\n"))
			}
			cur := empty
			if tc.from != "" {
				text := applied.String()
				if strings.Count(text, tc.from) != 1 {
					t.Fatalf("%q is not once in the applied configuration:\n%s", tc.from, text)
				}
				var err error
				if cur, err = Parse(strings.Replace(text, tc.from, tc.to, 1)); err != nil {
					t.Fatal(err)
				}
			}
			des, changes, script := renderDiff(t, in, cur)
			if strings.Join(script, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("plan:\n%s\nwant:\n%s", strings.Join(script, "\n"), strings.Join(tc.want, "\n"))
			}
			for _, ch := range changes {
				if ch.Address == header && ch.Drift != tc.drift {
					t.Errorf("%s: drift %v, want %v", ch.Address, ch.Drift, tc.drift)
				}
			}
			// What the plan leaves is stable: applied, nothing is left to
			// do, and the lines roce does not own stay as the switch had them.
			after := cur.Clone()
			err := ApplyCommands(after, in.Platform, in.Modules, script)
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("apply: %v, want the editor's %q", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, strings.Join(script, "\n"))
			}
			if _, again, err := Diff(after, des, in.Platform); err != nil || len(again) != 0 {
				t.Fatalf("not empty after apply (%v): %v", err, again)
			}
			if tc.from != "" && tc.want == nil && after.String() != cur.String() {
				t.Errorf("an empty plan changed the switch:\n%s", after)
			}
		})
	}
}
