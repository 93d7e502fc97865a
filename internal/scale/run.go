package scale

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	gnmiprov "github.com/rocefabric/roce/providers/gnmi"
	hostprov "github.com/rocefabric/roce/providers/host"
	"github.com/rocefabric/roce/providers/nxos"
)

// Latency is the injected latency: per client turn on the NX-OS
// simulators (a network round trip: lines sent together pay it once), per
// RPC on the gNMI targets.
type Latency struct {
	NXOS time.Duration
	GNMI time.Duration
}

// Config sizes one benchmark run.
type Config struct {
	Switches    int
	Hosts       int
	Parallelism int
	Latency     time.Duration
	Canary      int // canary targets applied one by one before the batch
	// Dir is the work directory (policy, PKI, host roots); a temporary
	// directory, removed afterwards, when "".
	Dir string
	// TempRoot is where the temporary work directory goes when Dir is ""
	// ("" = os.TempDir()). The hosts' emulated state lives there: on a
	// tmpfs it costs no disk I/O, as a real fleet's hosts have their own.
	TempRoot string
	Logger   *slog.Logger
	// NXOS builds the Nexus targets (nil = nxos.New); a benchmark compares
	// another way of driving them against the default with it.
	NXOS plan.SwitchFactory
	// Progress, when set, gets one line per step, for a person watching.
	Progress func(string)
}

// Usage is resource use over a phase.
type Usage struct {
	Wall time.Duration
	User time.Duration
	Sys  time.Duration
	// MaxRSS is the process's peak resident set so far, in bytes.
	MaxRSS int64
	// Machine is the CPU time every process of the machine used (from
	// /proc/stat; 0 where unavailable): Machine − CPU is what other
	// processes took from the shared cores during the phase.
	Machine time.Duration
}

// Others is the CPU time other processes used during the phase.
func (u Usage) Others() time.Duration { return max(0, u.Machine-u.CPU()) }

// machineBusy is the machine's total non-idle CPU time since boot.
func machineBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var busy int64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0
		}
		busy += n
	}
	return time.Duration(busy) * time.Second / 100 // USER_HZ
}

// CPU is user+system time.
func (u Usage) CPU() time.Duration { return u.User + u.Sys }

// Phase is one measured step.
type Phase struct {
	Name    string
	Targets int
	Usage
	// Spans is, per kind, how long after the phase's start the last
	// target of that kind finished (switches are scheduled first).
	Spans map[string]time.Duration
	// Busy is, per kind, the sum of the targets' own durations.
	Busy map[string]time.Duration
	// Ideal is ceil(latency targets / parallelism) × mean round trips per
	// latency target × latency; zero when it does not apply.
	Ideal time.Duration
	// RoundTrips is the mean round trips per switch used for Ideal.
	RoundTrips float64
}

// Ratio is wall time over the ideal (0 when there is no ideal).
func (p Phase) Ratio() float64 {
	if p.Ideal <= 0 {
		return 0
	}
	return float64(p.Wall) / float64(p.Ideal)
}

// CPUFloor is the shortest wall time the phase's CPU work allows on this
// machine's CPUs (all simulators run in this process): CPU / NumCPU.
func (p Phase) CPUFloor() time.Duration {
	return p.CPU() / time.Duration(runtime.NumCPU())
}

// SwitchRatio is the switches' span over the ideal: how far the
// latency-bound part is from the ideal, without the hosts' CPU work after it.
func (p Phase) SwitchRatio() float64 {
	if p.Ideal <= 0 {
		return 0
	}
	var span time.Duration
	for _, k := range switchKinds {
		span = max(span, p.Spans[k])
	}
	return float64(span) / float64(p.Ideal)
}

// Report is the result of Run.
type Report struct {
	Config Config
	Mix    Mix
	Setup  Usage
	Phases []Phase
	// Cal is the round-trip calibration; nil when not calibrated.
	Cal      *Calibration
	Changes  int // changes in the first plan
	Commands map[string]int
	// Sets is, per gNMI kind, the SetRequests its simulators applied
	// during the run.
	Sets map[string]int
	// Lines is, per phase ("plan", "apply", "replan") and NX-OS kind, the
	// commands the simulators answered, counted by them.
	Lines map[string]map[string]int
	// Trips is, per phase and kind, the round trips counted by the
	// simulators (NX-OS client turns, gNMI RPCs) and, for hosts, the agent
	// calls made.
	Trips map[string]map[string]int
}

// TripsPer is the mean round trips per target of a kind in a phase.
func (r *Report) TripsPer(phase, kind string) float64 {
	if r.Mix[kind] == 0 {
		return 0
	}
	return float64(r.Trips[phase][kind]) / float64(r.Mix[kind])
}

// countLines runs fn and records the NX-OS commands answered meanwhile.
func (r *Report) countLines(f *fleet, calls *hostprov.CallCounter, phase string, fn func() (Usage, error)) (Usage, error) {
	before, tripsBefore, callsBefore := f.linesHandled(), f.roundTrips(), calls.Calls()
	u, err := fn()
	after, tripsAfter := f.linesHandled(), f.roundTrips()
	if r.Lines == nil {
		r.Lines = map[string]map[string]int{}
	}
	if r.Trips == nil {
		r.Trips = map[string]map[string]int{}
	}
	r.Lines[phase] = map[string]int{}
	for k, n := range after {
		r.Lines[phase][k] = n - before[k]
	}
	r.Trips[phase] = map[string]int{KindHost: int(calls.Calls() - callsBefore)}
	for k, n := range tripsAfter {
		r.Trips[phase][k] = n - tripsBefore[k]
	}
	return u, err
}

func usageNow() (Usage, error) {
	var self, kids syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err != nil {
		return Usage{}, fmt.Errorf("getrusage: %w", err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids); err != nil {
		return Usage{}, fmt.Errorf("getrusage: %w", err)
	}
	return Usage{
		Machine: machineBusy(),
		User:    time.Duration(self.Utime.Nano() + kids.Utime.Nano()),
		Sys:     time.Duration(self.Stime.Nano() + kids.Stime.Nano()),
		MaxRSS:  max(self.Maxrss, kids.Maxrss) * 1024, // KiB on Linux
	}, nil
}

// measure runs fn and returns the resources it used.
func measure(fn func() error) (Usage, error) {
	u0, err := usageNow()
	if err != nil {
		return Usage{}, err
	}
	t0 := time.Now()
	ferr := fn()
	wall := time.Since(t0)
	u1, err := usageNow()
	if err != nil {
		return Usage{}, err
	}
	return Usage{Wall: wall, User: u1.User - u0.User, Sys: u1.Sys - u0.Sys, MaxRSS: u1.MaxRSS, Machine: u1.Machine - u0.Machine}, ferr
}

// RaiseFileLimit sets the soft open-files limit to the hard limit: a
// thousand listeners and their client connections need more than 1024.
func RaiseFileLimit() (uint64, error) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, fmt.Errorf("getrlimit: %w", err)
	}
	if rl.Cur < rl.Max {
		rl.Cur = rl.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
			return 0, fmt.Errorf("setrlimit NOFILE %d: %w", rl.Max, err)
		}
	}
	return rl.Cur, nil
}

// Registry is the provider wiring of the benchmark: the real switch
// providers, and the in-process agent for the simulated hosts.
func Registry() *plan.Registry {
	return registry(nil, nil)
}

// registry is Registry with the Nexus factory nxf (nil = nxos.New) and the
// hosts' agent calls counted in calls (nil = not counted).
func registry(nxf plan.SwitchFactory, calls *hostprov.CallCounter) *plan.Registry {
	if nxf == nil {
		nxf = nxos.New
	}
	host := plan.HostFactory(hostprov.NewInProcess)
	if calls != nil {
		host = hostprov.NewInProcessCounted(calls)
	}
	return &plan.Registry{
		Switches: map[string]plan.SwitchFactory{
			policies.PlatformNexus5000: nxf,
			policies.PlatformNexus7000: nxf,
			policies.PlatformGNMI:      gnmiprov.New,
		},
		Host: host,
	}
}

// timed wraps a target to record how long each call took and when it ended.
type timed struct {
	plan.Target
	kind string
	rec  *recorder
}

type recorder struct {
	mu    sync.Mutex
	start time.Time
	spans map[string]time.Duration
	busy  map[string]time.Duration
	last  map[string]time.Duration // per address: the last call's duration
}

func newRecorder() *recorder {
	return &recorder{start: time.Now(), spans: map[string]time.Duration{}, busy: map[string]time.Duration{}, last: map[string]time.Duration{}}
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.start = time.Now()
	r.spans, r.busy = map[string]time.Duration{}, map[string]time.Duration{}
}

func (r *recorder) done(kind, addr string, began time.Time) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spans[kind] = max(r.spans[kind], now.Sub(r.start))
	r.busy[kind] += now.Sub(began)
	r.last[addr] = now.Sub(began)
}

func (r *recorder) lastOf(addr string) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last[addr]
}

func (t *timed) Plan(ctx context.Context) (*plan.TargetPlan, error) {
	began := time.Now()
	defer t.rec.done(t.kind, t.Address(), began)
	return t.Target.Plan(ctx)
}

func (t *timed) Apply(ctx context.Context, tp *plan.TargetPlan) (*plan.ApplyResult, error) {
	began := time.Now()
	defer t.rec.done(t.kind, t.Address(), began)
	return t.Target.Apply(ctx, tp)
}

func kindOf(fab *policies.Fabric, addr string) string {
	if strings.HasPrefix(addr, "host.") {
		return KindHost
	}
	name := strings.TrimPrefix(addr, "switch.")
	for _, sw := range fab.Switches {
		if sw.Name == name {
			if sw.Platform == policies.PlatformGNMI {
				return "gnmi/" + sw.Profile
			}
			return sw.Platform
		}
	}
	return "?"
}

// fabric is one started benchmark fabric: simulators, hosts, policy.
type fabric struct {
	dir    string
	mix    Mix
	fleet  *fleet
	varsAt string
}

func (c *Config) progress(format string, args ...any) {
	if c.Progress != nil {
		c.Progress(fmt.Sprintf(format, args...))
	}
}

func (c *Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// setUp starts the simulators, seeds the hosts and writes the policy.
func setUp(ctx context.Context, dir string, mix Mix, lat Latency, log *slog.Logger) (*fabric, error) {
	fl, err := startFleet(ctx, dir, mix, lat, log)
	if err != nil {
		return nil, err
	}
	if err := seedHosts(ctx, dir, mix[KindHost]); err != nil {
		_ = fl.close()
		return nil, err
	}
	vars, err := writePolicy(dir, mix, fl.addrs)
	if err != nil {
		_ = fl.close()
		return nil, err
	}
	return &fabric{dir: dir, mix: mix, fleet: fl, varsAt: vars}, nil
}

func load(dir, vars string) (*policies.Fabric, error) {
	fab, src, diags := policies.Load(dir, policies.LoadOptions{VarFiles: []string{vars}, Getenv: func(string) (string, bool) { return "", false }})
	if diags.HasErrors() {
		var b strings.Builder
		if src != nil {
			_ = src.WriteDiagnostics(&b, diags, false)
		}
		return nil, fmt.Errorf("the benchmark policy does not load:\n%s", b.String())
	}
	return fab, nil
}

func (c *Config) engine(par int, calls *hostprov.CallCounter) *plan.Engine {
	return &plan.Engine{
		Registry:      registry(c.NXOS, calls),
		Env:           plan.Env{Logger: c.logger(), Getenv: func(string) (string, bool) { return "", false }, Timeout: 5 * time.Minute},
		Parallelism:   par,
		TargetTimeout: 30 * time.Minute,
	}
}

// bind builds the targets, each wrapped to record its timing.
func bind(e *plan.Engine, fab *policies.Fabric, rec *recorder) ([]plan.BoundTarget, error) {
	ts, err := e.Targets(fab, nil)
	if err != nil {
		return nil, err
	}
	for i := range ts {
		ts[i].Target = &timed{Target: ts[i].Target, kind: kindOf(fab, ts[i].Address), rec: rec}
	}
	return ts, nil
}

// Run sets the fabric up, then measures load, plan, apply and the second
// plan, which must be empty: any target left with changes or errors fails
// the run.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Switches < 1 {
		return nil, errors.New("scale: at least one switch is needed (hosts hang off switches)")
	}
	if cfg.Parallelism < 1 {
		cfg.Parallelism = 64
	}
	dir := cfg.Dir
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("scale: %w", err)
		}
	} else {
		d, err := os.MkdirTemp(cfg.TempRoot, "roce-scale-")
		if err != nil {
			return nil, fmt.Errorf("scale: %w", err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	rep := &Report{Config: cfg, Mix: MixFor(cfg.Switches, cfg.Hosts), Commands: map[string]int{}}
	lat := Latency{NXOS: cfg.Latency, GNMI: cfg.Latency}
	var fb *fabric
	cfg.progress("setting up %d switches (%s) and %d hosts in %s", rep.Mix.Switches(), mixString(rep.Mix), cfg.Hosts, dir)
	u, err := measure(func() error {
		var err error
		fb, err = setUp(ctx, dir, rep.Mix, lat, cfg.logger())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("scale: set-up: %w", err)
	}
	defer fb.fleet.close()
	rep.Setup = u
	var fab *policies.Fabric
	u, err = measure(func() error {
		var err error
		fab, err = load(dir, fb.varsAt)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("scale: %w", err)
	}
	if got := len(fab.Switches) + len(fab.Hosts); got != rep.Mix.Switches()+cfg.Hosts {
		return nil, fmt.Errorf("scale: the policy has %d targets, want %d", got, rep.Mix.Switches()+cfg.Hosts)
	}
	rep.Phases = append(rep.Phases, Phase{Name: "load policy (HCL)", Targets: len(fab.Switches) + len(fab.Hosts), Usage: u})
	cfg.progress("loaded the policy: %d switches, %d hosts in %s", len(fab.Switches), len(fab.Hosts), u.Wall.Round(time.Millisecond))

	calls := &hostprov.CallCounter{}
	e := cfg.engine(cfg.Parallelism, calls)
	rec := newRecorder()
	targets, err := bind(e, fab, rec)
	if err != nil {
		return nil, fmt.Errorf("scale: building targets: %w", err)
	}
	defer plan.CloseAll(targets)
	n := len(targets)

	var p1 *plan.Plan
	rec.reset()
	u, err = rep.countLines(fb.fleet, calls, "plan", func() (Usage, error) {
		return measure(func() error {
			p1 = e.Plan(ctx, targets)
			return planErrors(p1)
		})
	})
	if err != nil {
		return nil, fmt.Errorf("scale: first plan: %w", err)
	}
	rep.Phases = append(rep.Phases, rec.phase("plan", n, u))
	for _, tp := range p1.Targets {
		rep.Changes += len(tp.Changes)
		if !tp.HasChanges() {
			return nil, fmt.Errorf("scale: %s has nothing to change in the first plan; the benchmark needs fresh targets", tp.Address)
		}
		rep.Commands[kindOf(fab, tp.Address)] += len(tp.Commands) + len(tp.Ops)
	}
	cfg.progress("plan: %d targets, %d changes, %s wall", n, rep.Changes, u.Wall.Round(time.Millisecond))

	ro := plan.RolloutOptions{Canary: cfg.Canary, BatchSize: 0, Parallelism: cfg.Parallelism}
	rec.reset()
	u, err = rep.countLines(fb.fleet, calls, "apply", func() (Usage, error) {
		return measure(func() error {
			res, err := e.Apply(ctx, p1, targets, ro)
			if err != nil {
				return err
			}
			var bad []string
			for _, r := range res {
				if r.Status != plan.StatusApplied {
					bad = append(bad, fmt.Sprintf("%s: %s %s", r.Address, r.Status, r.Error))
				}
			}
			if len(bad) > 0 {
				return fmt.Errorf("%d of %d targets not applied:\n  %s", len(bad), len(res), strings.Join(first(bad, 10), "\n  "))
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("scale: apply: %w", err)
	}
	rep.Phases = append(rep.Phases, rec.phase("apply", n, u))
	cfg.progress("apply: %s wall", u.Wall.Round(time.Millisecond))

	rec.reset()
	u, err = rep.countLines(fb.fleet, calls, "replan", func() (Usage, error) {
		return measure(func() error {
			p2 := e.Plan(ctx, targets)
			if err := planErrors(p2); err != nil {
				return err
			}
			var left []string
			for _, tp := range p2.Targets {
				for _, c := range tp.Changes {
					left = append(left, tp.Address+": "+c.Address)
				}
			}
			if len(left) > 0 {
				return fmt.Errorf("the plan after apply is not empty (%d changes):\n  %s", len(left), strings.Join(first(left, 10), "\n  "))
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("scale: second plan: %w", err)
	}
	rep.Phases = append(rep.Phases, rec.phase("second plan (empty)", n, u))
	cfg.progress("second plan: empty, %s wall", u.Wall.Round(time.Millisecond))
	rep.Sets = fb.fleet.setsServed()
	rep.FillCountedIdeals()
	return rep, nil
}

// phaseKeys maps the measured phases to their round-trip keys.
var phaseKeys = map[string]string{"plan": "plan", "apply": "apply", "second plan (empty)": "replan"}

// FillCountedIdeals sets each phase's ideal from the round trips the
// simulators counted: ceil(switches / parallelism) × mean counted round
// trips per switch × latency. Run calls it; FillIdeals replaces it with a
// calibrated estimate.
func (r *Report) FillCountedIdeals() {
	r.fillIdeals(func(phase, kind string) int { return r.Trips[phase][kind] })
}

// CPUPerTarget is the phase's CPU time (controller and simulators) per
// target.
func (p Phase) CPUPerTarget() time.Duration {
	if p.Targets == 0 {
		return 0
	}
	return p.CPU() / time.Duration(p.Targets)
}

func (r *recorder) phase(name string, n int, u Usage) Phase {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := Phase{Name: name, Targets: n, Usage: u, Spans: map[string]time.Duration{}, Busy: map[string]time.Duration{}}
	for k, v := range r.spans {
		p.Spans[k] = v
	}
	for k, v := range r.busy {
		p.Busy[k] = v
	}
	return p
}

func planErrors(p *plan.Plan) error {
	var bad []string
	for _, tp := range p.Targets {
		if tp.Error != "" {
			bad = append(bad, tp.Address+": "+tp.Error)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d of %d targets could not be planned:\n  %s", len(bad), len(p.Targets), strings.Join(first(bad, 10), "\n  "))
	}
	return nil
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("... and %d more", len(s)-n))
	}
	return s
}

func mixString(m Mix) string {
	var parts []string
	for _, k := range switchKinds {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

// Calibrate measures the round trips one target of each kind needs in each
// phase, by differential timing: one switch of every kind (and one host)
// is planned, applied and re-planned one target at a time, once with no
// injected latency and once with lat; the extra time divided by lat,
// rounded, is the number of latency-bearing round trips on the target's
// critical path (commands the NX-OS simulator answered, RPCs the gNMI
// target served), each side the median of three runs. Hosts have no
// injected latency, so they count 0.
func Calibrate(ctx context.Context, lat time.Duration, log *slog.Logger) (*Calibration, error) {
	if lat <= 0 {
		return nil, errors.New("calibrate: the latency must be positive")
	}
	mix := Mix{KindHost: 1}
	for _, k := range switchKinds {
		mix[k] = 1
	}
	// Each side is the median of three runs, so one scheduling hiccup
	// does not shift a count.
	median := func(l time.Duration) (map[string]map[string]time.Duration, error) {
		var runs []map[string]map[string]time.Duration
		for range 3 {
			r, err := calibrationRun(ctx, mix, l, log)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
		}
		out := map[string]map[string]time.Duration{}
		for kind, phases := range runs[0] {
			out[kind] = map[string]time.Duration{}
			for ph := range phases {
				ds := []time.Duration{runs[0][kind][ph], runs[1][kind][ph], runs[2][kind][ph]}
				sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
				out[kind][ph] = ds[1]
			}
		}
		return out, nil
	}
	base, err := median(0)
	if err != nil {
		return nil, err
	}
	slow, err := median(lat)
	if err != nil {
		return nil, err
	}
	out := &Calibration{Latency: lat, RoundTrips: map[string]map[string]int{}, Base: base}
	for kind, phases := range slow {
		out.RoundTrips[kind] = map[string]int{}
		for ph, d := range phases {
			extra := d - base[kind][ph]
			out.RoundTrips[kind][ph] = max(0, int(math.Round(float64(extra)/float64(lat))))
		}
	}
	return out, nil
}

// Calibration is what Calibrate measured.
type Calibration struct {
	Latency time.Duration
	// RoundTrips per kind and phase ("plan", "apply", "replan").
	RoundTrips map[string]map[string]int
	// Base is each kind's duration per phase with no injected latency: the
	// target's own cost (handshakes, CPU) on an idle machine.
	Base map[string]map[string]time.Duration
}

// calibrationRun plans, applies and re-plans every target of a small
// fabric sequentially and returns each kind's duration per phase.
func calibrationRun(ctx context.Context, mix Mix, lat time.Duration, log *slog.Logger) (map[string]map[string]time.Duration, error) {
	dir, err := os.MkdirTemp("", "roce-scale-cal-")
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	defer os.RemoveAll(dir)
	fb, err := setUp(ctx, dir, mix, Latency{NXOS: lat, GNMI: lat}, log)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	defer fb.fleet.close()
	fab, err := load(dir, fb.varsAt)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	cfg := Config{Logger: log}
	e := cfg.engine(1, nil)
	rec := newRecorder()
	targets, err := bind(e, fab, rec)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	defer plan.CloseAll(targets)
	out := map[string]map[string]time.Duration{}
	for _, bt := range targets {
		kind := bt.Target.(*timed).kind
		out[kind] = map[string]time.Duration{}
		tp, err := bt.Target.Plan(ctx)
		if err != nil {
			return nil, fmt.Errorf("calibrate: plan %s: %w", bt.Address, err)
		}
		out[kind]["plan"] = rec.lastOf(bt.Address)
		res, err := bt.Target.Apply(ctx, tp)
		if err != nil || res.Status != plan.StatusApplied {
			return nil, fmt.Errorf("calibrate: apply %s: %s %v", bt.Address, res.Status, err)
		}
		out[kind]["apply"] = rec.lastOf(bt.Address)
		tp2, err := bt.Target.Plan(ctx)
		if err != nil {
			return nil, fmt.Errorf("calibrate: second plan %s: %w", bt.Address, err)
		}
		if tp2.HasChanges() {
			return nil, fmt.Errorf("calibrate: %s: second plan not empty", bt.Address)
		}
		out[kind]["replan"] = rec.lastOf(bt.Address)
	}
	return out, nil
}

// FillIdeals sets each measured phase's ideal from the calibrated round
// trips: ceil(switches / parallelism) × mean round trips per switch ×
// latency. Hosts carry no injected latency (their round trips are 0), so
// the ideal counts the latency-bound targets, the switches.
func (r *Report) FillIdeals(cal *Calibration) {
	r.Cal = cal
	r.fillIdeals(func(phase, kind string) int { return r.Mix[kind] * cal.RoundTrips[kind][phase] })
}

// fillIdeals sets each phase's ideal from trips(phase, kind), the round
// trips of all switches of a kind.
func (r *Report) fillIdeals(trips func(phase, kind string) int) {
	for i := range r.Phases {
		ph := &r.Phases[i]
		k, ok := phaseKeys[ph.Name]
		if !ok {
			continue
		}
		total, n := 0, 0
		for _, kind := range switchKinds {
			total += trips(k, kind)
			n += r.Mix[kind]
		}
		if n == 0 {
			continue
		}
		ph.RoundTrips = float64(total) / float64(n)
		rounds := (n + r.Config.Parallelism - 1) / r.Config.Parallelism
		ph.Ideal = time.Duration(float64(rounds) * ph.RoundTrips * float64(r.Config.Latency))
	}
}

// Print writes the report for a person (and docs/performance.md).
func (r *Report) Print(w interface{ Write([]byte) (int, error) }) {
	fmt.Fprintf(w, "fabric: %d switches (%s), %d hosts; parallelism %d, latency %s per command/RPC, canary %d\n",
		r.Mix.Switches(), mixString(r.Mix), r.Mix[KindHost], r.Config.Parallelism, r.Config.Latency, r.Config.Canary)
	fmt.Fprintf(w, "set-up (simulators, host roots, policy files; not a target): wall %s, CPU %s, peak RSS %s\n",
		r.Setup.Wall.Round(time.Millisecond), r.Setup.CPU().Round(time.Millisecond), mib(r.Setup.MaxRSS))
	if c := r.Cal; c != nil {
		fmt.Fprintf(w, "round trips per target (differential timing at %s; one target at a time) and its time with no latency:\n", c.Latency)
		fmt.Fprintf(w, "  %-14s %6s %6s %7s %12s %12s %12s\n", "kind", "plan", "apply", "replan", "plan@0", "apply@0", "replan@0")
		kinds := append(append([]string{}, switchKinds...), KindHost)
		for _, k := range kinds {
			rt, b := c.RoundTrips[k], c.Base[k]
			fmt.Fprintf(w, "  %-14s %6d %6d %7d %12s %12s %12s\n", k, rt["plan"], rt["apply"], rt["replan"],
				b["plan"].Round(100*time.Microsecond), b["apply"].Round(100*time.Microsecond), b["replan"].Round(100*time.Microsecond))
		}
	}
	if r.Trips != nil {
		fmt.Fprintf(w, "round trips per target, counted by the simulators (NX-OS: client turns, lines sent together count once; gNMI: RPCs; host: agent calls):\n")
		fmt.Fprintf(w, "  %-14s %6s %6s %7s\n", "kind", "plan", "apply", "replan")
		for _, k := range append(append([]string{}, switchKinds...), KindHost) {
			if r.Mix[k] == 0 {
				continue
			}
			fmt.Fprintf(w, "  %-14s %6.1f %6.1f %7.1f\n", k, r.TripsPer("plan", k), r.TripsPer("apply", k), r.TripsPer("replan", k))
		}
	}
	var per []string
	for _, k := range switchKinds {
		if r.Mix[k] > 0 {
			per = append(per, fmt.Sprintf("%s %.1f", k, float64(r.Commands[k])/float64(r.Mix[k])))
		}
	}
	fmt.Fprintf(w, "planned NX-OS config lines / gNMI Set ops per switch (first plan): %s\n", strings.Join(per, ", "))
	per = per[:0]
	for _, k := range switchKinds {
		if n, ok := r.Sets[k]; ok && r.Mix[k] > 0 {
			per = append(per, fmt.Sprintf("%s %.2f", k, float64(n)/float64(r.Mix[k])))
		}
	}
	if len(per) > 0 {
		fmt.Fprintf(w, "SetRequests the gNMI simulators applied per target (whole run): %s\n", strings.Join(per, ", "))
	}
	for _, k := range []string{KindNexus5000, KindNexus7000} {
		if r.Mix[k] == 0 || r.Lines == nil {
			continue
		}
		n := float64(r.Mix[k])
		fmt.Fprintf(w, "commands the %s simulators answered per target (counted by nxsim): plan %.1f, apply %.1f, replan %.1f\n",
			k, float64(r.Lines["plan"][k])/n, float64(r.Lines["apply"][k])/n, float64(r.Lines["replan"][k])/n)
	}
	fmt.Fprintf(w, "%-22s %7s %10s %10s %10s %10s %10s %8s %7s %12s %10s %10s %10s\n", "phase", "targets", "wall", "cpu", "user", "sys", "peak-rss", "ideal", "ratio", "switch-ratio", "cpu-floor", "others-cpu", "cpu/target")
	for _, p := range r.Phases {
		ideal, ratio, sr := "-", "-", "-"
		if p.Ideal > 0 {
			ideal = p.Ideal.Round(time.Millisecond).String()
			ratio = fmt.Sprintf("%.2f", p.Ratio())
			sr = fmt.Sprintf("%.2f", p.SwitchRatio())
		}
		fmt.Fprintf(w, "%-22s %7d %10s %10s %10s %10s %10s %8s %7s %12s %10s %10s %10s\n", p.Name, p.Targets,
			p.Wall.Round(time.Millisecond), p.CPU().Round(time.Millisecond), p.User.Round(time.Millisecond), p.Sys.Round(time.Millisecond),
			mib(p.MaxRSS), ideal, ratio, sr, p.CPUFloor().Round(time.Millisecond), p.Others().Round(10*time.Millisecond), cpuMS(p.CPUPerTarget()))
	}
	for _, p := range r.Phases {
		if len(p.Spans) == 0 {
			continue
		}
		var parts []string
		kinds := make([]string, 0, len(p.Spans))
		for k := range p.Spans {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			parts = append(parts, fmt.Sprintf("%s done at %s (busy %s)", k, p.Spans[k].Round(time.Millisecond), p.Busy[k].Round(time.Millisecond)))
		}
		fmt.Fprintf(w, "  %s: %s\n", p.Name, strings.Join(parts, "; "))
	}
	var peak int64
	var cpu time.Duration
	for _, p := range r.Phases {
		peak = max(peak, p.MaxRSS)
		cpu += p.CPU()
	}
	fmt.Fprintf(w, "total measured CPU %s on %d CPUs; peak RSS %s; first plan: %d changes\n", cpu.Round(time.Millisecond), runtime.NumCPU(), mib(peak), r.Changes)
	fmt.Fprintln(w, "ideal = ceil(switches / parallelism) x mean round trips per switch x latency; cpu/target = phase CPU (controller and simulators) / targets")
	fmt.Fprintln(w, "ratio = wall / ideal; switch-ratio = (when the last switch finished) / ideal; cpu-floor = CPU time / CPUs (simulators and controller share this machine); others-cpu = CPU other processes used meanwhile")
}

func cpuMS(d time.Duration) string {
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}

func mib(b int64) string { return fmt.Sprintf("%.0fMiB", float64(b)/(1<<20)) }

// PrintComparison writes two runs of the same fabric side by side: round
// trips per target and kind, then per phase wall time, CPU per target and
// the ratio to the ideal.
func PrintComparison(w interface{ Write([]byte) (int, error) }, before, after *Report) {
	fmt.Fprintf(w, "round trips per target (counted by the simulators), before -> after:\n")
	fmt.Fprintf(w, "  %-14s %15s %15s %15s\n", "kind", "plan", "apply", "replan")
	for _, k := range append(append([]string{}, switchKinds...), KindHost) {
		if after.Mix[k] == 0 {
			continue
		}
		var cols []string
		for _, ph := range []string{"plan", "apply", "replan"} {
			cols = append(cols, fmt.Sprintf("%5.1f -> %5.1f", before.TripsPer(ph, k), after.TripsPer(ph, k)))
		}
		fmt.Fprintf(w, "  %-14s %15s %15s %15s\n", k, cols[0], cols[1], cols[2])
	}
	fmt.Fprintf(w, "  %-22s %22s %22s %16s %22s\n", "phase", "wall", "cpu/target", "ideal", "ratio")
	for i, a := range after.Phases {
		if i >= len(before.Phases) || before.Phases[i].Name != a.Name {
			continue
		}
		b := before.Phases[i]
		ratio := "-"
		if a.Ideal > 0 && b.Ideal > 0 {
			ratio = fmt.Sprintf("%.2f -> %.2f", b.Ratio(), a.Ratio())
		}
		fmt.Fprintf(w, "  %-22s %22s %22s %16s %22s\n", a.Name,
			b.Wall.Round(time.Millisecond).String()+" -> "+a.Wall.Round(time.Millisecond).String(),
			cpuMS(b.CPUPerTarget())+" -> "+cpuMS(a.CPUPerTarget()),
			b.Ideal.Round(time.Millisecond).String()+" -> "+a.Ideal.Round(time.Millisecond).String(), ratio)
	}
}
