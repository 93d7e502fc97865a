package gnmi

import (
	"context"
	"errors"
	"fmt"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/gnmi/proto/gnmi_ext"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// Apply refuses a stale plan, and a plan whose ops are not what the policy
// renders against the fresh read (or whose recorded settings are not the
// ones in force), sends tp.Ops as one SetRequest (with
// commit-confirmed when available), re-reads, and confirms only when the
// device shows exactly the desired state; otherwise it cancels the commit
// (or sends a compensating Set) and proves the device is back where it was.
func (t *target) Apply(ctx context.Context, tp *plan.TargetPlan) (*plan.ApplyResult, error) {
	start := time.Now()
	res := &plan.ApplyResult{Address: t.Address()}
	done := func(status string, err error) (*plan.ApplyResult, error) {
		res.Status = status
		res.Duration = time.Since(start)
		if err != nil {
			res.Error = err.Error()
		}
		if status == plan.StatusApplied {
			res.Warnings = append(res.Warnings, t.saveWarning())
		}
		return res, err
	}
	if tp == nil {
		return done(plan.StatusRefused, fmt.Errorf("%s: no plan given", t.Address()))
	}
	if tp.Offline {
		return done(plan.StatusRefused, fmt.Errorf("%s: the plan was made against a capture; re-plan against the device", t.Address()))
	}
	if err := t.connect(ctx); err != nil {
		return done(plan.StatusFailed, err)
	}
	before, err := t.state(ctx)
	if err != nil {
		return done(plan.StatusFailed, err)
	}
	if before.fingerprint != tp.Fingerprint {
		return done(plan.StatusStale, fmt.Errorf("%s: %w", t.Address(), plan.ErrStale))
	}
	// Same device state: the policy must still render exactly the ops the
	// plan holds. A saved plan edited after review, or a policy changed
	// since, is refused before anything is sent.
	if _, ops := diff(before.rendered, before.snap); !sameOps(ops, tp.Ops) {
		return done(plan.StatusRefused, fmt.Errorf("%s: the plan's operations are not what the policy renders now (%s); nothing was sent; re-run roce-plan and review the new plan",
			t.Address(), opsDiff(tp.Ops, ops)))
	}
	if d := t.settingsChanged(tp.Facts); d != "" {
		return done(plan.StatusRefused, fmt.Errorf("%s: the gNMI settings differ from those the plan was made with (%s); nothing was sent; re-run roce-plan and review the new plan", t.Address(), d))
	}
	if len(tp.Ops) == 0 {
		return done(plan.StatusUnchanged, nil)
	}
	req, err := SetRequestFromOps(tp.Ops)
	if err != nil {
		return done(plan.StatusRefused, fmt.Errorf("%s: plan ops: %w", t.Address(), err))
	}
	commitID := ""
	if t.useCommit() {
		commitID = fmt.Sprintf("roce-%d", time.Now().UnixNano())
		req.Extension = append(req.Extension, commitExt(commitID, &gnmi_ext.Commit_Commit{Commit: &gnmi_ext.CommitRequest{
			RollbackDuration: durationpb.New(t.opts.CommitRollback),
		}}))
	}
	// Write-ahead (docs/apply-safety.md): the journal gets the commit id
	// and the compensating Set built from the state read before the Set,
	// so a run killed after sending it can still be undone.
	if err := recordSetSent(ctx, commitID, tp.Ops, before, t.prof.KeysOf); err != nil {
		return done(plan.StatusFailed, fmt.Errorf("%s: recording the Set in the apply journal (nothing was sent): %w", t.Address(), err))
	}
	label := fmt.Sprintf("Set %d ops (%d delete, %d replace, %d update)", len(tp.Ops), len(req.Delete), len(req.Replace), len(req.Update))
	if commitID != "" {
		label += fmt.Sprintf(", commit-confirmed %s rollback %s", commitID, t.opts.CommitRollback)
	}
	if err := t.set(ctx, req); err != nil {
		res.Transcript = append(res.Transcript, plan.Exchange{Command: label, Response: describe(err), Failed: true})
		setErr := fmt.Errorf("%s: Set refused (%s): %w", t.Address(), describe(err), err)
		// A refused SetRequest changes nothing (gNMI §3.4.3); prove it.
		return done(t.proveRestored(ctx, res, before.fingerprint, setErr))
	}
	res.Transcript = append(res.Transcript, plan.Exchange{Command: label, Response: "ok"})

	verifyErr := t.verify(ctx)
	if verifyErr == nil {
		if commitID == "" {
			return done(plan.StatusApplied, nil)
		}
		confirm := &gpb.SetRequest{Extension: []*gnmi_ext.Extension{commitExt(commitID, &gnmi_ext.Commit_Confirm{Confirm: &gnmi_ext.CommitConfirm{}})}}
		if err := t.set(ctx, confirm); err != nil {
			res.Transcript = append(res.Transcript, plan.Exchange{Command: "confirm " + commitID, Response: describe(err), Failed: true})
			return done(plan.StatusFailed, fmt.Errorf("%s: confirm of commit %s failed (%s); the target rolls back by itself after %s: %w",
				t.Address(), commitID, describe(err), t.opts.CommitRollback, err))
		}
		res.Transcript = append(res.Transcript, plan.Exchange{Command: "confirm " + commitID, Response: "ok"})
		_ = plan.RecorderFrom(ctx).Record(stepConfirmed, nil)
		return done(plan.StatusApplied, nil)
	}
	res.Transcript = append(res.Transcript, plan.Exchange{Command: "verify (re-Get and diff)", Response: verifyErr.Error(), Failed: true})
	failure := fmt.Errorf("%s: after Set the device does not show the planned state: %w", t.Address(), verifyErr)
	if commitID != "" {
		cancel := &gpb.SetRequest{Extension: []*gnmi_ext.Extension{commitExt(commitID, &gnmi_ext.Commit_Cancel{Cancel: &gnmi_ext.CommitCancel{}})}}
		if err := t.set(ctx, cancel); err != nil {
			res.Transcript = append(res.Transcript, plan.Exchange{Command: "cancel " + commitID, Response: describe(err), Failed: true})
			return done(plan.StatusFailed, errors.Join(failure, fmt.Errorf("cancel of commit %s failed (%s); the target rolls back by itself after %s", commitID, describe(err), t.opts.CommitRollback)))
		}
		res.Transcript = append(res.Transcript, plan.Exchange{Command: "cancel " + commitID, Response: "ok"})
		return done(t.proveRestored(ctx, res, before.fingerprint, failure))
	}
	revert, err := revertRequest(tp.Ops, before, t.prof.KeysOf)
	if err != nil {
		return done(plan.StatusFailed, errors.Join(failure, fmt.Errorf("building the compensating Set: %w", err)))
	}
	if err := t.set(ctx, revert); err != nil {
		res.Transcript = append(res.Transcript, plan.Exchange{Command: "compensating Set", Response: describe(err), Failed: true})
		return done(plan.StatusFailed, errors.Join(failure, fmt.Errorf("compensating Set refused: %w", err)))
	}
	res.Transcript = append(res.Transcript, plan.Exchange{Command: fmt.Sprintf("compensating Set %d ops", len(revert.Delete)+len(revert.Replace)+len(revert.Update)), Response: "ok"})
	return done(t.proveRestored(ctx, res, before.fingerprint, failure))
}

func (t *target) set(ctx context.Context, req *gpb.SetRequest) error {
	if t.encoding == gpb.Encoding_JSON {
		// A target without JSON_IETF: the values go as plain JSON.
		if err := jsonUpdates(req); err != nil {
			return fmt.Errorf("%s: values as plain JSON: %w", t.Address(), err)
		}
	}
	ctx, cancel := t.opCtx(ctx)
	defer cancel()
	_, err := t.client.Set(ctx, req)
	return err
}

// verify re-reads the device and requires an empty diff.
func (t *target) verify(ctx context.Context) error {
	st, err := t.state(ctx)
	if err != nil {
		return err
	}
	changes, _ := diff(st.rendered, st.snap)
	if len(changes) == 0 {
		return nil
	}
	c := changes[0]
	return fmt.Errorf("%d object(s) still differ, first %s:\n%s", len(changes), c.Address, c.Note)
}

// proveRestored re-reads and reports rolled-back when the device is back at
// the pre-apply fingerprint, failed otherwise. cause is the original error.
func (t *target) proveRestored(ctx context.Context, res *plan.ApplyResult, want string, cause error) (string, error) {
	st, err := t.state(ctx)
	if err != nil {
		return plan.StatusFailed, errors.Join(cause, fmt.Errorf("could not re-read to prove the rollback: %w", err))
	}
	if st.fingerprint != want {
		res.Transcript = append(res.Transcript, plan.Exchange{Command: "re-read", Response: "state differs from before the apply", Failed: true})
		return plan.StatusFailed, errors.Join(cause, fmt.Errorf("the device did not return to its pre-apply state"))
	}
	res.Transcript = append(res.Transcript, plan.Exchange{Command: "re-read", Response: "state equals the pre-apply state"})
	return plan.StatusRolledBack, cause
}

// revertRequest builds the SetRequest that undoes ops, from the state read
// before they were sent.
func revertRequest(ops []plan.Op, before *planState, keysOf gpath.KeysOf) (*gpb.SetRequest, error) {
	pre := leafMap{}
	for _, ls := range before.snap.objects {
		for _, l := range ls {
			pre[l.Path.Key()] = l
		}
	}
	for _, it := range before.snap.owned {
		for _, l := range it.leaves {
			pre[l.Path.Key()] = l
		}
	}
	under := func(p gpath.Path) []gpath.Leaf {
		var out []gpath.Leaf
		for _, l := range pre {
			if l.Path.HasPrefix(p) {
				out = append(out, l)
			}
		}
		return out
	}
	var dels, reps, upds []plan.Op
	restore := func(origin string, p gpath.Path, ls []gpath.Leaf, op string) error {
		v, err := gpath.Build(p, ls)
		if err != nil {
			return err
		}
		b := []byte(canon(v))
		if op == "replace" {
			reps = append(reps, plan.Op{Op: op, Origin: origin, Path: p.String(), Value: b})
		} else {
			upds = append(upds, plan.Op{Op: op, Origin: origin, Path: p.String(), Value: b})
		}
		return nil
	}
	for _, op := range ops {
		p, err := gpath.Parse(op.Path)
		if err != nil {
			return nil, err
		}
		old := under(p)
		switch op.Op {
		case "delete", "replace":
			if len(old) == 0 {
				dels = append(dels, plan.Op{Op: "delete", Origin: op.Origin, Path: op.Path})
				continue
			}
			if err := restore(op.Origin, p, old, "replace"); err != nil {
				return nil, err
			}
		case "update":
			v, err := gpath.Decode(op.Value)
			if err != nil {
				return nil, err
			}
			sent, err := gpath.Flatten(p, v, keysOf)
			if err != nil {
				return nil, err
			}
			var back []gpath.Leaf
			for _, l := range sent {
				if o, ok := pre[l.Path.Key()]; ok {
					back = append(back, o)
				} else {
					dels = append(dels, plan.Op{Op: "delete", Origin: op.Origin, Path: l.Path.String()})
				}
			}
			if len(back) > 0 {
				if err := restore(op.Origin, p, back, "update"); err != nil {
					return nil, err
				}
			}
		}
	}
	return SetRequestFromOps(append(append(dels, reps...), upds...))
}

// sameOps reports whether two op lists are the same SetRequest: same order,
// ops, origins and paths, and values equal as JSON (a saved plan may hold
// them re-indented).
func sameOps(a, b []plan.Op) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameOp(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameOp(a, b plan.Op) bool {
	if a.Op != b.Op || a.Origin != b.Origin || a.Path != b.Path {
		return false
	}
	if len(a.Value) == 0 || len(b.Value) == 0 {
		return len(a.Value) == len(b.Value)
	}
	va, err := gpath.Decode(a.Value)
	if err != nil {
		return false
	}
	vb, err := gpath.Decode(b.Value)
	if err != nil {
		return false
	}
	return canon(va) == canon(vb)
}

// opsDiff names the first difference between the plan's ops and the ops
// the policy renders now, for the refusal message.
func opsDiff(planned, now []plan.Op) string {
	name := func(o plan.Op) string { return o.Op + " " + originPath(o.Origin, o.Path) }
	for i := 0; i < len(planned) && i < len(now); i++ {
		p, n := planned[i], now[i]
		if sameOp(p, n) {
			continue
		}
		if p.Op == n.Op && p.Origin == n.Origin && p.Path == n.Path {
			return fmt.Sprintf("op %d, %s: the plan's value differs", i+1, name(p))
		}
		return fmt.Sprintf("op %d: the plan has %s, the policy renders %s", i+1, name(p), name(n))
	}
	switch {
	case len(planned) > len(now):
		return fmt.Sprintf("the plan has %d ops, the policy renders %d; the first extra is %s", len(planned), len(now), name(planned[len(now)]))
	case len(now) > len(planned):
		return fmt.Sprintf("the plan has %d ops, the policy renders %d; the first missing is %s", len(planned), len(now), name(now[len(planned)]))
	}
	return "no difference"
}
