package verify

import "math"

// The lab path model: what an RDMA WRITE stream would do on a path, from
// the path's state alone. It stands in for hardware on the lab's emulated
// RDMA device and nowhere else. docs/verify.md writes the equations out;
// the tests check them and the calibration.
//
// Lossless path (every hop pauses the probe's priority): the stream runs
// at the RoCE ceiling of the link and MTU (RoCECeiling).
//
// Lossy path (h hops that do not pause the priority): the stream overflows
// such a hop's queue, which drops a share p of its packets,
//
//	p = 1 - (1 - ModelHopLossRate)^h
//
// RDMA's reliable connection has no selective retransmission: a loss makes
// the receiver NAK out of sequence and the sender go back N — resend every
// packet still in flight, a window of W = ModelTxDepth × n packets for
// messages of n packets. When a retransmission is lost as well (likely once
// p·W is near 1), the sender only notices after the local ACK timeout T_to.
// Per loss event the stream delivers 1/p packets of s payload bytes and
// spends
//
//	T_event = (1/p)·t_pkt + W·t_pkt + P_to·T_to,   P_to = 1 - (1 - p)^W
//
// (t_pkt: one packet's wire time), so the goodput is
//
//	G = (s·8/p) / T_event
//
// Queue share under contention: the switches schedule their egress
// queues by weighted round robin, so a class is guaranteed the share s of
// its queue (`bandwidth percent`) and may use whatever the other classes
// leave. With other classes offering a share b of the link (the lab's
// background load, 0 unless the lab declares one), the class gets
//
//	G ≤ C · max(s, 1 - b)
//
// and the model reports the guarantee s · C. Without contention (b = 0)
// the share does not bind. An unknown share (s = 0) guarantees nothing.
//
// Calibration: ModelHopLossRate is the one free parameter. It is set so
// that a 10 Gb/s RoCE v1 path (VLAN-tagged, MTU 9000, 64 KiB writes) with
// one hop that does not pause the class gives the 30 Mb/s of the field
// report behind this project (a Nexus 7000 upgrade, 9.91 Gb/s before). The
// lossless case of the same path gives 9.75 Gb/s, within 2 % of 9.91.
const (
	// ModelHopLossRate: packets a hop without no-drop for the class drops
	// from a line-rate RDMA stream (calibrated, see above).
	ModelHopLossRate = 0.0147
	// ModelTxDepth is perftest's default send queue depth for
	// ib_write_bw (messages in flight).
	ModelTxDepth = 128
	// ModelACKTimeoutSeconds is the local ACK timeout for perftest's
	// default QP timeout exponent 14: 4.096 µs × 2^14 (IBTA).
	ModelACKTimeoutSeconds = 4.096e-6 * (1 << 14)
)

// PathModelInput is what the model needs about a path.
type PathModelInput struct {
	Ceiling CeilingInput
	// LossyHops is how many hops on the path do not pause the class.
	LossyHops int
	// Seconds is how long the stream runs (for the counters).
	Seconds float64
	// SharePercent is the smallest egress queue share (bandwidth percent)
	// of the class on the path's switches; 0 when unknown.
	SharePercent int
	// Background is the share of the link (0-1) other classes offer at
	// the same egress: the lab's declared background load, 0 for none.
	Background float64
}

// PathModelResult is the model's answer.
type PathModelResult struct {
	Gbps    float64 `json:"gbps"`
	Ceiling Ceiling `json:"ceiling"`
	// LossRate is p, the share of packets the lossy hops drop (0 when
	// lossless).
	LossRate float64 `json:"loss_rate"`
	// Window is the go-back-N window W in packets.
	Window int `json:"window"`
	// What the counters of a real fabric would show over Seconds.
	Packets       uint64 `json:"packets"`         // packets delivered
	Dropped       uint64 `json:"dropped"`         // discards at the lossy hops
	OutOfSequence uint64 `json:"out_of_sequence"` // packets the receiver saw out of sequence
	NAKs          uint64 `json:"naks"`            // sequence-error NAKs the sender received
	Timeouts      uint64 `json:"timeouts"`        // local ACK timeouts at the sender
	// GuaranteedGbps is share × ceiling: what the class is guaranteed
	// under full contention (omitted when the share is unknown).
	GuaranteedGbps float64 `json:"guaranteed_gbps,omitempty"`
	// ShareBinds: the background load left the class less than the
	// stream would otherwise reach, so the queue share capped it.
	ShareBinds bool `json:"share_binds,omitempty"`
}

// PathModel applies the model.
func PathModel(in PathModelInput) PathModelResult {
	c := RoCECeiling(in.Ceiling)
	out := PathModelResult{Ceiling: c}
	if c.Gbps <= 0 || c.PathMTU == 0 {
		return out
	}
	size := in.Ceiling.MessageSize
	if size <= 0 {
		size = 65536
	}
	n := (size + c.PathMTU - 1) / c.PathMTU
	payload := float64(size) / float64(n)          // bytes per packet
	wire := payload / c.Efficiency                 // wire bytes per packet
	tPkt := wire * 8 / (in.Ceiling.LinkGbps * 1e9) // seconds per packet on the wire
	out.Window = ModelTxDepth * n
	secs := math.Max(in.Seconds, 0)
	share := math.Min(math.Max(float64(in.SharePercent)/100, 0), 1)
	if share > 0 {
		out.GuaranteedGbps = share * c.Gbps
	}
	// avail is what the class's queue can have at the contended egress.
	avail := c.Gbps * math.Max(share, 1-math.Min(math.Max(in.Background, 0), 1))
	if in.LossyHops <= 0 {
		out.Gbps = c.Gbps
		if avail < out.Gbps {
			out.Gbps, out.ShareBinds = avail, true
		}
		out.Packets = uint64(secs / tPkt * out.Gbps / c.Gbps)
		return out
	}
	p := 1 - math.Pow(1-ModelHopLossRate, float64(in.LossyHops))
	w := float64(out.Window)
	pTO := 1 - math.Pow(1-p, w)
	event := (1/p)*tPkt + w*tPkt + pTO*ModelACKTimeoutSeconds
	out.LossRate = p
	out.Gbps = payload * 8 / p / event / 1e9
	if avail < out.Gbps {
		out.Gbps, out.ShareBinds = avail, true
	}
	events := secs / event
	out.Packets = uint64(events / p)
	out.NAKs = uint64(events)
	out.Dropped = uint64(events * (1 + p*w))
	out.OutOfSequence = uint64(events * (w - 1))
	out.Timeouts = uint64(events * pTO)
	return out
}
