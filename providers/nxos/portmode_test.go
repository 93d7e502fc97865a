package nxos

import (
	"slices"
	"strings"
	"testing"
)

// A Nexus 7000's ports are Layer 3 unless it has `system default
// switchport`, a line outside the sections roce reads: the provider reads
// it with the jumbomtu (batched and one command per exchange alike). A
// managed port with no switchport line is then a Layer 2 port (it gets
// the jumbo MTU) under that line, and a routed one at the default 1500
// (refused, naming it) without it (docs/nxos.md#port-mtu).
func TestPlanReadsDefaultSwitchport7000(t *testing.T) {
	for _, seq := range []bool{false, true} {
		name := map[bool]string{false: "batched", true: "sequential"}[seq]
		// The managed ports of the empty start config lose their
		// switchport line, so the default decides.
		strip := func(cfg string) string {
			return strings.ReplaceAll(cfg, "\n  switchport\n", "\n")
		}
		t.Run(name+"/Layer 2 default", func(t *testing.T) {
			r := newRig(t, rigOpts{kind: "nexus7000", start: "empty", mode: "scale"})
			r.target.sequential = seq
			r.editRunning(t, func(c string) string { return "system default switchport\n" + strip(c) })
			tp := r.plan(t)
			if n := slices.Index(tp.Commands, "mtu 9216"); n < 0 {
				t.Fatalf("no 'mtu 9216' for the Layer 2 ports:\n%s", strings.Join(tp.Commands, "\n"))
			}
			if res, err := r.apply(t, tp); err != nil {
				t.Fatalf("apply: %s %v", res.Status, err)
			}
			if again := r.plan(t); len(again.Changes) != 0 {
				t.Fatalf("second plan not empty: %+v", again.Changes)
			}
		})
		t.Run(name+"/Layer 3 default", func(t *testing.T) {
			r := newRig(t, rigOpts{kind: "nexus7000", start: "empty", mode: "scale"})
			r.target.sequential = seq
			r.editRunning(t, strip)
			msg := r.planRefusal(t)
			if !strings.Contains(msg, "is a routed port") || !strings.Contains(msg, "without `system default switchport`") {
				t.Fatalf("plan: %q, want the routed port at the default mtu refused", msg)
			}
		})
	}
}
