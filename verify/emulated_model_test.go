package verify

import (
	"math"
	"testing"
)

// seedPath is the field report's path: 10 Gb/s, RoCE v1 (2011) on a VLAN
// (the PCP carries the class), MTU 9000, perftest's 64 KiB writes.
var seedPath = CeilingInput{LinkGbps: 10, NetdevMTU: 9000, VLAN: true, RoCEv1: true, Tool: "ib_write_bw", MessageSize: 65536}

// TestPathModelCalibration: the model reproduces the seed numbers — 9.91
// Gb/s on a lossless path (within 2 %), 30 Mb/s with one hop that does not
// pause the class (within 5 %).
func TestPathModelCalibration(t *testing.T) {
	lossless := PathModel(PathModelInput{Ceiling: seedPath})
	if d := math.Abs(lossless.Gbps-9.91) / 9.91; d > 0.02 {
		t.Errorf("lossless 10G path: %.3f Gb/s, want 9.91 within 2%% (off by %.1f%%)", lossless.Gbps, d*100)
	}
	lossy := PathModel(PathModelInput{Ceiling: seedPath, LossyHops: 1})
	if d := math.Abs(lossy.Gbps-0.030) / 0.030; d > 0.05 {
		t.Errorf("one lossy hop on 10G: %.4f Gb/s, want 0.030 within 5%% (off by %.1f%%)", lossy.Gbps, d*100)
	}
}

// TestPathModelEquations recomputes the documented equations by hand for a
// few paths and compares.
func TestPathModelEquations(t *testing.T) {
	tests := []struct {
		name string
		in   CeilingInput
		hops int
	}{
		{"seed 10G v1 one hop", seedPath, 1},
		{"100G v2 one hop", CeilingInput{LinkGbps: 100, NetdevMTU: 9000, VLAN: true, Tool: "ib_write_bw", MessageSize: 65536}, 1},
		{"25G v2 two hops MTU 1500", CeilingInput{LinkGbps: 25, NetdevMTU: 1500, Tool: "ib_write_bw", MessageSize: 65536}, 2},
		{"100G lossless", CeilingInput{LinkGbps: 100, NetdevMTU: 9000, Tool: "ib_write_bw", MessageSize: 65536}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := PathModel(PathModelInput{Ceiling: tc.in, LossyHops: tc.hops, Seconds: 5})
			c := RoCECeiling(tc.in)
			if got.Ceiling != c {
				t.Fatalf("ceiling %+v, want %+v", got.Ceiling, c)
			}
			n := (tc.in.MessageSize + c.PathMTU - 1) / c.PathMTU
			if got.Window != ModelTxDepth*n {
				t.Errorf("window %d, want %d×%d", got.Window, ModelTxDepth, n)
			}
			if tc.hops == 0 {
				if got.Gbps != c.Gbps || got.LossRate != 0 || got.Dropped != 0 || got.OutOfSequence != 0 || got.Timeouts != 0 {
					t.Errorf("lossless path: %+v, want the ceiling %.3f and no losses", got, c.Gbps)
				}
				return
			}
			p := 1 - math.Pow(1-ModelHopLossRate, float64(tc.hops))
			s := float64(tc.in.MessageSize) / float64(n)
			tPkt := s / c.Efficiency * 8 / (tc.in.LinkGbps * 1e9)
			w := float64(ModelTxDepth * n)
			pTO := 1 - math.Pow(1-p, w)
			event := tPkt/p + w*tPkt + pTO*ModelACKTimeoutSeconds
			want := s * 8 / p / event / 1e9
			if math.Abs(got.Gbps-want) > 1e-9 {
				t.Errorf("goodput %.6f Gb/s, want %.6f", got.Gbps, want)
			}
			if math.Abs(got.LossRate-p) > 1e-12 {
				t.Errorf("loss rate %g, want %g", got.LossRate, p)
			}
			events := 5 / event
			if got.NAKs != uint64(events) || got.Timeouts != uint64(events*pTO) || got.OutOfSequence != uint64(events*(w-1)) {
				t.Errorf("counters %+v, want %d NAKs, %d timeouts, %d out of sequence", got, uint64(events), uint64(events*pTO), uint64(events*(w-1)))
			}
			if got.Gbps >= c.Gbps/100 {
				t.Errorf("a lossy path keeps %.3f of %.3f Gb/s; the model should collapse it below 1%%", got.Gbps, c.Gbps)
			}
		})
	}
}

// TestPathModelMonotonic: more lossy hops never help.
func TestPathModelMonotonic(t *testing.T) {
	prev := math.Inf(1)
	for h := 0; h <= 4; h++ {
		g := PathModel(PathModelInput{Ceiling: seedPath, LossyHops: h}).Gbps
		if g <= 0 || g > prev {
			t.Fatalf("%d lossy hops: %.4f Gb/s after %.4f", h, g, prev)
		}
		prev = g
	}
}

// TestPathModelNoLink: no link rate or an MTU too small for RoCE gives
// nothing rather than a made-up number.
func TestPathModelNoLink(t *testing.T) {
	for _, in := range []CeilingInput{{LinkGbps: 0, NetdevMTU: 9000}, {LinkGbps: 10, NetdevMTU: 300}} {
		if got := PathModel(PathModelInput{Ceiling: in, LossyHops: 1, Seconds: 1}); got.Gbps != 0 || got.Packets != 0 {
			t.Errorf("%+v: %+v, want zero", in, got)
		}
	}
}

// TestPathModelQueueShare: the queue share binds only under contention —
// G = C·max(s, 1−b) — and the guarantee s·C is reported whenever the
// share is known.
func TestPathModelQueueShare(t *testing.T) {
	in := CeilingInput{LinkGbps: 100, NetdevMTU: 9000, VLAN: true, Tool: "ib_write_bw", MessageSize: 65536}
	c := RoCECeiling(in).Gbps
	for _, tc := range []struct {
		name       string
		share      int
		background float64
		hops       int
		want       float64 // Gb/s; <0: the lossy model's value
		binds      bool
	}{
		{"idle link, 50%", 50, 0, 0, c, false},
		{"idle link, 10%", 10, 0, 0, c, false},
		{"others take 90%, 50% share", 50, 0.9, 0, 0.5 * c, true},
		{"others take 90%, 10% share", 10, 0.9, 0, 0.1 * c, true},
		{"others take 30%, 10% share", 10, 0.3, 0, 0.7 * c, true},
		{"others take 30%, 80% share", 80, 0.3, 0, 0.8 * c, true},
		{"unknown share, others take 60%", 0, 0.6, 0, 0.4 * c, true},
		{"background above 1 is clamped", 20, 1.5, 0, 0.2 * c, true},
		{"lossy path stays lossy", 50, 0.9, 1, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := PathModel(PathModelInput{Ceiling: in, LossyHops: tc.hops, SharePercent: tc.share, Background: tc.background, Seconds: 5})
			want := tc.want
			if want < 0 {
				want = PathModel(PathModelInput{Ceiling: in, LossyHops: tc.hops, Seconds: 5}).Gbps
			}
			if math.Abs(got.Gbps-want) > 1e-9 || got.ShareBinds != tc.binds {
				t.Errorf("G = %.4f (binds %v), want %.4f (binds %v)", got.Gbps, got.ShareBinds, want, tc.binds)
			}
			if g := float64(tc.share) / 100 * c; math.Abs(got.GuaranteedGbps-g) > 1e-9 {
				t.Errorf("guaranteed %.4f, want share × ceiling = %.4f", got.GuaranteedGbps, g)
			}
		})
	}
}
