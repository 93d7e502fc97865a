package nxos

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/rocefabric/roce/plan"
)

// Journal steps an NX-OS apply records (docs/apply-safety.md). Each is
// recorded before the action it names is sent.
const (
	stepCheckpoint        = "checkpoint"         // detail checkpoint=NAME, before=<managed config>
	stepPush              = "push"               // the planned lines are about to be sent
	stepPushed            = "pushed"             // every line was accepted
	stepVerified          = "verified"           // the read-back equals the plan's after
	stepRollback          = "rollback"           // rollback to the checkpoint is about to be sent
	stepRolledBack        = "rolled-back"        // the read-back equals before
	stepCheckpointRemoved = "checkpoint-removed" // the checkpoint is gone
	// stepSave and stepSaved (save.go): the save is about to be sent, and
	// the switch answered that it is done.
)

// maxCheckpoints is NX-OS's limit on user checkpoints: "Maximum number of
// checkpoints (10) reached" refuses the eleventh.
const maxCheckpoints = 10

// defaultStaleCheckpoint is the age after which a roce checkpoint that no
// running apply can own is deleted before a new one is created. Younger
// ones are taken as another roce-apply at work on the switch (a run that
// lives longer than the default -timeout of 5 minutes is cut off first).
const defaultStaleCheckpoint = 15 * time.Minute

// envStaleCheckpoint overrides defaultStaleCheckpoint (a Go duration).
const envStaleCheckpoint = "ROCE_NXOS_STALE_CHECKPOINT_AFTER"

// checkpointNameRe matches the checkpoints roce creates, and only those:
// roce-<UTC time>-<6 hex digits>.
var checkpointNameRe = regexp.MustCompile(`^roce-(\d{8}T\d{6}Z)-[0-9a-f]{6}$`)

// roceCheckpointTime returns when a roce checkpoint was made, from its
// name; ok is false for any checkpoint roce did not create.
func roceCheckpointTime(name string) (time.Time, bool) {
	m := checkpointNameRe.FindStringSubmatch(name)
	if m == nil {
		return time.Time{}, false
	}
	t, err := time.Parse("20060102T150405Z", m[1])
	return t, err == nil
}

// summaryNameRe finds the names in `show checkpoint summary`:
//
//	User Checkpoint Summary
//	1) test:
//	Created by admin
//	...
var summaryNameRe = regexp.MustCompile(`^\s*\d+\)\s+(\S+):\s*$`)

// parseCheckpointSummary lists the user checkpoints' names. Checkpoints
// NX-OS makes by itself (system checkpoints, taken e.g. when a feature is
// disabled) are listed, when a release lists them, under a separate
// "System Checkpoint Summary" heading: they are skipped, as only user
// checkpoints count against the limit and roce never touches them.
func parseCheckpointSummary(out string) []string {
	var names []string
	system := false
	for _, l := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		switch t := strings.ToLower(strings.TrimSpace(l)); {
		case strings.HasSuffix(t, "checkpoint summary"):
			system = strings.HasPrefix(t, "system")
			continue
		}
		if m := summaryNameRe.FindStringSubmatch(l); m != nil && !system {
			names = append(names, m[1])
		}
	}
	return names
}

func (t *Target) listCheckpoints(c *conn) ([]string, error) {
	out, err := c.command("show checkpoint summary")
	if err != nil {
		return nil, fmt.Errorf("list checkpoints (show checkpoint summary): %w", err)
	}
	return parseCheckpointSummary(out), nil
}

func (t *Target) staleAfter() time.Duration {
	if t.env.Getenv != nil {
		if v, ok := t.env.Getenv(envStaleCheckpoint); ok && v != "" {
			if d, err := time.ParseDuration(v); err == nil && d >= 0 {
				return d
			}
			t.log.Warn("ignoring "+envStaleCheckpoint+": not a duration", "value", v)
		}
	}
	return defaultStaleCheckpoint
}

// errBusy means another roce-apply holds a checkpoint on the switch.
var errBusy = errors.New("another roce-apply is applying this switch")

// prepareCheckpoints runs before our checkpoint is created: it deletes
// roce checkpoints older than the stale age (left by killed runs), never
// anyone else's; refuses when a younger roce checkpoint shows another
// apply at work; and refuses when the table is full, all before anything
// is pushed.
func (t *Target) prepareCheckpoints(c *conn, names []string) error {
	now := t.now().UTC()
	stale := t.staleAfter()
	var kept []string
	for _, n := range names {
		at, ours := roceCheckpointTime(n)
		if !ours {
			kept = append(kept, n)
			continue
		}
		if age := now.Sub(at); age < stale {
			return fmt.Errorf("%s: %w: its checkpoint %s is %s old (nothing was sent). Wait for it to finish; if no roce-apply is running (a killed run whose journal is lost), delete it on the switch with `no checkpoint %s` after checking `show diff rollback-patch checkpoint %s running-config`, or wait %s and roce removes it as stale",
				t.Address(), errBusy, n, age.Round(time.Second), n, n, (stale - age).Round(time.Second))
		}
		if _, err := c.command("no checkpoint " + n); err != nil {
			return fmt.Errorf("%s: delete the stale roce checkpoint %s left by an earlier run (nothing was sent): %w", t.Address(), n, err)
		}
		t.log.Warn("deleted a stale roce checkpoint left by an earlier, interrupted run", "target", t.Address(), "checkpoint", n)
	}
	if len(kept) >= maxCheckpoints {
		return fmt.Errorf("%s: the switch already holds %d checkpoints, the NX-OS maximum, none of them roce's (%s); nothing was sent. Delete one you no longer need with `no checkpoint NAME`, then apply again",
			t.Address(), len(kept), strings.Join(kept, ", "))
	}
	return nil
}

// othersAt lists the roce checkpoints on the switch other than ours that a
// running apply may own (younger than the stale age).
func (t *Target) othersAt(c *conn, ours string) ([]string, error) {
	names, err := t.listCheckpoints(c)
	if err != nil {
		return nil, err
	}
	return t.othersIn(names, ours)
}

// othersIn is othersAt on a checkpoint list already read.
func (t *Target) othersIn(names []string, ours string) ([]string, error) {
	var others []string
	found := false
	for _, n := range names {
		if n == ours {
			found = true
			continue
		}
		if at, ok := roceCheckpointTime(n); ok && t.now().UTC().Sub(at) < t.staleAfter() {
			others = append(others, n)
		}
	}
	if !found {
		return nil, fmt.Errorf("checkpoint %s is not listed by `show checkpoint summary` after it was created", ours)
	}
	return others, nil
}

// foreignPatchLines returns the lines a rollback to the checkpoint would
// change that roce's transaction does not explain: a change someone else
// made after the checkpoint, which the rollback would erase too.
func (t *Target) foreignPatchLines(c *conn, name string, tp *plan.TargetPlan) ([]string, error) {
	out, err := c.command("show diff rollback-patch checkpoint " + name + " running-config")
	if err != nil {
		return nil, err
	}
	ours := map[string]bool{}
	add := func(l string) {
		l = strings.TrimSpace(l)
		if l != "" {
			ours[l] = true
			ours[strings.TrimPrefix(l, "no ")] = true
		}
	}
	for _, l := range tp.Commands {
		add(l)
	}
	for _, ch := range tp.Changes {
		for _, l := range strings.Split(ch.Before+"\n"+ch.After, "\n") {
			add(l)
		}
	}
	var foreign []string
	for _, l := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		if len(l) < 2 || (l[0] != '+' && l[0] != '-') || strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++") {
			continue
		}
		body := strings.TrimSpace(l[1:])
		if body == "" || strings.HasPrefix(body, "!") || ours[body] || ours[strings.TrimPrefix(body, "no ")] {
			continue
		}
		foreign = append(foreign, l)
	}
	return foreign, nil
}

// Recover brings a switch whose apply was interrupted to a consistent
// state. It reads the switch: already fully as planned → applied (the
// checkpoint is removed); exactly as before → rolled-back (nothing to
// undo); in between → `rollback running-config checkpoint NAME atomic` to
// the recorded checkpoint, unless changes roce did not make would be
// erased with it, then a read-back that must equal before.
func (t *Target) Recover(ctx context.Context, e *plan.JournalEntry) (*plan.ApplyResult, error) {
	return t.transact(e.Target, func(x *txn) (string, error) { return t.recover(ctx, e, x) })
}

// recover decides from the switch and the journal entry; its error says
// what was found and done, also with status applied or rolled-back.
func (t *Target) recover(ctx context.Context, e *plan.JournalEntry, x *txn) (string, error) {
	tp := e.Target
	if tp == nil {
		return plan.StatusFailed, fmt.Errorf("%s: the journal entry holds no target plan; check the switch by hand", t.Address())
	}
	dl, _, err := t.dialer()
	if err != nil {
		return plan.StatusFailed, err
	}
	x.dl = dl
	c, err := x.open(ctx)
	if err != nil {
		return plan.StatusFailed, fmt.Errorf("%s: connect to %s to recover: %w; run roce-apply -recover again once it answers", t.Address(), t.sw.Address, withNextStep(t.env.Fabric, t.sw, err))
	}
	st, err := t.readLive(c)
	if err != nil {
		return plan.StatusFailed, fmt.Errorf("%s: read the switch to recover: %w", t.Address(), err)
	}
	name := e.LastDetail(stepCheckpoint)
	names, err := t.listCheckpoints(c)
	if err != nil {
		return plan.StatusFailed, fmt.Errorf("%s: %w", t.Address(), err)
	}
	has := name != "" && contains(names, name)
	x.checkpoint = name
	_, left, desired, err := t.diff(st)
	if err != nil {
		return plan.StatusFailed, err
	}
	drop := func(outcome string) {
		if has {
			t.removeCheckpoint(ctx, x, c, outcome)
		}
	}
	if len(left) == 0 && t.verifyApplied(st, desired) == nil {
		drop("already applied")
		// The run may have stopped between its verify and its save.
		if objs := t.unsavedObjects(st, nil); len(objs) > 0 {
			x.warnings = append(x.warnings, unsavedWarning(objs))
		}
		return plan.StatusApplied, nil
	}
	if st.fingerprint == tp.Fingerprint {
		drop("as before")
		if name == "" {
			return plan.StatusRolledBack, fmt.Errorf("%s: nothing had been sent (the run stopped before its checkpoint); the switch is exactly as before", t.Address())
		}
		return plan.StatusRolledBack, fmt.Errorf("%s: the switch is exactly as before the interrupted apply; nothing needed undoing", t.Address())
	}
	if !has {
		if name == "" {
			return plan.StatusFailed, fmt.Errorf("%s: the switch differs both from before the apply and from the plan, and the interrupted run had sent nothing (it stopped before its checkpoint): someone else changed it; inspect it and re-run roce-plan", t.Address())
		}
		return plan.StatusFailed, fmt.Errorf("%s: the switch is part-way between before and the plan, and the checkpoint %s the run recorded is gone, so roce cannot roll back atomically; re-run roce-plan to see what is missing and apply it, or restore the configuration by hand", t.Address(), name)
	}
	pre := &state{version: st.version, kind: st.kind, modules: st.modules, vdcID: st.vdcID, vdcName: st.vdcName, jumbo: st.jumbo, defaultL2: st.defaultL2, fingerprint: tp.Fingerprint}
	if before := e.LastDetail("before"); before != "" {
		pre.text = before
	}
	x.pre = pre
	return t.rollbackTo(ctx, x, c, tp, fmt.Errorf("recovering the interrupted apply"))
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// rollbackTo rolls back to x.checkpoint for a recovery and proves the
// configuration equals the one recorded before the interrupted apply.
func (t *Target) rollbackTo(ctx context.Context, x *txn, c *conn, tp *plan.TargetPlan, cause error) (string, error) {
	x.tp = tp
	status, err := t.rollback(ctx, x, c, cause)
	if status == plan.StatusRolledBack {
		return status, fmt.Errorf("%s: rolled back to checkpoint %s; the configuration reads back exactly as before the interrupted apply", t.Address(), x.checkpoint)
	}
	return status, err
}
