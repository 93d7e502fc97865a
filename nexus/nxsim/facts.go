package nxsim

import (
	"fmt"
	"strings"

	"github.com/rocefabric/roce/nexus"
)

// hardwareFacts are the per-chassis facts `show version` and `show
// inventory` print besides the release: every value is copied from a real
// output of that platform (docs/nxos.md, "What the simulator says, and
// where it comes from"), so third-party parsers see what a real switch
// would give them.
type hardwareFacts struct {
	bios      string // BIOS version
	hardware  string // the `cisco …` hardware line, without "cisco "
	cpu       string // CPU and memory line
	serial    string // Processor Board ID
	bootflash string // bootflash size
	chassis   nexus.InventoryItem
	supPID    string // the supervisor's product ID (inventory)
	psu, fan  nexus.InventoryItem
}

// factsFor returns the hardware facts of a platform kind.
//
//   - nexus5000: a Nexus 5596UP on 7.1(4)N1(1) (ntc-templates
//     tests/cisco_nxos/show_version/cisco_nxos_show_version2.raw): BIOS
//     3.6.0, `Nexus 5596 Chassis ("O2 48X10GE/Modular Supervisor")`, the
//     Xeon line, board ID FOC17153X08, bootflash 2007040 kB. The inventory
//     layout is the one of the Nexus 7009 output (genieparser ShowInventory
//     golden_output_1); the 5596's PIDs (N5K-C5596UP, N55-PAC-1100W,
//     N5596UP-FAN) are the product IDs of Cisco's 5500 data sheet.
//   - nexus7000: a Nexus 7010 with Supervisor 2 on 6.2(16): `Nexus7000 C7010
//     (10 Slot) Chassis ("Supervisor Module-2")`, 32745060 kB, board ID
//     JAF1810AHFN, bootflash 1966080 kB; inventory entries after the
//     Nexus 7009 output (N7K-SUP2, N7K-AC-6.0KW).
func factsFor(kind string) hardwareFacts {
	if kind == "nexus7000" {
		return hardwareFacts{
			bios:      "2.12.0",
			hardware:  `Nexus7000 C7010 (10 Slot) Chassis ("Supervisor Module-2")`,
			cpu:       "Intel(R) Xeon(R) CPU         with 32745060 kB of memory.",
			serial:    "JAF1810AHFN",
			bootflash: "1966080 kB",
			chassis:   nexus.InventoryItem{Name: "Chassis", Descr: "Nexus7000 C7010 (10 Slot) Chassis ", PID: "N7K-C7010", VID: "V01", SN: "JAF1810AHFN"},
			supPID:    "N7K-SUP2",
			psu:       nexus.InventoryItem{Name: "Slot 33", Descr: "Nexus7000 C7010 (10 Slot) Chassis Power Supply", PID: "N7K-AC-6.0KW", VID: "V03", SN: "DTM171300QB"},
			fan:       nexus.InventoryItem{Name: "Slot 35", Descr: "Nexus7000 C7010 (10 Slot) Chassis Fan Module", PID: "N7K-C7010-FAN-S", VID: "V01", SN: "JAF1702AEBE"},
		}
	}
	return hardwareFacts{
		bios:      "3.6.0",
		hardware:  `Nexus 5596 Chassis ("O2 48X10GE/Modular Supervisor")`,
		cpu:       "Intel(R) Xeon(R) CPU         with 8253848 kB of memory.",
		serial:    "FOC17153X08",
		bootflash: "2007040 kB",
		chassis:   nexus.InventoryItem{Name: "Chassis", Descr: "Nexus5596 Chassis", PID: "N5K-C5596UP", VID: "V01", SN: "FOC17153X08"},
		supPID:    "N5K-C5596UP",
		psu:       nexus.InventoryItem{Name: "Power Supply 1", Descr: "Nexus5596 Chassis Power Supply", PID: "N55-PAC-1100W", VID: "V01", SN: "DTM171300QB"},
		fan:       nexus.InventoryItem{Name: "Fan 1", Descr: "Nexus5596 Chassis Fan Module", PID: "N5596UP-FAN", VID: "V01", SN: "N/A"},
	}
}

// kickstartImage names the kickstart image that goes with a system image:
// n5000-uk9.7.1.4.N1.1.bin → n5000-uk9-kickstart.7.1.4.N1.1.bin and
// n7000-s2-dk9.6.2.16.bin → n7000-s2-kickstart.6.2.16.bin, as in the real
// outputs.
func kickstartImage(system string) string {
	switch {
	case strings.Contains(system, "-uk9."):
		return strings.Replace(system, "-uk9.", "-uk9-kickstart.", 1)
	case strings.Contains(system, "-dk9."):
		return strings.Replace(system, "-dk9.", "-kickstart.", 1)
	}
	return ""
}

// versionReport is the whole `show version` of the switch. The caller holds
// sw.mu.
func (sw *Switch) versionReport() nexus.VersionReport {
	f := factsFor(sw.kind)
	r := nexus.VersionReport{
		Version:        sw.version,
		BIOS:           f.bios,
		KickstartImage: kickstartImage(sw.version.Image),
		Hardware:       f.hardware,
		CPU:            f.cpu,
		Serial:         f.serial,
		DeviceName:     sw.hostname,
		Bootflash:      f.bootflash,
		Uptime:         sw.now().Sub(sw.booted),
		ResetReason:    sw.resetReason,
		LastReset:      sw.booted, // the (re)start is the last reset
	}
	// Options.Chassis or a platform other than the default hardware line:
	// print the line the switch was configured with.
	if want := strings.TrimSpace(sw.version.Platform + " " + sw.version.Chassis); strings.ReplaceAll(f.hardware, " ", "") != strings.ReplaceAll(want, " ", "") {
		r.Hardware = want
	}
	return r
}

// inventory is `show inventory`: chassis, one entry per module, a power
// supply and a fan.
func (sw *Switch) inventory() []nexus.InventoryItem {
	f := factsFor(sw.kind)
	items := []nexus.InventoryItem{f.chassis}
	for _, m := range sw.modules {
		pid := m.Model
		if pid == "" {
			pid = f.supPID
		}
		items = append(items, nexus.InventoryItem{
			Name: fmt.Sprintf("Slot %d", m.Slot), Descr: m.Type, PID: pid, VID: "V01",
			SN: fmt.Sprintf("%s%02d", f.serial[:len(f.serial)-2], m.Slot),
		})
	}
	return append(items, f.psu, f.fan)
}
