package nexus

import (
	"fmt"
	"strconv"
	"strings"
)

// Counters is what `show interface counters`, `show interface counters
// errors` and their per-port forms print: per interface (canonical name
// where NX-OS accepts it, "Ethernet1/13" for "Eth1/13"), per column title
// ("OutDiscards", "InDiscards", "FCS-Err", "Stomped-CRC", "InOctets", …),
// the count. A column printed "--" (not applicable to that port) is absent.
type Counters map[string]map[string]uint64

// ParseShowInterfaceCounters reads those tables: each starts with a "Port
// <title> <title> …" line between dash lines; rows are a port and one
// value per title. Tables repeat with other titles; the echoed command,
// the prompt and blank lines between them are skipped.
func ParseShowInterfaceCounters(text string) (Counters, error) {
	out := Counters{}
	var titles []string
	for i, l := range splitLines(text) {
		f := strings.Fields(l)
		switch {
		case len(f) == 0 || strings.Trim(l, "- ") == "":
			continue
		case f[0] == "Port" && len(f) >= 2:
			titles = f[1:]
			continue
		case titles == nil:
			continue
		}
		if len(f) != len(titles)+1 {
			continue // not a row of this table: a warning, a log line, a prompt
		}
		name := f[0]
		if c, ok := CanonicalInterface(name); ok {
			name = c
		}
		for k, v := range f[1:] {
			if v == "--" {
				continue
			}
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("show interface counters: line %d: %s %s = %q is not a count", i+1, name, titles[k], v)
			}
			if out[name] == nil {
				out[name] = map[string]uint64{}
			}
			out[name][titles[k]] = n
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("show interface counters: no \"Port …\" table with rows")
	}
	return out, nil
}
