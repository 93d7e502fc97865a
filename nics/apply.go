package nics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

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
}

type step struct {
	name, detail string
	do           func(ctx context.Context) error
}

// Apply brings the host to desired as one transaction: resolve and re-read
// (refusing a stale plan), snapshot, run the steps, verify that a fresh read
// has no changes left; on any failure restore the snapshot and prove it.
// The report is never nil.
func (s *System) Apply(ctx context.Context, desired *HostState, opt ApplyOptions) (*ApplyReport, error) {
	rep := &ApplyReport{Status: plan.StatusFailed}
	if opt.FailAfterStep != 0 && !s.Lab {
		rep.Status = plan.StatusRefused
		rep.Error = "fail_after_step is a lab-only fault injection; this host has no lab marker"
		return rep, errors.New(rep.Error)
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
	steps := s.steps(rd.Current, want)
	for i, st := range steps {
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
			return s.rollback(ctx, rep, sn, want, fmt.Errorf("step %d %s: %w", i+1, st.name, err))
		}
		rep.Steps = append(rep.Steps, r)
	}
	// Resolve again: GID indexes pending at plan time exist now.
	final, _, err := s.Resolve(ctx, want)
	if err != nil {
		rep.FailedStep = "verify"
		return s.rollback(ctx, rep, sn, want, fmt.Errorf("verify: %w", err))
	}
	want = final
	after, err := s.readCurrent(ctx, want)
	if err != nil {
		rep.FailedStep = "verify"
		return s.rollback(ctx, rep, sn, want, fmt.Errorf("verify: %w", err))
	}
	if left := Diff(after, want); len(left) > 0 {
		var names []string
		for _, c := range left {
			names = append(names, c.Address)
		}
		rep.FailedStep = "verify"
		return s.rollback(ctx, rep, sn, want, fmt.Errorf("verify: still different after apply: %s", strings.Join(names, ", ")))
	}
	rep.Status = plan.StatusApplied
	rep.Fingerprint = Fingerprint(after)
	return rep, nil
}

func (s *System) rollback(ctx context.Context, rep *ApplyReport, sn *Snapshot, want *HostState, cause error) (*ApplyReport, error) {
	// Restore even if the caller's context is done: leaving the host half
	// applied is worse than overrunning a deadline.
	rctx := context.WithoutCancel(ctx)
	steps, rerr := s.Restore(rctx, sn, want)
	rep.Restore = steps
	if rerr == nil {
		rerr = s.Verify(rctx, sn, want)
	}
	if rerr != nil {
		rep.Status = plan.StatusFailed
		err := fmt.Errorf("%w; restore incomplete: %v", cause, rerr)
		rep.Error = err.Error()
		return rep, err
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
func (s *System) steps(cur, want *HostState) []step {
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
		out = append(out, step{"file:" + w.Path, "edit owned entries in place (backup " + BackupPath(w.Path) + ")",
			func(ctx context.Context) error { return s.writeFile(ctx, w) }})
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
// atomically with the file's mode.
func (s *System) writeFile(ctx context.Context, w FileState) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	full := s.Path(w.Path)
	old, err := os.ReadFile(full)
	exists := err == nil
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("read %s: %w", full, err)
	}
	mode := os.FileMode(0o644)
	if exists {
		if st, err := os.Stat(full); err == nil {
			mode = st.Mode().Perm()
		}
		bak := s.Path(BackupPath(w.Path))
		if _, err := os.Stat(bak); os.IsNotExist(err) {
			if err := WriteFileAtomic(bak, old, mode); err != nil {
				return fmt.Errorf("backup: %w", err)
			}
		}
	}
	var data []byte
	switch w.Format {
	case FormatLines:
		data = EditLines(old, w.Lines)
	case FormatKV, FormatKVSpaced:
		entries := make([]KV, len(w.Entries))
		copy(entries, w.Entries)
		for i := range entries {
			e := &entries[i]
			if e.GID != nil && e.Value == "" {
				idx, err := ResolveGIDIndex(s.Root, e.GID.Device, e.GID.Port, e.GID.Netdev, e.GID.IP, e.GID.RoCEMode)
				if err != nil {
					return fmt.Errorf("%s %s: %w", w.Path, e.Key, err)
				}
				e.Value = fmt.Sprint(idx)
			}
		}
		data = EditKV(old, w.Format, entries)
	default:
		return fmt.Errorf("%s: unknown file format %q", w.Path, w.Format)
	}
	return WriteFileAtomic(full, data, mode)
}
