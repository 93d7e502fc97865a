package nics

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/telemetry"
)

// NICRef names one RoCE port for counters and probes.
type NICRef struct {
	Netdev     string `json:"netdev"`
	RDMADevice string `json:"rdma_device,omitempty"` // "" = resolve from sysfs
	Port       int    `json:"port,omitempty"`        // default 1
}

// Counters reads versions and per-port lossless counters: PFC bitmap and
// per-priority pause frames from dcbnl (ieee_pfc requests = sent,
// indications = received, docs/platform-hosts.md #dcb) or, without dcbnl, from
// the driver's ethtool statistics (rx/tx_prio<N>_pause), RDMA counters and
// hw_counters from sysfs, the port rate and MTU. A netdev without DCB gives
// no pause counters rather than an error, so verify still gets the rest.
func (s *System) Counters(ctx context.Context, refs []NICRef) (*telemetry.Device, error) {
	d := &telemetry.Device{Kind: "host", Versions: map[string]string{}}
	if k := s.Kernel(); k != "" {
		d.Versions["kernel"] = k
	}
	for _, r := range refs {
		if err := CheckNICRef(r); err != nil {
			return nil, fmt.Errorf("counters: %w", err)
		}
		if r.Port == 0 {
			r.Port = 1
		}
		if r.RDMADevice == "" {
			dev, err := ResolveRDMADevice(s.Root, r.Netdev)
			if err != nil {
				return nil, err
			}
			r.RDMADevice = dev
		}
		if v, err := s.readTrim(path.Join(ibClass, r.RDMADevice, "fw_ver")); err == nil {
			d.Versions["fw."+r.RDMADevice] = v
		}
		p := telemetry.Port{Name: r.Netdev, Counters: map[string]uint64{}}
		li, err := s.Links.Link(ctx, r.Netdev)
		if err != nil {
			return nil, err
		}
		if li == nil {
			return nil, fmt.Errorf("counters: netdev %s does not exist", r.Netdev)
		}
		p.MTU = li.MTU
		rep, _, err := s.DCB.Get(ctx, r.Netdev)
		noDCB := false
		switch {
		case err == nil && rep.PFC != nil:
			p.PFCPriorities = rep.PFC.Enabled
			p.PFCOperational = rep.PFC.Enabled != 0
			p.PFCMode = "off"
			if p.PFCOperational {
				p.PFCMode = "on"
			}
			p.TxPause = append([]uint64(nil), rep.PFC.Requests[:]...)
			p.RxPause = append([]uint64(nil), rep.PFC.Indications[:]...)
			for i := 0; i < 8; i++ {
				p.TxPauseTotal += rep.PFC.Requests[i]
				p.RxPauseTotal += rep.PFC.Indications[i]
			}
		case err != nil && !errors.Is(err, ErrDCBUnsupported):
			return nil, err
		default:
			// No dcbnl on this netdev: fall back to the driver's per-priority
			// pause counters (mlx5 ethtool -S names), when it has them.
			noDCB = true
		}
		// The driver's statistics (ethtool -S) carry per-priority discards
		// and pause-storm events; a netdev without them just has none. A
		// host whose links are emulated has no driver: a same-named netdev
		// of this machine must not be read in its place.
		if st, err := EthtoolStats(r.Netdev); err == nil && !s.EmulatedLinks {
			if rx, tx, ok := PausePerPriority(st); ok && noDCB {
				p.RxPause, p.TxPause = rx, tx
				for i := 0; i < 8; i++ {
					p.RxPauseTotal += rx[i]
					p.TxPauseTotal += tx[i]
				}
			}
			neutralEthtool(st, p.Counters)
		}
		base := path.Join(ibClass, r.RDMADevice, "ports", strconv.Itoa(r.Port))
		if err := readCounters(s.Path(path.Join(base, "counters")), p.Counters); err != nil {
			return nil, fmt.Errorf("counters %s: %w", r.RDMADevice, err)
		}
		if err := readCounters(s.Path(path.Join(base, "hw_counters")), p.Counters); err != nil {
			return nil, fmt.Errorf("hw_counters %s: %w", r.RDMADevice, err)
		}
		p.LosslessDiscards = p.Counters[ctrXmitDiscards]
		neutralRDMA(p.Counters)
		if rate, err := s.readTrim(path.Join(base, "rate")); err == nil {
			if g, err := ParseRateGbps(rate); err == nil {
				p.RateGbps = g
			}
		}
		d.Ports = append(d.Ports, p)
	}
	return d, nil
}

// mlx5 counter names (docs/platform-hosts.md #counters): sysfs counters/,
// hw_counters/ and the driver's ethtool -S statistics. They are mapped
// onto telemetry's neutral names, which is all verify reads; the raw
// counters stay in Port.Counters for the report.
const (
	ctrXmitDiscards    = "port_xmit_discards"
	ctrRcvErrors       = "port_rcv_errors"
	ctrOutOfSequence   = "out_of_sequence"
	ctrPacketSeqErr    = "packet_seq_err"
	ctrNPCNPSent       = "np_cnp_sent"
	ctrRPCNPHandled    = "rp_cnp_handled"
	ctrStormError      = "tx_pause_storm_error_events"
	ctrStormWarning    = "tx_pause_storm_warning_events"
	ctrPrioDiscardsFmt = "rx_prio%d_discards"
)

// neutralRDMA adds the neutral names for the sysfs and hw_counters found.
func neutralRDMA(c map[string]uint64) {
	for raw, neutral := range map[string]string{
		ctrRcvErrors:     telemetry.CounterRxErrors,
		ctrOutOfSequence: telemetry.CounterOutOfSequence,
		ctrPacketSeqErr:  telemetry.CounterPSNErrors,
		ctrNPCNPSent:     telemetry.CounterCNPSent,
		ctrRPCNPHandled:  telemetry.CounterCNPHandled,
	} {
		if v, ok := c[raw]; ok {
			c[neutral] = v
		}
	}
}

// neutralEthtool copies the driver statistics verify needs into c under
// their neutral names (and raw names, for the report). Older kernels had
// a trailing space in some names, so keys are trimmed.
func neutralEthtool(stats map[string]uint64, c map[string]uint64) {
	for k, v := range stats {
		k = strings.TrimSpace(k)
		switch k {
		case ctrStormError:
			c[k], c[telemetry.CounterPauseStormErrors] = v, v
			continue
		case ctrStormWarning:
			c[k], c[telemetry.CounterPauseStormWarnings] = v, v
			continue
		}
		for prio := 0; prio < 8; prio++ {
			if k == fmt.Sprintf(ctrPrioDiscardsFmt, prio) {
				c[k], c[telemetry.CounterRxDiscardsPrio(prio)] = v, v
			}
		}
	}
}
