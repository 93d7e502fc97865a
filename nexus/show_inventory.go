package nexus

import (
	"fmt"
	"regexp"
	"strings"
)

// InventoryItem is one entry of `show inventory`.
type InventoryItem struct {
	Name  string // "Chassis", "Slot 1", "Power Supply 1", "Ethernet1/46"
	Descr string
	PID   string
	VID   string
	SN    string
}

var (
	reInvName = regexp.MustCompile(`^\s*NAME:\s*(?:"([^"]*)"|([^,]*?))\s*,\s*DESCR:\s*(?:"([^"]*)"|(.*?))\s*$`)
	reInvPID  = regexp.MustCompile(`^\s*PID:\s*(.*?)\s*,\s*VID:\s*(.*?)\s*,\s*SN:\s*(.*?)\s*$`)
)

// ParseShowInventory reads `show inventory`: NAME/DESCR lines, each followed
// by its PID/VID/SN line. Quoted and unquoted names (transceivers print
// unquoted ones), padded PIDs, blank or missing separators between items
// and stray lines (a echoed command, a warning) are all accepted.
func ParseShowInventory(text string) ([]InventoryItem, error) {
	var items []InventoryItem
	var cur *InventoryItem
	for i, l := range splitLines(text) {
		if m := reInvName.FindStringSubmatch(l); m != nil {
			items = append(items, InventoryItem{Name: m[1] + m[2], Descr: strings.TrimSpace(m[3] + m[4])})
			cur = &items[len(items)-1]
			continue
		}
		if m := reInvPID.FindStringSubmatch(l); m != nil {
			if cur == nil {
				return nil, fmt.Errorf("show inventory: line %d: PID line before any NAME line", i+1)
			}
			cur.PID, cur.VID, cur.SN = m[1], m[2], m[3]
			cur = nil
		}
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("show inventory: no NAME: ... DESCR: ... entries")
	}
	return items, nil
}

// FormatShowInventory prints items as NX-OS does: quoted NAME and DESCR,
// the PID padded to 20 columns, a blank line after each item.
func FormatShowInventory(items []InventoryItem) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "NAME: %q,  DESCR: %q\n", it.Name, it.Descr)
		fmt.Fprintf(&b, "PID: %-20s,  VID: %s ,  SN: %s\n\n", it.PID, it.VID, it.SN)
	}
	return b.String()
}
