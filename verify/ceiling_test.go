package verify

import (
	"fmt"
	"math"
	"testing"
)

func TestPathMTU(t *testing.T) {
	tests := []struct{ netdev, want int }{
		{9000, 4096}, {4192, 4096}, {4191, 2048}, {2144, 2048}, {2143, 1024},
		{1500, 1024}, {1120, 1024}, {1119, 512}, {352, 256}, {351, 0}, {0, 0},
	}
	for _, tc := range tests {
		if got := PathMTU(tc.netdev); got != tc.want {
			t.Errorf("PathMTU(%d) = %d, want %d", tc.netdev, got, tc.want)
		}
	}
}

func TestRoCECeiling(t *testing.T) {
	tests := []struct {
		name string
		in   CeilingInput
		mtu  int
		eff  float64 // computed by hand from the formula in RoCECeiling
	}{
		// 16 packets × (20+14+4+12+4+20+8 = 82) + RETH 16 = 1328 overhead.
		{"v2 untagged 9000 write 64K", CeilingInput{LinkGbps: 100, NetdevMTU: 9000, MessageSize: 65536}, 4096, 65536.0 / (65536 + 16*82 + 16)},
		// VLAN adds 4 per packet.
		{"v2 vlan 9000 write 64K", CeilingInput{LinkGbps: 100, NetdevMTU: 9000, VLAN: true}, 4096, 65536.0 / (65536 + 16*86 + 16)},
		// 1500 → path MTU 1024, 64 packets; v1 GRH 40 replaces IPv4+UDP 28.
		{"v1 1500 write 64K", CeilingInput{LinkGbps: 25, NetdevMTU: 1500, RoCEv1: true}, 1024, 65536.0 / (65536 + 64*94 + 16)},
		{"send has no RETH", CeilingInput{LinkGbps: 100, NetdevMTU: 9000, Tool: "ib_send_bw"}, 4096, 65536.0 / (65536 + 16*82)},
		{"read: AETH on first and last", CeilingInput{LinkGbps: 100, NetdevMTU: 9000, Tool: "ib_read_bw"}, 4096, 65536.0 / (65536 + 16*82 + 8)},
		{"read single packet: one AETH", CeilingInput{LinkGbps: 100, NetdevMTU: 9000, Tool: "ib_read_bw", MessageSize: 2048}, 4096, 2048.0 / (2048 + 82 + 4)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := RoCECeiling(tc.in)
			if c.PathMTU != tc.mtu || math.Abs(c.Efficiency-tc.eff) > 1e-12 || math.Abs(c.Gbps-tc.in.LinkGbps*tc.eff) > 1e-9 {
				t.Errorf("ceiling = %+v, want path MTU %d efficiency %.6f", c, tc.mtu, tc.eff)
			}
		})
	}
	if c := RoCECeiling(CeilingInput{LinkGbps: 100, NetdevMTU: 200}); c.Gbps != 0 || c.PathMTU != 0 {
		t.Errorf("MTU too small: %+v", c)
	}
	if c := RoCECeiling(CeilingInput{NetdevMTU: 9000}); c.Gbps != 0 || c.PathMTU != 4096 {
		t.Errorf("unknown rate: %+v", c)
	}
}

// The worked example in RoCECeiling's comment.
func TestRoCECeilingDocumentedExample(t *testing.T) {
	c := RoCECeiling(CeilingInput{LinkGbps: 100, NetdevMTU: 9000, MessageSize: 65536})
	if got := fmt.Sprintf("%.2f", c.Gbps); got != "98.01" {
		t.Errorf("100G / MTU 9000 / 64 KiB write ceiling = %s, the doc says 98.01", got)
	}
}
