package nxsim

import (
	"strings"

	"github.com/rocefabric/roce/nexus"
)

// enterConfig starts configuration mode for a session.
func (sw *Switch) enterConfig(s *session) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	s.ed = nexus.NewEditor(sw.cfg, sw.platform, sw.modules)
	s.gen, s.iface = sw.gen, ""
}

// edit applies one configuration line to the running config. A session
// whose Editor was built before a rollback replaced the config gets a fresh
// one at the top configuration level (its sub-mode is lost, as the object it
// was editing may no longer exist). A line the simulated release does not
// have (nexus.ReleaseRefusal, the table of docs/nxos.md#version-rules) is
// refused before the Editor sees it, and changes nothing.
func (sw *Switch) edit(s *session, cmd string) error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if s.ed == nil || s.gen != sw.gen {
		s.ed = nexus.NewEditor(sw.cfg, sw.platform, sw.modules)
		s.gen, s.iface = sw.gen, ""
	}
	if ce := nexus.ReleaseRefusal(cmd, sw.platform, sw.version.OS); ce != nil {
		return ce
	}
	if s.ed.Mode() == "config-if" && s.iface != "" {
		// A 7000 Layer 2 port takes only 1500 or the system jumbomtu
		// (docs/nxos.md#port-mtu, from the MadNetworks blog "MTU–Nexus
		// 7000": "ERROR: Ethernet3/9: MTU on L2 interfaces can only be
		// set to default or system-jumboMTU").
		if ce := nexus.PortMTURefusal(sw.platform, sw.cfg, s.iface, cmd); ce != nil {
			return ce
		}
	}
	err := s.ed.Line(cmd)
	if err == nil {
		s.iface = trackInterface(s.ed.Mode(), cmd, s.iface)
	}
	if !s.ed.InConfig() {
		s.ed, s.iface = nil, ""
	}
	return err
}

// trackInterface returns the port config-if mode edits after a line the
// Editor took: the port of an `interface X` line (any abbreviation, typed
// in any mode) that ends in config-if, the same port for the port's own
// commands, none in any other mode.
func trackInterface(mode, cmd, cur string) string {
	if mode != "config-if" {
		return ""
	}
	f := strings.Fields(cmd)
	if len(f) >= 2 && len(f[0]) >= 2 && strings.HasPrefix("interface", strings.ToLower(f[0])) {
		if n, ok := nexus.CanonicalInterface(strings.Join(f[1:], "")); ok {
			return n
		}
	}
	return cur
}

// countConfigLine counts one configuration line and reports whether the
// DropAfterConfigLines fault fires on it.
func (sw *Switch) countConfigLine() bool {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.configLines++
	return sw.faults.DropAfterConfigLines > 0 && sw.configLines == sw.faults.DropAfterConfigLines
}

// countShow counts one `show` command typed in exec mode.
func (sw *Switch) countShow() {
	sw.mu.Lock()
	sw.shows++
	sw.mu.Unlock()
}

// ShowsHandled is how many `show` commands (any abbreviation, exec mode,
// any session) the switch has run since it started: what a client read,
// without the `exit` a client may or may not get in before it hangs up,
// which LinesHandled counts when it arrives.
func (sw *Switch) ShowsHandled() int {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.shows
}

// countLine counts one handled command and reports whether the
// DropAfterLines fault fires on it.
func (sw *Switch) countLine() bool {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.lines++
	return sw.faults.DropAfterLines > 0 && sw.lines == sw.faults.DropAfterLines
}

// vdcRefusal refuses network-qos configuration in a non-default VDC of a
// 7000: network-qos is system-wide and set only in the default VDC
// (docs/nxos.md). The message wording is ours (UNCONFIRMED).
func (sw *Switch) vdcRefusal(mode, cmd string) (string, bool) {
	if sw.vdc == "" {
		return "", false
	}
	c := strings.Join(strings.Fields(strings.ToLower(cmd)), " ")
	nq := strings.HasPrefix(c, "qos copy policy-map type network-qos") ||
		strings.HasPrefix(c, "policy-map type network-qos") ||
		strings.HasPrefix(c, "class-map type network-qos") ||
		(mode == "config-sys-qos" && strings.HasPrefix(c, "service-policy type network-qos"))
	if !nq {
		return "", false
	}
	return "ERROR: network-qos can be configured only in the default VDC; this session is in VDC " + sw.vdc, true
}
