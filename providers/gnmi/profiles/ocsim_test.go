package profiles

import (
	"encoding/json"
	"testing"

	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// The plain OpenConfig rendering (never sent by Render, which refuses for
// lack of PFC) is still accepted object by object by an openconfig target,
// so the paths arista builds on are valid OpenConfig.
func TestOpenConfigRenderAcceptedByTarget(t *testing.T) {
	for mode, c := range classes() {
		t.Run(mode, func(t *testing.T) {
			sim, err := gnmisim.New(gnmisim.Options{Profile: "openconfig", Interfaces: []string{"Ethernet1/1"}})
			if err != nil {
				t.Fatal(err)
			}
			d, err := (&ocProfile{}).render(Input{Switch: "s1", Interfaces: []string{"Ethernet1/1"}, Classes: []*policies.Lossless{c}})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range d.Objects {
				b, err := json.Marshal(o.Value)
				if err != nil {
					t.Fatal(err)
				}
				if err := sim.Seed(o.Path, string(b)); err != nil {
					t.Errorf("target refused %s: %v", o.Path, err)
				}
			}
		})
	}
}
