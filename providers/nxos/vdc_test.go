package nxos

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestNonDefaultVDCRefused: a 7000 session that lands outside the default
// VDC must not plan network-qos changes.
func TestNonDefaultVDCRefused(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus7000", start: "empty", vdc: "prod"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tp, err := r.target.Plan(ctx)
	if err == nil || !strings.Contains(err.Error(), `VDC "prod"`) || !strings.Contains(err.Error(), "default VDC") {
		t.Fatalf("err = %v, want a refusal naming VDC prod and the default VDC", err)
	}
	if tp == nil || tp.Facts["vdc"] != "2 prod" {
		t.Errorf("facts = %v", tp.Facts)
	}
}

// TestMSeriesPortRefused: a 7000 port on an M-series card cannot be
// lossless; the plan says so.
func TestMSeriesPortRefused(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus7000", start: "empty", ifaces: []string{"Ethernet2/1", "Ethernet3/1"}})
	_, err := r.target.Plan(context.Background())
	if err == nil || !strings.Contains(err.Error(), "Ethernet3/1") {
		t.Fatalf("err = %v, want a refusal naming Ethernet3/1", err)
	}
}
