package nxsim

import (
	"io"
	"testing"
)

// -os-version sets the simulated NX-OS release (-version is roce-lab's
// build version, handled before the simulator's flags).
func TestCLIOSVersion(t *testing.T) {
	c, err := parseCLI([]string{"-platform", "nexus7000", "-os-version", "5.1(3)"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.opts.Version != "5.1(3)" {
		t.Errorf("Version = %q, want 5.1(3)", c.opts.Version)
	}
	if _, err := parseCLI([]string{"-version", "5.1(3)"}, io.Discard); err == nil {
		t.Error("-version is no longer the simulator's flag, yet it parsed")
	}
}
