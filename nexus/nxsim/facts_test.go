package nxsim

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/nexus"
)

// answer is what the switch prints for one exec command.
func answer(t *testing.T, sw *Switch, cmd string) string {
	t.Helper()
	s := newSession(sw, nil, nil, "admin")
	s.out = &strings.Builder{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := s.handle(ctx, cmd)
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return out
}

// corpus reads a real output of nexus/testdata/corpus/show.
func corpus(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", "show", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The hardware facts of `show version` are those of the real output each
// platform's (or supervisor's) facts cite: the simulator invents none of
// them. The hardware line is the capture's when the switch has the
// capture's chassis, else the configured chassis in the same format,
// whichever form Options.Chassis takes (the lab's "Nexus7000 C7010 (10
// Slot) Chassis" and "Nexus 5596" included).
func TestShowVersionFactsAreTheCaptures(t *testing.T) {
	for _, tt := range []struct {
		name     string
		opts     Options
		capture  string
		hardware string // "" = the capture's
	}{
		{"5596", Options{Platform: "nexus5000"}, "ntc-version-n5596-7.1.4.N1.1.txt", ""},
		{"5596 as the lab names it", Options{Platform: "nexus5000", Chassis: "Nexus 5596"}, "ntc-version-n5596-7.1.4.N1.1.txt", ""},
		{"7000 Supervisor 2", Options{Platform: "nexus7000"}, "genie-version-n7009-sup2-8.1.1.txt",
			`Nexus7000 C7010 (10 Slot) Chassis ("Supervisor Module-2")`},
		{"7009 Supervisor 2", Options{Platform: "nexus7000", Chassis: `C7009 (9 Slot) Chassis ("Supervisor Module-2")`}, "genie-version-n7009-sup2-8.1.1.txt", ""},
		{"7000 Supervisor 1 as the lab names it", Options{Platform: "nexus7000", Version: "5.1(3)", Chassis: "Nexus7000 C7010 (10 Slot) Chassis", Modules: sup1Era()},
			"napalm-version-n7009-6.2.14.txt", `Nexus7000 C7010 (10 Slot) Chassis ("Supervisor Module-1X")`},
		{"7009 Supervisor 1", Options{Platform: "nexus7000", Version: "6.2(14)", Chassis: `C7009 (9 Slot) Chassis ("Supervisor Module-1X")`, Modules: sup1Era()},
			"napalm-version-n7009-6.2.14.txt", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			real, err := nexus.ParseShowVersionReport(corpus(t, tt.capture))
			if err != nil {
				t.Fatal(err)
			}
			sw := newTestSwitch(t, tt.opts)
			sim, err := nexus.ParseShowVersionReport(answer(t, sw, "show version"))
			if err != nil {
				t.Fatal(err)
			}
			if sim.BIOS != real.BIOS || sim.CPU != real.CPU || sim.Serial != real.Serial || sim.Bootflash != real.Bootflash {
				t.Errorf("simulated BIOS %q, CPU %q, board ID %q, bootflash %q\nthe capture's  %q, %q, %q, %q",
					sim.BIOS, sim.CPU, sim.Serial, sim.Bootflash, real.BIOS, real.CPU, real.Serial, real.Bootflash)
			}
			want := tt.hardware
			if want == "" {
				want = real.Hardware
			}
			if sim.Hardware != want {
				t.Errorf("hardware line %q, want %q", sim.Hardware, want)
			}
			if sim.OS == real.OS && (sim.Version.Image != real.Version.Image || sim.KickstartImage != real.KickstartImage) {
				t.Errorf("images %q, %q; the capture's on the same release %q, %q", sim.Version.Image, sim.KickstartImage, real.Version.Image, real.KickstartImage)
			}
			if host := answer(t, sw, "show license host-id"); host != "License hostid: VDH="+real.Serial {
				t.Errorf("show license host-id: %q", host)
			}
		})
	}
}

// On a 7009, the chassis, power supply and fan entries of `show inventory`
// are the real 7009's; on the default 7010 the chassis entry is built the
// same way, the 7009's power supply is named after it and no fan is
// listed (no capture of a 7010's fan entry). The active supervisor's
// serial is the board ID.
func TestShowInventory7000(t *testing.T) {
	real, err := nexus.ParseShowInventory(corpus(t, "genie-inventory-n7k-c7009.txt"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]nexus.InventoryItem{}
	for _, it := range real {
		byName[it.Name] = it
	}
	sw := newTestSwitch(t, Options{Platform: "nexus7000", Chassis: `C7009 (9 Slot) Chassis ("Supervisor Module-2")`})
	got, err := nexus.ParseShowInventory(answer(t, sw, "show inventory"))
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != byName["Chassis"] || got[len(got)-2] != byName["Slot 33"] || got[len(got)-1] != byName["Slot 35"] {
		t.Errorf("7009: chassis %+v, power %+v, fan %+v\nthe capture's %+v, %+v, %+v",
			got[0], got[len(got)-2], got[len(got)-1], byName["Chassis"], byName["Slot 33"], byName["Slot 35"])
	}

	got, err = nexus.ParseShowInventory(answer(t, newTestSwitch(t, Options{Platform: "nexus7000"}), "show inventory"))
	if err != nil {
		t.Fatal(err)
	}
	lab, err := nexus.ParseShowInventory(answer(t, newTestSwitch(t, Options{Platform: "nexus7000", Version: "5.1(3)", Chassis: "Nexus7000 C7010 (10 Slot) Chassis", Modules: sup1Era()}), "show inventory"))
	if err != nil {
		t.Fatal(err)
	}
	if lab[0].PID != "N7K-C7010" || lab[0].Descr != "Nexus7000 C7010 (10 Slot) Chassis" || lab[3].PID != "N7K-SUP1" || lab[3].SN != "JAF1602BKEN" {
		t.Errorf("7010 with a Supervisor 1 as the lab names it: %+v", lab)
	}

	want := []nexus.InventoryItem{
		{Name: "Chassis", Descr: "Nexus7000 C7010 (10 Slot) Chassis", PID: "N7K-C7010", VID: "V01", SN: "JAF1704ARQG"},
		{Name: "Slot 1", Descr: "1/10 Gbps Ethernet Module", PID: "N7K-F248XP-25", VID: "V01", SN: "JAF1708AA01"},
		{Name: "Slot 2", Descr: "10/100/1000 Mbps Ethernet Module", PID: "N7K-M148GT-11", VID: "V01", SN: "JAF1708AA02"},
		{Name: "Slot 5", Descr: "Supervisor Module-2", PID: "N7K-SUP2", VID: "V01", SN: "JAF1708AAKL"},
		{Name: "Slot 33", Descr: "Nexus7000 C7010 (10 Slot) Chassis Power Supply", PID: "N7K-AC-6.0KW", VID: "V03", SN: "DTM171300QB"},
	}
	if len(got) != len(want) {
		t.Fatalf("7010: %d entries %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("7010 entry %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// `show vdc` has the real output's shape: the same header lines and
// "Switchwide mode" line as ntc-templates' capture, the VDC holding the
// ports is an Ethernet VDC listing its cards' types, and its MAC is the one
// the capture shows for that VDC number.
func TestShowVDCFollowsCapture(t *testing.T) {
	capture := corpus(t, "ntc-vdc.txt")
	capRows, err := nexus.ParseShowVDC(capture)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		opts Options
		want nexus.VDC
	}{
		{Options{Platform: "nexus7000", Hostname: "agg7"}, nexus.VDC{ID: 1, Name: "agg7", State: "active", MAC: capRows[0].MAC, Type: "Ethernet", LC: "f2 m1"}},
		{Options{Platform: "nexus7000", Hostname: "agg7", VDC: "prod"}, nexus.VDC{ID: 2, Name: "prod", State: "active", MAC: capRows[1].MAC, Type: "Ethernet", LC: "f2 m1"}},
		{Options{Platform: "nexus7000", Hostname: "agg7", Modules: []nexus.Module{
			{Slot: 1, Ports: 0, Type: "Supervisor Module-2", Model: "N7K-SUP2E", Status: "active *"},
			{Slot: 3, Ports: 48, Type: "1/10 Gbps Ethernet Module", Model: "N7K-F248XP-25E", Status: "ok"},
			{Slot: 4, Ports: 24, Type: "10 Gbps Ethernet XL Module", Model: "N7K-M224XP-23L", Status: "ok"},
			{Slot: 5, Ports: 48, Type: "1/10 Gbps Ethernet Module", Model: "N7K-F248XP-25E", Status: "ok"},
		}}, nexus.VDC{ID: 1, Name: "agg7", State: "active", MAC: capRows[0].MAC, Type: "Ethernet", LC: "f2e m2xl"}},
	} {
		out := answer(t, newTestSwitch(t, tt.opts), "show vdc")
		rows, err := nexus.ParseShowVDC(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0] != tt.want {
			t.Errorf("%+v: %+v, want %+v", tt.opts.VDC, rows, tt.want)
		}
		simLines, capLines := strings.Split(out, "\n"), strings.Split(capture, "\n")
		for i := 0; i < 5; i++ {
			if simLines[i] != capLines[i] {
				t.Errorf("line %d: %q, the capture has %q", i+1, simLines[i], capLines[i])
			}
		}
	}
}
