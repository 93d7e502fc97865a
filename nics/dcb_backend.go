package nics

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"
)

// DCB reads and writes dcbnl state of a netdev.
type DCB interface {
	Name() string
	// Get returns the IEEE view (PFC, ETS, APP table) and the DCBX mode.
	Get(ctx context.Context, ifname string) (*IEEEReply, uint8, error)
	SetPFC(ctx context.Context, ifname string, pfc IEEEPFC) error
	AddApps(ctx context.Context, ifname string, apps []DCBApp) error
	DelApps(ctx context.Context, ifname string, apps []DCBApp) error
	SetDCBX(ctx context.Context, ifname string, mode uint8) error
}

// ErrDCBUnsupported wraps EOPNOTSUPP from a netdev without dcbnl ops.
var ErrDCBUnsupported = errors.New("netdev has no DCB support (operation not supported)")

// netlinkDCB talks dcbnl over NETLINK_ROUTE.
type netlinkDCB struct{}

func (netlinkDCB) Name() string { return BackendNetlink }

// BuildIEEEGet builds the DCB_CMD_IEEE_GET request.
func BuildIEEEGet(ifname string) *nl.NetlinkRequest {
	req := nl.NewNetlinkRequest(rtmGetDCB, 0)
	req.AddData(dcbMsg{unix.AF_UNSPEC, dcbCmdIEEEGet})
	req.AddData(nl.NewRtAttr(dcbAttrIfname, nl.ZeroTerminated(ifname)))
	return req
}

// BuildSetPFC builds the DCB_CMD_IEEE_SET request carrying a whole ieee_pfc.
func BuildSetPFC(ifname string, pfc IEEEPFC) *nl.NetlinkRequest {
	req := nl.NewNetlinkRequest(rtmSetDCB, 0)
	req.AddData(dcbMsg{unix.AF_UNSPEC, dcbCmdIEEESet})
	req.AddData(nl.NewRtAttr(dcbAttrIfname, nl.ZeroTerminated(ifname)))
	ieee := nl.NewRtAttr(dcbAttrIEEE, nil)
	ieee.AddRtAttr(dcbAttrIEEEPFC, pfc.Marshal())
	req.AddData(ieee)
	return req
}

// BuildApps builds a DCB_CMD_IEEE_SET (add) or DCB_CMD_IEEE_DEL request for
// APP table entries.
func BuildApps(ifname string, apps []DCBApp, del bool) *nl.NetlinkRequest {
	cmd := uint8(dcbCmdIEEESet)
	if del {
		cmd = dcbCmdIEEEDel
	}
	req := nl.NewNetlinkRequest(rtmSetDCB, 0)
	req.AddData(dcbMsg{unix.AF_UNSPEC, cmd})
	req.AddData(nl.NewRtAttr(dcbAttrIfname, nl.ZeroTerminated(ifname)))
	ieee := nl.NewRtAttr(dcbAttrIEEE, nil)
	tbl := ieee.AddRtAttr(dcbAttrIEEEAppTable, nil)
	for _, a := range apps {
		tbl.AddRtAttr(dcbAttrIEEEApp, a.Marshal())
	}
	req.AddData(ieee)
	return req
}

// BuildDCBX builds a DCB_CMD_GDCBX (get) or DCB_CMD_SDCBX (set) request.
func BuildDCBX(ifname string, set bool, mode uint8) *nl.NetlinkRequest {
	typ, cmd := rtmGetDCB, uint8(dcbCmdGDCBX)
	if set {
		typ, cmd = rtmSetDCB, dcbCmdSDCBX
	}
	req := nl.NewNetlinkRequest(typ, 0)
	req.AddData(dcbMsg{unix.AF_UNSPEC, cmd})
	req.AddData(nl.NewRtAttr(dcbAttrIfname, nl.ZeroTerminated(ifname)))
	if set {
		req.AddData(nl.NewRtAttr(dcbAttrDCBX, []byte{mode}))
	}
	return req
}

func dcbErr(ifname, what string, err error) error {
	if errors.Is(err, unix.EOPNOTSUPP) {
		return fmt.Errorf("%s: %s: %w", ifname, what, ErrDCBUnsupported)
	}
	return fmt.Errorf("%s: dcbnl %s: %w", ifname, what, err)
}

func execute(ctx context.Context, req *nl.NetlinkRequest, resType uint16) ([][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return req.Execute(unix.NETLINK_ROUTE, resType)
}

func (netlinkDCB) Get(ctx context.Context, ifname string) (*IEEEReply, uint8, error) {
	msgs, err := execute(ctx, BuildIEEEGet(ifname), rtmGetDCB)
	if err != nil {
		return nil, 0, dcbErr(ifname, "IEEE_GET", err)
	}
	if len(msgs) == 0 {
		return nil, 0, fmt.Errorf("%s: dcbnl IEEE_GET: empty reply", ifname)
	}
	r, err := DecodeIEEEGet(msgs[0])
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", ifname, err)
	}
	msgs, err = execute(ctx, BuildDCBX(ifname, false, 0), rtmGetDCB)
	if err != nil {
		return nil, 0, dcbErr(ifname, "GDCBX", err)
	}
	if len(msgs) == 0 {
		return nil, 0, fmt.Errorf("%s: dcbnl GDCBX: empty reply", ifname)
	}
	mode, err := DecodeStatus(msgs[0], dcbAttrDCBX)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: GDCBX: %w", ifname, err)
	}
	return r, mode, nil
}

func (netlinkDCB) set(ctx context.Context, ifname, what string, req *nl.NetlinkRequest, attr uint16) error {
	msgs, err := execute(ctx, req, rtmSetDCB)
	if err != nil {
		return dcbErr(ifname, what, err)
	}
	if len(msgs) == 0 {
		return fmt.Errorf("%s: dcbnl %s: empty reply", ifname, what)
	}
	st, err := DecodeStatus(msgs[0], attr)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", ifname, what, err)
	}
	if st != 0 {
		return fmt.Errorf("%s: dcbnl %s refused by the driver (status %d)", ifname, what, st)
	}
	return nil
}

func (n netlinkDCB) SetPFC(ctx context.Context, ifname string, pfc IEEEPFC) error {
	return n.set(ctx, ifname, "IEEE_SET pfc", BuildSetPFC(ifname, pfc), dcbAttrIEEE)
}

func (n netlinkDCB) AddApps(ctx context.Context, ifname string, apps []DCBApp) error {
	if len(apps) == 0 {
		return nil
	}
	return n.set(ctx, ifname, "IEEE_SET app", BuildApps(ifname, apps, false), dcbAttrIEEE)
}

func (n netlinkDCB) DelApps(ctx context.Context, ifname string, apps []DCBApp) error {
	if len(apps) == 0 {
		return nil
	}
	return n.set(ctx, ifname, "IEEE_DEL app", BuildApps(ifname, apps, true), dcbAttrIEEE)
}

func (n netlinkDCB) SetDCBX(ctx context.Context, ifname string, mode uint8) error {
	return n.set(ctx, ifname, "SDCBX", BuildDCBX(ifname, true, mode), dcbAttrDCBX)
}

// normalizeDCB sorts APP entries and derives Trust, so equal states compare
// and fingerprint equal.
func normalizeDCB(s *DCBState) {
	sort.Slice(s.DSCPApps, func(i, j int) bool {
		if s.DSCPApps[i].DSCP != s.DSCPApps[j].DSCP {
			return s.DSCPApps[i].DSCP < s.DSCPApps[j].DSCP
		}
		return s.DSCPApps[i].Priority < s.DSCPApps[j].Priority
	})
	sort.Slice(s.OtherApps, func(i, j int) bool {
		a, b := s.OtherApps[i], s.OtherApps[j]
		if a.Selector != b.Selector {
			return a.Selector < b.Selector
		}
		if a.Protocol != b.Protocol {
			return a.Protocol < b.Protocol
		}
		return a.Priority < b.Priority
	})
	s.Trust = "pcp"
	if len(s.DSCPApps) > 0 {
		s.Trust = "dscp"
	}
}
