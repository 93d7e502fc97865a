package nxsim

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rocefabric/roce/nexus"
)

// An upgrade in the simulator is what `install all` and the reload after it
// do to a switch, as far as the lossless class is concerned: the version
// strings change, and whatever a new release brings as its defaults is
// applied to the running config. The modelled release steps, their public
// sources and what is unconfirmed are in docs/lab-upgrades.md.

// UpgradeResult says what an upgrade changed.
type UpgradeResult struct {
	From, To string
	// Changes are the modelled effects, one sentence each, for a person.
	Changes []string
}

// ReleaseStep is one modelled change of defaults between releases.
type ReleaseStep struct {
	Platform string // "nexus7000" | "nexus5000"
	// Since is the first release with the new default: an upgrade from a
	// release before it to one at or after it applies the step.
	Since string
	// Why is the step in words, with what is confirmed and what is not.
	Why string
	// apply edits the running config and says what it changed.
	apply func(cfg *nexus.Config) []string
}

// ReleaseSteps are the modelled default changes, oldest first.
func ReleaseSteps() []ReleaseStep {
	return []ReleaseStep{{
		Platform: "nexus7000",
		Since:    "5.1(5)",
		Why: "A Nexus 7000 upgraded from 5.1(3) to 5.1(5) changed its default queuing config; RoCE on a CoS-based lossless class " +
			"fell from 9.91 Gb/s to 30 Mb/s while everything else stayed (field report). The exact template change is unconfirmed: " +
			"the simulator models it as the no-drop user class of the 6e and 4e network-qos templates (c-nq-6e-ndrop, c-nq-4e-ndrop) " +
			"becoming tail-drop by default, which a copy of the template inherits unless it sets pause itself.",
		apply: func(cfg *nexus.Config) []string {
			var out []string
			for _, o := range cfg.Objects {
				if o.Kind != nexus.KindPolicyMap || o.Type != nexus.TypeNetworkQoS {
					continue
				}
				for _, c := range o.Classes {
					if c.Name != "c-nq-6e-ndrop" && c.Name != "c-nq-4e-ndrop" {
						continue
					}
					had := false
					c.Actions = slices.DeleteFunc(c.Actions, func(a string) bool {
						if strings.HasPrefix(strings.TrimSpace(a), "pause") {
							had = true
							return true
						}
						return false
					})
					if !had {
						continue
					}
					c.Actions = append([]string{"congestion-control tail-drop"}, c.Actions...)
					out = append(out, fmt.Sprintf("policy-map type network-qos %s class %s: the new default is tail-drop, so 'pause no-drop' is gone", o.Name, c.Name))
				}
			}
			return out
		},
	}}
}

var (
	n7kRelease = regexp.MustCompile(`^(\d+)\.(\d+)\((\d+)\)$`)
	n5kRelease = regexp.MustCompile(`^(\d+)\.(\d+)\((\d+)\)N(\d+)\((\d+)\)$`)
)

// parseRelease splits an NX-OS version into numbers for ordering; the
// train must fit the platform (7000: "6.2(14)", 5000: "7.1(4)N1(1)",
// reference show version samples).
func parseRelease(kind, v string) ([]int, error) {
	re := n7kRelease
	example := "5.1(5)"
	if kind == "nexus5000" {
		re, example = n5kRelease, "7.3(0)N1(1)"
	}
	m := re.FindStringSubmatch(v) // exactly as typed: the version lands in show version
	if m == nil {
		return nil, fmt.Errorf("%q is not a %s release (want e.g. %s)", v, kind, example)
	}
	out := make([]int, 0, len(m)-1)
	for _, s := range m[1:] {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", v, err)
		}
		out = append(out, n)
	}
	return out, nil
}

// UpgradeOptions say how the upgrade is done.
type UpgradeOptions struct {
	// SaveFirst runs `copy running-config startup-config` before the
	// install, as an upgrade procedure does. Without it the reload boots
	// the configuration saved last, and what was configured since is gone.
	SaveFirst bool
}

// Upgrade installs release version on the switch and reloads it. The
// reload boots the startup configuration (docs/lab-upgrades.md, "The
// reload"): with o.SaveFirst that is the running one; otherwise changes
// made since the last `copy running-config startup-config` are lost, and
// the result says which objects. Then the modelled release steps between
// the old and the new release change what they change (ReleaseSteps).
// Sessions see the new config on their next command, as after a rollback.
// A downgrade only changes the version strings.
func (s *Switch) Upgrade(version string, o UpgradeOptions) (UpgradeResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	from := s.version.OS
	to, err := parseRelease(s.kind, version)
	if err != nil {
		return UpgradeResult{}, fmt.Errorf("nxsim %s: upgrade: %w", s.hostname, err)
	}
	if err := checkHardwareRelease(s.kind, s.version, s.modules, version); err != nil {
		return UpgradeResult{}, fmt.Errorf("nxsim %s: upgrade: %w", s.hostname, err)
	}
	cur, err := parseRelease(s.kind, from)
	if err != nil {
		cur = nil // an unparsable current version: apply every step up to the new one
	}
	res := UpgradeResult{From: from, To: version}
	if o.SaveFirst {
		s.startup, s.savedAt = s.cfg.Clone(), s.now()
	}
	if lost := unsavedObjects(s.cfg, s.startup); len(lost) > 0 {
		res.Changes = append(res.Changes, fmt.Sprintf("the reload booted the startup configuration saved at %s: what was configured since without copy running-config startup-config is gone — %s",
			s.savedAt.UTC().Format(time.RFC3339), strings.Join(lost, ", ")))
	}
	cfg := s.startup.Clone()
	for _, st := range ReleaseSteps() {
		if st.Platform != s.kind {
			continue
		}
		since, err := parseRelease(s.kind, st.Since)
		if err != nil {
			return UpgradeResult{}, fmt.Errorf("nxsim: release step %s: %w", st.Since, err)
		}
		if slices.Compare(to, since) < 0 || (cur != nil && slices.Compare(cur, since) >= 0) {
			continue
		}
		res.Changes = append(res.Changes, st.apply(cfg)...)
	}
	s.version.OS, s.version.Kickstart = version, version
	s.version.Image = imageFor(s.kind, version)
	s.cfg = cfg
	s.gen++ // a reload: sessions drop any Editor on the old config
	// The reload restarts the switch: `show version` counts the uptime
	// from now and gives the reason a real switch prints after `install
	// all` ("Reason: Disruptive upgrade", a Nexus 5596 show version in
	// networktocode/ntc-templates, nexus/testdata/corpus).
	s.booted = s.now()
	s.resetReason = ResetReasonUpgrade
	s.log.Info("upgraded", "from", from, "to", version, "changes", len(res.Changes))
	return res, nil
}

// unsavedObjects lists, for a person, the top-level objects of the running
// configuration that the startup configuration does not have as they are.
func unsavedObjects(running, startup *nexus.Config) []string {
	saved := map[string]string{}
	for _, o := range startup.Objects {
		saved[o.Key()] = o.String()
	}
	var out []string
	for _, o := range running.Objects {
		v, ok := saved[o.Key()]
		switch {
		case !ok:
			out = append(out, "'"+o.Key()+"' (not saved)")
		case v != o.String():
			out = append(out, "'"+o.Key()+"' (changes not saved)")
		}
		delete(saved, o.Key())
	}
	var gone []string
	for k := range saved {
		gone = append(gone, "'"+k+"' (removed without saving: back)")
	}
	slices.Sort(gone)
	return append(out, gone...)
}

// ResetReasonUpgrade is the "Last reset" reason of a switch reloaded by
// an upgrade.
const ResetReasonUpgrade = "Disruptive upgrade"

// LastReset is when the switch last (re)started and why ("" when it has
// not been reset since the simulator started).
func (s *Switch) LastReset() (at time.Time, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.booted, s.resetReason
}

// Version is the NX-OS release the switch runs.
func (s *Switch) Version() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version.OS
}
