package nexus

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ParseShowModule reads the first table of `show module` (Mod, Ports,
// Module-Type, Model, Status). A row is read by its words, not by the
// header's dash columns, because real output overflows them (a long
// Module-Type pushes Model right), wraps at 80 columns (Status on the next
// line), and Model may be empty (docs/nxos.md). Series is "F" or "M" from
// the model (N7K-F…, N7K-M…), "sup" for supervisors, "" otherwise. Lines
// before the header (the echoed command, a banner) are skipped; the table
// ends at the first blank line or the next header.
func ParseShowModule(text string) ([]Module, error) {
	lines := splitLines(text)
	hdr := -1
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) >= 4 && f[0] == "Mod" && f[1] == "Ports" && strings.HasPrefix(f[2], "Module-Type") {
			hdr = i
			break
		}
	}
	if hdr < 0 {
		return nil, fmt.Errorf("show module: no 'Mod Ports Module-Type Model Status' table header")
	}
	// Join wrapped lines: a line starting with a space continues the one
	// before it (the header, its dashes, or a row).
	var rows []string
	rowLine := []int{}
	for i := hdr + 1; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " ")
		if strings.TrimSpace(l) == "" {
			if len(rows) > 0 {
				break // end of the first table
			}
			continue
		}
		if l[0] == ' ' {
			if len(rows) > 0 {
				rows[len(rows)-1] += " " + strings.TrimSpace(l)
			}
			continue
		}
		if f := strings.Fields(l); f[0] == "Mod" || f[0] == "Xbar" {
			break // the next table
		}
		rows = append(rows, l)
		rowLine = append(rowLine, i+1)
	}
	var mods []Module
	for k, l := range rows {
		if strings.Trim(l, "- ") == "" {
			continue // the dash line
		}
		f := strings.Fields(l)
		if len(f) < 3 {
			return nil, fmt.Errorf("show module: line %d: %q is not a module row", rowLine[k], l)
		}
		slot, err := strconv.Atoi(f[0])
		if err != nil || slot < 0 {
			return nil, fmt.Errorf("show module: line %d: %q does not start with a module number", rowLine[k], l)
		}
		ports, err := strconv.Atoi(f[1])
		if err != nil || ports < 0 {
			return nil, fmt.Errorf("show module: line %d: ports %q is not a number", rowLine[k], f[1])
		}
		rest := f[2:]
		status := rest[len(rest)-1]
		rest = rest[:len(rest)-1]
		if status == "*" && len(rest) > 0 {
			status = rest[len(rest)-1] + " *"
			rest = rest[:len(rest)-1]
		}
		model := ""
		if len(rest) > 1 && reModel.MatchString(rest[len(rest)-1]) {
			model = rest[len(rest)-1]
			rest = rest[:len(rest)-1]
		}
		m := Module{Slot: slot, Ports: ports, Type: strings.Join(rest, " "), Model: model, Status: status}
		m.Series = moduleSeries(m)
		mods = append(mods, m)
	}
	if len(mods) == 0 {
		return nil, fmt.Errorf("show module: the module table is empty")
	}
	return mods, nil
}

// reModel matches a Cisco product ID: upper-case words joined by dashes
// (N7K-F248XP-25E, N9K-SUP-A+, N9324C-SE1U).
var reModel = regexp.MustCompile(`^[A-Z0-9][A-Z0-9+.]*(-[A-Z0-9+.]+)+$`)

// moduleSeries classifies a module by model prefix (docs/nxos.md).
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
