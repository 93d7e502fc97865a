package verify

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/rocefabric/roce/nics/perftest"
	"github.com/rocefabric/roce/policies"
)

// Probe defaults when the policy has no probe block (or leaves a field 0).
const (
	DefaultDuration          = 10 * time.Second
	DefaultMessageSize       = 65536
	DefaultBasePort          = 18515 // perftest's own default rendezvous port
	DefaultThresholdFraction = 0.8   // of the link rate; below the RoCE ceiling at MTU 1500 (~92.6%)
)

// probeConfig is the policy's probe block with defaults filled in.
func probeConfig(f *policies.Fabric, o Options) policies.Probe {
	var p policies.Probe
	if f.Probe != nil {
		p = *f.Probe
	}
	if p.Tool == "" {
		p.Tool = perftest.DefaultTool
	}
	if len(o.Command) > 0 {
		p.Command = o.Command
	}
	if p.Duration == 0 {
		p.Duration = DefaultDuration
	}
	if p.MessageSize == 0 {
		p.MessageSize = DefaultMessageSize
	}
	if p.BasePort == 0 {
		p.BasePort = DefaultBasePort
	}
	if p.ThresholdGbps == 0 && p.ThresholdFraction == 0 {
		p.ThresholdFraction = DefaultThresholdFraction
	}
	if o.Timeout > 0 {
		p.Timeout = o.Timeout
	}
	return p
}

// trafficClass is the GRH traffic class / IP ToS byte for a class: its
// DSCP shifted into the upper six bits, with ECT(0) set when the class
// marks ECN so DCQCN sees ECN-capable packets. 0 when the class is not
// recognised by DSCP (then the PCP from the service level carries it).
func trafficClass(c *policies.Lossless) int {
	if len(c.Match.DSCP) == 0 {
		return 0
	}
	tc := c.Match.DSCP[0] << 2
	if c.ECN != nil {
		tc |= 0x2
	}
	return tc
}

// sideOptions is the perftest options one side of a pair shares with the
// other, pinned from the policy, plus this side's NIC.
func sideOptions(p policies.Probe, c *policies.Lossless, nic *policies.NIC, port int) perftest.Options {
	o := perftest.Options{
		Tool:     p.Tool,
		Command:  p.Command,
		Device:   nic.RDMADevice,
		IBPort:   nic.Port,
		GIDIndex: -1,
		SL:       c.Priority,
		RDMACM:   p.RDMACM,
		Duration: p.Duration,
		Size:     p.MessageSize,
		QPs:      p.QPs,
		TCPPort:  port,
		Timeout:  p.Timeout,
	}
	if p.RDMACM {
		o.ToS = trafficClass(c)
	} else {
		o.TClass = trafficClass(c)
		if nic.GIDIndex != nil {
			o.GIDIndex = *nic.GIDIndex
		}
	}
	return o
}

// resolveGID fills in the GID index for verbs mode through the agent when
// the policy does not pin one.
func resolveGID(ctx context.Context, a HostAgent, nic *policies.NIC, o *perftest.Options) error {
	if o.RDMACM || o.GIDIndex >= 0 {
		return nil
	}
	if _, ok := a.(NICProber); ok {
		return nil // the agent resolves it on the host
	}
	r, ok := a.(GIDResolver)
	if !ok {
		return nil
	}
	idx, err := r.ResolveGIDIndex(ctx, nic)
	if err != nil {
		return err
	}
	o.GIDIndex = idx
	return nil
}

// serverAddress is where the client reaches the server: the server NIC's
// RoCE address (the rendezvous and rdma_cm both need the RoCE subnet), else
// the host's management address, else loopback for a local host.
func serverAddress(h *policies.Host, nic *policies.NIC) string {
	if nic.Address != "" {
		if pfx, err := netip.ParsePrefix(nic.Address); err == nil {
			return pfx.Addr().String()
		}
		if a, err := netip.ParseAddr(nic.Address); err == nil {
			return a.String()
		}
	}
	if h.Address != "" {
		if host, _, err := net.SplitHostPort(h.Address); err == nil {
			return host
		}
		return strings.Trim(h.Address, "[]")
	}
	return "127.0.0.1"
}
