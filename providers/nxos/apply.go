package nxos

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/plan"
)

// txn is one apply: the sessions it opened and what they exchanged.
type txn struct {
	t          *Target
	dl         dialer
	conns      []*conn
	checkpoint string
	pre        *state
	// tp is the plan being applied or recovered: it tells roce's own
	// changes from anyone else's in a rollback patch.
	tp *plan.TargetPlan
	// warnings and saveErr are what an applied target reports besides
	// its status: the change was not saved, and what to do (save.go).
	warnings []string
	saveErr  error
}

func (x *txn) open(ctx context.Context) (*conn, error) {
	c, err := x.dl.open(ctx)
	if err != nil {
		return nil, err
	}
	x.conns = append(x.conns, c)
	return c, nil
}

// transcript joins every session's exchanges in order.
func (x *txn) transcript() []plan.Exchange {
	var out []plan.Exchange
	for _, c := range x.conns {
		out = append(out, c.exchange...)
	}
	return out
}

// Trips counts the lines sent during an apply (for benchmarks).
func (x *txn) trips() int {
	n := 0
	for _, c := range x.conns {
		n += c.trips
	}
	return n
}

// Apply pushes tp as one transaction:
//
//	checkpoint roce-… → the planned lines, stopping at the first refusal →
//	re-read → must equal the desired config → remove the checkpoint
//
// and on any failure `rollback running-config checkpoint NAME atomic`, a
// re-read proving the configuration is byte-identical to before, and the
// checkpoint's removal. When the connection drops, it reconnects (bounded
// backoff) and rolls back before reporting; when it drops before the
// checkpoint (nothing sent yet), the apply starts over. So the switch ends
// as before (rolled-back) or as planned (applied), wherever it drops.
func (t *Target) Apply(ctx context.Context, tp *plan.TargetPlan) (*plan.ApplyResult, error) {
	return t.transact(tp, func(x *txn) (string, error) { return t.apply(ctx, tp, x) })
}

// transact runs one transaction (an apply or a recovery) and reports it:
// status, every session's transcript, duration and error.
func (t *Target) transact(tp *plan.TargetPlan, fn func(x *txn) (string, error)) (*plan.ApplyResult, error) {
	start := time.Now()
	res := &plan.ApplyResult{Address: t.Address()}
	x := &txn{t: t, tp: tp}
	status, err := fn(x)
	for _, c := range x.conns {
		c.close()
	}
	res.Status = status
	res.Transcript = x.transcript()
	res.Duration = time.Since(start)
	res.Warnings = x.warnings
	if err != nil {
		res.Error = err.Error()
	} else if x.saveErr != nil {
		// Applied and verified, then not saved: the status stays applied
		// (the change is on the switch, and is not rolled back for it).
		res.Error = fmt.Sprintf("%s: %v", t.Address(), x.saveErr)
	}
	return res, err
}

// maxRestarts bounds how often an apply starts over after the connection
// was lost before anything that changes the switch was sent.
const maxRestarts = 2

func (t *Target) apply(ctx context.Context, tp *plan.TargetPlan, x *txn) (string, error) {
	if tp.Offline || t.sw.Capture != "" {
		return plan.StatusRefused, fmt.Errorf("%s: %w", t.Address(), errOffline)
	}
	dl, _, err := t.dialer()
	if err != nil {
		return plan.StatusFailed, err
	}
	x.dl = dl
	for restart := 0; ; restart++ {
		status, err := t.attempt(ctx, tp, x)
		// Lost after login but before the checkpoint: nothing was sent, so
		// starting over is safe (a refused login or host key is not retried).
		if err == nil || x.checkpoint != "" || !errors.Is(err, errSessionLost) || restart >= maxRestarts || restart >= len(t.backoff) {
			return status, err
		}
		tm := time.NewTimer(t.backoff[restart])
		select {
		case <-ctx.Done():
			tm.Stop()
			return status, fmt.Errorf("%w; not retried: %w", err, context.Cause(ctx))
		case <-tm.C:
		}
		t.log.Warn("connection lost before any change was sent; starting the apply over", "target", t.Address(), "attempt", restart+2, "cause", err)
	}
}

// attempt is one try at the transaction. x.checkpoint stays empty until
// the checkpoint command is sent: before that nothing on the switch moved.
func (t *Target) attempt(ctx context.Context, tp *plan.TargetPlan, x *txn) (string, error) {
	c, err := x.open(ctx)
	if err != nil {
		return plan.StatusFailed, fmt.Errorf("%s: connect to %s (nothing was sent): %w", t.Address(), t.sw.Address, withNextStep(t.env.Fabric, t.sw, err))
	}
	// The checkpoint table is read with the configuration (one round
	// trip); a sequential target reads it on its own below.
	pre, names, err := t.readBeforeApply(c)
	if err != nil {
		return plan.StatusFailed, fmt.Errorf("%s: re-read before apply (nothing was sent): %w", t.Address(), err)
	}
	x.pre = pre
	if pre.fingerprint != tp.Fingerprint {
		return plan.StatusStale, fmt.Errorf("%s: fingerprint %s, plan has %s: %w", t.Address(), pre.fingerprint, tp.Fingerprint, plan.ErrStale)
	}
	if len(tp.Commands) == 0 {
		return plan.StatusUnchanged, nil
	}
	if err := t.checkVDC(pre, tp.Commands); err != nil {
		return plan.StatusRefused, err
	}
	_, cmds, desired, err := t.diff(pre)
	if err != nil {
		return plan.StatusFailed, err
	}
	if !slices.Equal(cmds, tp.Commands) {
		// Same switch state, other script: the policy changed since the
		// plan. Sending the reviewed script would not reach what the policy
		// now asks for, and sending another would not be what was reviewed.
		return plan.StatusRefused, fmt.Errorf("%s: the policy now renders a different script than the plan holds (nothing was sent); re-run roce-plan and review it", t.Address())
	}
	push := t.planPush(pre, tp.Commands)

	if names == nil {
		if names, err = t.listCheckpoints(c); err != nil {
			return plan.StatusFailed, fmt.Errorf("%s: prepare the checkpoint (nothing was sent): %w", t.Address(), err)
		}
	}
	if err := t.prepareCheckpoints(c, names); err != nil {
		switch {
		case errors.Is(err, errConnection):
			return plan.StatusFailed, fmt.Errorf("%s: prepare the checkpoint (nothing was sent): %w", t.Address(), err)
		case errors.Is(err, errBusy):
			return plan.StatusRefused, err
		}
		return plan.StatusFailed, err
	}

	// Write-ahead: the journal names the checkpoint (and the managed
	// configuration it holds) before the switch is asked to take it, so a
	// kill at any instant after this leaves what -recover needs.
	rec := plan.RecorderFrom(ctx)
	name := t.checkpointName()
	if err := rec.Record(stepCheckpoint, map[string]string{stepCheckpoint: name, "before": pre.text}); err != nil {
		return plan.StatusFailed, fmt.Errorf("%s: recording the checkpoint in the apply journal (nothing was sent): %w", t.Address(), err)
	}
	x.checkpoint = name
	t.log.Info("applying", "target", t.Address(), "lines", len(tp.Commands), "checkpoint", x.checkpoint, "pipelined", push.pipelined, "exchanges", push.groups(len(tp.Commands)))
	var after []string
	var again *state
	if push.pipelined {
		var refused error
		after, again, refused, err = t.checkpointTurn(c, name, pre)
		if err != nil {
			return t.undo(ctx, x, c, fmt.Errorf("create checkpoint %s: %w", x.checkpoint, err))
		}
		if refused != nil {
			return plan.StatusFailed, fmt.Errorf("%s: create checkpoint %s (nothing was changed): %w", t.Address(), x.checkpoint, refused)
		}
	} else {
		if _, err := c.command("checkpoint " + x.checkpoint); err != nil {
			if errors.Is(err, errConnection) {
				// The switch may have taken the checkpoint before the session
				// went: recover as after any other lost line.
				return t.undo(ctx, x, c, fmt.Errorf("create checkpoint %s: %w", x.checkpoint, err))
			}
			return plan.StatusFailed, fmt.Errorf("%s: create checkpoint %s (nothing was changed): %w", t.Address(), x.checkpoint, err)
		}
		if after, err = t.listCheckpoints(c); err != nil {
			return t.undo(ctx, x, c, err)
		}
		if again, err = t.readConfig(c, pre); err != nil {
			return t.undo(ctx, x, c, fmt.Errorf("re-read before pushing: %w", err))
		}
	}
	// Concurrency on the device, not only in a local lock file: another
	// roce-apply (another checkout, another runner) shows as another fresh
	// roce checkpoint, and an operator's edit since our read as a moved
	// configuration. Either way, back off before pushing anything.
	others, err := t.othersIn(after, x.checkpoint)
	if err != nil {
		return t.undo(ctx, x, c, err)
	}
	if len(others) > 0 {
		t.removeCheckpoint(ctx, x, c, "backed off")
		return plan.StatusRefused, fmt.Errorf("%s: %w (checkpoint %s appeared beside ours); nothing was pushed and our checkpoint was removed; wait for it to finish and re-run roce-plan", t.Address(), errBusy, strings.Join(others, ", "))
	}
	if again.fingerprint != pre.fingerprint {
		t.removeCheckpoint(ctx, x, c, "backed off")
		return plan.StatusStale, fmt.Errorf("%s: the configuration changed while the apply was starting (someone else is changing the switch); nothing was pushed: %w", t.Address(), plan.ErrStale)
	}
	if err := rec.Record(stepPush, map[string]string{"lines": fmt.Sprint(len(tp.Commands))}); err != nil {
		t.removeCheckpoint(ctx, x, c, "journal failed")
		return plan.StatusFailed, fmt.Errorf("%s: recording the push in the apply journal (nothing was pushed): %w", t.Address(), err)
	}
	var post *state
	if push.pipelined {
		if post, err = t.pushGroups(c, push, tp.Commands, pre); err != nil {
			return t.undo(ctx, x, c, fmt.Errorf("apply: %w", err))
		}
		if err := rec.Record(stepPushed, nil); err != nil {
			return t.undo(ctx, x, c, fmt.Errorf("recording the push in the apply journal: %w", err))
		}
	} else {
		if _, err := c.configure(tp.Commands); err != nil {
			return t.undo(ctx, x, c, fmt.Errorf("apply: %w", err))
		}
		if err := rec.Record(stepPushed, nil); err != nil {
			return t.undo(ctx, x, c, fmt.Errorf("recording the push in the apply journal: %w", err))
		}
		if post, err = t.readConfig(c, pre); err != nil {
			return t.undo(ctx, x, c, fmt.Errorf("re-read after apply: %w", err))
		}
	}
	if err := t.verifyApplied(post, desired); err != nil {
		return t.undo(ctx, x, c, err)
	}
	if err := rec.Record(stepVerified, nil); err != nil {
		// Applied and verified; a later -recover reads it back as applied.
		t.log.Warn("applied and verified, but the apply journal could not record it", "target", t.Address(), "error", err)
	}
	t.finishApplied(ctx, x, c, tp, post)
	return plan.StatusApplied, nil
}

// removeCheckpoint deletes the transaction's checkpoint. When the session
// is gone it reconnects once to do it, so our checkpoints (NX-OS keeps at
// most 10) do not pile up; a failure is only logged, as the outcome is
// already decided (the next apply removes it as stale).
func (t *Target) removeCheckpoint(ctx context.Context, x *txn, c *conn, outcome string) {
	_, err := c.command("no checkpoint " + x.checkpoint)
	if err != nil && errors.Is(err, errConnection) {
		var c2 *conn
		if c2, err = x.open(context.WithoutCancel(ctx)); err == nil {
			_, err = c2.command("no checkpoint " + x.checkpoint)
		}
	}
	if err != nil {
		t.log.Warn(outcome+", but the checkpoint could not be removed", "target", t.Address(), "checkpoint", x.checkpoint, "error", err)
		return
	}
	_ = plan.RecorderFrom(ctx).Record(stepCheckpointRemoved, map[string]string{stepCheckpoint: x.checkpoint})
}

// verifyApplied requires the re-read config to be the desired config and a
// fresh plan against it to be empty.
func (t *Target) verifyApplied(post *state, desired *nexus.Config) error {
	left, _, err := nexus.Diff(post.cfg, desired, t.platform)
	if err != nil {
		return fmt.Errorf("verify: diff re-read and desired config: %w", err)
	}
	if len(left) > 0 {
		return fmt.Errorf("verify: after apply the switch still differs from the plan in %d object(s): %s", len(left), changeAddresses(left))
	}
	again, _, _, err := t.diff(post)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if len(again) > 0 {
		return fmt.Errorf("verify: a fresh plan after apply is not empty: %s", changeAddresses(again))
	}
	return nil
}

func changeAddresses(cs []plan.Change) string {
	var names []string
	for _, c := range cs {
		names = append(names, string(c.Action)+" "+c.Address)
	}
	return strings.Join(names, "; ")
}

// undo rolls back after cause. When the session is gone it reconnects
// first. The rollback runs even when ctx was cancelled (an interrupted
// apply must not leave the switch half-configured); it is bounded by the
// reconnection attempts and the operation timeout instead.
func (t *Target) undo(ctx context.Context, x *txn, c *conn, cause error) (string, error) {
	ctx = context.WithoutCancel(ctx)
	if errors.Is(cause, errConnection) || !c.tr.IsAlive() {
		return t.recoverAndRollback(ctx, x, cause)
	}
	status, err := t.rollback(ctx, x, c, cause)
	if err != nil && errors.Is(err, errConnection) {
		return t.recoverAndRollback(ctx, x, cause)
	}
	return status, err
}

// recoverAndRollback reconnects with bounded backoff and rolls back.
func (t *Target) recoverAndRollback(ctx context.Context, x *txn, cause error) (string, error) {
	var last error
	for i, wait := range t.backoff {
		tm := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			tm.Stop()
			return plan.StatusFailed, t.unrecovered(x, cause, fmt.Errorf("gave up reconnecting: %w", context.Cause(ctx)))
		case <-tm.C:
		}
		t.log.Warn("connection lost during apply; reconnecting to roll back", "target", t.Address(), "attempt", i+1, "cause", cause)
		c, err := x.open(ctx)
		if err != nil {
			last = err
			if errors.Is(err, errHostKey) {
				break
			}
			continue
		}
		status, err := t.rollback(ctx, x, c, cause)
		if err != nil && errors.Is(err, errConnection) && status == plan.StatusFailed {
			last = err
			continue
		}
		return status, err
	}
	return plan.StatusFailed, t.unrecovered(x, cause, fmt.Errorf("could not reconnect after %d attempts: %w", len(t.backoff), last))
}

func (t *Target) unrecovered(x *txn, cause, why error) error {
	return fmt.Errorf("%s: %v; %v. The switch may be partly configured: roll back by hand with `rollback running-config checkpoint %s atomic`", t.Address(), cause, why, x.checkpoint)
}

// rollback restores the checkpoint, proves the configuration is
// byte-identical to the pre-apply read, and removes the checkpoint. When
// the switch refuses the rollback (say the checkpoint was never taken
// because the session went while creating it), the configuration read
// afterwards decides: identical to before means nothing needed undoing.
func (t *Target) rollback(ctx context.Context, x *txn, c *conn, cause error) (string, error) {
	// A rollback restores the whole running configuration: if the switch
	// also changed in ways roce did not make since the checkpoint (an
	// operator's edit), rolling back would silently erase them. Say so and
	// leave the decision to a person instead.
	if x.tp != nil {
		foreign, err := t.foreignPatchLines(c, x.checkpoint, x.tp)
		if err != nil && errors.Is(err, errConnection) {
			return plan.StatusFailed, err
		}
		if err == nil && len(foreign) > 0 {
			if len(foreign) > 6 {
				foreign = append(foreign[:6], "...")
			}
			return plan.StatusFailed, fmt.Errorf("%s: %v; NOT rolled back: since checkpoint %s was taken the switch also changed in ways roce did not make (%s), and a rollback would erase those too. "+
				"The checkpoint is kept. Look at `show diff rollback-patch checkpoint %s running-config`; then either `rollback running-config checkpoint %s atomic` (erases both) or fix the QoS configuration by hand, delete the checkpoint, and run roce-apply -recover",
				t.Address(), cause, x.checkpoint, strings.Join(foreign, " | "), x.checkpoint, x.checkpoint)
		}
	}
	_ = plan.RecorderFrom(ctx).Record(stepRollback, map[string]string{stepCheckpoint: x.checkpoint})
	refused := error(nil)
	if _, err := c.command("rollback running-config checkpoint " + x.checkpoint + " atomic"); err != nil {
		if errors.Is(err, errConnection) {
			return plan.StatusFailed, err
		}
		refused = err
	}
	after, err := t.readConfig(c, x.pre)
	if err != nil {
		if errors.Is(err, errConnection) {
			return plan.StatusFailed, err
		}
		if refused != nil {
			return plan.StatusFailed, fmt.Errorf("%s: %v; then the rollback failed: %w; checkpoint %s is kept on the switch", t.Address(), cause, refused, x.checkpoint)
		}
		return plan.StatusFailed, fmt.Errorf("%s: %v; rolled back, but the re-read failed: %w; checkpoint %s is kept", t.Address(), cause, err, x.checkpoint)
	}
	if after.fingerprint != x.pre.fingerprint {
		if refused != nil {
			return plan.StatusFailed, fmt.Errorf("%s: %v; then the rollback failed: %w; checkpoint %s is kept on the switch", t.Address(), cause, refused, x.checkpoint)
		}
		return plan.StatusFailed, fmt.Errorf("%s: %v; rolled back to checkpoint %s, but the config read afterwards differs from the config before apply (%s, before %s); checkpoint kept, inspect with `show diff rollback-patch checkpoint %s running-config`",
			t.Address(), cause, x.checkpoint, after.fingerprint, x.pre.fingerprint, x.checkpoint)
	}
	_ = plan.RecorderFrom(ctx).Record(stepRolledBack, nil)
	if refused != nil {
		t.log.Warn("the rollback was refused, but the configuration is identical to before", "target", t.Address(), "checkpoint", x.checkpoint, "error", refused)
		t.removeCheckpoint(ctx, x, c, "identical to before")
		return plan.StatusRolledBack, fmt.Errorf("%s: %v; the configuration read afterwards is identical to before (nothing needed undoing)", t.Address(), cause)
	}
	t.removeCheckpoint(ctx, x, c, "rolled back")
	return plan.StatusRolledBack, fmt.Errorf("%s: %v; rolled back to checkpoint %s and verified identical to before", t.Address(), cause, x.checkpoint)
}

// checkpointName is unique per apply: roce-<UTC time>-<random>.
func (t *Target) checkpointName() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return "roce-" + t.now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}
