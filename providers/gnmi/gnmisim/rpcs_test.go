package gnmisim

import (
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// TestRPCsCounted: every Capabilities, Get and Set served counts once,
// refused ones too; an unauthenticated call never reaches the target.
func TestRPCsCounted(t *testing.T) {
	sim, c, ctx := startPlain(t, Options{Profile: "arista"})
	p, _ := gpath.Parse("/interfaces/interface[name=Ethernet1]/config/mtu")
	steps := []struct {
		name string
		call func() error
	}{
		{"Capabilities", func() error { _, err := c.Capabilities(ctx, &gpb.CapabilityRequest{}); return err }},
		{"Get", func() error {
			_, err := c.Get(ctx, &gpb.GetRequest{Path: []*gpb.Path{p.Proto("openconfig")}, Encoding: gpb.Encoding_JSON_IETF})
			return err
		}},
		{"Set", func() error {
			_, err := c.Set(ctx, &gpb.SetRequest{Update: []*gpb.Update{upd("openconfig", "/interfaces/interface[name=Ethernet1]/config/mtu", "9000")}})
			return err
		}},
		{"refused Get", func() error {
			_, _ = c.Get(ctx, &gpb.GetRequest{Path: []*gpb.Path{p.Proto("openconfig")}, Encoding: gpb.Encoding_PROTO})
			return nil
		}},
	}
	for i, s := range steps {
		if err := s.call(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := sim.RPCs(); got != i+1 {
			t.Errorf("after %s: RPCs() = %d, want %d", s.name, got, i+1)
		}
	}
}
