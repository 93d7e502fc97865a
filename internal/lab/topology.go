// Package lab starts a simulated fabric on this machine: an nxsim SSH server
// per Nexus switch, a gnmisim gRPC target per gNMI switch, and a network
// namespace plus a root-prefix tree per host. Which switches and hosts exist
// comes from the lab policy itself (examples/lab/*.hcl); simulator-only facts
// (NX-OS version, modules, startup config) come from lab.json beside it.
//
// Everything the lab policy needs to reach the fabric — addresses, host
// keys, the CA, the password, namespace names — is written to DIR/.lab and
// passed to roce-plan with -var-file DIR/.lab/lab.vars.
package lab

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rocefabric/roce/nexus"
)

// Topology is DIR/lab.json.
type Topology struct {
	Switches map[string]SwitchSim `json:"switches"`
	Hosts    map[string]HostSim   `json:"hosts"`
}

// SwitchSim is what the simulator needs beyond the policy.
type SwitchSim struct {
	Version string         `json:"version"`
	Chassis string         `json:"chassis,omitempty"`
	Modules []nexus.Module `json:"modules,omitempty"`
	// Startup is a running-config file (relative to DIR) the switch boots with.
	Startup string `json:"startup,omitempty"`
	VDC     string `json:"vdc,omitempty"`
}

// HostSim is what a simulated host's RDMA device looks like.
type HostSim struct {
	RDMADevice string `json:"rdma_device"`
	FWVersion  string `json:"fw_version"`
	RateGbps   int    `json:"rate_gbps"`
	// BackgroundLoad is the share of the link toward the host (0-1) that
	// other traffic classes keep busy, for the emulated RDMA path's queue
	// share model (docs/verify.md); 0: the probe has the links alone.
	BackgroundLoad float64 `json:"background_load,omitempty"`
}

// LoadTopology reads DIR/lab.json.
func LoadTopology(dir string) (*Topology, error) {
	path := filepath.Join(dir, "lab.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the lab topology: %w (roce-lab up expects DIR/lab.json beside the lab policy; see examples/lab)", err)
	}
	var t Topology
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &t, nil
}
