package nxos

import (
	"context"
	"testing"
	"time"
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
