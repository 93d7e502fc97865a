package main

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/agentproto"
	"github.com/rocefabric/roce/nics/perftest"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	hostprov "github.com/rocefabric/roce/providers/host"
	"github.com/rocefabric/roce/telemetry"
	"github.com/rocefabric/roce/verify"
)

// agentTarget is what the host provider's target offers verify: the agent
// client for probes and telemetry.
type agentTarget interface {
	Agent() *hostprov.Client
	telemetry.Source
}

// agentHost runs probes through roce-agent's `probe` operation. It passes
// the NIC so the agent resolves the RDMA device and GID index on the host.
type agentHost struct {
	addr string
	t    agentTarget
	h    *policies.Host
}

var (
	_ verify.HostAgent = (*agentHost)(nil)
	_ verify.NICProber = (*agentHost)(nil)
)

func (a *agentHost) Address() string { return a.addr }

func (a *agentHost) Telemetry(ctx context.Context) (*telemetry.Device, error) {
	return a.t.Telemetry(ctx)
}

// Probe without a NIC uses the host's first NIC.
func (a *agentHost) Probe(ctx context.Context, o perftest.Options) (*perftest.Result, error) {
	if len(a.h.NICs) == 0 {
		return nil, fmt.Errorf("%s: the policy gives this host no NIC to probe", a.addr)
	}
	return a.ProbeNIC(ctx, a.h.NICs[0], o)
}

func (a *agentHost) ProbeNIC(ctx context.Context, nic *policies.NIC, o perftest.Options) (*perftest.Result, error) {
	req := &agentproto.ProbeRequest{
		Options:  o,
		NIC:      nics.NICRef{Netdev: nic.Netdev, RDMADevice: nic.RDMADevice, Port: nic.Port},
		RoCEMode: nic.RoCEMode,
	}
	if pfx, err := netip.ParsePrefix(nic.Address); err == nil {
		req.GIDAddress = pfx.Addr().String()
	}
	if nic.VLAN != 0 {
		// The RoCE address, and so its GID, lives on the VLAN device.
		req.GIDNetdev = nics.VLANName(nic.Netdev, nic.VLAN)
	}
	resp, err := a.t.Agent().Call(ctx, agentproto.Request{Op: agentproto.OpProbe, Probe: req})
	var res *perftest.Result
	if resp != nil && resp.Probe != nil {
		res = resp.Probe.Result
		if resp.Probe.Failure != nil {
			return res, resp.Probe.Failure
		}
	}
	if err != nil {
		if missingRDMADevice(err) {
			return res, &perftest.Failure{Class: perftest.ClassNoDevice, Detail: err.Error(),
				Hint: fmt.Sprintf("%s has no RDMA device %s in sysfs: load the RDMA driver or fix rdma_device; lab hosts without RDMA cannot run the probe (use -local-probes -probe-command for a substitute)", a.addr, orAuto(nic.RDMADevice))}
		}
		return res, err
	}
	if res == nil {
		return nil, fmt.Errorf("%s: roce-agent probe answered without a result", a.addr)
	}
	return res, nil
}

// missingRDMADevice recognises an agent that failed before running perftest
// because the host has no RDMA device: its GID or device lookup found no
// /sys/class/infiniband entry.
func missingRDMADevice(err error) bool {
	m := err.Error()
	return strings.Contains(m, "/sys/class/infiniband") && strings.Contains(m, "no such file or directory")
}

func orAuto(dev string) string {
	if dev == "" {
		return "(resolved from the netdev)"
	}
	return dev
}

// brokenHost stands for a host whose provider could not be built; every
// call reports why, so the report names the cause per host.
type brokenHost struct {
	addr string
	err  error
}

func (b *brokenHost) Address() string { return b.addr }
func (b *brokenHost) Probe(context.Context, perftest.Options) (*perftest.Result, error) {
	return nil, b.err
}
func (b *brokenHost) Telemetry(context.Context) (*telemetry.Device, error) { return nil, b.err }

// brokenSource stands for a switch whose provider could not be built or
// does not report telemetry.
type brokenSource struct{ err error }

func (b brokenSource) Telemetry(context.Context) (*telemetry.Device, error) { return nil, b.err }

// wiring is the verify.Fabric plus what must be closed afterwards.
type wiring struct {
	fabric  verify.Fabric
	closers []func() error
}

func (w *wiring) close() error {
	var errs []error
	for _, c := range w.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// wire builds host agents and switch telemetry sources from the registry.
// With localProbes every probe runs perftest on this machine (the
// substitute path: lab hosts, recorded outputs); telemetry still comes
// from the providers when they can be built.
func wire(reg *plan.Registry, env plan.Env, fab *policies.Fabric, opts verify.Options, localProbes bool) *wiring {
	w := &wiring{fabric: verify.Fabric{Policy: fab, Hosts: map[string]verify.HostAgent{}, Switches: map[string]telemetry.Source{}}}
	keep := func(t plan.Target) {
		if c, ok := t.(interface{ Close() error }); ok {
			w.closers = append(w.closers, c.Close)
		}
	}
	selected := func(addr string) bool {
		if len(opts.Targets) == 0 {
			return true
		}
		for _, t := range opts.Targets {
			if t == addr {
				return true
			}
		}
		return false
	}
	for _, h := range fab.Hosts {
		addr := "host." + h.Name
		if !selected(addr) {
			continue
		}
		t, err := reg.HostTarget(env, h)
		if err == nil {
			keep(t)
		}
		if localProbes {
			la := &verify.LocalAgent{Name: h.Name}
			if src, ok := t.(telemetry.Source); ok && err == nil {
				la.Source = src
			}
			w.fabric.Hosts[addr] = la
			continue
		}
		if err != nil {
			w.fabric.Hosts[addr] = &brokenHost{addr: addr, err: fmt.Errorf("building the host provider: %w", err)}
			continue
		}
		at, ok := t.(agentTarget)
		if !ok {
			w.fabric.Hosts[addr] = &brokenHost{addr: addr, err: fmt.Errorf("%s: the host provider has no agent client for probes", addr)}
			continue
		}
		w.fabric.Hosts[addr] = &agentHost{addr: addr, t: at, h: h}
	}
	for _, sw := range fab.Switches {
		addr := "switch." + sw.Name
		if !selected(addr) || sw.Capture != "" {
			continue
		}
		t, err := reg.SwitchTarget(env, sw)
		if err != nil {
			w.fabric.Switches[addr] = brokenSource{fmt.Errorf("building the %s provider: %w", sw.Platform, err)}
			continue
		}
		keep(t)
		src, ok := t.(telemetry.Source)
		if !ok {
			w.fabric.Switches[addr] = brokenSource{fmt.Errorf("%s: the %s provider does not report counters yet", addr, sw.Platform)}
			continue
		}
		w.fabric.Switches[addr] = src
	}
	return w
}
