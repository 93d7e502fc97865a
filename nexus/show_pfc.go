package nexus

import "errors"

// PFCStatus is one row of `show interface priority-flow-control`.
type PFCStatus struct {
	Interface, Mode string
	Oper            bool
	VLBitmap        uint8
	RxPPP, TxPPP    uint64
}

// ParseShowPFC reads `show interface priority-flow-control`.
func ParseShowPFC(text string) ([]PFCStatus, error) {
	return nil, errors.New("nexus: not implemented yet")
}

// FormatShowPFC prints rows as the switch does.
func FormatShowPFC(rows []PFCStatus) string { return "" }
