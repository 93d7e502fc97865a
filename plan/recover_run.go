package plan

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Recover brings every interrupted target to a consistent state, one at a
// time: the provider's Recoverer finishes or rolls back the transaction,
// then the engine reads the target back itself — "applied" must give an
// empty plan, "rolled-back" the fingerprint recorded before the apply —
// and only then marks the journal entry resolved. targets must hold every
// interrupted address. Every entry gets exactly one result.
func (e *Engine) Recover(ctx context.Context, ins []*Interrupted, targets []BoundTarget) []*ApplyResult {
	byAddr := map[string]Target{}
	for _, bt := range targets {
		byAddr[bt.Address] = bt.Target
	}
	out := make([]*ApplyResult, len(ins))
	for i, in := range ins {
		start := time.Now()
		e.event(in.Entry.Address, "", "recovering")
		res := e.recoverOne(ctx, byAddr[in.Entry.Address], in)
		res.Duration = time.Since(start)
		if res.Status == StatusApplied || res.Status == StatusRolledBack {
			if err := Resolve(in, res); err != nil {
				res.Status = StatusFailed
				res.Error = fmt.Sprintf("%s (recovered, but %v; run roce-apply -recover again)", res.Error, err)
			}
		}
		out[i] = res
		e.event(in.Entry.Address, res.Status, res.Error)
		if e.OnProgress != nil {
			e.OnProgress()
		}
	}
	return out
}

func (e *Engine) recoverOne(ctx context.Context, t Target, in *Interrupted) *ApplyResult {
	addr := in.Entry.Address
	if t == nil {
		return &ApplyResult{Address: addr, Status: StatusFailed,
			Error: "the policy has no such target any more, so roce cannot connect to it; restore it in the policy (same name and address), then run roce-apply -recover again"}
	}
	tctx, cancel := e.withTimeout(ctx)
	defer cancel()
	var res *ApplyResult
	var err error
	if r, ok := t.(Recoverer); ok {
		res, err = safeRecover(tctx, r, t, in.Entry)
	} else {
		// No provider-specific recovery: the read-back below decides
		// whether the target is fully before or fully after.
		res = &ApplyResult{Address: addr, Status: ""}
	}
	if res == nil {
		res = &ApplyResult{Address: addr, Status: StatusFailed}
	}
	res.Address = addr
	if err != nil {
		if res.Error == "" {
			res.Error = err.Error()
		}
		if res.Status != StatusApplied && res.Status != StatusRolledBack {
			res.Status = StatusFailed
		}
	}
	if res.Status == StatusFailed {
		if res.Error == "" {
			res.Error = "the provider could not make the target consistent"
		}
		return res
	}
	return e.readBack(tctx, t, in, res)
}

// readBack checks the provider's word against a fresh read of the target.
func (e *Engine) readBack(ctx context.Context, t Target, in *Interrupted, res *ApplyResult) *ApplyResult {
	tp, err := safePlan(ctx, t)
	if err != nil {
		res.Status = StatusFailed
		res.Error = joinMsg(res.Error, fmt.Sprintf("could not read the target back to verify the recovery: %v; run roce-apply -recover again once it answers", err))
		return res
	}
	before := in.Entry.Target.Fingerprint
	switch {
	case !tp.HasChanges():
		if res.Status == StatusRolledBack && tp.Fingerprint != before {
			res.Error = joinMsg(res.Error, "read back: the target is fully as planned")
		}
		res.Status = StatusApplied
		res.Error = joinMsg(res.Error, "verified: a fresh plan of the target is empty")
	case before != "" && tp.Fingerprint == before:
		res.Status = StatusRolledBack
		res.Error = joinMsg(res.Error, "verified: the target reads back exactly as before the interrupted apply; run roce-plan and apply again")
	default:
		res.Status = StatusFailed
		res.Error = joinMsg(res.Error, fmt.Sprintf("read back: the target is neither as before the apply nor as planned (%d change(s) still planned, and its state differs from the one recorded before the apply); someone may have changed it meanwhile: inspect it, fix it by hand, then run roce-apply -recover again", len(tp.Changes)))
	}
	return res
}

func joinMsg(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func safeRecover(ctx context.Context, r Recoverer, t Target, e *JournalEntry) (res *ApplyResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: internal error while recovering: %v", t.Address(), p)
		}
	}()
	return r.Recover(ctx, e)
}

// ErrInterrupted is returned (wrapped) when an earlier apply left targets
// unsettled; the CLIs refuse to plan or apply until -recover.
var ErrInterrupted = errors.New("an earlier roce-apply was interrupted")
