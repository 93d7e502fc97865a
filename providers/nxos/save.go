package nxos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// Saving the configuration (docs/nxos.md#saving-the-configuration). NX-OS
// boots the startup configuration: a change only in the running one is
// gone after the next reload, and every upgrade reloads. After a verified
// apply roce saves with `copy running-config startup-config`, as the
// switch's save_config setting says:
//
//	auto    save only when the startup configuration matched the running
//	        one before roce's change (or differed only in roce's own
//	        objects), so no one else's unsaved edit is saved behind their
//	        back; otherwise warn and name the command
//	always  save after every verified apply
//	never   do not save; warn
//
// The startup configuration of the sections roce reads comes in the same
// exchange as the running one (batch.go), and the save goes in the same
// exchange as the checkpoint's removal: an apply costs no more round trips
// than before. A save that fails leaves the target applied (a verified
// change is never rolled back for it) with an error naming the next step.

// onlyStartupRefused reports whether every refused answer of a batched
// read is a `show startup-config` one: a release that does not take the
// section reads of the startup configuration (UNCONFIRMED for the
// 5000/7000, docs/nxos.md) still plans and applies, with the saved state
// unknown (so "auto" does not save, and says why).
func onlyStartupRefused(cmds, parts []string) bool {
	if parts == nil {
		return false
	}
	for i, p := range parts {
		if cliRefused(p) && !strings.HasPrefix(cmds[i], "show startup-config") {
			return false
		}
	}
	return true
}

// saveCommand saves the running configuration to the startup one.
const saveCommand = "copy running-config startup-config"

// Journal steps of the save (docs/apply-safety.md).
const (
	stepSave  = "save"  // the save is about to be sent
	stepSaved = "saved" // the switch answered "Copy complete"
)

// savePayload is the NX-OS plan payload: what the plan was reviewed with.
type savePayload struct {
	SaveConfig string `json:"save_config"`
}

// payload records the save policy in the plan.
func (t *Target) payload() json.RawMessage {
	b, _ := json.Marshal(savePayload{SaveConfig: t.saveSetting()})
	return b
}

func (t *Target) saveSetting() string {
	if t.sw.SaveConfig == "" {
		return policies.SaveConfigAuto
	}
	return t.sw.SaveConfig
}

// saveMode is the save policy the plan was made with (the policy's when
// the plan predates the setting).
func (t *Target) saveMode(tp *plan.TargetPlan) string {
	var p savePayload
	if tp != nil && len(tp.Payload) > 0 && json.Unmarshal(tp.Payload, &p) == nil && p.SaveConfig != "" {
		return p.SaveConfig
	}
	return t.saveSetting()
}

// foreignUnsaved reports whether saving post (the configuration read
// after the apply) would also save something that is not roce's: post is
// not what roce makes of the startup configuration read before the apply
// (its render over it). When the startup configuration matched the
// running one before, it cannot be.
func (t *Target) foreignUnsaved(pre, post *state) bool {
	if !pre.startupRead {
		return true
	}
	if pre.startup == pre.text {
		return false
	}
	scfg, err := nexus.Parse(pre.startup)
	if err != nil {
		return true
	}
	desired, err := nexus.Render(t.intent(pre), scfg)
	if err != nil {
		return true
	}
	return !sameBlocks(nexus.NormaliseRunning(desired.String()), post.text)
}

// sameBlocks compares two configurations object by object (a top-level
// line and its indented lines), in any order of objects.
func sameBlocks(a, b string) bool {
	blocks := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if l == "" {
				continue
			}
			if strings.HasPrefix(l, " ") && len(out) > 0 {
				out[len(out)-1] += "\n" + l
				continue
			}
			out = append(out, l)
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(blocks(a), blocks(b))
}

// unsavedObjects lists roce's objects that the running configuration has
// and the startup configuration lacks: the changes a plan after the next
// reload would show that the plan now does not.
func (t *Target) unsavedObjects(st *state, now []plan.Change) []string {
	if !st.startupRead || st.startup == st.text {
		return nil
	}
	scfg, err := nexus.Parse(st.startup)
	if err != nil {
		t.log.Debug("the startup configuration does not parse; not compared", "target", t.Address(), "error", err)
		return nil
	}
	after := &state{version: st.version, kind: st.kind, modules: st.modules, vdcID: st.vdcID, vdcName: st.vdcName, jumbo: st.jumbo, defaultL2: st.defaultL2, cfg: scfg}
	changes, _, _, err := t.diff(after)
	if err != nil {
		t.log.Debug("the startup configuration does not plan; not compared", "target", t.Address(), "error", err)
		return nil
	}
	var out []string
	for _, c := range changes {
		if !slices.ContainsFunc(now, func(n plan.Change) bool { return n.Address == c.Address }) {
			out = append(out, c.Address)
		}
	}
	return out
}

// unsavedWarning is the plan's note for unsavedObjects.
func unsavedWarning(objs []string) string {
	shown := objs
	if len(shown) > 6 {
		shown = append(slices.Clone(shown[:6]), fmt.Sprintf("and %d more", len(objs)-6))
	}
	return fmt.Sprintf("applied but not saved: the running configuration has roce's %s, the startup configuration does not, so the next reload (every upgrade reloads) drops the lossless class. "+
		"Save with `%s` once any other unsaved change on the switch has been reviewed (docs/nxos.md#saving-the-configuration)", strings.Join(shown, ", "), saveCommand)
}

// finishApplied saves (as the save policy says) and removes the
// checkpoint, in one exchange. The target is applied whatever happens
// here; what the operator must do next goes to x.warnings or x.saveErr.
func (t *Target) finishApplied(ctx context.Context, x *txn, c *conn, tp *plan.TargetPlan, post *state) {
	mode := t.saveMode(tp)
	switch {
	case mode == policies.SaveConfigNever:
		x.warnings = append(x.warnings, fmt.Sprintf("not saved (save_config = \"never\"): the change is in the running configuration only and the next reload (every upgrade reloads) drops it; save with `%s` when you are ready", saveCommand))
		t.removeCheckpoint(ctx, x, c, "applied")
		return
	case mode == policies.SaveConfigAuto && !x.pre.startupRead:
		x.warnings = append(x.warnings, "not saved: the switch did not show its startup configuration (`show startup-config` of the sections roce reads was refused), so roce cannot tell whether it has unsaved changes that are not roce's. "+
			"Review them, then save with `"+saveCommand+"` (or set save_config = \"always\"); until then the next reload drops roce's change")
		t.removeCheckpoint(ctx, x, c, "applied")
		return
	case mode == policies.SaveConfigAuto && t.foreignUnsaved(x.pre, post):
		x.warnings = append(x.warnings, "not saved: before this apply the switch already had unsaved changes that are not roce's (its startup configuration differed from the running one in the ACL, QoS or interface configuration roce reads), and roce does not save someone else's changes behind their back. "+
			"Review them (compare `show running-config ipqos` with `show startup-config ipqos`, likewise aclmgr and the managed interfaces), then save with `"+saveCommand+"`; until then the next reload drops roce's change too (or set save_config = \"always\")")
		t.removeCheckpoint(ctx, x, c, "applied")
		return
	}
	rec := plan.RecorderFrom(ctx)
	if err := rec.Record(stepSave, nil); err != nil {
		x.saveErr = fmt.Errorf("not saved: recording the save in the apply journal failed (%v); save with `%s`", err, saveCommand)
		t.removeCheckpoint(ctx, x, c, "applied")
		return
	}
	answer, removed, err := t.saveAndRemove(c, x.checkpoint)
	switch {
	case err != nil:
		x.saveErr = fmt.Errorf("applied and verified, but not saved: %w; the change is in the running configuration only; save with `%s` on the switch (the next reload drops it otherwise)", err, saveCommand)
	case !strings.Contains(answer, "Copy complete"):
		x.saveErr = fmt.Errorf("applied and verified, but not saved: the switch answered %q to `%s`; the change is in the running configuration only. Find why (another checkpoint, rollback or save in progress? a full bootflash?) and save with `%s` (the next reload drops it otherwise)", firstLines(answer), saveCommand, saveCommand)
	default:
		_ = rec.Record(stepSaved, nil)
	}
	if removed {
		_ = rec.Record(stepCheckpointRemoved, map[string]string{stepCheckpoint: x.checkpoint})
		return
	}
	t.removeCheckpoint(ctx, x, c, "applied")
}

// saveAndRemove sends the save and the checkpoint's removal together (one
// by one on a sequential target). It returns the save's answer and whether
// the checkpoint is gone; err is set when the session failed.
func (t *Target) saveAndRemove(c *conn, checkpoint string) (string, bool, error) {
	del := "no checkpoint " + checkpoint
	if c.sequential {
		// A refusal comes back with the answer, which decides below.
		answer, err := c.command(saveCommand)
		if err != nil && errors.Is(err, errConnection) {
			return "", false, err
		}
		return answer, false, nil
	}
	parts, err := c.batch([]string{saveCommand, del})
	if parts == nil {
		return "", false, err
	}
	return parts[0], !cliRefused(parts[1]), nil
}
