package host

import (
	"github.com/rocefabric/roce/internal/testenv"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// agentBin is the roce-agent built once for the package's tests.
var agentBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "roce-host-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	agentBin = filepath.Join(dir, "roce-agent")
	cmd := exec.Command("go", "build", "-o", agentBin, "../../cmd/roce-agent")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build roce-agent: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func testEnv(fab *policies.Fabric, extra map[string]string) plan.Env {
	return plan.Env{Fabric: fab, Getenv: func(k string) (string, bool) {
		if v, ok := extra[k]; ok {
			return v, true
		}
		if k == AgentEnv {
			return agentBin, true
		}
		return "", false
	}}
}

// labHost creates a namespace with a veth pair and a seeded lab root, and
// returns a fabric whose only host lives there.
func labHost(t *testing.T, mpi ...string) (*policies.Fabric, *policies.Host) {
	t.Helper()
	ns, run := testenv.Netns(t, "roce-t")
	run("-n", ns, "link", "add", "ens1f0", "type", "veth", "peer", "name", "peer0")
	run("-n", ns, "link", "set", "ens1f0", "up")
	root := t.TempDir()
	spec := nics.LabSpec{Netns: ns, NICs: []nics.LabNIC{{Netdev: "ens1f0", RDMADevice: "mlx5_0"}}}
	if err := nics.SeedLab(root, spec); err != nil {
		t.Fatal(err)
	}
	c := &policies.Lossless{Name: "roce", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 3}
	h := &policies.Host{Name: "h1", Local: true, Netns: ns, Root: root, MPI: mpi,
		NICs: []*policies.NIC{{Netdev: "ens1f0", VLAN: 100, Address: "10.10.0.11/24", RoCEMode: "v2"}}}
	return &policies.Fabric{Lossless: []*policies.Lossless{c}, Hosts: []*policies.Host{h}, Credentials: map[string]*policies.Credentials{}}, h
}
