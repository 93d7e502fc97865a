package nxsim

import (
	"strings"
	"testing"

	"github.com/rocefabric/roce/nexus"
)

// sup1Era are 7000 modules of the 5.x releases (no Supervisor 2, no F2):
// an F1 card in slot 1 and an M1 card in slot 2, as the default cards'
// slots, and a Supervisor 1 in slot 5.
func sup1Era() []nexus.Module {
	return []nexus.Module{
		{Slot: 1, Ports: 32, Type: "1/10 Gbps Ethernet Module", Model: "N7K-F132XP-15", Status: "ok"},
		{Slot: 2, Ports: 48, Type: "10/100/1000 Mbps Ethernet Module", Model: "N7K-M148GT-11", Status: "ok"},
		{Slot: 5, Ports: 0, Type: "Supervisor module-1X", Model: "N7K-SUP1", Status: "active *"},
	}
}

// A switch whose hardware needs a later release than the one asked for
// does not start (nor can it be downgraded below that release), and the
// error names the hardware, its slot, the first release that runs it and
// how to choose otherwise. At the minimum release, and with hardware of
// the release's time, it starts.
func TestHardwareReleasePairs(t *testing.T) {
	sup2F2 := []nexus.Module{
		{Slot: 1, Ports: 48, Type: "1/10 Gbps Ethernet Module", Model: "N7K-F248XP-25", Status: "ok"},
		{Slot: 2, Ports: 48, Type: "1000 Mbps Optical Ethernet Module", Model: "N7K-M148GS-11", Status: "ok"},
		{Slot: 5, Ports: 0, Type: "Supervisor Module-2", Model: "N7K-SUP2", Status: "active *"},
	}
	f2Only := []nexus.Module{
		{Slot: 1, Ports: 48, Type: "1/10 Gbps Ethernet Module", Model: "N7K-F248XP-25", Status: "ok"},
		{Slot: 5, Ports: 0, Type: "Supervisor module-1X", Model: "N7K-SUP1", Status: "active *"},
	}
	fix := map[string]string{"nexus5000": "choose 5.0(3)N1(1) or later, the simulated Nexus 5000 is a 5596", "nexus7000": "or give modules that release runs (roce-lab nxos -modules"}
	for _, tc := range []struct {
		name string
		opts Options
		want string // "" = starts
	}{
		{"5596 on 4.2(1)N1(1)", Options{Platform: "nexus5000", Version: "4.2(1)N1(1)"},
			"NX-OS 4.2(1)N1(1) cannot run on this switch: a Nexus 5596 needs 5.0(3)N1(1) or later"},
		{"5596 on 5.0(2)N1(1)", Options{Platform: "nexus5000", Version: "5.0(2)N1(1)"}, "a Nexus 5596 needs 5.0(3)N1(1) or later"},
		{"5596 on 5.0(3)N1(1)", Options{Platform: "nexus5000", Version: "5.0(3)N1(1)"}, ""},
		{"Sup2, F2, M1 on 4.2(8)", Options{Platform: "nexus7000", Version: "4.2(8)", Modules: sup2F2},
			"NX-OS 4.2(8) cannot run on this switch: a Supervisor 2 (N7K-SUP2 in slot 5) needs 6.1(1) or later"},
		{"default 7000 on 5.2(9)", Options{Platform: "nexus7000", Version: "5.2(9)"}, "a Supervisor 2 (N7K-SUP2 in slot 5) needs 6.1(1) or later"},
		{"Sup2 on 6.0(4)", Options{Platform: "nexus7000", Version: "6.0(4)", Modules: sup2F2}, "a Supervisor 2 (N7K-SUP2 in slot 5) needs 6.1(1) or later"},
		{"F2 on 5.2(9)", Options{Platform: "nexus7000", Version: "5.2(9)", Modules: f2Only}, "an F2-series card (N7K-F248XP-25 in slot 1) needs 6.0(1) or later"},
		{"F2 on 6.0(1)", Options{Platform: "nexus7000", Version: "6.0(1)", Modules: f2Only}, ""},
		{"Sup2 on 6.1(1)", Options{Platform: "nexus7000", Version: "6.1(1)", Modules: sup2F2}, ""},
		{"Sup1, F1, M1 on 5.1(3)", Options{Platform: "nexus7000", Version: "5.1(3)", Modules: sup1Era()}, ""},
		{"Sup1, F1, M1 on 4.2(8)", Options{Platform: "nexus7000", Version: "4.2(8)", Modules: sup1Era()}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), fix[tc.opts.Platform])):
				t.Fatalf("error %v, want it to say %q and %q", err, tc.want, fix[tc.opts.Platform])
			}
		})
	}
}

// A downgrade below what the hardware runs is refused and leaves the
// switch as it was; a downgrade the hardware allows goes through.
func TestDowngradeBelowHardware(t *testing.T) {
	sw := newTestSwitch(t, Options{Platform: "nexus7000", Version: "6.2(14)"})
	if _, err := sw.Upgrade("5.2(9)", UpgradeOptions{SaveFirst: true}); err == nil || !strings.Contains(err.Error(), "a Supervisor 2 (N7K-SUP2 in slot 5) needs 6.1(1) or later") {
		t.Fatalf("downgrade to 5.2(9): %v", err)
	}
	if sw.Version() != "6.2(14)" {
		t.Fatalf("version moved to %s", sw.Version())
	}
	if _, err := sw.Upgrade("6.1(2)", UpgradeOptions{SaveFirst: true}); err != nil || sw.Version() != "6.1(2)" {
		t.Fatalf("downgrade to 6.1(2): %v, at %s", err, sw.Version())
	}
}
