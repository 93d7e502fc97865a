package nexus

import (
	"fmt"

	"github.com/rocefabric/roce/platforms"
)

// Platform is one NX-OS switch kind with its capabilities.
type Platform struct {
	Kind string // "nexus5000" | "nexus7000"
	Caps platforms.Capabilities
}

// PlatformFor looks the kind up in the capability table.
func PlatformFor(kind string, caps platforms.Table) (Platform, error) {
	if kind != "nexus5000" && kind != "nexus7000" {
		return Platform{}, fmt.Errorf("nexus: platform %q is not an NX-OS kind (want nexus5000 or nexus7000)", kind)
	}
	c, ok := caps.Lookup(kind, "")
	if !ok {
		return Platform{}, fmt.Errorf("nexus: the capability table has no row for %q", kind)
	}
	return Platform{Kind: kind, Caps: c}, nil
}

// Is7000 reports whether network-qos is template-based (Nexus 7000).
func (p Platform) Is7000() bool { return p.Caps.NetworkQoSFromTemplate }

// Module is one row of `show module`.
type Module struct {
	Slot   int
	Ports  int
	Type   string // Module-Type column
	Model  string // may be empty (powered-up supervisors)
	Status string
	Series string // "F", "M", "sup", ""
}

// Version is what `show version` says about the switch.
type Version struct {
	Platform  string // e.g. "Nexus5548", "Nexus7000"
	Chassis   string // the hardware line after the platform, e.g. `Chassis ("O2 32X10GE/Modular Universal Platform Supervisor")`
	OS        string // system version, e.g. "5.2(1)N1(4)"
	Kickstart string // kickstart version
	Image     string // system image file, e.g. "bootflash:///n5000-uk9.5.2.1.N1.4.bin"
}

// KindFromVersion maps a parsed `show version` to a platform kind
// ("nexus5000" for Nexus 5000/5500/5600, "nexus7000" for 7000/7700).
func KindFromVersion(v Version) (string, error) {
	p := v.Platform
	switch {
	case len(p) >= 6 && p[:6] == "Nexus5":
		return "nexus5000", nil
	case len(p) >= 6 && p[:6] == "Nexus7":
		return "nexus7000", nil
	}
	return "", fmt.Errorf("nexus: show version reports platform %q, which is neither a Nexus 5000 nor a Nexus 7000", p)
}

// PipelinedPush says whether a configuration push to this platform, at
// this NX-OS version, may write its lines in groups (pasted) instead of
// one per round trip (docs/nxos.md#pipelined), and why. Pasting rests on
// the CLI reading a terminal line by line, in order, and on PushGroups'
// proof that no line acts in a mode the plan does not put it in; neither
// depends on the release on the 5000 or the 7000 as far as public sources
// say. A row says false where that is known not to hold; the caller then
// sends one line per round trip.
func (p Platform) PipelinedPush(osVersion string) (bool, string) {
	switch p.Kind {
	case "nexus5000", "nexus7000":
		return true, "the CLI takes pasted lines in order, on every release as far as public sources say (docs/nxos.md#pipelined)"
	}
	return false, "no pipelining row for " + p.Kind
}
