package plan

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rocefabric/roce/policies"
)

// DefaultParallelism is how many targets are read or applied at once unless
// the user says otherwise (-parallelism).
const DefaultParallelism = 32

// Engine turns a Fabric into targets, plans them concurrently, and rolls a
// plan out. It holds no device state itself.
type Engine struct {
	Registry *Registry
	Env      Env
	// Parallelism bounds concurrent reads (and applies inside a batch when
	// the policy's rollout does not set its own).
	Parallelism int
	// TargetTimeout bounds one target's whole Plan or Apply call.
	TargetTimeout time.Duration
	// OnProgress, when set, is called once per finished target (reads and
	// applies) so a CLI can draw a progress bar.
	OnProgress func()
	// Wait pauses between rollout batches; nil waits on the clock. Tests
	// set it to observe the pauses without sleeping.
	Wait func(ctx context.Context, d time.Duration)
	// Journal, when set, records every target's transaction before it is
	// sent (write-ahead), so a run killed at any instant can be recovered
	// (roce-apply -recover). Apply refuses a target whose begin record
	// cannot be written.
	Journal *Journal
	// OnTarget, when set, is told when a target starts (status "") and
	// ends (its plan or apply status, and the error if any): the CLIs
	// print progress lines from it when stderr is not a terminal.
	OnTarget func(address, status, detail string)
}

func (e *Engine) event(address, status, detail string) {
	if e.OnTarget != nil {
		e.OnTarget(address, status, detail)
	}
}

func (e *Engine) wait(ctx context.Context, d time.Duration) {
	if e.Wait != nil {
		e.Wait(ctx, d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// BoundTarget is a target together with its policy address.
type BoundTarget struct {
	Address string
	Target  Target
}

// Targets builds every target of the fabric (switches in policy order, then
// hosts), limited to the -target selection when it is not empty. A selector
// naming nothing is an error, so a typo never silently plans nothing.
func (e *Engine) Targets(fab *policies.Fabric, selection []string) ([]BoundTarget, error) {
	want := map[string]bool{}
	for _, s := range selection {
		s = strings.TrimSpace(s)
		if !strings.HasPrefix(s, "switch.") && !strings.HasPrefix(s, "host.") {
			return nil, fmt.Errorf("-target %q: expected switch.NAME or host.NAME", s)
		}
		want[s] = false
	}
	selected := func(addr string) bool {
		if len(want) == 0 {
			return true
		}
		if _, ok := want[addr]; ok {
			want[addr] = true
			return true
		}
		return false
	}
	env := e.Env
	env.Fabric = fab
	var out []BoundTarget
	var errs []error
	for _, sw := range fab.Switches {
		addr := "switch." + sw.Name
		if !selected(addr) {
			continue
		}
		t, err := e.Registry.SwitchTarget(env, sw)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, BoundTarget{Address: addr, Target: t})
	}
	for _, h := range fab.Hosts {
		addr := "host." + h.Name
		if !selected(addr) {
			continue
		}
		t, err := e.Registry.HostTarget(env, h)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, BoundTarget{Address: addr, Target: t})
	}
	var missing []string
	for k, seen := range want {
		if !seen {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		errs = append(errs, fmt.Errorf("-target %s: no such switch or host in the policy", m))
	}
	if len(errs) > 0 {
		CloseAll(out)
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// CloseAll closes every target, ignoring errors (used on exit paths).
func CloseAll(ts []BoundTarget) {
	for _, t := range ts {
		_ = t.Target.Close()
	}
}

func (e *Engine) parallelism() int {
	if e.Parallelism > 0 {
		return e.Parallelism
	}
	return DefaultParallelism
}

func (e *Engine) logger() *slog.Logger {
	if e.Env.Logger != nil {
		return e.Env.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (e *Engine) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if e.TargetTimeout > 0 {
		return context.WithTimeout(ctx, e.TargetTimeout)
	}
	return context.WithCancel(ctx)
}

// Plan reads and plans every target concurrently (bounded by Parallelism).
// A target that cannot be read becomes a TargetPlan with Error set; the rest
// of the plan is still produced. Targets keep the order they were given in.
func (e *Engine) Plan(ctx context.Context, targets []BoundTarget) *Plan {
	p := &Plan{
		FormatVersion: FormatVersion,
		CreatedAt:     time.Now().UTC().Truncate(time.Second),
		Targets:       make([]*TargetPlan, len(targets)),
	}
	log := e.logger()
	forEachBounded(ctx, len(targets), e.parallelism(), func(i int) {
		bt := targets[i]
		start := time.Now()
		tctx, cancel := e.withTimeout(ctx)
		e.event(bt.Address, "", "reading")
		tp, err := safePlan(tctx, bt.Target)
		cancel()
		if err != nil {
			if tp == nil {
				tp = &TargetPlan{}
			}
			// The plan shows the error under the target's address; the
			// provider's "switch.NAME: " in front would name it twice.
			tp.Error, tp.ErrorKind = strings.TrimPrefix(err.Error(), bt.Address+": "), ErrorKindOf(err)
			// The plan shows the error at the target; a WARN here printed it
			// a second time at the default log level.
			log.Info("target could not be planned", "target", bt.Address, "error", err)
			e.event(bt.Address, errorStatus(tp.ErrorKind), err.Error())
		} else {
			log.Debug("target planned", "target", bt.Address, "changes", len(tp.Changes), "elapsed", time.Since(start))
			e.event(bt.Address, "read", fmt.Sprintf("%d change(s)", len(tp.Changes)))
		}
		if tp.Address == "" {
			tp.Address = bt.Address
		}
		if tp.Changes == nil {
			tp.Changes = []Change{}
		}
		p.Targets[i] = tp
		if e.OnProgress != nil {
			e.OnProgress()
		}
	})
	for i, tp := range p.Targets {
		if tp == nil { // context cancelled before the target ran
			p.Targets[i] = &TargetPlan{Address: targets[i].Address, Changes: []Change{}, Error: context.Cause(ctx).Error(), ErrorKind: ErrorKindCancelled}
		}
	}
	return p
}

// errorStatus is the progress status of a target that could not be
// planned, by its error kind.
func errorStatus(kind string) string {
	switch kind {
	case ErrorKindRender:
		return "does not fit the policy"
	case ErrorKindInternal:
		return "internal error"
	}
	return "unreadable"
}

// safePlan turns a provider panic into an error naming the target, so one
// bad device answer cannot take the whole run down.
func safePlan(ctx context.Context, t Target) (tp *TargetPlan, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &internalError{msg: fmt.Sprintf("%s: internal error while planning: %v", t.Address(), r)}
		}
	}()
	return t.Plan(ctx)
}

func safeApply(ctx context.Context, t Target, tp *TargetPlan) (res *ApplyResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: internal error while applying: %v", t.Address(), r)
		}
	}()
	return t.Apply(ctx, tp)
}

// forEachBounded runs fn(0..n-1) with at most par at once and waits. Work
// not yet started when ctx ends is skipped.
func forEachBounded(ctx context.Context, n, par int, fn func(i int)) {
	if par < 1 {
		par = 1
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			fn(i)
		}(i)
	}
	wg.Wait()
}
