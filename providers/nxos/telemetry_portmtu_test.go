package nxos

import (
	"context"
	"testing"
	"time"
)

// On a Nexus 7000 a Layer 2 port frames at its own MTU (docs/nxos.md#port-mtu),
// so Telemetry reports the smaller of the no-drop class MTU and the MTU
// `show interface` prints: 1500 before roce's plan, the jumbo MTU after
// it, and 1500 again on a port whose mtu line someone removed, which
// roce-verify then reports as below the NICs' MTU. A 5000 port's frame
// size is the class MTU whatever its mtu line says.
func TestTelemetryPortMTU(t *testing.T) {
	mtus := func(t *testing.T, r *rig) map[string]int {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		dev, err := r.target.Telemetry(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, p := range dev.Ports {
			out[p.Name] = p.MTU
		}
		return out
	}
	t.Run("nexus7000", func(t *testing.T) {
		r := newRig(t, rigOpts{kind: "nexus7000", start: "empty", mode: "cos"})
		if got := mtus(t, r); got["Ethernet2/1"] != 1500 || got["Ethernet2/2"] != 1500 {
			t.Fatalf("before the plan: %v, want 1500 on both ports", got)
		}
		if res, err := r.apply(t, r.plan(t)); err != nil {
			t.Fatalf("apply: %s %v", res.Status, err)
		}
		if got := mtus(t, r); got["Ethernet2/1"] != 9216 || got["Ethernet2/2"] != 9216 {
			t.Fatalf("after the plan: %v, want 9216 on both ports", got)
		}
		applyByHand(t, r, []string{"interface Ethernet2/1", "no mtu 9216"})
		if got := mtus(t, r); got["Ethernet2/1"] != 1500 || got["Ethernet2/2"] != 9216 {
			t.Fatalf("after removing Ethernet2/1's mtu by hand: %v, want 1500 there and 9216 on Ethernet2/2", got)
		}
	})
	t.Run("nexus5000", func(t *testing.T) {
		r := newRig(t, rigOpts{kind: "nexus5000", start: "empty", mode: "cos"})
		if res, err := r.apply(t, r.plan(t)); err != nil {
			t.Fatalf("apply: %s %v", res.Status, err)
		}
		applyByHand(t, r, []string{"interface Ethernet1/1", "mtu 1500"})
		if got := mtus(t, r); got["Ethernet1/1"] != 9216 || got["Ethernet1/2"] != 9216 {
			t.Fatalf("%v, want the class MTU 9216 on both ports (a 5000 L2 port's mtu line does not limit frames)", got)
		}
	})
}
