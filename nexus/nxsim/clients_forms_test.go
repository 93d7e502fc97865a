package nxsim

import (
	"strings"
	"testing"
)

// `show interface` followed by a sub-form the simulator has no capture of
// (`counters errors`, `brief`, `status`, …) answers that it has no form of
// the command, quoting it as typed; it is never read as an interface name
// ("Ethernet1/1counterserrors"). Interface lists, an interface type typed
// apart from its number, and a wrong name keep their answers.
func TestShowInterfaceSubForms(t *testing.T) {
	sw := newTestSwitch(t, Options{Platform: "nexus5000"})
	s := &session{sw: sw}
	noForm := func(cmd string) string {
		return "ERROR: nxsim has no form of `" + cmd + "` (no public capture of it for this platform; docs/nxos.md#clients)"
	}
	for line, want := range map[string]string{
		"show interface Ethernet1/1 counters errors": noForm("show interface Ethernet1/1 counters errors"),
		"show interface e1/1  counters":              noForm("show interface e1/1 counters"),
		"show interface Ethernet1/1 brief":           noForm("show interface Ethernet1/1 brief"),
		"show interface Ethernet1/1-2 status":        noForm("show interface Ethernet1/1-2 status"),
		"show interface counters errors":             noForm("show interface counters errors"),
		"show interface brief":                       noForm("show interface brief"),
		"show interface status":                      noForm("show interface status"),
		"show interface frob1/x":                     `ERROR: "frob1/x" is not an interface name`,
		"show interface Ethernet9/1":                 "ERROR: interface Ethernet9/1 does not exist on this switch",
	} {
		out, err := s.execFiltered(line, 0)
		if err != nil || strings.TrimSpace(out) != want {
			t.Errorf("%s:\n got %q, %v\nwant %q", line, out, err, want)
		}
		if strings.Contains(out, "counterserrors") {
			t.Errorf("%s: words glued: %q", line, out)
		}
	}
	for _, line := range []string{"show interface ethernet 1/1", "show interface Ethernet1/1-2", "show interface e1/1, e1/2"} {
		out, err := s.execFiltered(line, 0)
		if err != nil || !strings.Contains(out, "Ethernet1/1 is up") || strings.Contains(out, "ERROR") {
			t.Errorf("%s: %q, %v", line, out, err)
		}
	}
}
