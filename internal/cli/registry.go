package cli

import (
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	gnmiprov "github.com/rocefabric/roce/providers/gnmi"
	hostprov "github.com/rocefabric/roce/providers/host"
	"github.com/rocefabric/roce/providers/nxos"
)

// Registry wires the real providers: every kind a policy can name.
func Registry() *plan.Registry {
	return &plan.Registry{
		Switches: map[string]plan.SwitchFactory{
			policies.PlatformNexus5000: nxos.New,
			policies.PlatformNexus7000: nxos.New,
			policies.PlatformGNMI:      gnmiprov.New,
		},
		Host: hostprov.New,
	}
}
