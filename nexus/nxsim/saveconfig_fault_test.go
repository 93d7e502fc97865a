package nxsim

import (
	"strings"
	"testing"
)

// Faults.RejectCommand naming `copy running-config startup-config` makes
// the switch refuse the save: the answer has no "Copy complete" and the
// startup configuration keeps what it had; once the fault is reset the
// save works again.
func TestSaveRefusedFault(t *testing.T) {
	sw, err := New(Options{Platform: "nexus7000", Hostname: "core1", Faults: Faults{RejectCommand: saveCommand}})
	if err != nil {
		t.Fatal(err)
	}
	s := &session{sw: sw}
	if err := sw.Configure("class-map type qos match-all c2", "match cos 5"); err != nil {
		t.Fatal(err)
	}
	before := sw.StartupConfig()
	out, err := s.execFiltered(saveCommand, 0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "Copy complete") || out != saveRefused {
		t.Fatalf("refused save answered %q", out)
	}
	if sw.StartupConfig() != before || strings.Contains(sw.StartupConfig(), "c2") {
		t.Fatal("a refused save changed the startup configuration")
	}
	sw.SetFaults(Faults{})
	if out, _ = s.execFiltered(saveCommand, 0); !strings.HasSuffix(out, "Copy complete.") {
		t.Fatalf("save after the fault was reset: %q", out)
	}
	if !strings.Contains(sw.StartupConfig(), "class-map type qos match-all c2") {
		t.Fatal("the save did not reach the startup configuration")
	}
}
