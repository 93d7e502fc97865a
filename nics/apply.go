package nics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/rocefabric/roce/plan"
)

// StepResult is one apply or restore step, for the transcript.
type StepResult struct {
	Name     string `json:"name"`
	Detail   string `json:"detail,omitempty"`
	Error    string `json:"error,omitempty"`
	Injected bool   `json:"injected,omitempty"` // failure injected by fail_after_step (lab only)
}

// ApplyOptions control one apply.
type ApplyOptions struct {
	// Fingerprint is the plan's; apply refuses with plan.ErrStale when the
	// host's current state gives another. Empty skips the check.
	Fingerprint string
	// FailAfterStep injects a failure after step N (1-based) to prove the
	// restore path. Honoured only on lab hosts; refused elsewhere.
	FailAfterStep int
	// Hold, when set, is called at every point where a kill must leave a
	// recoverable host: after the transaction record is written, before
	// and after each step, before each restore step. The kill tests use it
	// to stop the agent there (a Go value: no request can set it).
	Hold func(point string)
	// LockWait (recover) is how long to wait for another agent still
	// applying on the host; 0 = a default of two minutes, < 0 = not at all.
	LockWait time.Duration
}

func (o ApplyOptions) lockWait() time.Duration {
	switch {
	case o.LockWait < 0:
		return 0
	case o.LockWait == 0:
		return recoverLockWait
	}
	return o.LockWait
}

func (o ApplyOptions) hold(point string) {
	if o.Hold != nil {
		o.Hold(point)
	}
}

// ApplyReport is what an apply did.
type ApplyReport struct {
	Status      string       `json:"status"` // plan.Status*
	Steps       []StepResult `json:"steps,omitempty"`
	FailedStep  string       `json:"failed_step,omitempty"`
	Error       string       `json:"error,omitempty"`
	Restore     []StepResult `json:"restore,omitempty"`
	Fingerprint string       `json:"fingerprint,omitempty"` // state after the apply
	Notes       []string     `json:"notes,omitempty"`
	// Transaction (refused) is the unfinished transaction that blocks a
	// new apply until it is recovered.
	Transaction *TxnSummary `json:"transaction,omitempty"`
}

type step struct {
	name, detail string
	do           func(ctx context.Context) error
}

// Apply brings the host to desired as one transaction: resolve and re-read
// (refusing a stale plan), snapshot, write the transaction record, run the
// steps (recording each before it is taken), verify that a fresh read has
// no changes left, remove the record; on any failure restore the snapshot
// and prove it. A host with an unfinished transaction (an earlier apply
// was killed) is refused until Recover. The report is never nil.
func (s *System) Apply(ctx context.Context, desired *HostState, opt ApplyOptions) (*ApplyReport, error) {
	rep := &ApplyReport{Status: plan.StatusFailed}
	if opt.FailAfterStep != 0 && !s.Lab {
		rep.Status = plan.StatusRefused
		rep.Error = "fail_after_step is a lab-only fault injection; this host has no lab marker"
		return rep, errors.New(rep.Error)
	}
	if err := CheckManaged(desired); err != nil {
		rep.Status = plan.StatusRefused
		err = fmt.Errorf("refusing the request: %w; nothing was changed", err)
		rep.Error = err.Error()
		return rep, err
	}
	unlock, err := s.lockTxn()
	if err != nil {
		rep.Error = err.Error()
		return rep, err
	}
	defer unlock()
	defer s.holdRoot()()
	if rec, err := s.PendingTxn(); err != nil {
		rep.Error = err.Error()
		return rep, err
	} else if rec != nil {
		rep.Status = plan.StatusRefused
		rep.Transaction = rec.Summary()
		err := fmt.Errorf("%w: %s; nothing was changed", ErrInterrupted, rep.Transaction)
		rep.Error = err.Error()
		return rep, err
	}
	rd, err := s.Read(ctx, desired)
	if err != nil {
		rep.Error = err.Error()
		return rep, err
	}
	rep.Notes = rd.Notes
	if opt.Fingerprint != "" && rd.Fingerprint != opt.Fingerprint {
		rep.Status = plan.StatusStale
		err := fmt.Errorf("%w (host fingerprint %s, plan %s)", plan.ErrStale, rd.Fingerprint, opt.Fingerprint)
		rep.Error = err.Error()
		return rep, err
	}
	want := rd.Resolved
	if len(Diff(rd.Current, want)) == 0 {
		rep.Status = plan.StatusUnchanged
		rep.Fingerprint = rd.Fingerprint
		return rep, nil
	}
	sn, err := s.TakeSnapshot(ctx, want)
	if err != nil {
		rep.Error = err.Error()
		return rep, err
	}
	tx := &TxnRecord{Version: txnVersion, ID: newTxnID(), Started: time.Now().UTC(), Phase: TxnApplying,
		PlanFingerprint: opt.Fingerprint, Desired: want, Snapshot: sn, Written: map[string]string{}, prepare: map[string]func(context.Context) error{}}
	defer tx.release()
	steps := s.stepsFor(rd.Current, want, tx)
	for _, st := range steps {
		tx.Steps = append(tx.Steps, TxnStep{Name: st.name, Detail: st.detail})
	}
	// Write-ahead: nothing changes on the host before the record is down.
	if err := s.saveTxn(tx); err != nil {
		rep.Error = err.Error() + "; nothing was changed"
		return rep, errors.New(rep.Error)
	}
	opt.hold("recorded")
	for i, st := range steps {
		if err := ctx.Err(); err != nil {
			// Cancelled (SIGTERM, SIGHUP, the controller's deadline): stop
			// before the next step and put back what was done.
			rep.FailedStep = st.name
			return s.rollback(ctx, rep, tx, opt, fmt.Errorf("stopped before step %d %s: %w", i+1, st.name, err))
		}
		tx.Reached = i + 1
		if prepare := tx.prepare[st.name]; prepare != nil {
			if err := prepare(ctx); err != nil {
				rep.Steps = append(rep.Steps, StepResult{Name: st.name, Detail: st.detail, Error: err.Error()})
				rep.FailedStep = st.name
				return s.rollback(ctx, rep, tx, opt, fmt.Errorf("step %d %s: %w", i+1, st.name, err))
			}
		}
		if err := s.saveTxn(tx); err != nil {
			rep.FailedStep = st.name
			return s.rollback(ctx, rep, tx, opt, fmt.Errorf("before step %d %s: %w", i+1, st.name, err))
		}
		opt.hold(fmt.Sprintf("step %d %s", i+1, st.name))
		r := StepResult{Name: st.name, Detail: st.detail}
		err := st.do(ctx)
		if err == nil && opt.FailAfterStep == i+1 {
			r.Injected = true
			err = fmt.Errorf("injected failure after step %d (%s)", i+1, st.name)
		}
		if err != nil {
			r.Error = err.Error()
			rep.Steps = append(rep.Steps, r)
			rep.FailedStep = st.name
			return s.rollback(ctx, rep, tx, opt, fmt.Errorf("step %d %s: %w", i+1, st.name, err))
		}
		rep.Steps = append(rep.Steps, r)
		opt.hold(fmt.Sprintf("done %d %s", i+1, st.name))
	}
	// Resolve again: GID indexes pending at plan time exist now.
	final, _, err := s.Resolve(ctx, want)
	if err != nil {
		rep.FailedStep = "verify"
		return s.rollback(ctx, rep, tx, opt, fmt.Errorf("verify: %w", err))
	}
	after, err := s.readCurrent(ctx, final)
	if err != nil {
		rep.FailedStep = "verify"
		return s.rollback(ctx, rep, tx, opt, fmt.Errorf("verify: %w", err))
	}
	if left := Diff(after, final); len(left) > 0 {
		var names []string
		for _, c := range left {
			names = append(names, c.Address)
		}
		rep.FailedStep = "verify"
		return s.rollback(ctx, rep, tx, opt, fmt.Errorf("verify: still different after apply: %s", strings.Join(names, ", ")))
	}
	opt.hold("verified")
	rep.Status = plan.StatusApplied
	rep.Fingerprint = Fingerprint(after)
	if err := s.clearTxn(tx); err != nil {
		// Applied and verified, but the next call will see the record:
		// recover confirms the apply (the host reads back as desired).
		rep.Notes = append(rep.Notes, fmt.Sprintf("applied and verified, but the transaction record could not be removed (%v): run recover to confirm and clear it", err))
	}
	return rep, nil
}

func (s *System) rollback(ctx context.Context, rep *ApplyReport, tx *TxnRecord, opt ApplyOptions, cause error) (*ApplyReport, error) {
	// Restore even if the caller's context is done: leaving the host half
	// applied is worse than overrunning a deadline.
	rctx := context.WithoutCancel(ctx)
	sn, want := tx.Snapshot, tx.Desired
	tx.Phase, tx.Cause = TxnRollingBack, cause.Error()
	// Best effort: a record still saying "applying" is rolled back by
	// recover all the same (the host can't read back as desired).
	_ = s.saveTxn(tx)
	steps, rerr := s.restore(rctx, sn, want, tx.Written, opt.hold)
	rep.Restore = steps
	if rerr == nil {
		rerr = s.Verify(rctx, sn, want)
	}
	if rerr != nil {
		rep.Status = plan.StatusFailed
		err := fmt.Errorf("%w; restore incomplete: %v; the transaction record %s is kept: fix the named settings by hand, then run recover", cause, rerr, TxnRecordPath)
		rep.Error = err.Error()
		return rep, err
	}
	opt.hold("restored")
	if err := s.clearTxn(tx); err != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("restored and verified, but the transaction record could not be removed (%v): run recover to clear it", err))
	}
	rep.Status = plan.StatusRolledBack
	rep.Fingerprint = sn.Fingerprint
	rep.Error = cause.Error() + "; host restored to its state before the apply"
	return rep, cause
}

// steps lists what must be done to go from cur to want, in a safe order:
// DCB first (DCBX mode, PFC, trust), then the parent MTU and address, the
// VLAN, rdma_cm, and the files last (their GID indexes may need the
// addresses added before).
func (s *System) steps(cur, want *HostState) []step { return s.stepsFor(cur, want, nil) }

// stepsFor is steps whose file writes record their digests in tx.
func (s *System) stepsFor(cur, want *HostState, tx *TxnRecord) []step {
	var out []step
	curNIC := map[string]NICState{}
	for _, n := range cur.NICs {
		curNIC[n.Netdev] = n
	}
	for _, w := range want.NICs {
		c := curNIC[w.Netdev]
		out = append(out, s.dcbSteps(c, w)...)
		out = append(out, s.linkSteps(c, w)...)
	}
	curCM := map[string]RDMACMState{}
	for _, c := range cur.RDMACM {
		curCM[fmt.Sprintf("%s/%d", c.Device, c.Port)] = c
	}
	for _, w := range want.RDMACM {
		w := w
		c := curCM[fmt.Sprintf("%s/%d", w.Device, w.Port)]
		switch w.Method {
		case RDMACMConfigfs:
			if c.ToS != w.ToS {
				out = append(out, step{"rdma_cm." + w.Device + ".tos", fmt.Sprintf("default_roce_tos %d", w.ToS),
					func(context.Context) error { return s.setRoCEToS(w.Device, w.Port, w.ToS) }})
			}
			if c.Mode != w.Mode {
				out = append(out, step{"rdma_cm." + w.Device + ".mode", "default_roce_mode " + w.Mode,
					func(context.Context) error { return s.setRoCEMode(w.Device, w.Port, w.Mode) }})
			}
		case RDMACMDefPrec2SL:
			if c.Prec2SL != w.Prec2SL {
				out = append(out, step{"rdma_cm." + w.Device + ".def_prec2sl", fmt.Sprintf("def_prec2sl %d", w.Prec2SL),
					func(context.Context) error { return s.setPrec2SL(w.Prec2SL) }})
			}
		}
	}
	curF := map[string]FileState{}
	for _, f := range cur.Files {
		curF[f.Path] = f
	}
	for _, w := range want.Files {
		if _, changed := diffFile(curF[w.Path], w); !changed {
			continue
		}
		w := w
		name := "file:" + w.Path
		var fw *fileWrite
		if tx != nil {
			// Worked out before the step's save, so that one save records
			// the step and the digests of what it writes.
			tx.prepare[name] = func(ctx context.Context) (err error) {
				fw, err = s.prepareFile(ctx, w)
				if err == nil {
					fw.record(tx, w.Path)
				}
				return err
			}
		}
		out = append(out, step{name, "edit owned entries in place (backup " + BackupPath(w.Path) + ")",
			func(ctx context.Context) error { return s.writePrepared(ctx, w, fw, tx) }})
	}
	return out
}

func (s *System) dcbSteps(c, w NICState) []step {
	if w.DCB == nil {
		return nil
	}
	var out []step
	cd := c.DCB
	if cd == nil {
		cd = &DCBState{}
	}
	name := w.Netdev
	if w.DCB.DCBX&DCBXHost != 0 && cd.DCBX&DCBXHost == 0 {
		mode := dcbxTarget(cd.DCBX)
		out = append(out, step{"nic." + name + ".dcbx", DCBXString(mode),
			func(ctx context.Context) error { return s.DCB.SetDCBX(ctx, name, mode) }})
	}
	if cd.PFCEnabled != w.DCB.PFCEnabled {
		en := w.DCB.PFCEnabled
		out = append(out, step{"nic." + name + ".pfc", PFCString(en), func(ctx context.Context) error {
			// Read-modify-write the whole struct, as iproute2 dcb does.
			r, _, err := s.DCB.Get(ctx, name)
			if err != nil {
				return err
			}
			p := IEEEPFC{Cap: 8}
			if r.PFC != nil {
				p = *r.PFC
			}
			p.Enabled = en
			p.Requests, p.Indications = [8]uint64{}, [8]uint64{}
			return s.DCB.SetPFC(ctx, name, p)
		}})
	}
	if !sameApps(cd.DSCPApps, w.DCB.DSCPApps) {
		want := map[DSCPApp]bool{}
		for _, a := range w.DCB.DSCPApps {
			want[a] = true
		}
		have := map[DSCPApp]bool{}
		var del, add []DCBApp
		for _, a := range cd.DSCPApps {
			have[a] = true
			if !want[a] {
				del = append(del, DCBApp{Selector: AppSelDSCP, Priority: uint8(a.Priority), Protocol: uint16(a.DSCP)})
			}
		}
		for _, a := range w.DCB.DSCPApps {
			if !have[a] {
				add = append(add, DCBApp{Selector: AppSelDSCP, Priority: uint8(a.Priority), Protocol: uint16(a.DSCP)})
			}
		}
		out = append(out, step{"nic." + name + ".trust", TrustString(w.DCB), func(ctx context.Context) error {
			// Add before delete: mlx5 drops to PCP trust when the last DSCP
			// entry goes, so deleting first could bounce trust needlessly.
			if err := s.DCB.AddApps(ctx, name, add); err != nil {
				return err
			}
			return s.DCB.DelApps(ctx, name, del)
		}})
	}
	return out
}

func (s *System) linkSteps(c, w NICState) []step {
	var out []step
	name := w.Netdev
	if w.MTU > 0 && c.MTU != w.MTU {
		mtu := w.MTU
		out = append(out, step{"nic." + name + ".mtu", fmt.Sprintf("mtu %d", mtu),
			func(ctx context.Context) error { return s.Links.SetMTU(ctx, name, mtu) }})
	}
	for _, a := range missing(c.Addresses, w.Addresses) {
		a := a
		out = append(out, step{"nic." + name + ".address", "add " + a,
			func(ctx context.Context) error { return s.Links.AddAddr(ctx, name, a) }})
	}
	if w.VLAN == nil {
		return out
	}
	v := *w.VLAN
	cv := VLANState{}
	if c.VLAN != nil {
		cv = *c.VLAN
	}
	addr := fmt.Sprintf("nic.%s.vlan%d", name, v.ID)
	if !cv.Exists {
		out = append(out, step{addr, "create " + VLANString(v), func(ctx context.Context) error {
			if err := s.Links.AddVLAN(ctx, v.Parent, v.Name, v.ID, v.EgressQoS); err != nil {
				return err
			}
			if v.MTU > 0 {
				if err := s.Links.SetMTU(ctx, v.Name, v.MTU); err != nil {
					return err
				}
			}
			for _, a := range v.Addresses {
				if err := s.Links.AddAddr(ctx, v.Name, a); err != nil {
					return err
				}
			}
			return nil
		}})
		return out
	}
	if cv.ID != v.ID || cv.Parent != v.Parent {
		out = append(out, step{addr, "existing " + v.Name, func(context.Context) error {
			return fmt.Errorf("%s exists with id %d on %s, the policy wants id %d on %s; rename or delete it by hand", v.Name, cv.ID, cv.Parent, v.ID, v.Parent)
		}})
		return out
	}
	if !egressEqual(cv.EgressQoS, v.EgressQoS) {
		out = append(out, step{addr, "egress-qos-map", func(ctx context.Context) error { return s.Links.SetVLANEgress(ctx, v.Name, v.EgressQoS) }})
	}
	if v.MTU > 0 && cv.MTU != v.MTU {
		out = append(out, step{addr, fmt.Sprintf("mtu %d", v.MTU), func(ctx context.Context) error { return s.Links.SetMTU(ctx, v.Name, v.MTU) }})
	}
	for _, a := range missing(cv.Addresses, v.Addresses) {
		a := a
		out = append(out, step{addr, "add " + a, func(ctx context.Context) error { return s.Links.AddAddr(ctx, v.Name, a) }})
	}
	return out
}

// writeFile edits one file in place: keep a backup of the original the
// first time, resolve any GID index still pending (the address may have
// been added by an earlier step), edit the owned entries and write
// atomically with the file's mode. The digest of every byte it is about
// to write is recorded in the transaction first (one durable save for the
// backup and the file), so a restore can tell roce's writes from anyone
// else's.
func (s *System) writeFile(ctx context.Context, w FileState, tx *TxnRecord) error {
	return s.writePrepared(ctx, w, nil, tx)
}

// fileWrite is what writing one managed file will do, worked out from the
// file as read.
type fileWrite struct {
	old    []byte      // the file's content (nil: it does not exist)
	exists bool        // the file exists
	backup bool        // the backup is missing: write old there first
	data   []byte      // the new content
	mode   fs.FileMode // the file's mode (0644 for a new file)
}

// same reports whether g would write exactly what f would.
func (f *fileWrite) same(g *fileWrite) bool {
	return f.exists == g.exists && f.backup == g.backup && f.mode == g.mode &&
		bytes.Equal(f.old, g.old) && bytes.Equal(f.data, g.data)
}

// record notes in tx the digest of everything f writes.
func (f *fileWrite) record(tx *TxnRecord, p string) {
	if f.backup {
		tx.Written[BackupPath(p)] = contentDigest(f.old)
	}
	tx.Written[p] = contentDigest(f.data)
}

// prepareFile reads w's file and works out the write (no change made).
func (s *System) prepareFile(ctx context.Context, w FileState) (*fileWrite, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := CheckFileContent(w); err != nil {
		return nil, err
	}
	old, mode, err := s.readBeneath(w.Path)
	fw := &fileWrite{exists: err == nil, old: old, mode: mode}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if !fw.exists {
		fw.mode = 0o644
	}
	if fw.exists {
		ok, err := s.existsBeneath(BackupPath(w.Path))
		if err != nil {
			return nil, fmt.Errorf("backup: %w", err)
		}
		fw.backup = !ok
	}
	switch w.Format {
	case FormatLines:
		fw.data = EditLines(old, w.Lines)
		if spec, _ := fileSpecs(w.Path); spec.ownFile {
			// roce's own file: refuse one holding a line roce never writes
			// (reported, not silently dropped), replace roce's old lines.
			if err := checkOwnFileLines(w.Path, spec, old); err != nil {
				return nil, err
			}
			fw.data = EditOwnLines(old, w.Lines)
		}
	case FormatKV, FormatKVSpaced:
		entries := make([]KV, len(w.Entries))
		copy(entries, w.Entries)
		for i := range entries {
			e := &entries[i]
			if e.GID != nil && e.Value == "" {
				idx, err := ResolveGIDIndex(s.Root, e.GID.Device, e.GID.Port, e.GID.Netdev, e.GID.IP, e.GID.RoCEMode)
				if err != nil {
					return nil, fmt.Errorf("%s %s: %w", w.Path, e.Key, err)
				}
				e.Value = fmt.Sprint(idx)
			}
		}
		fw.data = EditKV(old, w.Format, entries)
		w.Entries = entries
	default:
		return nil, fmt.Errorf("%s: unknown file format %q", w.Path, w.Format)
	}
	if err := checkWrittenContent(w, fw.data); err != nil {
		return nil, err
	}
	return fw, nil
}

// writePrepared writes w's file as prepared (the step's save recorded its
// digests). The file is read again first: when anything changed since
// (or nothing was prepared), the write is worked out anew and its digests
// saved before it is made.
func (s *System) writePrepared(ctx context.Context, w FileState, prepared *fileWrite, tx *TxnRecord) error {
	fw, err := s.prepareFile(ctx, w)
	if err != nil {
		return err
	}
	if prepared == nil || !prepared.same(fw) {
		if err := s.recordWrites(tx, w.Path, fw); err != nil {
			return err
		}
	}
	if fw.backup {
		if err := s.writeAtomicBeneath(BackupPath(w.Path), fw.old, fw.mode); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
	}
	return s.writeAtomicBeneath(w.Path, fw.data, fw.mode)
}

// recordWrites notes (durably, before the writes) the digests of what
// roce is about to write for p.
func (s *System) recordWrites(tx *TxnRecord, p string, fw *fileWrite) error {
	if tx == nil {
		return nil
	}
	fw.record(tx, p)
	if err := s.saveTxn(tx); err != nil {
		return fmt.Errorf("%s: %w; not written", p, err)
	}
	return nil
}
