package plan

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rocefabric/roce/policies"
)

// RolloutOptions say how roce-apply moves through the fabric.
type RolloutOptions struct {
	Canary          int           // targets applied first, one at a time
	BatchSize       int           // targets per batch after the canaries
	Parallelism     int           // concurrent targets inside a batch
	Pause           time.Duration // wait between batches
	ContinueOnError bool          // keep going after a failed target
}

// RolloutFrom turns the policy's rollout block into options.
func RolloutFrom(r policies.Rollout) RolloutOptions {
	return RolloutOptions{Canary: r.Canary, BatchSize: r.BatchSize, Parallelism: r.Parallelism, Pause: r.Pause}
}

// Phase is one step of a rollout: the canaries, or one batch.
type Phase struct {
	Name    string // "canary", "batch 1", ...
	Targets []int  // indexes into the plan's targets
}

// Phases splits the targets that have changes into canary and batches, in
// plan order. Targets without changes are in no phase.
func Phases(p *Plan, o RolloutOptions) []Phase {
	var changed []int
	for i, tp := range p.Targets {
		if tp.HasChanges() || tp.Error != "" {
			changed = append(changed, i)
		}
	}
	var out []Phase
	c := min(max(o.Canary, 0), len(changed))
	if c > 0 {
		out = append(out, Phase{Name: "canary", Targets: changed[:c]})
	}
	rest := changed[c:]
	bs := o.BatchSize
	if bs <= 0 {
		bs = len(rest)
	}
	for n := 1; len(rest) > 0; n++ {
		k := min(bs, len(rest))
		out = append(out, Phase{Name: fmt.Sprintf("batch %d", n), Targets: rest[:k]})
		rest = rest[k:]
	}
	return out
}

// Succeeded reports whether an apply status counts as success.
func Succeeded(status string) bool {
	return status == StatusApplied || status == StatusUnchanged
}

// Apply rolls p out: canaries first, then batches, stopping at the first
// failed phase unless ContinueOnError. targets must be the plan's targets in
// the same order (by address). Every plan target gets exactly one result:
// unchanged, applied, rolled-back, failed, stale, refused, or untouched.
func (e *Engine) Apply(ctx context.Context, p *Plan, targets []BoundTarget, o RolloutOptions) ([]*ApplyResult, error) {
	byAddr := map[string]Target{}
	for _, bt := range targets {
		byAddr[bt.Address] = bt.Target
	}
	results := make([]*ApplyResult, len(p.Targets))
	for i, tp := range p.Targets {
		if _, ok := byAddr[tp.Address]; !ok {
			return nil, fmt.Errorf("plan names %s, which is not in the policy any more; re-run roce-plan", tp.Address)
		}
		if !tp.HasChanges() && tp.Error == "" {
			results[i] = &ApplyResult{Address: tp.Address, Status: StatusUnchanged}
		}
	}
	log := e.logger()
	par := o.Parallelism
	if par <= 0 {
		par = e.parallelism()
	}
	stopped := false
	phases := Phases(p, o)
	for pi, ph := range phases {
		if stopped || ctx.Err() != nil {
			break
		}
		if pi > 0 && o.Pause > 0 {
			log.Info("pausing between batches", "pause", o.Pause)
			e.wait(ctx, o.Pause)
			if ctx.Err() != nil {
				break
			}
		}
		phasePar := par
		if ph.Name == "canary" {
			phasePar = 1 // canaries go one by one: the first failure stops the rest
		}
		log.Info("applying", "phase", ph.Name, "targets", len(ph.Targets))
		failed := false
		var mu sync.Mutex
		forEachBounded(ctx, len(ph.Targets), phasePar, func(j int) {
			i := ph.Targets[j]
			if ph.Name == "canary" && !o.ContinueOnError {
				mu.Lock()
				f := failed
				mu.Unlock()
				if f {
					return
				}
			}
			tp := p.Targets[i]
			e.event(tp.Address, "", "applying ("+ph.Name+")")
			res := e.applyOne(ctx, byAddr[tp.Address], tp)
			results[i] = res
			e.event(tp.Address, res.Status, res.Error)
			if !Succeeded(res.Status) {
				mu.Lock()
				failed = true
				mu.Unlock()
				// The report shows the failure at the target; an ERROR log
				// line here printed it a second time at the default level.
				log.Info("target failed", "target", tp.Address, "status", res.Status, "error", res.Error)
			} else {
				log.Info("target done", "target", tp.Address, "status", res.Status)
			}
			if e.OnProgress != nil {
				e.OnProgress()
			}
		})
		if failed && !o.ContinueOnError {
			stopped = true
		}
	}
	for i, r := range results {
		if r == nil {
			results[i] = &ApplyResult{Address: p.Targets[i].Address, Status: StatusUntouched}
		}
	}
	return results, nil
}

func (e *Engine) applyOne(ctx context.Context, t Target, tp *TargetPlan) *ApplyResult {
	start := time.Now()
	if tp.Error != "" {
		return &ApplyResult{Address: tp.Address, Status: StatusRefused,
			Error: "the target could not be planned (" + tp.Error + "); re-run roce-plan once it is reachable"}
	}
	if tp.Offline {
		return &ApplyResult{Address: tp.Address, Status: StatusRefused,
			Error: "planned against a saved capture, not a live device; point the switch at its address to apply"}
	}
	tctx, cancel := e.withTimeout(ctx)
	defer cancel()
	if e.Journal != nil {
		if err := e.Journal.Begin(tp); err != nil {
			return &ApplyResult{Address: tp.Address, Status: StatusFailed, Duration: time.Since(start),
				Error: fmt.Sprintf("nothing was sent: %v; free the disk or fix the directory's permissions and apply again", err)}
		}
		tctx = WithRecorder(tctx, e.Journal.Recorder(tp.Address))
	}
	res := e.settle(tctx, t, tp, start)
	if e.Journal != nil {
		if err := e.Journal.Outcome(res); err != nil {
			// The target stays "interrupted" in the journal: the next run
			// asks for -recover, which reads the target back. Safe side.
			e.logger().Error("could not record the outcome in the apply journal", "target", tp.Address, "error", err)
		}
	}
	return res
}

// settle runs the provider's Apply and normalises its result.
func (e *Engine) settle(tctx context.Context, t Target, tp *TargetPlan, start time.Time) *ApplyResult {
	res, err := safeApply(tctx, t, tp)
	if res == nil {
		res = &ApplyResult{Address: tp.Address, Status: StatusFailed}
	}
	if res.Address == "" {
		res.Address = tp.Address
	}
	if err != nil {
		if res.Error == "" {
			// The report puts the error under the target's address; the
			// provider's "switch.NAME: " in front would say it twice.
			res.Error = strings.TrimPrefix(err.Error(), tp.Address+": ")
		}
		switch {
		case errors.Is(err, ErrStale):
			res.Status = StatusStale
		case res.Status == "" || Succeeded(res.Status):
			res.Status = StatusFailed
		}
	}
	if res.Status == "" {
		res.Status = StatusApplied
	}
	res.Duration = time.Since(start)
	return res
}
