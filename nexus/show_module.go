package nexus

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseShowModule reads the first table of `show module` (Mod, Ports,
// Module-Type, Model, Status). Columns are cut at the header's dash runs,
// because their widths differ per release and Model may be empty
// (reference §2.5). Series is "F" or "M" from the model (N7K-F…, N7K-M…),
// "sup" for supervisors, "" otherwise.
func ParseShowModule(text string) ([]Module, error) {
	lines := splitLines(text)
	hdr := -1
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) >= 5 && f[0] == "Mod" && f[1] == "Ports" && strings.HasPrefix(f[2], "Module-Type") {
			hdr = i
			break
		}
	}
	if hdr < 0 || hdr+1 >= len(lines) {
		return nil, fmt.Errorf("show module: no 'Mod Ports Module-Type Model Status' table header")
	}
	cols := dashColumns(lines[hdr+1])
	if len(cols) < 5 {
		return nil, fmt.Errorf("show module: line %d: expected 5 dash columns under the header, got %d", hdr+2, len(cols))
	}
	var mods []Module
	for i := hdr + 2; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" {
			break // end of the first table
		}
		field := func(c int) string {
			// a field runs from its dash column to the next one, the
			// last (Status) to the end of the line
			start, end := cols[c][0], len(l)
			if c < 4 {
				end = cols[c+1][0]
			}
			if start >= len(l) {
				return ""
			}
			return strings.TrimSpace(l[start:min(end, len(l))])
		}
		slot, err := strconv.Atoi(field(0))
		if err != nil || slot < 0 {
			return nil, fmt.Errorf("show module: line %d: %q does not start with a module number", i+1, l)
		}
		ports, err := strconv.Atoi(field(1))
		if err != nil || ports < 0 {
			return nil, fmt.Errorf("show module: line %d: ports %q is not a number", i+1, field(1))
		}
		m := Module{Slot: slot, Ports: ports, Type: field(2), Model: field(3), Status: field(4)}
		m.Series = moduleSeries(m)
		mods = append(mods, m)
	}
	if len(mods) == 0 {
		return nil, fmt.Errorf("show module: the module table is empty")
	}
	return mods, nil
}

// dashColumns returns [start,end) of each dash run in a "---  -----" line.
func dashColumns(l string) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(l); i++ {
		dash := i < len(l) && l[i] == '-'
		if dash && start < 0 {
			start = i
		}
		if !dash && start >= 0 {
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	return out
}

// moduleSeries classifies a module by model prefix (reference §2.5).
func moduleSeries(m Module) string {
	model := strings.ToUpper(m.Model)
	switch {
	case strings.Contains(strings.ToLower(m.Type), "supervisor") || strings.Contains(model, "SUP"):
		return "sup"
	case strings.HasPrefix(model, "N7K-F") || strings.HasPrefix(model, "N77-F"):
		return "F"
	case strings.HasPrefix(model, "N7K-M") || strings.HasPrefix(model, "N77-M"):
		return "M"
	}
	return ""
}

// FormatShowModule prints mods as `show module` does (first table).
func FormatShowModule(mods []Module) string {
	var b strings.Builder
	b.WriteString("Mod  Ports  Module-Type                         Model              Status\n")
	b.WriteString("---  -----  ----------------------------------- ------------------ ----------\n")
	for _, m := range mods {
		fmt.Fprintf(&b, "%-4d %-6d %-35.35s %-18.18s %s\n", m.Slot, m.Ports, m.Type, m.Model, m.Status)
	}
	return b.String()
}
