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
//     tests/cisco_nxos/show_version/cisco_nxos_show_version2.raw, in the
//     corpus as ntc-version-n5596-7.1.4.N1.1.txt): BIOS 3.6.0, `Nexus 5596
//     Chassis ("O2 48X10GE/Modular Supervisor")`, the Xeon line, board ID
//     FOC17153X08, bootflash 2007040 kB. The inventory layout is the one of
//     the Nexus 7009 output (genieparser ShowInventory golden_output_1); the
//     5596's PIDs (N5K-C5596UP, N55-PAC-1100W, N5596UP-FAN) are the product
//     IDs of Cisco's 5500 data sheet, UNCONFIRMED against a 5596 capture.
//   - nexus7000: a Supervisor 2, as in the Nexus 7009 Supervisor 2 `show
//     version` of genieparser src/genie/libs/parser/nxos/tests/
//     test_show_platform.py @ 0bd4254d (in the corpus as
//     genie-version-n7009-sup2-8.1.1.txt): BIOS 2.12.0, 32938744 kB of
//     memory, board ID JAF1708AAKL, bootflash 2007040 kB. The chassis, power
//     supply and fan entries are those of the Nexus 7009 Supervisor 2 `show
//     inventory` (genie-inventory-n7k-c7009.txt): chassis N7K-C7009 V01
//     JAF1704ARQG, Slot 33 N7K-AC-6.0KW V03 DTM171300QB, Slot 35
//     N7K-C7009-FAN V01 JAF1702AEBE. The chassis serial differs from the
//     board ID, as in those captures.
//
// No fact here comes from nexus/testdata/show, whose files are not captures.
func factsFor(kind string) hardwareFacts {
	if kind == "nexus7000" {
		return hardwareFacts{
			bios:      "2.12.0",
			hardware:  `Nexus7000 C7009 (9 Slot) Chassis ("Supervisor Module-2")`,
			cpu:       "Intel(R) Xeon(R) CPU         with 32938744 kB of memory.",
			serial:    "JAF1708AAKL",
			bootflash: "2007040 kB",
			chassis:   nexus.InventoryItem{Name: "Chassis", Descr: "Nexus7000 C7009 (9 Slot) Chassis ", PID: "N7K-C7009", VID: "V01", SN: "JAF1704ARQG"},
			supPID:    "N7K-SUP2",
			psu:       nexus.InventoryItem{Name: "Slot 33", Descr: "Nexus7000 C7009 (9 Slot) Chassis Power Supply", PID: "N7K-AC-6.0KW", VID: "V03", SN: "DTM171300QB"},
			fan:       nexus.InventoryItem{Name: "Slot 35", Descr: "Nexus7000 C7009 (9 Slot) Chassis Fan Module", PID: "N7K-C7009-FAN", VID: "V01", SN: "JAF1702AEBE"},
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

// sup1Facts are the facts of a 7000 whose active supervisor is a
// Supervisor 1 (N7K-SUP1, which prints as "Supervisor Module-1X"): the
// Nexus 7009 Supervisor 1X `show version` of NAPALM's test data
// (napalm-automation/napalm test/nxos_ssh/mocked_data/test_get_facts/
// 7009_6_2_14/show_version.txt @ ee70e634, in the corpus as
// napalm-version-n7009-6.2.14.txt): BIOS 3.22.0, 8260668 kB of memory,
// board ID JAF1602BKEN, bootflash 2048256 kB. The chassis, power supply
// and fan entries stay those of the 7009 `show inventory`.
func sup1Facts() hardwareFacts {
	f := factsFor("nexus7000")
	f.bios = "3.22.0"
	f.hardware = `Nexus7000 C7009 (9 Slot) Chassis ("Supervisor Module-1X")`
	f.cpu = "Intel(R) Xeon(R) CPU         with 8260668 kB of memory."
	f.serial = "JAF1602BKEN"
	f.bootflash = "2048256 kB"
	f.supPID = "N7K-SUP1"
	return f
}

// facts are the hardware facts of this switch: its platform's, or on a
// 7000 run by a Supervisor 1, that supervisor's.
func (sw *Switch) facts() hardwareFacts {
	if sw.kind == "nexus7000" {
		for _, m := range sw.modules {
			if strings.HasPrefix(m.Model, "N7K-SUP1") && strings.HasPrefix(m.Status, "active") {
				return sup1Facts()
			}
		}
	}
	return factsFor(sw.kind)
}

// chassisLine is the chassis part of the `cisco …` hardware line of `show
// version`, from Options.Chassis in any of the forms users give it
// (`C7010 (10 Slot) Chassis ("Supervisor Module-2")`, `Nexus7000 C7010
// (10 Slot) Chassis`, `Nexus 5596`): without the platform, and on a 7000
// with the supervisor in parentheses as the real outputs print it (the
// facts' supervisor when the option names none). "" when the option names
// only the platform: the facts' line is printed.
func (sw *Switch) chassisLine(f hardwareFacts) string {
	c := strings.TrimSpace(sw.version.Chassis)
	plat := strings.ReplaceAll(sw.version.Platform, " ", "")
	if compact := strings.ReplaceAll(c, " ", ""); plat != "" && strings.HasPrefix(compact, plat) {
		// drop the platform however it is spaced ("Nexus 5596", "Nexus7000")
		n := 0
		for i, r := range c {
			if r != ' ' {
				n++
			}
			if n == len(plat) {
				c = strings.TrimSpace(c[i+1:])
				break
			}
		}
	}
	if c == "" {
		return ""
	}
	if sw.kind == "nexus7000" && !strings.Contains(c, "(\"") {
		if i := strings.Index(f.hardware, " (\""); i >= 0 {
			c += f.hardware[i:]
		}
	}
	return c
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
	f := sw.facts()
	v := sw.version
	if f.supPID == "N7K-SUP1" {
		// A Supervisor 1 boots the n7000-s1 images (the NAPALM 7009
		// capture: n7000-s1-dk9.6.2.14.bin, n7000-s1-kickstart.6.2.14.bin),
		// a Supervisor 2 the n7000-s2 ones.
		v.Image = strings.Replace(v.Image, "/n7000-s2-", "/n7000-s1-", 1)
	}
	r := nexus.VersionReport{
		Version:        v,
		BIOS:           f.bios,
		KickstartImage: kickstartImage(v.Image),
		Hardware:       f.hardware,
		CPU:            f.cpu,
		Serial:         f.serial,
		DeviceName:     sw.hostname,
		Bootflash:      f.bootflash,
		Uptime:         sw.now().Sub(sw.booted),
		ResetReason:    sw.resetReason,
		LastReset:      sw.booted, // the (re)start is the last reset
	}
	// Options.Chassis or a platform other than the facts' hardware line:
	// print the chassis the switch was configured with.
	if c := sw.chassisLine(f); c != "" {
		if want := sw.version.Platform + " " + c; strings.ReplaceAll(f.hardware, " ", "") != strings.ReplaceAll(want, " ", "") {
			r.Hardware = want
		}
	}
	return r
}

// inventory is `show inventory`: chassis, one entry per module, a power
// supply and a fan. A 7000 whose chassis (Options.Chassis, by default the
// 7010 of defaults.go) is not the 7009 of the captures gets the chassis
// entry the 7009's is built like ("Nexus7000 C7010 (10 Slot) Chassis ",
// N7K-C7010) and the 7009's power supply renamed to that chassis
// (N7K-AC-6.0KW); its fan tray is left out, as no capture of that
// chassis's fan entry was found. The active supervisor gets the board ID
// as its serial and line cards the board ID with their slot number: both
// the simulator's own choice (which serial a real board ID matches is
// UNCONFIRMED).
func (sw *Switch) inventory() []nexus.InventoryItem {
	f := sw.facts()
	chassis, psu, fan := f.chassis, f.psu, &f.fan
	if sw.kind == "nexus7000" {
		if model, ok := chassisModel(sw.chassisLine(f)); ok && model != "C7009 (9 Slot)" {
			chassis.Descr = "Nexus7000 " + model + " Chassis "
			chassis.PID = "N7K-" + strings.Fields(model)[0]
			psu.Descr = "Nexus7000 " + model + " Chassis Power Supply"
			fan = nil
		}
	}
	items := []nexus.InventoryItem{chassis}
	for _, m := range sw.modules {
		pid, sn := m.Model, fmt.Sprintf("%s%02d", f.serial[:len(f.serial)-2], m.Slot)
		if pid == "" {
			pid = f.supPID
		}
		if (m.Series == "sup" || strings.Contains(pid, "SUP")) && strings.HasPrefix(m.Status, "active") {
			sn = f.serial
		}
		items = append(items, nexus.InventoryItem{
			Name: fmt.Sprintf("Slot %d", m.Slot), Descr: m.Type, PID: pid, VID: "V01", SN: sn,
		})
	}
	items = append(items, psu)
	if fan != nil {
		items = append(items, *fan)
	}
	return items
}

// chassisModel reads "C7010 (10 Slot)" from a 7000 chassis line such as
// `C7010 (10 Slot) Chassis ("Supervisor Module-2")`.
func chassisModel(chassis string) (string, bool) {
	i := strings.Index(chassis, " Chassis")
	if i <= 0 || !strings.HasPrefix(chassis, "C") {
		return "", false
	}
	return chassis[:i], true
}
