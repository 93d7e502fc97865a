package plan

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocefabric/roce/policies"
)

// recTarget is an in-memory Target for the engine's own logic (fan-out,
// ordering, rollout phases). Device behaviour is tested against the
// simulators in the providers' and e2e tests.
type recTarget struct {
	addr      string
	changes   int
	planErr   error
	applyErr  error
	status    string
	panicPlan bool
	block     chan struct{} // Plan waits on it when set

	mu                    sync.Mutex
	applied               int
	order                 *[]string
	orderMu               *sync.Mutex
	inFlight, maxInFlight *int32
}

func (t *recTarget) Address() string { return t.addr }
func (t *recTarget) Close() error    { return nil }
func (t *recTarget) Plan(ctx context.Context) (*TargetPlan, error) {
	if t.panicPlan {
		panic("device said nonsense")
	}
	if t.inFlight != nil {
		n := atomic.AddInt32(t.inFlight, 1)
		for {
			m := atomic.LoadInt32(t.maxInFlight)
			if n <= m || atomic.CompareAndSwapInt32(t.maxInFlight, m, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		atomic.AddInt32(t.inFlight, -1)
	}
	if t.block != nil {
		select {
		case <-t.block:
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: reading: %w", t.addr, ctx.Err())
		}
	}
	if t.planErr != nil {
		return nil, t.planErr
	}
	tp := &TargetPlan{Address: t.addr, Kind: "test", Fingerprint: "fp"}
	for i := 0; i < t.changes; i++ {
		tp.Changes = append(tp.Changes, Change{Address: fmt.Sprintf("obj%d", i), Action: ActionCreate})
	}
	return tp, nil
}
func (t *recTarget) Apply(ctx context.Context, tp *TargetPlan) (*ApplyResult, error) {
	t.mu.Lock()
	t.applied++
	t.mu.Unlock()
	if t.order != nil {
		t.orderMu.Lock()
		*t.order = append(*t.order, t.addr)
		t.orderMu.Unlock()
	}
	if t.applyErr != nil {
		return &ApplyResult{Address: t.addr, Status: t.status}, t.applyErr
	}
	return &ApplyResult{Address: t.addr, Status: StatusApplied}, nil
}

func bind(ts ...*recTarget) []BoundTarget {
	out := make([]BoundTarget, len(ts))
	for i, t := range ts {
		out[i] = BoundTarget{Address: t.addr, Target: t}
	}
	return out
}

func TestPlanKeepsOrderAndReportsUnreadableTargets(t *testing.T) {
	e := &Engine{Parallelism: 4}
	ts := bind(
		&recTarget{addr: "switch.a", changes: 2},
		&recTarget{addr: "switch.b", planErr: errors.New("switch.b: dial tcp 127.0.0.1:1: connection refused")},
		&recTarget{addr: "host.c", panicPlan: true},
		&recTarget{addr: "host.d"},
	)
	p := e.Plan(context.Background(), ts)
	if p.FormatVersion != FormatVersion {
		t.Fatalf("format version %d", p.FormatVersion)
	}
	want := []struct {
		addr, errSub string
		changes      int
	}{
		{"switch.a", "", 2},
		{"switch.b", "connection refused", 0},
		{"host.c", "internal error while planning", 0},
		{"host.d", "", 0},
	}
	for i, w := range want {
		tp := p.Targets[i]
		if tp.Address != w.addr || len(tp.Changes) != w.changes {
			t.Errorf("target %d = %s with %d changes, want %s with %d", i, tp.Address, len(tp.Changes), w.addr, w.changes)
		}
		if w.errSub == "" && tp.Error != "" || w.errSub != "" && !strings.Contains(tp.Error, w.errSub) {
			t.Errorf("%s: error %q, want containing %q", tp.Address, tp.Error, w.errSub)
		}
		if tp.Changes == nil {
			t.Errorf("%s: Changes is nil; JSON would print null", tp.Address)
		}
	}
}

func TestPlanBoundsParallelism(t *testing.T) {
	var in, max int32
	var ts []*recTarget
	for i := 0; i < 40; i++ {
		ts = append(ts, &recTarget{addr: fmt.Sprintf("host.h%d", i), inFlight: &in, maxInFlight: &max})
	}
	e := &Engine{Parallelism: 3}
	e.Plan(context.Background(), bind(ts...))
	if max > 3 || max < 1 {
		t.Fatalf("max concurrent reads = %d, want 1..3", max)
	}
}

func TestPlanTargetTimeout(t *testing.T) {
	e := &Engine{Parallelism: 2, TargetTimeout: 20 * time.Millisecond}
	blocked := &recTarget{addr: "switch.stuck", block: make(chan struct{})}
	p := e.Plan(context.Background(), bind(blocked, &recTarget{addr: "switch.ok", changes: 1}))
	if !strings.Contains(p.Targets[0].Error, "deadline exceeded") {
		t.Fatalf("stuck target error = %q", p.Targets[0].Error)
	}
	if p.Targets[1].Error != "" || len(p.Targets[1].Changes) != 1 {
		t.Fatalf("healthy target affected: %+v", p.Targets[1])
	}
}

func TestPhases(t *testing.T) {
	mk := func(changed ...bool) *Plan {
		p := &Plan{}
		for i, c := range changed {
			tp := &TargetPlan{Address: fmt.Sprintf("t%d", i)}
			if c {
				tp.Changes = []Change{{Address: "x"}}
			}
			p.Targets = append(p.Targets, tp)
		}
		return p
	}
	tests := []struct {
		name string
		plan *Plan
		opts RolloutOptions
		want string
	}{
		{"canary then batches", mk(true, true, true, true, true), RolloutOptions{Canary: 1, BatchSize: 2}, "canary[0] batch 1[1 2] batch 2[3 4]"},
		{"unchanged skipped", mk(false, true, false, true), RolloutOptions{Canary: 1, BatchSize: 10}, "canary[1] batch 1[3]"},
		{"no batch size = one batch", mk(true, true, true), RolloutOptions{}, "batch 1[0 1 2]"},
		{"canary larger than plan", mk(true, true), RolloutOptions{Canary: 5}, "canary[0 1]"},
		{"nothing to do", mk(false, false), RolloutOptions{Canary: 1}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var parts []string
			for _, ph := range Phases(tc.plan, tc.opts) {
				parts = append(parts, fmt.Sprintf("%s%v", ph.Name, ph.Targets))
			}
			if got := strings.Join(parts, " "); got != tc.want {
				t.Fatalf("phases = %q, want %q", got, tc.want)
			}
		})
	}
}

func statuses(rs []*ApplyResult) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.Address+"="+r.Status)
	}
	return strings.Join(s, " ")
}

func TestApplyCanaryFailureStopsRollout(t *testing.T) {
	var order []string
	var mu sync.Mutex
	canary := &recTarget{addr: "switch.a", changes: 1, applyErr: errors.New("rejected"), status: StatusRolledBack, order: &order, orderMu: &mu}
	b := &recTarget{addr: "switch.b", changes: 1, order: &order, orderMu: &mu}
	c := &recTarget{addr: "host.c", changes: 1, order: &order, orderMu: &mu}
	same := &recTarget{addr: "host.d"}
	ts := bind(canary, b, c, same)
	e := &Engine{}
	p := e.Plan(context.Background(), ts)
	rs, err := e.Apply(context.Background(), p, ts, RolloutOptions{Canary: 1, BatchSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := "switch.a=rolled-back switch.b=untouched host.c=untouched host.d=unchanged"
	if got := statuses(rs); got != want {
		t.Fatalf("statuses:\n got %s\nwant %s", got, want)
	}
	if b.applied+c.applied+same.applied != 0 {
		t.Fatalf("targets after a failed canary were contacted: b=%d c=%d d=%d", b.applied, c.applied, same.applied)
	}
	if rs[0].Error != "rejected" {
		t.Fatalf("canary error = %q", rs[0].Error)
	}
}

func TestApplyContinueOnError(t *testing.T) {
	a := &recTarget{addr: "switch.a", changes: 1, applyErr: errors.New("boom")}
	b := &recTarget{addr: "switch.b", changes: 1}
	ts := bind(a, b)
	e := &Engine{}
	p := e.Plan(context.Background(), ts)
	rs, _ := e.Apply(context.Background(), p, ts, RolloutOptions{Canary: 1, ContinueOnError: true})
	if got, want := statuses(rs), "switch.a=failed switch.b=applied"; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func TestApplyStaleAndRefused(t *testing.T) {
	stale := &recTarget{addr: "switch.s", changes: 1, applyErr: fmt.Errorf("switch.s: %w", ErrStale)}
	off := &recTarget{addr: "switch.off", changes: 1}
	ts := bind(stale, off)
	e := &Engine{}
	p := e.Plan(context.Background(), ts)
	p.Targets[1].Offline = true
	rs, _ := e.Apply(context.Background(), p, ts, RolloutOptions{ContinueOnError: true})
	if got, want := statuses(rs), "switch.s=stale switch.off=refused"; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	if off.applied != 0 {
		t.Fatal("offline target was contacted")
	}
	if !strings.Contains(rs[0].Error, "re-run roce-plan") || !strings.Contains(rs[1].Error, "saved capture") {
		t.Fatalf("errors not actionable: %q / %q", rs[0].Error, rs[1].Error)
	}
}

func TestApplyRefusesPlanForUnknownTarget(t *testing.T) {
	e := &Engine{}
	p := &Plan{Targets: []*TargetPlan{{Address: "switch.gone", Changes: []Change{{Address: "x"}}}}}
	if _, err := e.Apply(context.Background(), p, nil, RolloutOptions{}); err == nil || !strings.Contains(err.Error(), "switch.gone") {
		t.Fatalf("err = %v", err)
	}
}

func TestTargetsSelection(t *testing.T) {
	fab := &policies.Fabric{
		Switches: []*policies.Switch{{Name: "a", Platform: "test"}, {Name: "b", Platform: "test"}},
		Hosts:    []*policies.Host{{Name: "h1"}},
	}
	reg := &Registry{
		Switches: map[string]SwitchFactory{"test": func(env Env, sw *policies.Switch) (Target, error) {
			return &recTarget{addr: "switch." + sw.Name}, nil
		}},
		Host: func(env Env, h *policies.Host) (Target, error) { return &recTarget{addr: "host." + h.Name}, nil },
	}
	e := &Engine{Registry: reg}
	tests := []struct {
		sel     []string
		want    string
		wantErr string
	}{
		{nil, "switch.a switch.b host.h1", ""},
		{[]string{"host.h1", "switch.b"}, "switch.b host.h1", ""},
		{[]string{"switch.zz"}, "", "-target switch.zz: no such switch or host"},
		{[]string{"h1"}, "", "expected switch.NAME or host.NAME"},
	}
	for _, tc := range tests {
		ts, err := e.Targets(fab, tc.sel)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: err = %v, want %q", tc.sel, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.sel, err)
		}
		var got []string
		for _, bt := range ts {
			got = append(got, bt.Address)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%v: got %v want %s", tc.sel, got, tc.want)
		}
	}
	bad := &Engine{Registry: &Registry{}}
	if _, err := bad.Targets(fab, nil); err == nil || !strings.Contains(err.Error(), `no provider registered for platform "test"`) {
		t.Fatalf("unregistered platform: %v", err)
	}
}

func TestApplyPausesBetweenBatches(t *testing.T) {
	var order []string
	var mu sync.Mutex
	var ts []*recTarget
	for i := 0; i < 5; i++ {
		ts = append(ts, &recTarget{addr: fmt.Sprintf("switch.s%d", i), changes: 1, order: &order, orderMu: &mu})
	}
	var pauses []string
	e := &Engine{Wait: func(ctx context.Context, d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		pauses = append(pauses, fmt.Sprintf("%v after %d applied", d, len(order)))
	}}
	bts := bind(ts...)
	p := e.Plan(context.Background(), bts)
	rs, err := e.Apply(context.Background(), p, bts, RolloutOptions{Canary: 1, BatchSize: 2, Pause: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Status != StatusApplied {
			t.Fatalf("%s: %s", r.Address, r.Status)
		}
	}
	// canary | batch 1 (2) | batch 2 (2): a pause before each batch after the first phase.
	want := "1m30s after 1 applied; 1m30s after 3 applied"
	if got := strings.Join(pauses, "; "); got != want {
		t.Fatalf("pauses = %q, want %q", got, want)
	}
}

func TestApplyStopsWaitingWhenCancelled(t *testing.T) {
	ts := bind(&recTarget{addr: "switch.a", changes: 1}, &recTarget{addr: "switch.b", changes: 1})
	ctx, cancel := context.WithCancel(context.Background())
	e := &Engine{Wait: func(ctx context.Context, d time.Duration) { cancel() }}
	p := e.Plan(context.Background(), ts)
	rs, _ := e.Apply(ctx, p, ts, RolloutOptions{BatchSize: 1, Pause: time.Hour})
	if got, want := statuses(rs), "switch.a=applied switch.b=untouched"; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}
