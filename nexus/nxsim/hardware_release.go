package nxsim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocefabric/roce/nexus"
)

// hardwareMinimum is the first NX-OS release a piece of hardware runs: a
// switch with that hardware on an older release cannot exist, so the
// simulator refuses to start as one (or to be downgraded below it).
// docs/nxos.md ("Hardware and release") gives the source of each, or says
// it is UNCONFIRMED.
type hardwareMinimum struct {
	kind  string // nexus5000 or nexus7000
	what  string // the hardware, as a person names it
	since string // the first release that runs it
	other string // what else can be chosen than a later release
	// has reports whether the switch has that hardware.
	has func(v nexus.Version, mods []nexus.Module) (string, bool)
}

// modulesFix is the other way out for a card: cards of the release's time.
const modulesFix = `or give modules that release runs (roce-lab nxos -modules, a lab's "modules", Options.Modules)`

// hardwareMinima lists the minimum releases the simulator checks.
func hardwareMinima() []hardwareMinimum {
	return []hardwareMinimum{
		{kind: "nexus5000", what: "a Nexus 5596", since: "5.0(3)N1(1)", other: "the simulated Nexus 5000 is a 5596",
			has: func(v nexus.Version, _ []nexus.Module) (string, bool) {
				p := strings.ReplaceAll(v.Platform+" "+v.Chassis, " ", "")
				return "", strings.Contains(p, "5596")
			}},
		{kind: "nexus7000", what: "a Supervisor 2", since: "6.1(1)", other: modulesFix,
			has: moduleWith(func(m nexus.Module) bool {
				return strings.HasPrefix(m.Model, "N7K-SUP2") || strings.EqualFold(m.Type, "Supervisor Module-2")
			})},
		{kind: "nexus7000", what: "an F2-series card", since: "6.0(1)", other: modulesFix,
			has: moduleWith(func(m nexus.Module) bool { return strings.HasPrefix(m.Model, "N7K-F2") })},
	}
}

// moduleWith finds the first module that match reports, naming it by slot
// and model.
func moduleWith(match func(nexus.Module) bool) func(nexus.Version, []nexus.Module) (string, bool) {
	return func(_ nexus.Version, mods []nexus.Module) (string, bool) {
		for _, m := range mods {
			if match(m) {
				return fmt.Sprintf(" (%s in slot %d)", m.Model, m.Slot), true
			}
		}
		return "", false
	}
}

// checkHardwareRelease refuses a switch whose hardware needs a later
// release than the one it would run. A release the simulator cannot read
// is left to the other checks.
func checkHardwareRelease(kind string, v nexus.Version, mods []nexus.Module, release string) error {
	rel, err := parseRelease(kind, release)
	if err != nil {
		return nil
	}
	for _, hm := range hardwareMinima() {
		if hm.kind != kind {
			continue
		}
		which, ok := hm.has(v, mods)
		if !ok {
			continue
		}
		since, err := parseRelease(kind, hm.since)
		if err != nil {
			return fmt.Errorf("nxsim: hardware minimum %s: %w", hm.since, err)
		}
		if slices.Compare(rel, since) < 0 {
			return fmt.Errorf(`NX-OS %s cannot run on this switch: %s%s needs %s or later (docs/nxos.md#hardware-and-release); choose %s or later, %s`, release, hm.what, which, hm.since, hm.since, hm.other)
		}
	}
	return nil
}
