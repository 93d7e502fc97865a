package nexus

import (
	"strings"
	"testing"
)

// Batfish's nxos_interface_properties configuration attaches its own type
// qos input policy pm_qos_in to Ethernet1/1. As a managed port of a Nexus
// 5000 that port is refused (its policy takes precedence over system
// qos), naming the port, the policy and the fix; with the other ports
// managed the configuration plans, Ethernet1/1 and every foreign object
// stay as they are, and a second plan is empty.
func TestOverlapCorpusPortPolicy(t *testing.T) {
	cur, err := Parse(corpusConfigs(t)["batfish-nxos_interface_properties.cfg"])
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"udp_port", "cos", "dscp", "ethertype"} {
		t.Run(mode, func(t *testing.T) {
			in := intentFor(t, "nexus5000", mode, "")
			in.Interfaces = []string{"Ethernet1/1", "Ethernet1/2"}
			_, err := Render(in, cur)
			for _, w := range []string{"managed port Ethernet1/1 has its own type qos input policy pm_qos_in", "`service-policy type qos input pm_qos_in` on Ethernet1/1",
				"no class of policy-map pm_qos_in matches them", "interface Ethernet1/1, then no service-policy type qos input pm_qos_in"} {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("Ethernet1/1 managed: %v, want a refusal naming %q", err, w)
				}
			}
			in.Interfaces = []string{"Ethernet1/2", "Ethernet1/3"}
			des, err := Render(in, cur)
			if err != nil {
				t.Fatalf("with the ports that have no policy of their own: %v", err)
			}
			planAndReplan(t, cur, des, in)
			if got, want := des.Interface("Ethernet1/1").String(), cur.Interface("Ethernet1/1").String(); got != want {
				t.Fatalf("unmanaged Ethernet1/1 changed:\n%s\nwant\n%s", got, want)
			}
		})
	}
}
