package nics

import (
	"context"
	"fmt"

	"golang.org/x/sys/unix"
)

// labDCB emulates an mlx5 port's dcbnl state for the lab, whose kernel has
// no DCB-capable netdev (veth answers EOPNOTSUPP). It follows the mlx5
// rules in docs/platform-hosts.md #dcb: only DSCP (selector 5) APP entries are
// accepted, adding one replaces the previous priority of that DSCP, a
// delete must carry the programmed priority. LAB ONLY: selected by
// Open when <root>/.roce-lab exists and root != "/".
type labDCB struct {
	root  string
	links Links
}

// labDCBState is the persisted emulated state of one netdev.
type labDCBState struct {
	DCBX uint8    `json:"dcbx"`
	PFC  IEEEPFC  `json:"pfc"`
	ETS  IEEEETS  `json:"ets"`
	Apps []DCBApp `json:"apps"`
}

// defaultLabDCB is what an mlx5 port reports after a firmware reset:
// firmware-controlled DCBX, no PFC, no APP entries (PCP trust).
func defaultLabDCB() labDCBState {
	return labDCBState{DCBX: DCBXLLDManaged | DCBXVerIEEE, PFC: IEEEPFC{Cap: 8}, ETS: IEEEETS{ETSCap: 8}}
}

func (l *labDCB) Name() string { return BackendLab }

func (l *labDCB) load(ctx context.Context, ifname string) (labDCBState, error) {
	if err := ctx.Err(); err != nil {
		return labDCBState{}, err
	}
	li, err := l.links.Link(ctx, ifname)
	if err != nil {
		return labDCBState{}, err
	}
	if li == nil {
		return labDCBState{}, fmt.Errorf("%s: dcbnl: %w", ifname, unix.ENODEV)
	}
	st := defaultLabDCB()
	if _, err := loadLab(l.root, "dcb", ifname, &st); err != nil {
		return st, err
	}
	return st, nil
}

func (l *labDCB) Get(ctx context.Context, ifname string) (*IEEEReply, uint8, error) {
	st, err := l.load(ctx, ifname)
	if err != nil {
		return nil, 0, err
	}
	pfc, ets := st.PFC, st.ETS
	return &IEEEReply{PFC: &pfc, ETS: &ets, Apps: append([]DCBApp(nil), st.Apps...)}, st.DCBX, nil
}

func (l *labDCB) SetPFC(ctx context.Context, ifname string, pfc IEEEPFC) error {
	st, err := l.load(ctx, ifname)
	if err != nil {
		return err
	}
	// Counters are owned by the hardware; a SET never changes them.
	pfc.Requests, pfc.Indications = st.PFC.Requests, st.PFC.Indications
	st.PFC = pfc
	return saveLab(l.root, "dcb", ifname, st)
}

func (l *labDCB) AddApps(ctx context.Context, ifname string, apps []DCBApp) error {
	st, err := l.load(ctx, ifname)
	if err != nil {
		return err
	}
	for _, a := range apps {
		if a.Selector != AppSelDSCP || a.Protocol >= 64 || a.Priority > 7 {
			return fmt.Errorf("%s: dcbnl IEEE_SET app %+v: %w", ifname, a, unix.EINVAL)
		}
		kept := st.Apps[:0]
		for _, o := range st.Apps {
			if !(o.Selector == a.Selector && o.Protocol == a.Protocol) {
				kept = append(kept, o)
			}
		}
		st.Apps = append(kept, a)
	}
	return saveLab(l.root, "dcb", ifname, st)
}

func (l *labDCB) DelApps(ctx context.Context, ifname string, apps []DCBApp) error {
	st, err := l.load(ctx, ifname)
	if err != nil {
		return err
	}
	for _, a := range apps {
		found := false
		kept := st.Apps[:0]
		for _, o := range st.Apps {
			if o == a {
				found = true
				continue
			}
			kept = append(kept, o)
		}
		if !found {
			return fmt.Errorf("%s: dcbnl IEEE_DEL app %+v: %w", ifname, a, unix.ENOENT)
		}
		st.Apps = kept
	}
	return saveLab(l.root, "dcb", ifname, st)
}

func (l *labDCB) SetDCBX(ctx context.Context, ifname string, mode uint8) error {
	st, err := l.load(ctx, ifname)
	if err != nil {
		return err
	}
	if mode&DCBXLLDManaged != 0 && mode&DCBXHost != 0 {
		return fmt.Errorf("%s: dcbnl SDCBX 0x%02x: host and LLD-managed together: %w", ifname, mode, unix.EINVAL)
	}
	st.DCBX = mode
	return saveLab(l.root, "dcb", ifname, st)
}
