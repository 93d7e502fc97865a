package platforms

import "testing"

// Every row but the vendor-neutral OpenConfig one names the switch's save
// command, and only the rows whose transport runs it (NX-OS over SSH) are
// saved by roce-apply itself.
func TestSaveCommandRows(t *testing.T) {
	for kind, want := range map[string]struct {
		cmd   string
		apply bool
	}{
		"nexus5000":       {"copy running-config startup-config", true},
		"nexus7000":       {"copy running-config startup-config", true},
		"gnmi/openconfig": {"", false},
		"gnmi/arista":     {"copy running-config startup-config", false},
		"gnmi/sonic":      {"sudo config save -y", false},
		"gnmi/srlinux":    {"tools system configuration save", false},
	} {
		c, ok := Default()[kind]
		if !ok {
			t.Fatalf("no row %s", kind)
		}
		if c.SaveCommand != want.cmd || c.SavedByApply != want.apply {
			t.Errorf("%s: SaveCommand %q SavedByApply %v, want %q %v", kind, c.SaveCommand, c.SavedByApply, want.cmd, want.apply)
		}
	}
	if n := len(Default()); n != 6 {
		t.Errorf("%d rows: give the new one a SaveCommand (or none) and add it here", n)
	}
}
