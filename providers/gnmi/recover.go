package gnmi

import (
	"context"
	"errors"
	"fmt"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/gnmi/proto/gnmi_ext"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// Journal steps a gNMI apply records (docs/apply-safety.md).
const (
	// stepSetSent is recorded before the SetRequest goes out: detail
	// "commit" is the commit-confirmed id ("" without one), "revert" the
	// SetRequest that undoes it (protobuf JSON), built from the state read
	// just before it.
	stepSetSent = "set-sent"
	// stepConfirmed: the commit was confirmed after the read-back matched.
	stepConfirmed = "confirmed"
)

func recordSetSent(ctx context.Context, commitID string, ops []plan.Op, before *planState, keysOf gpath.KeysOf) error {
	rev, err := revertRequest(ops, before, keysOf)
	if err != nil {
		return fmt.Errorf("building the compensating Set: %w", err)
	}
	b, err := protojson.Marshal(rev)
	if err != nil {
		return fmt.Errorf("encoding the compensating Set: %w", err)
	}
	return plan.RecorderFrom(ctx).Record(stepSetSent, map[string]string{"commit": commitID, "revert": string(b)})
}

// Recover settles a target whose apply was interrupted. A gNMI Set is one
// transaction on the device, so the target is before or after it, unless
// a commit-confirmed commit is still pending or someone changed it since:
//
//   - nothing sent (killed before the Set): the target must read as before;
//   - a pending commit whose result reads as planned: confirm it (finish);
//     one that does not: cancel it (the device restores the pre-commit state);
//   - then: as planned → applied; as before → rolled-back; anything else →
//     the compensating Set recorded before the Set, and a read-back that
//     must equal before.
func (t *target) Recover(ctx context.Context, e *plan.JournalEntry) (*plan.ApplyResult, error) {
	start := time.Now()
	res := &plan.ApplyResult{Address: t.Address()}
	status, err := t.recoverEntry(ctx, e, res)
	res.Status, res.Duration = status, time.Since(start)
	if err != nil {
		res.Error = err.Error()
	}
	return res, err
}

func (t *target) recoverEntry(ctx context.Context, e *plan.JournalEntry, res *plan.ApplyResult) (string, error) {
	tp := e.Target
	if tp == nil {
		return plan.StatusFailed, fmt.Errorf("%s: the journal entry holds no target plan; check the switch by hand", t.Address())
	}
	if err := t.connect(ctx); err != nil {
		return plan.StatusFailed, fmt.Errorf("%w; run roce-apply -recover again once it answers", err)
	}
	note := func(cmd, resp string, failed bool) {
		res.Transcript = append(res.Transcript, plan.Exchange{Command: cmd, Response: resp, Failed: failed})
	}
	sent := e.Reached(stepSetSent)
	commitID := e.LastDetail("commit")
	if sent && commitID != "" && !e.Reached(stepConfirmed) {
		act := "cancel"
		var ext *gnmi_ext.Extension
		if t.verify(ctx) == nil {
			act = "confirm"
			ext = commitExt(commitID, &gnmi_ext.Commit_Confirm{Confirm: &gnmi_ext.CommitConfirm{}})
		} else {
			ext = commitExt(commitID, &gnmi_ext.Commit_Cancel{Cancel: &gnmi_ext.CommitCancel{}})
		}
		// Refused when the commit is no longer pending (confirmed, or
		// rolled back by the device's timer): the read-back decides.
		if err := t.set(ctx, &gpb.SetRequest{Extension: []*gnmi_ext.Extension{ext}}); err != nil {
			note(act+" "+commitID, describe(err), true)
		} else {
			note(act+" "+commitID, "ok", false)
		}
	}
	if err := t.verify(ctx); err == nil {
		return plan.StatusApplied, nil
	}
	st, err := t.state(ctx)
	if err != nil {
		return plan.StatusFailed, fmt.Errorf("%s: read the target to recover: %w", t.Address(), err)
	}
	if st.fingerprint == tp.Fingerprint {
		if !sent {
			return plan.StatusRolledBack, fmt.Errorf("%s: nothing had been sent (the run stopped before its Set); the target is exactly as before", t.Address())
		}
		return plan.StatusRolledBack, fmt.Errorf("%s: the target is exactly as before the interrupted apply", t.Address())
	}
	if !sent {
		return plan.StatusFailed, fmt.Errorf("%s: the target differs both from before the apply and from the plan, but the interrupted run sent nothing: someone else changed it; inspect it and re-run roce-plan", t.Address())
	}
	req := &gpb.SetRequest{}
	if err := protojson.Unmarshal([]byte(e.LastDetail("revert")), req); err != nil || len(req.Delete)+len(req.Replace)+len(req.Update) == 0 {
		return plan.StatusFailed, fmt.Errorf("%s: the target is neither as before nor as planned, and the journal holds no usable compensating Set; fix it by hand, then run roce-apply -recover again", t.Address())
	}
	n := len(req.Delete) + len(req.Replace) + len(req.Update)
	if err := t.set(ctx, req); err != nil {
		note(fmt.Sprintf("compensating Set %d ops", n), describe(err), true)
		return plan.StatusFailed, fmt.Errorf("%s: the compensating Set was refused (%s); fix the target by hand, then run roce-apply -recover again", t.Address(), describe(err))
	}
	note(fmt.Sprintf("compensating Set %d ops", n), "ok", false)
	status, err := t.proveRestored(ctx, res, tp.Fingerprint, errors.New("recovering the interrupted apply"))
	if status == plan.StatusRolledBack {
		return status, fmt.Errorf("%s: undid the interrupted Set with the recorded compensating operations; the target reads back exactly as before", t.Address())
	}
	return status, fmt.Errorf("%s: %w; someone may have changed it meanwhile: inspect it, then run roce-apply -recover again", t.Address(), err)
}
