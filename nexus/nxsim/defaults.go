package nxsim

import (
	"fmt"
	"strings"

	"github.com/rocefabric/roce/nexus"
)

// platformDefaults are what a simulated switch reports when Options leave a
// fact empty. The strings follow the `show version` / `show module` samples
// in docs/nxos.md.
type platformDefaults struct {
	version, platform, chassis, image string
	modules                           []nexus.Module
}

func defaultsFor(platform string) (platformDefaults, error) {
	switch platform {
	case "nexus5000":
		return platformDefaults{
			version:  "7.1(4)N1(1)",
			platform: "Nexus5596",
			chassis:  `Chassis ("O2 48X10GE/Modular Supervisor")`,
			image:    "bootflash:///n5000-uk9.7.1.4.N1.1.bin",
			modules: []nexus.Module{
				{Slot: 1, Ports: 48, Type: "O2 48X10GE/Modular Supervisor", Model: "N5K-C5596UP-SUP", Status: "active *"},
			},
		}, nil
	case "nexus7000":
		return platformDefaults{
			version:  "6.2(14)",
			platform: "Nexus7000",
			chassis:  `C7010 (10 Slot) Chassis ("Supervisor Module-2")`,
			image:    "bootflash:///n7000-s2-dk9.6.2.14.bin",
			modules: []nexus.Module{
				{Slot: 1, Ports: 48, Type: "1/10 Gbps Ethernet Module", Model: "N7K-F248XP-25", Status: "ok", Series: "F"},
				{Slot: 2, Ports: 48, Type: "10/100/1000 Mbps Ethernet Module", Model: "N7K-M148GT-11", Status: "ok", Series: "M"},
				{Slot: 5, Ports: 0, Type: "Supervisor Module-2", Model: "N7K-SUP2", Status: "active *"},
			},
		}, nil
	}
	return platformDefaults{}, fmt.Errorf("nxsim: unknown platform %q (want nexus5000 or nexus7000)", platform)
}

// seriesOf classifies a 7000 line card by its model prefix
// (docs/nxos.md): N7K-F… is F-series, N7K-M… is M-series; supervisors are "sup".
func seriesOf(model string) string {
	switch {
	case strings.Contains(model, "-SUP"):
		return "sup"
	case strings.HasPrefix(model, "N7K-F"):
		return "F"
	case strings.HasPrefix(model, "N7K-M"):
		return "M"
	}
	return ""
}

// interfacesOf lists Ethernet<slot>/<port> for every module with ports.
func interfacesOf(mods []nexus.Module) []string {
	var out []string
	for _, m := range mods {
		for p := 1; p <= m.Ports; p++ {
			out = append(out, fmt.Sprintf("Ethernet%d/%d", m.Slot, p))
		}
	}
	return out
}
