package nexus

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// VDC is one row of `show vdc` on a Nexus 7000/7700.
type VDC struct {
	ID    int
	Name  string
	State string // "active", …
	MAC   string
	Type  string // "Admin", "Ethernet", "Storage"
	LC    string // line-card types allowed ("f2e", "m1 f1 m1xl f2 m2xl f2e f3", "None")
}

var reVDCRow = regexp.MustCompile(`^\s*(\d+)\s+(\S+)\s+(\S+)\s+([0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}|[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}\.[0-9a-fA-F]{4})\s+(\S+)\s+(.*?)\s*$`)

// ParseShowVDC reads the table of `show vdc` (vdc_id vdc_name state mac
// type lc). A "Switchwide mode is …" line before it, the echoed command and
// warnings are skipped.
func ParseShowVDC(text string) ([]VDC, error) {
	var out []VDC
	inTable := false
	for _, l := range splitLines(text) {
		f := strings.Fields(l)
		if len(f) >= 3 && f[0] == "vdc_id" && f[1] == "vdc_name" {
			inTable = true
			continue
		}
		if !inTable {
			continue
		}
		if m := reVDCRow.FindStringSubmatch(l); m != nil {
			id, _ := strconv.Atoi(m[1])
			out = append(out, VDC{ID: id, Name: m[2], State: m[3], MAC: m[4], Type: m[5], LC: m[6]})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("show vdc: no 'vdc_id vdc_name state mac type lc' table with rows")
	}
	return out, nil
}

var reCurrentVDC = regexp.MustCompile(`(?m)^\s*Current vdc is (\d+)\s*-\s*(\S+)`)

// ParseCurrentVDC reads `show vdc current-vdc`: "Current vdc is 1 - N7K1".
func ParseCurrentVDC(text string) (int, string, error) {
	m := reCurrentVDC.FindStringSubmatch(strings.ReplaceAll(text, "\r", ""))
	if m == nil {
		return 0, "", fmt.Errorf("show vdc current-vdc: no \"Current vdc is N - NAME\" line")
	}
	id, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, "", fmt.Errorf("show vdc current-vdc: VDC id %q: %w", m[1], err)
	}
	return id, m[2], nil
}
