package verify

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/telemetry"
)

// Run verifies the fabric: per lossless class it schedules probe pairs
// (PlanPairs), and per round snapshots the telemetry of the round's hosts
// and of the class's switches, runs the round's probes concurrently, takes
// a second snapshot and checks the counters. It returns an error only when
// nothing could be verified at all (no policy, a bad baseline); device
// problems become probe or check results in the report.
func Run(ctx context.Context, f Fabric, opts Options) (*Report, error) {
	if f.Policy == nil {
		return nil, errors.New("verify: no policy")
	}
	if len(f.Policy.Lossless) == 0 {
		return nil, errors.New("verify: the policy defines no lossless class, so there is nothing to verify")
	}
	r := &runner{f: f, opts: opts, cfg: probeConfig(f.Policy, opts), sem: make(chan struct{}, opts.parallelism())}
	if r.cfg.ThresholdFraction < 0 || r.cfg.ThresholdFraction > 1 || r.cfg.ThresholdGbps < 0 {
		return nil, fmt.Errorf("verify: probe threshold must be a positive Gb/s or a fraction in (0,1]")
	}
	switch opts.Emulation {
	case EmulationAuto, EmulationOn, EmulationOff:
	default:
		return nil, fmt.Errorf("verify: emulation %q: want on, off or empty (lab hosts only)", opts.Emulation)
	}
	rep := &Report{FormatVersion: ReportFormatVersion, Started: opts.now(), Tool: r.cfg.Tool, Versions: map[string]map[string]string{}}
	r.rep = rep
	r.latest = map[string]*telemetry.Device{}

	port := r.cfg.BasePort
	for _, class := range f.Policy.Lossless {
		var eps []Endpoint
		for _, e := range ClassEndpoints(f.Policy, class) {
			if opts.selected(e.Addr()) {
				eps = append(eps, e)
			}
		}
		sched := PlanPairs(class.Name, eps)
		rep.Checks = append(rep.Checks, coverageCheck(f.Policy, class, sched))
		for _, round := range sched.Rounds {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("verify: interrupted before class %s round %d: %w", class.Name, round[0].Round, err)
			}
			r.runRound(ctx, class, round, port)
			port += len(round)
		}
	}
	r.snapshotRest(ctx)
	for addr, d := range r.latest {
		if d != nil && len(d.Versions) > 0 {
			rep.Versions[addr] = d.Versions
		}
	}
	addQueueShares(rep)
	if opts.Baseline != nil {
		rep.Checks = append(rep.Checks, Compare(rep, opts.Baseline, opts.tolerance())...)
	}
	for _, p := range rep.Probes {
		if p.Emulated != nil {
			rep.Emulated = true
		}
	}
	Diagnose(rep, opts.Baseline)
	rep.Finished = opts.now()
	rep.summarize()
	return rep, nil
}

type runner struct {
	f    Fabric
	opts Options
	cfg  policies.Probe
	sem  chan struct{} // bounds concurrent device calls
	rep  *Report

	mu     sync.Mutex
	latest map[string]*telemetry.Device // newest snapshot per device (versions)
	failed map[string]bool              // devices whose telemetry failed (reported once)
}

// classSwitches returns the selected switches that carry class.
func (r *runner) classSwitches(class *policies.Lossless) []*policies.Switch {
	var out []*policies.Switch
	for _, sw := range r.f.Policy.Switches {
		if !r.opts.selected("switch."+sw.Name) || sw.Capture != "" {
			continue
		}
		if len(sw.Lossless) == 0 || contains(sw.Lossless, class.Name) {
			out = append(out, sw)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// snapshot reads telemetry from every scope concurrently (bounded).
func (r *runner) snapshot(ctx context.Context, scopes []deviceScope) map[string]*telemetry.Device {
	out := make(map[string]*telemetry.Device, len(scopes))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range scopes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.sem <- struct{}{}
			defer func() { <-r.sem }()
			d, err := r.telemetry(ctx, s.Addr)
			mu.Lock()
			defer mu.Unlock()
			out[s.Addr] = d
			if err != nil {
				r.telemetryFailed(s.Addr, err)
			}
		}()
	}
	wg.Wait()
	r.mu.Lock()
	for a, d := range out {
		if d != nil {
			r.latest[a] = d
		}
	}
	r.mu.Unlock()
	return out
}

func (r *runner) telemetry(ctx context.Context, addr string) (*telemetry.Device, error) {
	var src telemetry.Source
	if strings.HasPrefix(addr, "host.") {
		if a := r.f.Hosts[addr]; a != nil {
			src = a
		}
	} else if s := r.f.Switches[addr]; s != nil {
		src = s
	}
	if src == nil {
		return nil, fmt.Errorf("no telemetry provider for %s", addr)
	}
	d, err := src.Telemetry(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading counters from %s: %w", addr, err)
	}
	if d == nil {
		return nil, fmt.Errorf("reading counters from %s: provider returned nothing", addr)
	}
	return d, nil
}

// telemetryFailed reports a device's telemetry error once per run.
func (r *runner) telemetryFailed(addr string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed == nil {
		r.failed = map[string]bool{}
	}
	if r.failed[addr] {
		return
	}
	r.failed[addr] = true
	r.rep.Checks = append(r.rep.Checks, Check{Name: CheckTelemetry, Device: addr, Status: StatusError, Message: err.Error()})
}

// runRound snapshots, probes every pair of the round concurrently and
// checks counters. Ports are basePort, basePort+1, ... per pair, so pairs
// never share a rendezvous port even when their agents share a machine.
func (r *runner) runRound(ctx context.Context, class *policies.Lossless, round []Pair, basePort int) {
	log := r.opts.logger()
	log.Info("probe round", "class", class.Name, "round", round[0].Round, "pairs", len(round))
	scopes := r.roundScopes(class, round)
	before := r.snapshot(ctx, scopes)
	start := time.Now()

	probes := make([]Probe, len(round))
	var wg sync.WaitGroup
	for i, p := range round {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.sem <- struct{}{}
			defer func() { <-r.sem }()
			if r.emulate(p) {
				probes[i] = r.runEmulated(ctx, class, p, basePort+i, before)
			} else {
				probes[i] = r.runPair(ctx, class, p, basePort+i, before)
			}
			log.Info("probe done", "probe", probes[i].Name(), "status", probes[i].Status, "avg_gbps", probes[i].AvgGbps, "message", probes[i].Message)
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	after := r.snapshot(ctx, scopes)

	r.rep.Probes = append(r.rep.Probes, probes...)
	storm := r.opts.PauseStormPPS
	if storm <= 0 {
		storm = DefaultPauseStormPPS
	}
	for _, s := range scopes {
		r.rep.Checks = append(r.rep.Checks, counterChecks(counterInput{
			Scope: s, Round: round[0].Round, Before: before[s.Addr], After: after[s.Addr],
			Seconds: secs, StormPPS: storm,
		})...)
	}
}

// roundScopes: the round's hosts (their class NICs) and the class's switches.
func (r *runner) roundScopes(class *policies.Lossless, round []Pair) []deviceScope {
	var scopes []deviceScope
	for _, p := range round {
		for _, e := range []Endpoint{p.Server, p.Client} {
			scopes = append(scopes, deviceScope{Addr: e.Addr(), Ports: []string{e.NIC.Netdev}, Classes: []*policies.Lossless{class}})
		}
	}
	for _, sw := range r.classSwitches(class) {
		scopes = append(scopes, deviceScope{Addr: "switch." + sw.Name, Ports: sw.Interfaces, Classes: []*policies.Lossless{class}})
	}
	sort.Slice(scopes, func(i, j int) bool { return scopes[i].Addr < scopes[j].Addr })
	return scopes
}

// snapshotRest reads versions from selected devices no round touched, so a
// baseline covers every device, and checks their PFC state once (hosts: the
// NICs of each class they carry; switches: their interfaces).
func (r *runner) snapshotRest(ctx context.Context) {
	var devices, checks []deviceScope
	r.mu.Lock()
	seen := func(a string) bool { _, ok := r.latest[a]; return ok || r.failed[a] }
	for _, sw := range r.f.Policy.Switches {
		a := "switch." + sw.Name
		if !r.opts.selected(a) || sw.Capture != "" || seen(a) {
			continue
		}
		var classes []*policies.Lossless
		for _, c := range r.f.Policy.Lossless {
			if len(sw.Lossless) == 0 || contains(sw.Lossless, c.Name) {
				classes = append(classes, c)
			}
		}
		devices = append(devices, deviceScope{Addr: a})
		checks = append(checks, deviceScope{Addr: a, Ports: sw.Interfaces, Classes: classes})
	}
	for _, h := range r.f.Policy.Hosts {
		a := "host." + h.Name
		if !r.opts.selected(a) || seen(a) {
			continue
		}
		devices = append(devices, deviceScope{Addr: a})
		for _, c := range r.f.Policy.Lossless {
			var ports []string
			for _, n := range h.NICs {
				if n.Lossless == c.Name || (n.Lossless == "" && len(r.f.Policy.Lossless) == 1) {
					ports = append(ports, n.Netdev)
				}
			}
			if len(ports) > 0 {
				checks = append(checks, deviceScope{Addr: a, Ports: ports, Classes: []*policies.Lossless{c}})
			}
		}
	}
	r.mu.Unlock()
	if len(devices) == 0 {
		return
	}
	snap := r.snapshot(ctx, devices)
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].Addr < checks[j].Addr })
	for _, s := range checks {
		r.rep.Checks = append(r.rep.Checks, counterChecks(counterInput{Scope: s, After: snap[s.Addr]})...)
	}
}

// coverageCheck says which hosts and switches the class's probes cover.
func coverageCheck(f *policies.Fabric, class *policies.Lossless, s Schedule) Check {
	c := Check{Name: CheckCoverage, Class: class.Name, Status: StatusPass}
	hosts := map[string]bool{}
	switches := map[string]bool{}
	cross := 0
	for _, p := range s.Pairs() {
		for _, e := range []Endpoint{p.Server, p.Client} {
			hosts[e.Host.Name] = true
			if e.Switch != "" {
				switches[e.Switch] = true
			}
		}
		if p.CrossSwitch() {
			cross++
		}
	}
	switch {
	case len(s.Unpaired) == 1:
		c.Status = StatusSkip
		c.Message = fmt.Sprintf("only one selected host (%s) carries the class; a probe needs two", s.Unpaired[0].Addr())
	case len(hosts) == 0:
		c.Status = StatusSkip
		c.Message = "no selected host carries the class"
	default:
		c.Message = fmt.Sprintf("%d pair(s) in %d round(s) cover %d host(s) and %d switch(es) (%s); %d pair(s) cross switches",
			len(s.Pairs()), len(s.Rounds), len(hosts), len(switches), joinKeys(switches), cross)
	}
	return c
}

func joinKeys(m map[string]bool) string {
	if len(m) == 0 {
		return "no switch known"
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}
