package nxos

import (
	"context"
	"testing"
	"time"

	"github.com/rocefabric/roce/nexus/nxsim"
)

// TestTelemetryAfterApply reads PFC and queuing state of the managed
// ports: before the apply PFC is off (no no-drop class), after it PFC is
// operational for CoS 4 with the class MTU.
func TestTelemetryAfterApply(t *testing.T) {
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		t.Run(kind, func(t *testing.T) {
			r := newRig(t, rigOpts{kind: kind, start: "empty"})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			before, err := r.target.Telemetry(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if before.Versions["os"] == "" || len(before.Ports) != 2 {
				t.Fatalf("telemetry before: %+v", before)
			}
			for _, p := range before.Ports {
				if p.PFCOperational {
					t.Errorf("%s: PFC operational before any no-drop class", p.Name)
				}
			}
			if res, err := r.apply(t, r.plan(t)); err != nil {
				t.Fatalf("apply: %s %v", res.Status, err)
			}
			after, err := r.target.Telemetry(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range after.Ports {
				if !p.PFCOperational || p.PFCPriorities&(1<<4) == 0 {
					t.Errorf("%s: PFC oper %v bitmap %#x, want on for CoS 4", p.Name, p.PFCOperational, p.PFCPriorities)
				}
				if p.PFCMode != "on" {
					t.Errorf("%s: mode %q, want on", p.Name, p.PFCMode)
				}
			}
		})
	}
}

// TestTelemetryPeerDisagrees: a port left in priority-flow-control mode
// auto whose DCBX peer has PFC on other CoS than the switch's no-drop set
// is operationally off (when the no-drop sets of the two ends differ, PFC stays off even in auto), and Telemetry says so; a port
// whose peer agrees is on.
func TestTelemetryPeerDisagrees(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus5000", start: "empty", faults: nxsim.Faults{PeerNoDropCoS: map[string][]int{
		"Ethernet1/1": {4},    // agrees with the class on CoS 4
		"Ethernet1/2": {3, 4}, // the NIC also pauses CoS 3
	}}})
	if res, err := r.apply(t, r.plan(t)); err != nil {
		t.Fatalf("apply: %s %v", res.Status, err)
	}
	// Another operator puts both ports back to the default mode, auto.
	applyByHand(t, r, []string{"interface Ethernet1/1", "priority-flow-control mode auto", "interface Ethernet1/2", "priority-flow-control mode auto"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dev, err := r.target.Telemetry(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"Ethernet1/1": true, "Ethernet1/2": false}
	for _, p := range dev.Ports {
		if p.PFCMode != "auto" || p.PFCOperational != want[p.Name] {
			t.Errorf("%s: mode %q oper %v, want auto and oper %v", p.Name, p.PFCMode, p.PFCOperational, want[p.Name])
		}
		if p.PFCOperational && p.PFCPriorities != 1<<4 {
			t.Errorf("%s: priorities %#x, want CoS 4", p.Name, p.PFCPriorities)
		}
	}
	if len(dev.Ports) != 2 {
		t.Errorf("ports: %+v", dev.Ports)
	}
}
