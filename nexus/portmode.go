package nexus

import (
	"slices"
	"strings"
)

// Routed reports whether interface ifname of c is a routed (Layer 3)
// port on platform p. A `no switchport` or `switchport` line under the
// port decides. Without one the port has the switch's default mode: Layer
// 2 on a Nexus 5000; on a Nexus 7000 Layer 3, unless the configuration
// holds `system default switchport` ("By default, all ports on the device
// are Layer 3 ports", Nexus 7000 Interfaces Configuration Guide 5.x,
// docs/nxos.md#port-mtu) — the running configuration prints only the
// line that differs from that default.
func (c *Config) Routed(p Platform, ifname string) bool {
	return c.routedWith(p, ifname, c.Find("raw "+DefaultSwitchportLine) != nil)
}

// DefaultSwitchportLine makes a Nexus 7000's ports Layer 2 by default.
const DefaultSwitchportLine = "system default switchport"

// routedWith is Routed with the 7000's default mode given: l2Default when
// the switch has DefaultSwitchportLine (read apart by a provider, whose
// sections do not hold it, or in c itself).
func (c *Config) routedWith(p Platform, ifname string, l2Default bool) bool {
	if o := c.Interface(ifname); o != nil {
		switch {
		case slices.Contains(o.Lines, "no switchport"):
			return true
		case slices.Contains(o.Lines, "switchport"):
			return false
		}
	}
	return p.Is7000() && !l2Default
}

// SystemLines reads the global lines of a 7000 configuration text that
// the sections a provider reads do not hold: the last top-level `system
// jumbomtu N` line ("" at the default; ParseJumboMTU reads it) and
// whether DefaultSwitchportLine is set.
func SystemLines(text string) (jumboLine string, defaultSwitchport bool) {
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "system" && f[1] == "jumbomtu" && l[0] == 's' {
			jumboLine = strings.TrimSpace(l)
		}
		if strings.TrimRight(l, " \t\r") == DefaultSwitchportLine {
			defaultSwitchport = true
		}
	}
	return jumboLine, defaultSwitchport
}
