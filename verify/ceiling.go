package verify

// Per-packet framing bytes on the wire, excluding the RDMA payload
// (IBTA RoCE annex; Ethernet physical layer).
const (
	wirePreambleIFG = 8 + 12 // preamble + SFD, minimum inter-frame gap
	wireEthernet    = 14     // destination, source, Ethertype
	wireVLAN        = 4      // 802.1Q tag
	wireFCS         = 4
	wireIPv4        = 20
	wireUDP         = 8
	wireGRH         = 40 // RoCE v1 carries an IB GRH instead of IP/UDP
	wireBTH         = 12
	wireICRC        = 4
	wireRETH        = 16 // RDMA WRITE first/only packet
	wireAETH        = 4  // RDMA READ response first/last/only packet
)

// iboeOverhead is what the kernel subtracts from the netdev MTU before
// rounding down to an IB MTU (iboe_get_mtu: GRH 40 + UDP 8 + BTH 12 + XRC 4
// + AtomicETH 28 + ICRC 4; docs/platform-hosts.md #mtu).
const iboeOverhead = 96

// PathMTU is the RoCE path MTU the kernel uses for a netdev MTU: the largest
// IB MTU (256..4096) that fits in netdevMTU-96. It returns 0 when even 256
// does not fit.
func PathMTU(netdevMTU int) int {
	avail := netdevMTU - iboeOverhead
	for _, m := range []int{4096, 2048, 1024, 512, 256} {
		if m <= avail {
			return m
		}
	}
	return 0
}

// CeilingInput describes a link for the RoCE ceiling computation.
type CeilingInput struct {
	LinkGbps    float64 // signalling data rate (sysfs rate, interface speed)
	NetdevMTU   int     // 0 = 1500
	VLAN        bool    // frames carry an 802.1Q tag
	RoCEv1      bool    // GRH instead of IPv4/UDP
	Tool        string  // ib_write_bw (RETH per message) | ib_read_bw (AETH) | ib_send_bw
	MessageSize int     // bytes; 0 = perftest default 65536
}

// Ceiling is the best goodput RoCE can reach on a link.
type Ceiling struct {
	PathMTU    int     `json:"path_mtu"`
	Efficiency float64 `json:"efficiency"` // payload bytes / wire bytes
	Gbps       float64 `json:"gbps"`
}

// RoCECeiling computes the payload share of the wire for one message:
// a message of S bytes goes out as N = ceil(S/pathMTU) packets, each with
// the per-packet overhead (preamble/IFG 20 + Ethernet 14 [+ VLAN 4] +
// IPv4 20 + UDP 8 (v2) or GRH 40 (v1) + BTH 12 + ICRC 4 + FCS 4), plus the
// operation's extension header (RETH 16 on the first WRITE packet; AETH 4
// on the first and last READ response). Ceiling = link rate × S / wire bytes.
// For 100 Gb/s, MTU 9000 (path MTU 4096), untagged v2 and 64 KiB writes that
// is 65536 / (65536 + 16×82 + 16) × 100 = 65536 / 66864 × 100 ≈ 98.01 Gb/s.
func RoCECeiling(in CeilingInput) Ceiling {
	mtu := in.NetdevMTU
	if mtu == 0 {
		mtu = 1500
	}
	size := in.MessageSize
	if size <= 0 {
		size = 65536
	}
	p := PathMTU(mtu)
	if p == 0 || in.LinkGbps <= 0 {
		return Ceiling{PathMTU: p}
	}
	per := wirePreambleIFG + wireEthernet + wireFCS + wireBTH + wireICRC
	if in.VLAN {
		per += wireVLAN
	}
	if in.RoCEv1 {
		per += wireGRH
	} else {
		per += wireIPv4 + wireUDP
	}
	packets := (size + p - 1) / p
	wire := size + packets*per
	switch in.Tool {
	case "ib_read_bw":
		wire += wireAETH
		if packets > 1 {
			wire += wireAETH
		}
	case "ib_send_bw":
	default: // ib_write_bw
		wire += wireRETH
	}
	eff := float64(size) / float64(wire)
	return Ceiling{PathMTU: p, Efficiency: eff, Gbps: in.LinkGbps * eff}
}
