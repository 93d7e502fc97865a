package nics

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rocefabric/roce/plan"
)

// The host's own transaction record. Before an apply changes anything it
// writes <root>/var/lib/roce/txn.json (0600, written to a temporary file,
// fsynced, renamed, directory fsynced) holding the resolved desired state,
// the snapshot of everything the apply can touch and the list of steps;
// before each step it records which step it is about to take. The record
// is removed only when the host is consistent again (applied and verified,
// or restored and verified). So when the agent is killed at any instant —
// SIGKILL, OOM, power — the record says a transaction was left unfinished,
// and Recover can restore the snapshot or confirm the apply completed.
// While a record exists, read reports it and apply refuses.

// TxnRecordPath is the transaction record, relative to the host root.
const TxnRecordPath = "/var/lib/roce/txn.json"

const txnDir = "/var/lib/roce"

// txnVersion is the record's format version.
const txnVersion = 1

// Transaction phases.
const (
	TxnApplying    = "applying"
	TxnRollingBack = "rolling-back"
)

// ErrInterrupted is wrapped when a host has an unfinished transaction: an
// earlier apply was killed before it reached an outcome. It wraps
// plan.ErrInterrupted, so the engine and the CLIs treat a host that says
// so itself like a target their journal knows was interrupted — also when
// the apply ran from another checkout whose journal this one lacks.
var ErrInterrupted = fmt.Errorf("%w on this host (its agent's own transaction record says so)", plan.ErrInterrupted)

// ErrBusy is wrapped when another agent holds the host's transaction lock.
var ErrBusy = errors.New("another roce-agent is applying or recovering on this host")

// TxnRecord is the host's transaction record.
type TxnRecord struct {
	Version int       `json:"version"`
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	Phase   string    `json:"phase"`
	// PlanFingerprint is the plan's fingerprint of the host (state before).
	PlanFingerprint string `json:"plan_fingerprint,omitempty"`
	// Desired is the resolved state the apply was bringing the host to.
	Desired  *HostState `json:"desired"`
	Snapshot *Snapshot  `json:"snapshot"`
	Steps    []TxnStep  `json:"steps"`
	// Reached is the number of steps started: step Reached (1-based) may
	// be partly done; 0 = none started.
	Reached int `json:"reached"`
	// Cause (rolling-back) is why the apply was being rolled back.
	Cause string `json:"cause,omitempty"`
	// Written is the digest of what roce wrote (or was about to write) to
	// each file, recorded before the write: a restore puts back only files
	// whose content is the snapshot's or roce's, never an edit made by
	// someone else meanwhile.
	Written map[string]string `json:"written,omitempty"`

	// dir is the record's directory, opened beneath the root by the first
	// save and kept for the later ones of the same call (release closes it).
	dir *os.File
	// prepare holds, by step name, what must be worked out before the
	// step's save (Apply only; nothing of it is stored).
	prepare map[string]func(context.Context) error
}

// release closes the record's directory; the next save opens it again.
func (r *TxnRecord) release() {
	if r.dir != nil {
		r.dir.Close()
		r.dir = nil
	}
}

// TxnStep is one planned step of a transaction.
type TxnStep struct {
	Name   string `json:"name"`
	Detail string `json:"detail,omitempty"`
}

// TxnSummary is what read and apply report about an unfinished
// transaction.
type TxnSummary struct {
	ID              string    `json:"id"`
	Started         time.Time `json:"started"`
	Phase           string    `json:"phase"`
	Steps           int       `json:"steps"`
	Reached         int       `json:"reached"`
	Step            string    `json:"step,omitempty"` // the step reached
	PlanFingerprint string    `json:"plan_fingerprint,omitempty"`
	// InProgress: an agent holds the host's transaction lock right now
	// (the apply is running, not interrupted).
	InProgress bool `json:"in_progress,omitempty"`
}

// Summary describes the record.
func (r *TxnRecord) Summary() *TxnSummary {
	t := &TxnSummary{ID: r.ID, Started: r.Started, Phase: r.Phase, Steps: len(r.Steps), Reached: r.Reached, PlanFingerprint: r.PlanFingerprint}
	if r.Reached > 0 && r.Reached <= len(r.Steps) {
		t.Step = r.Steps[r.Reached-1].Name
	}
	return t
}

// String says what was left and what to do.
func (t *TxnSummary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "roce transaction %s (started %s) ", t.ID, t.Started.UTC().Format(time.RFC3339))
	if t.InProgress {
		b.WriteString("is in progress")
	} else {
		b.WriteString("was interrupted")
	}
	switch {
	case t.Phase == TxnRollingBack:
		b.WriteString(" while rolling back")
	case t.Reached == 0:
		fmt.Fprintf(&b, " before its first of %d steps", t.Steps)
	default:
		fmt.Fprintf(&b, " at step %d of %d (%s)", t.Reached, t.Steps, t.Step)
	}
	if t.InProgress {
		b.WriteString("; wait for it to finish")
	} else {
		fmt.Fprintf(&b, "; the record is %s: run roce-apply -recover to restore the host or confirm the apply, then plan again (if the apply ran from another checkout whose journal is not here, run on the host: echo '{\"version\":1,\"op\":\"recover\"}' | roce-agent --root /)", TxnRecordPath)
	}
	return b.String()
}

func contentDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func newTxnID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// lockTxn takes the host's transaction lock without waiting: flock(2) on
// the host root directory itself, held for the whole of an apply or
// recover, so two agents on one host (two controllers) never interleave.
// It creates no file, and the kernel drops it when the process dies,
// however it dies.
func (s *System) lockTxn() (unlock func(), err error) {
	f, err := os.Open(s.Root)
	if err != nil {
		return nil, fmt.Errorf("transaction lock on %s: %w", s.Root, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (flock on %s); try again when it has finished", ErrBusy, s.Root)
		}
		return nil, fmt.Errorf("transaction lock on %s: %w", s.Root, err)
	}
	return func() { f.Close() }, nil
}

// recoverLockWait bounds how long recover waits for an apply that is still
// running (an agent whose controller was killed goes on to finish its own
// transaction: recover then finds it settled).
const recoverLockWait = 2 * time.Minute

// lockTxnWait is lockTxn waiting, up to max or the end of ctx, for
// another agent to let go.
func (s *System) lockTxnWait(ctx context.Context, max time.Duration) (func(), error) {
	deadline := time.Now().Add(max)
	for {
		unlock, err := s.lockTxn()
		if err == nil || !errors.Is(err, ErrBusy) || time.Now().After(deadline) {
			return unlock, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w; %v", err, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// txnLocked reports whether another process holds the transaction lock.
func (s *System) txnLocked() bool {
	f, err := os.Open(s.Root)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err != nil {
		return errors.Is(err, unix.EWOULDBLOCK)
	}
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false
}

// PendingTxn returns the host's unfinished transaction, or nil.
func (s *System) PendingTxn() (*TxnRecord, error) {
	b, _, err := s.readBeneath(TxnRecordPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("transaction record: %w", err)
	}
	var r TxnRecord
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("transaction record %s is unreadable (%v): a roce apply did not finish on this host; check its settings by hand, then delete the record", s.Path(TxnRecordPath), err)
	}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("transaction record %s: %w; check the host's settings by hand, then delete the record", s.Path(TxnRecordPath), err)
	}
	return &r, nil
}

// PendingSummary is PendingTxn's summary, with InProgress filled in.
func (s *System) PendingSummary() (*TxnSummary, error) {
	r, err := s.PendingTxn()
	if err != nil || r == nil {
		return nil, err
	}
	t := r.Summary()
	t.InProgress = s.txnLocked()
	return t, nil
}

// check refuses a record that would make recovery touch anything outside
// what roce manages (the record is root's 0600 file, but it is input).
func (r *TxnRecord) check() error {
	if r.Version != txnVersion {
		return fmt.Errorf("version %d, this agent reads version %d", r.Version, txnVersion)
	}
	if r.Phase != TxnApplying && r.Phase != TxnRollingBack {
		return fmt.Errorf("unknown phase %q", r.Phase)
	}
	if r.Desired == nil || r.Snapshot == nil || r.Snapshot.State == nil {
		return errors.New("no desired state or snapshot")
	}
	if err := CheckManaged(r.Desired); err != nil {
		return err
	}
	if r.Reached < 0 || r.Reached > len(r.Steps) {
		return fmt.Errorf("reached step %d of %d", r.Reached, len(r.Steps))
	}
	for _, p := range r.Snapshot.fileOrder {
		if !IsManagedFile(p) && !IsManagedFile(strings.TrimSuffix(p, backupSuffix)) {
			return fmt.Errorf("snapshot file %q: %w", p, ErrNotManaged)
		}
	}
	for p := range r.Written {
		if _, ok := r.Snapshot.files[p]; !ok {
			return fmt.Errorf("written file %q is not in the snapshot", p)
		}
	}
	for _, d := range r.Snapshot.newDirs {
		if _, err := relBeneath(d); err != nil {
			return err
		}
	}
	return nil
}

// saveTxn writes the record durably.
func (s *System) saveTxn(r *TxnRecord) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("transaction record: %w", err)
	}
	if r.dir == nil {
		if _, err := s.mkdirAllBeneathMode(txnDir, 0o700); err != nil {
			return fmt.Errorf("transaction record: %w", err)
		}
		d, err := s.openDirBeneath(txnDir)
		if err != nil {
			return fmt.Errorf("transaction record: %w", err)
		}
		r.dir = d
	}
	if err := s.writeAtomicIn(r.dir, TxnRecordPath, b, 0o600); err != nil {
		return fmt.Errorf("transaction record: %w", err)
	}
	return nil
}

// clearTxn removes the record (and any temporary file a killed save left),
// then the record's directory and its parents while they are empty, so a
// finished transaction leaves nothing behind. r (nil when there is none)
// lets go of its directory first: nothing may be saved after this.
func (s *System) clearTxn(r *TxnRecord) error {
	if r != nil {
		r.release()
	}
	if err := s.removeBeneath(TxnRecordPath, false); err != nil {
		return fmt.Errorf("transaction record: %w", err)
	}
	if err := s.sweepTemps([]string{TxnRecordPath}); err != nil {
		return err
	}
	for d := txnDir; d != "/"; d = path.Dir(d) {
		if names, err := s.readDirBeneath(d); err != nil || len(names) > 0 {
			break
		}
		if err := s.removeBeneath(d, true); err != nil {
			break
		}
	}
	return nil
}

// sweepTemps removes the temporary files a killed atomic write of one of
// files left in their directories (only those: ".<base>.roce-tmp-*").
func (s *System) sweepTemps(files []string) error {
	byDir := map[string][]string{}
	for _, f := range files {
		byDir[path.Dir(f)] = append(byDir[path.Dir(f)], "."+path.Base(f)+tempMarker)
	}
	var errs []error
	for d, prefixes := range byDir {
		names, err := s.readDirBeneath(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, n := range names {
			for _, p := range prefixes {
				if strings.HasPrefix(n, p) {
					if err := s.removeBeneath(path.Join(d, n), false); err != nil {
						errs = append(errs, err)
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}

// sweepLabTemps removes temporary files a killed write of the lab's
// emulated kernel state left (lab roots only).
func (s *System) sweepLabTemps() error {
	if !s.Lab {
		return nil
	}
	var errs []error
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		if depth > 4 {
			return
		}
		names, err := s.readDirBeneath(d)
		if err != nil {
			errs = append(errs, err)
			return
		}
		for _, n := range names {
			p := path.Join(d, n)
			if strings.Contains(n, tempMarker) {
				if err := s.removeBeneath(p, false); err != nil {
					errs = append(errs, err)
				}
				continue
			}
			if f, err := s.openDirBeneath(p); err == nil {
				f.Close()
				walk(p, depth+1)
			}
		}
	}
	walk("/"+labStateDir, 0)
	return errors.Join(errs...)
}

// RecoverReport is what a recover did.
type RecoverReport struct {
	// Status is plan.StatusApplied (the interrupted apply had completed:
	// the host reads back as desired), plan.StatusRolledBack (the snapshot
	// was restored and verified), plan.StatusUnchanged (no unfinished
	// transaction) or plan.StatusFailed.
	Status      string       `json:"status"`
	Transaction *TxnSummary  `json:"transaction,omitempty"`
	Restore     []StepResult `json:"restore,omitempty"`
	Error       string       `json:"error,omitempty"`
	Fingerprint string       `json:"fingerprint,omitempty"` // state after recovery
	Notes       []string     `json:"notes,omitempty"`
}

// Recover finishes the host's unfinished transaction: when the apply had
// run every step and the host reads back exactly as desired, it is
// confirmed (applied); otherwise the snapshot is restored and verified
// (rolled-back). Either way the record is removed only once verified. A
// host without a record is reported unchanged. The report is never nil.
func (s *System) Recover(ctx context.Context, opt ApplyOptions) (*RecoverReport, error) {
	rep := &RecoverReport{Status: plan.StatusFailed}
	unlock, err := s.lockTxnWait(ctx, opt.lockWait())
	if err != nil {
		rep.Error = err.Error()
		return rep, err
	}
	defer unlock()
	defer s.holdRoot()()
	rec, err := s.PendingTxn()
	if err != nil {
		rep.Error = err.Error()
		return rep, err
	}
	if rec == nil {
		// A kill before the record was complete can leave its temporary
		// file and empty directories: nothing had changed yet.
		if err := s.clearTxn(nil); err != nil {
			rep.Error = err.Error()
			return rep, err
		}
		rep.Status = plan.StatusUnchanged
		rep.Notes = append(rep.Notes, "no unfinished roce transaction on this host")
		return rep, nil
	}
	rep.Transaction = rec.Summary()
	defer rec.release()
	// Everything below must run to the end: a half-done recovery is the
	// state this exists to get out of.
	rctx := context.WithoutCancel(ctx)
	hold := opt.hold
	if rec.Phase == TxnApplying && rec.Reached == len(rec.Steps) {
		if fp, ok := s.completed(rctx, rec.Desired); ok {
			hold("recover: confirmed")
			if err := s.clearTxn(rec); err != nil {
				rep.Error = err.Error()
				return rep, err
			}
			rep.Status = plan.StatusApplied
			rep.Fingerprint = fp
			rep.Notes = append(rep.Notes, "every step of the interrupted apply had run and the host reads back as desired; kept")
			return rep, nil
		}
	}
	if rec.Phase != TxnRollingBack {
		rec.Phase = TxnRollingBack
		rec.Cause = "recover after an interrupted apply"
		if err := s.saveTxn(rec); err != nil {
			rep.Error = err.Error()
			return rep, err
		}
	}
	steps, rerr := s.restore(rctx, rec.Snapshot, rec.Desired, rec.Written, hold)
	rep.Restore = steps
	if rerr == nil {
		rerr = s.Verify(rctx, rec.Snapshot, rec.Desired)
	}
	if rerr == nil {
		rerr = s.sweepLabTemps()
	}
	if rerr != nil {
		err := fmt.Errorf("restore after the interrupted apply is incomplete: %w; the record %s is kept: fix the named settings by hand and run recover again", rerr, s.Path(TxnRecordPath))
		rep.Error = err.Error()
		return rep, err
	}
	hold("recover: restored")
	if err := s.clearTxn(rec); err != nil {
		rep.Error = err.Error()
		return rep, err
	}
	rep.Status = plan.StatusRolledBack
	rep.Fingerprint = rec.Snapshot.Fingerprint
	return rep, nil
}

// completed reports whether the host reads back exactly as desired (GID
// indexes pending at plan time resolved now).
func (s *System) completed(ctx context.Context, desired *HostState) (string, bool) {
	final, _, err := s.Resolve(ctx, desired)
	if err != nil {
		return "", false
	}
	cur, err := s.readCurrent(ctx, final)
	if err != nil || len(Diff(cur, final)) > 0 {
		return "", false
	}
	for _, f := range final.Files {
		for _, e := range f.Entries {
			if e.Value == "" {
				return "", false
			}
		}
	}
	if err := s.sweepTemps(fileList(final)); err != nil {
		return "", false
	}
	if err := s.sweepLabTemps(); err != nil {
		return "", false
	}
	return Fingerprint(cur), true
}

func fileList(st *HostState) []string {
	var out []string
	for _, f := range st.Files {
		out = append(out, f.Path, BackupPath(f.Path))
	}
	return out
}

// snapshotWire is a Snapshot as the transaction record stores it.
type snapshotWire struct {
	State       *HostState               `json:"state"`
	Fingerprint string                   `json:"fingerprint"`
	DCB         map[string]dcbSnapWire   `json:"dcb,omitempty"`
	Links       map[string]*linkInfoWire `json:"links,omitempty"`
	Files       []fileSnapWire           `json:"files,omitempty"`
	NewDirs     []string                 `json:"new_dirs,omitempty"`
}

type dcbSnapWire struct {
	PFC  IEEEPFC  `json:"pfc"`
	Apps []DCBApp `json:"apps,omitempty"`
	DCBX uint8    `json:"dcbx"`
}

// linkInfoWire: nil Info means the netdev did not exist.
type linkInfoWire struct {
	Info *LinkInfo `json:"info"`
}

type fileSnapWire struct {
	Path   string      `json:"path"`
	Exists bool        `json:"exists"`
	Data   []byte      `json:"data,omitempty"`
	Mode   fs.FileMode `json:"mode,omitempty"`
}

// MarshalJSON encodes everything Restore needs.
func (sn *Snapshot) MarshalJSON() ([]byte, error) {
	w := snapshotWire{State: sn.State, Fingerprint: sn.Fingerprint, DCB: map[string]dcbSnapWire{}, Links: map[string]*linkInfoWire{}, NewDirs: sn.newDirs}
	for k, d := range sn.dcb {
		w.DCB[k] = dcbSnapWire{PFC: d.pfc, Apps: d.apps, DCBX: d.dcbx}
	}
	for k, l := range sn.links {
		w.Links[k] = &linkInfoWire{Info: l}
	}
	for _, p := range sn.fileOrder {
		f := sn.files[p]
		w.Files = append(w.Files, fileSnapWire{Path: p, Exists: f.exists, Data: f.data, Mode: f.mode})
	}
	return json.Marshal(w)
}

// UnmarshalJSON is MarshalJSON's inverse.
func (sn *Snapshot) UnmarshalJSON(b []byte) error {
	var w snapshotWire
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return err
	}
	*sn = Snapshot{State: w.State, Fingerprint: w.Fingerprint, dcb: map[string]dcbSnap{}, links: map[string]*LinkInfo{}, files: map[string]fileSnap{}, newDirs: w.NewDirs}
	for k, d := range w.DCB {
		sn.dcb[k] = dcbSnap{pfc: d.PFC, apps: d.Apps, dcbx: d.DCBX}
	}
	for k, l := range w.Links {
		if l == nil {
			return fmt.Errorf("snapshot link %s: no entry", k)
		}
		sn.links[k] = l.Info
	}
	for _, f := range w.Files {
		if _, dup := sn.files[f.Path]; dup {
			return fmt.Errorf("snapshot file %s twice", f.Path)
		}
		if f.Mode&^fs.ModePerm != 0 {
			return fmt.Errorf("snapshot file %s: mode %v is not a permission mode", f.Path, f.Mode)
		}
		sn.files[f.Path] = fileSnap{exists: f.Exists, data: f.Data, mode: f.Mode}
		sn.fileOrder = append(sn.fileOrder, f.Path)
	}
	return nil
}
