package nics

import (
	"encoding/binary"
	"fmt"
)

// dcbnl constants from linux/dcbnl.h and linux/rtnetlink.h
// (docs/platform-hosts.md #dcb). Multi-byte struct fields are host byte order.
const (
	rtmGetDCB = 78
	rtmSetDCB = 79

	dcbCmdIEEESet = 20
	dcbCmdIEEEGet = 21
	dcbCmdGDCBX   = 22
	dcbCmdSDCBX   = 23
	dcbCmdIEEEDel = 27

	dcbAttrIfname = 1
	dcbAttrIEEE   = 13
	dcbAttrDCBX   = 14

	dcbAttrIEEEETS      = 1
	dcbAttrIEEEPFC      = 2
	dcbAttrIEEEAppTable = 3
	dcbAttrIEEEApp      = 1

	// DCB_CAP_DCBX_* bits.
	DCBXHost       = 0x01
	DCBXLLDManaged = 0x02
	DCBXVerCEE     = 0x04
	DCBXVerIEEE    = 0x08
	DCBXStatic     = 0x10

	// AppSelDSCP is IEEE_8021QAZ_APP_SEL_DSCP.
	AppSelDSCP = 5

	ieeePFCSize = 136
	ieeeETSSize = 59
	dcbAppSize  = 4
	dcbMsgSize  = 4
)

// IEEEPFC is struct ieee_pfc.
type IEEEPFC struct {
	Cap         uint8     `json:"pfc_cap"`
	Enabled     uint8     `json:"pfc_en"`
	MBC         uint8     `json:"mbc"`
	Delay       uint16    `json:"delay"`
	Requests    [8]uint64 `json:"requests"`    // PFC frames sent per priority
	Indications [8]uint64 `json:"indications"` // PFC frames received per priority
}

// Marshal encodes p exactly as struct ieee_pfc (136 bytes, padding zero).
func (p IEEEPFC) Marshal() []byte {
	b := make([]byte, ieeePFCSize)
	b[0], b[1], b[2] = p.Cap, p.Enabled, p.MBC
	binary.NativeEndian.PutUint16(b[4:], p.Delay)
	for i := 0; i < 8; i++ {
		binary.NativeEndian.PutUint64(b[8+8*i:], p.Requests[i])
		binary.NativeEndian.PutUint64(b[72+8*i:], p.Indications[i])
	}
	return b
}

// UnmarshalIEEEPFC decodes struct ieee_pfc.
func UnmarshalIEEEPFC(b []byte) (IEEEPFC, error) {
	var p IEEEPFC
	if len(b) < ieeePFCSize {
		return p, fmt.Errorf("ieee_pfc: %d bytes, want %d", len(b), ieeePFCSize)
	}
	p.Cap, p.Enabled, p.MBC = b[0], b[1], b[2]
	p.Delay = binary.NativeEndian.Uint16(b[4:])
	for i := 0; i < 8; i++ {
		p.Requests[i] = binary.NativeEndian.Uint64(b[8+8*i:])
		p.Indications[i] = binary.NativeEndian.Uint64(b[72+8*i:])
	}
	return p, nil
}

// IEEEETS is struct ieee_ets (59 bytes, all u8).
type IEEEETS struct {
	Willing    uint8    `json:"willing"`
	ETSCap     uint8    `json:"ets_cap"`
	CBS        uint8    `json:"cbs"`
	TCTxBW     [8]uint8 `json:"tc_tx_bw"`
	TCRxBW     [8]uint8 `json:"tc_rx_bw"`
	TCTSA      [8]uint8 `json:"tc_tsa"`
	PrioTC     [8]uint8 `json:"prio_tc"`
	TCRecoBW   [8]uint8 `json:"tc_reco_bw"`
	TCRecoTSA  [8]uint8 `json:"tc_reco_tsa"`
	RecoPrioTC [8]uint8 `json:"reco_prio_tc"`
}

func (e *IEEEETS) arrays() []*[8]uint8 {
	return []*[8]uint8{&e.TCTxBW, &e.TCRxBW, &e.TCTSA, &e.PrioTC, &e.TCRecoBW, &e.TCRecoTSA, &e.RecoPrioTC}
}

// Marshal encodes e as struct ieee_ets.
func (e IEEEETS) Marshal() []byte {
	b := make([]byte, 0, ieeeETSSize)
	b = append(b, e.Willing, e.ETSCap, e.CBS)
	for _, a := range e.arrays() {
		b = append(b, a[:]...)
	}
	return b
}

// UnmarshalIEEEETS decodes struct ieee_ets.
func UnmarshalIEEEETS(b []byte) (IEEEETS, error) {
	var e IEEEETS
	if len(b) < ieeeETSSize {
		return e, fmt.Errorf("ieee_ets: %d bytes, want %d", len(b), ieeeETSSize)
	}
	e.Willing, e.ETSCap, e.CBS = b[0], b[1], b[2]
	off := 3
	for _, a := range e.arrays() {
		copy(a[:], b[off:off+8])
		off += 8
	}
	return e, nil
}

// DCBApp is struct dcb_app.
type DCBApp struct {
	Selector uint8  `json:"selector"`
	Priority uint8  `json:"priority"`
	Protocol uint16 `json:"protocol"`
}

// Marshal encodes a as struct dcb_app (4 bytes).
func (a DCBApp) Marshal() []byte {
	b := []byte{a.Selector, a.Priority, 0, 0}
	binary.NativeEndian.PutUint16(b[2:], a.Protocol)
	return b
}

// UnmarshalDCBApp decodes struct dcb_app.
func UnmarshalDCBApp(b []byte) (DCBApp, error) {
	if len(b) < dcbAppSize {
		return DCBApp{}, fmt.Errorf("dcb_app: %d bytes, want %d", len(b), dcbAppSize)
	}
	return DCBApp{Selector: b[0], Priority: b[1], Protocol: binary.NativeEndian.Uint16(b[2:])}, nil
}

// dcbMsg is struct dcbmsg: family, cmd, 2 bytes padding.
type dcbMsg struct{ family, cmd uint8 }

func (d dcbMsg) Len() int          { return dcbMsgSize }
func (d dcbMsg) Serialize() []byte { return []byte{d.family, d.cmd, 0, 0} }

// IEEEReply is a decoded DCB_CMD_IEEE_GET answer.
type IEEEReply struct {
	PFC  *IEEEPFC
	ETS  *IEEEETS
	Apps []DCBApp
}

// DecodeIEEEGet decodes the payload of an RTM_GETDCB reply to
// DCB_CMD_IEEE_GET: a dcbmsg followed by attributes, DCB_ATTR_IEEE nested.
// It never panics on malformed input.
func DecodeIEEEGet(msg []byte) (*IEEEReply, error) {
	if len(msg) < dcbMsgSize {
		return nil, fmt.Errorf("dcbnl reply: %d bytes, shorter than struct dcbmsg", len(msg))
	}
	attrs, err := parseAttrs(msg[dcbMsgSize:])
	if err != nil {
		return nil, fmt.Errorf("dcbnl reply: %w", err)
	}
	r := &IEEEReply{}
	for _, a := range attrs {
		if a.typ != dcbAttrIEEE {
			continue
		}
		nested, err := parseAttrs(a.val)
		if err != nil {
			return nil, fmt.Errorf("dcbnl reply: DCB_ATTR_IEEE: %w", err)
		}
		for _, n := range nested {
			switch n.typ {
			case dcbAttrIEEEPFC:
				p, err := UnmarshalIEEEPFC(n.val)
				if err != nil {
					return nil, fmt.Errorf("dcbnl reply: %w", err)
				}
				r.PFC = &p
			case dcbAttrIEEEETS:
				e, err := UnmarshalIEEEETS(n.val)
				if err != nil {
					return nil, fmt.Errorf("dcbnl reply: %w", err)
				}
				r.ETS = &e
			case dcbAttrIEEEAppTable:
				apps, err := parseAttrs(n.val)
				if err != nil {
					return nil, fmt.Errorf("dcbnl reply: APP_TABLE: %w", err)
				}
				for _, app := range apps {
					if app.typ != dcbAttrIEEEApp {
						continue
					}
					d, err := UnmarshalDCBApp(app.val)
					if err != nil {
						return nil, fmt.Errorf("dcbnl reply: %w", err)
					}
					r.Apps = append(r.Apps, d)
				}
			}
		}
	}
	return r, nil
}

// DecodeStatus returns the 1-byte status dcbnl puts in attribute attr of a
// SET reply (0 = success).
func DecodeStatus(msg []byte, attr uint16) (uint8, error) {
	if len(msg) < dcbMsgSize {
		return 0, fmt.Errorf("dcbnl reply: %d bytes, shorter than struct dcbmsg", len(msg))
	}
	attrs, err := parseAttrs(msg[dcbMsgSize:])
	if err != nil {
		return 0, fmt.Errorf("dcbnl reply: %w", err)
	}
	for _, a := range attrs {
		if a.typ == attr {
			if len(a.val) < 1 {
				return 0, fmt.Errorf("dcbnl reply: attribute %d is empty", attr)
			}
			return a.val[0], nil
		}
	}
	return 0, fmt.Errorf("dcbnl reply: no attribute %d", attr)
}

type rawAttr struct {
	typ uint16
	val []byte
}

// parseAttrs walks netlink attributes (struct nlattr, 4-byte aligned),
// masking the NLA_F_NESTED / NLA_F_NET_BYTEORDER bits. Bounds are checked
// so that truncated or lying lengths give an error, not a panic.
func parseAttrs(b []byte) ([]rawAttr, error) {
	var out []rawAttr
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, fmt.Errorf("truncated attribute header (%d bytes)", len(b))
		}
		l := int(binary.NativeEndian.Uint16(b[0:]))
		t := binary.NativeEndian.Uint16(b[2:]) & 0x3fff
		if l < 4 || l > len(b) {
			return nil, fmt.Errorf("attribute %d: length %d out of range (%d bytes left)", t, l, len(b))
		}
		out = append(out, rawAttr{typ: t, val: b[4:l]})
		al := (l + 3) &^ 3
		if al > len(b) {
			al = len(b)
		}
		b = b[al:]
	}
	return out, nil
}

// dcbStateFromReply builds the DCBState a read reports.
func dcbStateFromReply(r *IEEEReply, dcbx uint8) *DCBState {
	s := &DCBState{DCBX: dcbx, ETS: r.ETS}
	if r.PFC != nil {
		s.PFCEnabled, s.PFCCap, s.MBC, s.Delay = r.PFC.Enabled, r.PFC.Cap, r.PFC.MBC, r.PFC.Delay
	}
	for _, a := range r.Apps {
		if a.Selector == AppSelDSCP {
			s.DSCPApps = append(s.DSCPApps, DSCPApp{DSCP: int(a.Protocol), Priority: int(a.Priority)})
		} else {
			s.OtherApps = append(s.OtherApps, a)
		}
	}
	normalizeDCB(s)
	return s
}
