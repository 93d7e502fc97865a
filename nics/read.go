package nics

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// ReadResult is what a host-side read returns.
type ReadResult struct {
	Current     *HostState        `json:"current"`
	Resolved    *HostState        `json:"resolved"` // desired with host facts filled in
	Fingerprint string            `json:"fingerprint"`
	Facts       map[string]string `json:"facts,omitempty"`
	// Notes explain resolved or pending values in plain words.
	Notes []string `json:"notes,omitempty"`
}

// Resolve fills in what only the host knows: the RDMA device behind each
// netdev, an exact MTU (the current one when it already meets the floor),
// the rdma_cm method, the legacy modprobe file, device references and GID
// indexes. A GID that can't be found yet (the address is added by this
// apply) stays pending with an empty Value and is resolved during apply.
func (s *System) Resolve(ctx context.Context, desired *HostState) (*HostState, []string, error) {
	return resolveWith(ctx, desired, hostFacts{s})
}

// resolveFacts answers the questions Resolve asks about a host. The live
// host answers them from sysfs and netlink; a saved plan's payload answers
// them from what the host said at plan time (CheckResolved).
type resolveFacts interface {
	rdmaDevice(netdev string) (string, error)
	// currentMTU is the netdev's MTU now; ok is false when it has none.
	currentMTU(ctx context.Context, netdev string) (mtu int, ok bool, err error)
	rdmacmMethod(m string) (string, error)
	gidIndex(file, key string, g GIDRef) (int, error)
}

// hostFacts reads the facts from the host under s.Root.
type hostFacts struct{ s *System }

func (h hostFacts) rdmaDevice(netdev string) (string, error) {
	return ResolveRDMADevice(h.s.Root, netdev)
}

func (h hostFacts) currentMTU(ctx context.Context, netdev string) (int, bool, error) {
	li, err := h.s.Links.Link(ctx, netdev)
	if err != nil || li == nil {
		return 0, false, err
	}
	return li.MTU, true, nil
}

func (h hostFacts) rdmacmMethod(m string) (string, error) { return h.s.resolveRDMACMMethod(m) }

func (h hostFacts) gidIndex(_, _ string, g GIDRef) (int, error) {
	return ResolveGIDIndex(h.s.Root, g.Device, g.Port, g.Netdev, g.IP, g.RoCEMode)
}

func resolveWith(ctx context.Context, desired *HostState, facts resolveFacts) (*HostState, []string, error) {
	var notes []string
	r := cloneState(desired)
	devs := map[string]string{}
	for i := range r.NICs {
		n := &r.NICs[i]
		if n.RDMADevice == "" {
			d, err := facts.rdmaDevice(n.Netdev)
			if err != nil {
				return nil, nil, err
			}
			n.RDMADevice = d
			notes = append(notes, fmt.Sprintf("%s: RDMA device %s found in sysfs", n.Netdev, d))
		}
		devs[n.Netdev] = n.RDMADevice
		if n.MTU == 0 && n.MTUMin > 0 {
			cur, ok, err := facts.currentMTU(ctx, n.Netdev)
			if err != nil {
				return nil, nil, err
			}
			n.MTU = n.MTUMin
			if ok && cur >= n.MTUMin {
				n.MTU = cur
			}
			n.MTUMin = 0
		}
		if n.VLAN != nil && n.VLAN.MTU == 0 {
			n.VLAN.MTU = n.MTU
		}
	}
	modprobe := -1
	for i := range r.RDMACM {
		c := &r.RDMACM[i]
		if c.Device == "" {
			c.Device = devs[c.Netdev]
		}
		m, err := facts.rdmacmMethod(c.Method)
		if err != nil {
			return nil, nil, err
		}
		c.Method = m
		switch m {
		case RDMACMDefPrec2SL:
			c.ToS, c.Mode = -1, ""
			if modprobe >= 0 && modprobe != c.Prec2SL {
				return nil, nil, fmt.Errorf("def_prec2sl is one value per host, but NICs want %d and %d; use configfs", modprobe, c.Prec2SL)
			}
			modprobe = c.Prec2SL
		case RDMACMConfigfs:
			c.Prec2SL = -1
		}
		notes = append(notes, fmt.Sprintf("rdma_cm %s: using %s", c.Device, m))
	}
	if modprobe >= 0 && !hasFile(r.Files, ModprobeFile) {
		r.Files = append(r.Files, FileState{Path: ModprobeFile, Format: FormatLines, Exists: true,
			Lines: []string{fmt.Sprintf("options rdma_cm def_prec2sl=%d", modprobe)}})
	}
	r.Files = addRDMACMPersistFiles(r.Files, r.RDMACM) // persist_rdmacm.go: rdma_cm defaults re-applied after a driver reload
	for i := range r.Files {
		f := &r.Files[i]
		for j := range f.Entries {
			e := &f.Entries[j]
			for nd, d := range devs {
				e.Value = strings.ReplaceAll(e.Value, deviceRef(nd), d)
			}
			if e.GID == nil {
				continue
			}
			if e.GID.Device == "" {
				e.GID.Device = devs[e.GID.Parent]
			}
			idx, err := facts.gidIndex(f.Path, e.Key, *e.GID)
			if err != nil {
				e.Value = ""
				notes = append(notes, fmt.Sprintf("%s %s: GID index resolved during apply (%v)", f.Path, e.Key, err))
				continue
			}
			e.Value = fmt.Sprint(idx)
		}
	}
	return r, notes, nil
}

// Read resolves desired and reads the current state of everything it
// names. The fingerprint is a digest of the current state: apply refuses
// when it moved.
func (s *System) Read(ctx context.Context, desired *HostState) (*ReadResult, error) {
	if desired == nil {
		desired = &HostState{}
	}
	if err := CheckManaged(desired); err != nil {
		return nil, fmt.Errorf("refusing the request: %w", err)
	}
	defer s.holdRoot()()
	resolved, notes, err := s.Resolve(ctx, desired)
	if err != nil {
		return nil, err
	}
	cur, err := s.readCurrent(ctx, resolved)
	if err != nil {
		return nil, err
	}
	facts := s.Backends()
	if k := s.Kernel(); k != "" {
		facts["kernel"] = k
	}
	for _, n := range resolved.NICs {
		s.DeviceFacts(n.RDMADevice, n.Port, facts)
	}
	for _, c := range resolved.RDMACM {
		facts["rdma_cm."+c.Device+".method"] = c.Method
	}
	return &ReadResult{Current: cur, Resolved: resolved, Fingerprint: Fingerprint(cur), Facts: facts, Notes: notes}, nil
}

// Fingerprint is the sha256 of the state's canonical JSON.
func Fingerprint(st *HostState) string {
	b, _ := json.Marshal(st) // HostState has no unmarshalable fields
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (s *System) readCurrent(ctx context.Context, want *HostState) (*HostState, error) {
	cur := &HostState{}
	for _, w := range want.NICs {
		n, err := s.readNIC(ctx, w)
		if err != nil {
			return nil, err
		}
		cur.NICs = append(cur.NICs, n)
	}
	for _, w := range want.RDMACM {
		c, err := s.readRDMACM(ctx, w)
		if err != nil {
			return nil, err
		}
		cur.RDMACM = append(cur.RDMACM, c)
	}
	for _, w := range want.Files {
		f, err := s.readFile(w)
		if err != nil {
			return nil, err
		}
		cur.Files = append(cur.Files, f)
	}
	return cur, nil
}

func (s *System) readNIC(ctx context.Context, w NICState) (NICState, error) {
	n := NICState{Netdev: w.Netdev, RDMADevice: w.RDMADevice, Port: w.Port, RoCEMode: w.RoCEMode}
	li, err := s.Links.Link(ctx, w.Netdev)
	if err != nil {
		return n, err
	}
	if li == nil {
		return n, fmt.Errorf("netdev %s does not exist on this host (check the policy's netdev names: ip link show)", w.Netdev)
	}
	n.Exists, n.MTU, n.Addresses = true, li.MTU, li.Addresses
	if w.DCB != nil {
		r, dcbx, err := s.DCB.Get(ctx, w.Netdev)
		if err != nil {
			if errors.Is(err, ErrDCBUnsupported) {
				return n, fmt.Errorf("%w: PFC/trust can't be managed on this netdev; is it the RoCE port of a DCB-capable NIC (mlx5)?", err)
			}
			return n, err
		}
		n.DCB = dcbStateFromReply(r, dcbx)
	}
	if w.VLAN != nil {
		v := &VLANState{Name: w.VLAN.Name, Parent: w.VLAN.Parent, ID: w.VLAN.ID}
		vl, err := s.Links.Link(ctx, w.VLAN.Name)
		if err != nil {
			return n, err
		}
		if vl != nil {
			v.Exists, v.MTU, v.Addresses = true, vl.MTU, vl.Addresses
			if vl.VLAN != nil {
				v.Parent, v.ID, v.EgressQoS = vl.VLAN.Parent, vl.VLAN.ID, fullEgress(vl.VLAN.Egress)
			}
		}
		n.VLAN = v
	}
	return n, nil
}

func (s *System) readFile(w FileState) (FileState, error) {
	f := FileState{Path: w.Path, Format: w.Format}
	b, _, err := s.readBeneath(w.Path) // no symlinks under the root
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	f.Exists = true
	switch w.Format {
	case FormatLines:
		f.Lines = ReadLines(b, w.Lines)
	case FormatKV, FormatKVSpaced:
		keys := make([]string, len(w.Entries))
		for i, e := range w.Entries {
			keys[i] = e.Key
		}
		f.Entries = ReadKV(b, keys)
	default:
		return f, fmt.Errorf("%s: unknown file format %q", w.Path, w.Format)
	}
	return f, nil
}

func hasFile(fs []FileState, p string) bool {
	for _, f := range fs {
		if f.Path == p {
			return true
		}
	}
	return false
}

func cloneState(st *HostState) *HostState {
	b, _ := json.Marshal(st)
	var out HostState
	_ = json.Unmarshal(b, &out)
	return &out
}
