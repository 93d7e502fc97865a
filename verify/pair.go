package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rocefabric/roce/nics/perftest"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/telemetry"
)

// clientAttempts bounds how often the client retries a refused rendezvous
// while the server side is still starting.
const clientAttempts = 3

// sideResult is what one side's Probe returned.
type sideResult struct {
	res *perftest.Result
	err error
}

// runPair runs one probe: server first through its agent, then the client
// (retrying a refused connection while the server is still coming up);
// when the client fails, the server is cancelled so no perftest server is
// left waiting. snaps holds the round's "before" telemetry, for link rate
// and MTU.
func (r *runner) runPair(ctx context.Context, class *policies.Lossless, p Pair, port int, snaps map[string]*telemetry.Device) (pr Probe) {
	pr = probeFor(class, p, port)
	start := time.Now()
	defer func() { pr.Seconds = roundSeconds(time.Since(start)) }()

	sa, ca := r.f.Hosts[pr.Server], r.f.Hosts[pr.Client]
	for _, side := range []struct {
		addr string
		a    HostAgent
	}{{pr.Server, sa}, {pr.Client, ca}} {
		if side.a == nil {
			pr.Status = StatusError
			pr.Failure = &Reason{Class: "agent", Host: side.addr, Hint: "wire a host agent for this host (providers/host) or run roce-verify on it",
				Detail: "no agent for " + side.addr}
			pr.Message = pr.Failure.Detail
			return pr
		}
	}

	so := sideOptions(r.cfg, class, p.Server.NIC, port)
	co := sideOptions(r.cfg, class, p.Client.NIC, port)
	co.Server = serverAddress(p.Server.Host, p.Server.NIC)
	for _, side := range []struct {
		addr string
		a    HostAgent
		nic  *policies.NIC
		o    *perftest.Options
	}{{pr.Server, sa, p.Server.NIC, &so}, {pr.Client, ca, p.Client.NIC, &co}} {
		if err := resolveGID(ctx, side.a, side.nic, side.o); err != nil {
			pr.Status = StatusError
			pr.Failure = &Reason{Class: "gid", Host: side.addr, Hint: "pin gid_index on the NIC in the policy, or check the NIC's address is configured",
				Detail: fmt.Sprintf("resolving the GID index of %s on %s: %v", side.nic.Netdev, side.addr, err)}
			pr.Message = pr.Failure.Detail
			return pr
		}
	}
	pr.ServerArgv, pr.ClientArgv = perftest.Argv(so), perftest.Argv(co)

	sctx, cancelServer := context.WithCancel(ctx)
	defer cancelServer()
	serverDone := make(chan sideResult, 1)
	go func() {
		res, err := probeSide(sctx, sa, p.Server.NIC, so)
		serverDone <- sideResult{res, err}
	}()

	var client sideResult
	var server *sideResult
	for attempt := 1; attempt <= clientAttempts; attempt++ {
		if !sleepCtx(ctx, r.opts.serverStartDelay()*time.Duration(attempt)) {
			client = sideResult{err: ctx.Err()}
			break
		}
		if server == nil {
			select {
			case s := <-serverDone:
				server = &s
			default:
			}
		}
		if server != nil && server.err != nil {
			break // the server already failed: no point connecting
		}
		res, err := probeSide(ctx, ca, p.Client.NIC, co)
		client = sideResult{res, err}
		var f *perftest.Failure
		if !errors.As(err, &f) || f.Class != perftest.ClassConnect || !refused(f) {
			break
		}
	}
	if client.err != nil || (server != nil && server.err != nil) {
		cancelServer() // clean up a server still waiting for this client
	}
	if server == nil {
		s := <-serverDone
		server = &s
	}
	// The argv each side really ran (an agent may have resolved the device
	// or GID index) beats the one computed here.
	if server.res != nil && len(server.res.Argv) > 0 {
		pr.ServerArgv = server.res.Argv
	}
	if client.res != nil && len(client.res.Argv) > 0 {
		pr.ClientArgv = client.res.Argv
	}
	for _, side := range []struct {
		addr string
		res  *perftest.Result
	}{{pr.Server, server.res}, {pr.Client, client.res}} {
		if side.res != nil {
			for _, n := range side.res.Notes {
				pr.Notes = append(pr.Notes, side.addr+": "+n)
			}
		}
	}
	r.judge(&pr, class, p, server, client, snaps)
	return pr
}

// probeSide runs one side through the agent, with the NIC when the agent
// takes it.
func probeSide(ctx context.Context, a HostAgent, nic *policies.NIC, o perftest.Options) (*perftest.Result, error) {
	if np, ok := a.(NICProber); ok {
		return np.ProbeNIC(ctx, nic, o)
	}
	return a.Probe(ctx, o)
}

// refused reports a client that could not reach the rendezvous port (the
// server may still be starting), as opposed to a failed QP exchange.
func refused(f *perftest.Failure) bool {
	return strings.Contains(f.Detail, "Couldn't connect to") || strings.Contains(f.Detail, "Unable to open file descriptor")
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func roundSeconds(d time.Duration) float64 {
	return float64(d.Round(time.Millisecond)) / float64(time.Second)
}

// rank orders causes when both sides failed, most specific first: the
// most actionable cause is reported (a server without a device makes the
// client fail to connect; the device is the cause).
func rank(class string) int {
	switch class {
	case perftest.ClassNoDevice, perftest.ClassVersion: // the other side then fails to connect
		return 0
	case perftest.ClassGIDType:
		return 1
	case perftest.ClassRTRRTS:
		return 2
	case perftest.ClassConnect:
		return 3
	case perftest.ClassThreshold:
		return 4
	case "agent": // the agent itself failed: its error says why
		return 5
	case "gid":
		return 6
	case perftest.ClassUnknown:
		return 7
	case perftest.ClassTimeout:
		return 8
	}
	return 9
}

// statusFor maps a failure class to a status: causes that prove the
// fabric or host configuration wrong fail; causes that only stop the
// measurement are errors.
func statusFor(class string) Status {
	switch class {
	case perftest.ClassConnect, perftest.ClassRTRRTS, perftest.ClassGIDType, perftest.ClassThreshold, perftest.ClassRetryExceeded:
		return StatusFail
	}
	return StatusError
}

func reasonOf(addr string, err error) *Reason {
	var f *perftest.Failure
	if errors.As(err, &f) {
		return &Reason{Class: f.Class, Hint: f.Hint, Host: addr, Detail: f.Detail}
	}
	return &Reason{Class: "agent", Host: addr, Hint: "the host's agent could not run the probe: check the detail, that the host is reachable and that roce-agent runs there", Detail: err.Error()}
}

// judge turns both sides' outcomes into the probe's status, bandwidth,
// threshold and ceiling.
func (r *runner) judge(pr *Probe, class *policies.Lossless, p Pair, server *sideResult, client sideResult, snaps map[string]*telemetry.Device) {
	var reasons []*Reason
	if client.err != nil {
		reasons = append(reasons, reasonOf(pr.Client, client.err))
	}
	// A server we cancelled after its client failed reports a timeout or a
	// cancellation that says nothing new; any other server failure counts.
	if server.err != nil && !(client.err != nil && errors.Is(server.err, context.Canceled)) {
		rs := reasonOf(pr.Server, server.err)
		if !(client.err != nil && rs.Class == perftest.ClassTimeout) {
			reasons = append(reasons, rs)
		}
	}
	if client.err == nil && client.res == nil && len(reasons) == 0 {
		reasons = append(reasons, &Reason{Class: perftest.ClassUnknown, Host: pr.Client, Hint: "the server side ended before the client could start; see the server's output",
			Detail: "client did not run"})
	}
	if len(reasons) > 0 {
		best := reasons[0]
		for _, rs := range reasons[1:] {
			if rank(rs.Class) < rank(best.Class) {
				best = rs
			}
		}
		pr.Failure = best
		pr.Status = statusFor(best.Class)
		if best.Class == "agent" {
			pr.Status = StatusError
		}
		pr.Message = fmt.Sprintf("%s on %s: %s", best.Class, best.Host, best.Detail)
		return
	}

	res := client.res
	pr.AvgGbps, pr.PeakGbps, pr.Rows = res.AvgGbps, res.PeakGbps, res.Rows

	link, mtu, vlan := r.linkOf(p, snaps)
	pr.LinkGbps = link
	if link > 0 {
		c := RoCECeiling(CeilingInput{LinkGbps: link, NetdevMTU: mtu, VLAN: vlan,
			RoCEv1: p.Server.NIC.RoCEMode == "v1", Tool: r.cfg.Tool, MessageSize: r.cfg.MessageSize})
		pr.Ceiling = &c
	}
	switch {
	case r.cfg.ThresholdGbps > 0:
		pr.ThresholdGbps = r.cfg.ThresholdGbps
	case link > 0:
		pr.ThresholdGbps = r.cfg.ThresholdFraction * link
	default:
		pr.Status = StatusError
		pr.Message = fmt.Sprintf("%s measured, but the threshold is %.0f%% of the link rate and neither host reported its link rate; set probe { threshold_gbps }",
			gbps(pr.AvgGbps), r.cfg.ThresholdFraction*100)
		return
	}
	msg := gbps(pr.AvgGbps)
	if pr.Ceiling != nil && pr.Ceiling.Gbps > 0 {
		msg = fmt.Sprintf("%s of %s ceiling (%.1f%%; link %s, path MTU %d)", gbps(pr.AvgGbps), gbps(pr.Ceiling.Gbps),
			pr.AvgGbps/pr.Ceiling.Gbps*100, gbps(link), pr.Ceiling.PathMTU)
	}
	if pr.AvgGbps < pr.ThresholdGbps {
		pr.Status = StatusFail
		pr.Failure = &Reason{Class: perftest.ClassThreshold, Host: pr.Client,
			Hint:   "bandwidth below the threshold: check PFC/ECN counters on the path, the MTU, and that the NICs negotiated the expected speed",
			Detail: fmt.Sprintf("%s below threshold %s", gbps(pr.AvgGbps), gbps(pr.ThresholdGbps))}
		pr.Message = msg + "; below threshold " + gbps(pr.ThresholdGbps)
		return
	}
	pr.Status = StatusPass
	pr.Message = msg + "; threshold " + gbps(pr.ThresholdGbps)
}

// linkOf returns the slower side's link rate, the smaller MTU and whether
// either NIC is on a VLAN, from the before-snapshots and the policy.
func (r *runner) linkOf(p Pair, snaps map[string]*telemetry.Device) (rate float64, mtu int, vlan bool) {
	for _, e := range []Endpoint{p.Server, p.Client} {
		if e.NIC.VLAN != 0 {
			vlan = true
		}
		m := e.NIC.MTU
		if d := snaps[e.Addr()]; d != nil {
			for _, port := range d.Ports {
				if strings.EqualFold(port.Name, e.NIC.Netdev) {
					if port.RateGbps > 0 && (rate == 0 || port.RateGbps < rate) {
						rate = port.RateGbps
					}
					if port.MTU > 0 {
						m = port.MTU
					}
				}
			}
		}
		if m > 0 && (mtu == 0 || m < mtu) {
			mtu = m
		}
	}
	return rate, mtu, vlan
}
