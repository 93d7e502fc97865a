package nics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
)

// Snapshot is everything an apply can touch, captured before it starts, so
// a failed apply can put the host back exactly as it was.
type Snapshot struct {
	State       *HostState
	Fingerprint string
	dcb         map[string]dcbSnap
	links       map[string]*LinkInfo // nil value: the netdev did not exist
	files       map[string]fileSnap
	fileOrder   []string
	// newDirs are directories (host paths, like /etc/ucx) that did not
	// exist and a file write may create; restore removes them again (when
	// empty), deepest first.
	newDirs []string
}

type dcbSnap struct {
	pfc  IEEEPFC
	apps []DCBApp
	dcbx uint8
}

type fileSnap struct {
	exists bool
	data   []byte
	mode   fs.FileMode
}

// TakeSnapshot captures the state relevant to desired (resolved).
func (s *System) TakeSnapshot(ctx context.Context, desired *HostState) (*Snapshot, error) {
	cur, err := s.readCurrent(ctx, desired)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	sn := &Snapshot{State: cur, Fingerprint: Fingerprint(cur), dcb: map[string]dcbSnap{}, links: map[string]*LinkInfo{}, files: map[string]fileSnap{}}
	for _, n := range desired.NICs {
		if n.DCB != nil {
			r, dcbx, err := s.DCB.Get(ctx, n.Netdev)
			if err != nil {
				return nil, fmt.Errorf("snapshot: %w", err)
			}
			d := dcbSnap{apps: append([]DCBApp(nil), r.Apps...), dcbx: dcbx}
			if r.PFC != nil {
				d.pfc = *r.PFC
			}
			sn.dcb[n.Netdev] = d
		}
		names := []string{n.Netdev}
		if n.VLAN != nil {
			names = append(names, n.VLAN.Name)
		}
		for _, name := range names {
			li, err := s.Links.Link(ctx, name)
			if err != nil {
				return nil, fmt.Errorf("snapshot: %w", err)
			}
			sn.links[name] = li
		}
	}
	for _, f := range desired.Files {
		for _, p := range []string{f.Path, BackupPath(f.Path)} {
			if err := sn.addFile(s, p); err != nil {
				return nil, err
			}
		}
	}
	return sn, nil
}

func (sn *Snapshot) addFile(s *System, p string) error {
	if _, ok := sn.files[p]; ok {
		return nil
	}
	b, mode, err := s.readBeneath(p)
	if errors.Is(err, fs.ErrNotExist) {
		sn.files[p] = fileSnap{}
		sn.fileOrder = append(sn.fileOrder, p)
		for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
			ok, err := s.existsBeneath(d)
			if err != nil {
				return fmt.Errorf("snapshot: %w", err)
			}
			if ok {
				break
			}
			if !slices.Contains(sn.newDirs, d) {
				sn.newDirs = append(sn.newDirs, d)
			}
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	sn.files[p] = fileSnap{exists: true, data: b, mode: mode}
	sn.fileOrder = append(sn.fileOrder, p)
	return nil
}

// Restore puts back everything the snapshot holds, in reverse apply order
// (files, rdma_cm, VLAN, addresses, MTU, DCB). It keeps going after an
// error so one stuck setting doesn't leave the rest changed, and returns
// every step it took.
func (s *System) Restore(ctx context.Context, sn *Snapshot, desired *HostState) ([]StepResult, error) {
	return s.restore(ctx, sn, desired, nil, func(string) {})
}

// restore is Restore knowing what the transaction wrote (written: path →
// digest; nil = restore every file unconditionally) and with a hook called
// before every restore step (the kill tests' pause points). A file whose
// content is neither the snapshot's nor what roce wrote was changed by
// someone else during the transaction: it is left as it is and reported,
// so the restore fails instead of erasing that edit and calling the host
// identical.
func (s *System) restore(ctx context.Context, sn *Snapshot, desired *HostState, written map[string]string, hold func(string)) ([]StepResult, error) {
	var steps []StepResult
	var errs []error
	do := func(name, detail string, f func() error) {
		hold("restore " + name + ": " + detail)
		r := StepResult{Name: name, Detail: detail}
		if err := f(); err != nil {
			r.Error = err.Error()
			errs = append(errs, fmt.Errorf("restore %s: %w", name, err))
		}
		steps = append(steps, r)
	}
	// Files: byte-identical content and mode, or absent again.
	for i := len(sn.fileOrder) - 1; i >= 0; i-- {
		p := sn.fileOrder[i]
		fsn := sn.files[p]
		b, mode, err := s.readBeneath(p)
		switch {
		case !fsn.exists && errors.Is(err, fs.ErrNotExist):
			continue
		case fsn.exists && err == nil && bytes.Equal(b, fsn.data) && mode == fsn.mode:
			continue
		}
		if written != nil {
			d, wrote := written[p]
			var why string
			switch {
			case err != nil && !errors.Is(err, fs.ErrNotExist):
				why = err.Error()
			case err != nil:
				why = "it was removed"
			case !wrote || contentDigest(b) != d:
				why = "its content is neither the one before the apply nor the one roce wrote"
			}
			if why != "" {
				do("file:"+p, "left as it is", func() error {
					return fmt.Errorf("%s was changed by something else while roce was applying (%s): roce does not overwrite an edit it did not make; make the file what it should be by hand, then run recover again", s.Path(p), why)
				})
				continue
			}
		}
		if fsn.exists {
			do("file:"+p, "restore previous content", func() error { return s.writeAtomicBeneath(p, fsn.data, fsn.mode) })
		} else {
			do("file:"+p, "remove (did not exist)", func() error { return s.removeBeneath(p, false) })
		}
	}
	// Temporary files a killed write left beside the files.
	if err := s.sweepTemps(sn.fileOrder); err != nil {
		errs = append(errs, err)
	}
	dirs := append([]string(nil), sn.newDirs...)
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	for _, d := range dirs {
		if ents, err := s.readDirBeneath(d); err == nil && len(ents) == 0 {
			if ok, _ := s.existsBeneath(d); ok {
				do("dir:"+d, "remove (did not exist)", func() error { return s.removeBeneath(d, true) })
			}
		}
	}
	// rdma_cm.
	for _, c := range sn.State.RDMACM {
		c := c
		cur, err := s.readRDMACM(ctx, c)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if c.Method == RDMACMConfigfs {
			if cur.ToS != c.ToS && c.ToS >= 0 {
				do("rdma_cm."+c.Device+".tos", fmt.Sprintf("default_roce_tos %d", c.ToS), func() error { return s.setRoCEToS(c.Device, c.Port, c.ToS) })
			}
			if cur.Mode != c.Mode && c.Mode != "" {
				do("rdma_cm."+c.Device+".mode", "default_roce_mode "+c.Mode, func() error { return s.setRoCEMode(c.Device, c.Port, c.Mode) })
			}
		} else if cur.Prec2SL != c.Prec2SL && c.Prec2SL >= 0 {
			do("rdma_cm."+c.Device+".def_prec2sl", fmt.Sprintf("def_prec2sl %d", c.Prec2SL), func() error { return s.setPrec2SL(c.Prec2SL) })
		}
	}
	// Links: VLANs first (they sit on the parents), then parents.
	for pass := 0; pass < 2; pass++ {
		for _, n := range desired.NICs {
			name, owned := n.Netdev, n.Addresses
			if pass == 0 {
				if n.VLAN == nil {
					continue
				}
				name, owned = n.VLAN.Name, n.VLAN.Addresses
			}
			s.restoreLink(ctx, name, sn.links[name], owned, do)
		}
	}
	// DCB.
	names := make([]string, 0, len(sn.dcb))
	for k := range sn.dcb {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		s.restoreDCB(ctx, name, sn.dcb[name], do, &errs)
	}
	return steps, errors.Join(errs...)
}

func (s *System) restoreLink(ctx context.Context, name string, was *LinkInfo, owned []string, do func(string, string, func() error)) {
	now, err := s.Links.Link(ctx, name)
	if err != nil {
		do("nic."+name, "read", func() error { return err })
		return
	}
	if was == nil {
		if now != nil {
			do("nic."+name, "delete (did not exist)", func() error { return s.Links.DelLink(ctx, name) })
		}
		return
	}
	if now == nil {
		do("nic."+name, "re-create", func() error {
			return fmt.Errorf("%s existed before the apply and is gone; re-create it by hand", name)
		})
		return
	}
	if was.VLAN != nil && now.VLAN != nil && !egressEqual(was.VLAN.Egress, now.VLAN.Egress) {
		do("nic."+name+".egress", "restore egress-qos-map", func() error { return s.Links.SetVLANEgress(ctx, name, was.VLAN.Egress) })
	}
	// Addresses: remove only ours that were not there before.
	had := map[string]bool{}
	for _, a := range was.Addresses {
		had[canonicalCIDR(a)] = true
	}
	for _, a := range owned {
		c := canonicalCIDR(a)
		if had[c] {
			continue
		}
		for _, x := range now.Addresses {
			if canonicalCIDR(x) == c {
				do("nic."+name+".address", "delete "+c, func() error { return s.Links.DelAddr(ctx, name, c) })
			}
		}
	}
	if now.MTU != was.MTU {
		do("nic."+name+".mtu", fmt.Sprintf("mtu %d", was.MTU), func() error { return s.Links.SetMTU(ctx, name, was.MTU) })
	}
}

func egressEqual(a, b map[uint32]uint32) bool {
	for p := uint32(0); p < 8; p++ {
		if a[p] != b[p] {
			return false
		}
	}
	return true
}

func (s *System) restoreDCB(ctx context.Context, name string, was dcbSnap, do func(string, string, func() error), errs *[]error) {
	r, dcbx, err := s.DCB.Get(ctx, name)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("restore nic.%s dcb: %w", name, err))
		return
	}
	wasSet := map[DCBApp]bool{}
	for _, a := range was.apps {
		wasSet[a] = true
	}
	nowSet := map[DCBApp]bool{}
	var del, add []DCBApp
	for _, a := range r.Apps {
		nowSet[a] = true
		if a.Selector == AppSelDSCP && !wasSet[a] {
			del = append(del, a)
		}
	}
	for _, a := range was.apps {
		if a.Selector == AppSelDSCP && !nowSet[a] {
			add = append(add, a)
		}
	}
	if len(del) > 0 {
		do("nic."+name+".trust", fmt.Sprintf("delete %d DSCP APP entries", len(del)), func() error { return s.DCB.DelApps(ctx, name, del) })
	}
	if len(add) > 0 {
		do("nic."+name+".trust", fmt.Sprintf("re-add %d DSCP APP entries", len(add)), func() error { return s.DCB.AddApps(ctx, name, add) })
	}
	if r.PFC != nil && (r.PFC.Enabled != was.pfc.Enabled || r.PFC.Delay != was.pfc.Delay || r.PFC.MBC != was.pfc.MBC) {
		p := was.pfc
		p.Requests, p.Indications = [8]uint64{}, [8]uint64{}
		do("nic."+name+".pfc", PFCString(p.Enabled), func() error { return s.DCB.SetPFC(ctx, name, p) })
	}
	if dcbx != was.dcbx {
		do("nic."+name+".dcbx", DCBXString(was.dcbx), func() error { return s.DCB.SetDCBX(ctx, name, was.dcbx) })
	}
}

// Verify reports whether the host is back at the snapshot: the same state
// fingerprint and byte-identical files.
func (s *System) Verify(ctx context.Context, sn *Snapshot, desired *HostState) error {
	cur, err := s.readCurrent(ctx, desired)
	if err != nil {
		return err
	}
	if fp := Fingerprint(cur); fp != sn.Fingerprint {
		return fmt.Errorf("state differs from the snapshot after restore (%s, want %s)", fp, sn.Fingerprint)
	}
	for _, p := range sn.fileOrder {
		fsn := sn.files[p]
		b, mode, err := s.readBeneath(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if fsn.exists != (err == nil) || (fsn.exists && (!bytes.Equal(b, fsn.data) || mode != fsn.mode)) {
			return fmt.Errorf("%s differs from the snapshot after restore", s.Path(p))
		}
	}
	return nil
}
