package profiles

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

// A UDP-port class on a DSCP-only profile is rendered by its DSCP and
// carries no per-switch warning: validation's "Class narrowed to its
// DSCP" says it once for every switch (issue #18), and a per-switch copy
// printed the same fact once per switch in every plan.
func TestUDPClassNarrowedWithoutPerSwitchWarning(t *testing.T) {
	c := &policies.Lossless{Name: "v2udp", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{24}}, Priority: 4, MTU: 4200}
	for name, port := range map[string]string{policies.ProfileArista: "Ethernet1", policies.ProfileSONiC: "Ethernet0", policies.ProfileSRLinux: "ethernet-1/1"} {
		t.Run(name, func(t *testing.T) {
			p, err := New(name, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			d, err := p.Render(Input{Switch: "s1", Interfaces: []string{port}, Classes: []*policies.Lossless{c}})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range d.Warnings {
				if strings.Contains(w, "UDP port") || strings.Contains(w, "4791") {
					t.Errorf("per-switch warning repeats validation's narrowing warning: %q", w)
				}
			}
			b, err := json.Marshal(d.Objects)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), "24") {
				t.Errorf("the class's DSCP 24 is not rendered: %s", b)
			}
		})
	}
}
