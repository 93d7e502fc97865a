package nics

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

func managedFabric() (*policies.Fabric, *policies.Host) {
	c := &policies.Lossless{Name: "roce", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 3}
	h := &policies.Host{Name: "h1", MPI: []string{"mvapich2", "openmpi", "ucx", "nccl"},
		NICs: []*policies.NIC{{Netdev: "ens1f0", VLAN: 100, Address: "10.10.0.11/24"}}}
	return &policies.Fabric{Lossless: []*policies.Lossless{c}, Hosts: []*policies.Host{h}}, h
}

// Everything Desired and Resolve can produce is on the agent's allow-list;
// a file added to the renderer without the list would be refused by every
// agent, and this test says so first.
func TestEveryRenderedFileIsManaged(t *testing.T) {
	fab, h := managedFabric()
	d, err := Desired(fab, h)
	if err != nil {
		t.Fatal(err)
	}
	d.Files = append(d.Files, FileState{Path: ModprobeFile, Format: FormatLines})
	if err := CheckManaged(d); err != nil {
		t.Fatal(err)
	}
	batches := 0 // one persisted DCB file per NIC, /etc/roce/dcb/<netdev>.dcb (persist.go), not in the fixed list
	for _, f := range d.Files {
		if _, ok := dcbPersistNetdev(f.Path); ok {
			batches++
		}
	}
	if len(d.Files)-batches != len(ManagedFiles()) || batches != len(h.NICs) {
		t.Errorf("rendered %d files (%d DCB batch files for %d NICs), allow-list has %d", len(d.Files), batches, len(h.NICs), len(ManagedFiles()))
	}
}

func TestCheckManagedNamesTheOffender(t *testing.T) {
	for _, c := range []struct {
		name string
		st   HostState
		want string
	}{
		{"file", HostState{Files: []FileState{{Path: "/etc/pwned-by-plan.conf"}}}, `file "/etc/pwned-by-plan.conf" is not managed by roce`},
		{"relative file", HostState{Files: []FileState{{Path: "etc/nccl.conf"}}}, `"etc/nccl.conf"`},
		{"vlan parent", HostState{NICs: []NICState{{Netdev: "a", VLAN: &VLANState{Name: "b.1", Parent: "b"}}}}, `parent "b"`},
		{"gid netdev", HostState{Files: []FileState{{Path: FileNCCL, Entries: []KV{{Key: "K", GID: &GIDRef{Netdev: "x/y"}}}}}}, `"x/y"`},
		{"long netdev", HostState{NICs: []NICState{{Netdev: "abcdefghijklmnop"}}}, "longer than 15"},
	} {
		err := CheckManaged(&c.st)
		if !errors.Is(err, ErrNotManaged) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// CheckResolved accepts what Resolve makes of Desired with any plausible
// host facts and refuses everything else.
func TestCheckResolvedAcceptsHostFactsOnly(t *testing.T) {
	fab, h := managedFabric()
	d, err := Desired(fab, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{RDMACMConfigfs, RDMACMDefPrec2SL} {
		facts := fixedFacts{dev: "mlx5_2", mtu: 9000, method: method, gid: 5}
		r, _, err := resolveWith(t.Context(), d, facts)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckResolved(d, r); err != nil {
			t.Errorf("%s: genuine resolution refused: %v", method, err)
		}
	}
	r, _, _ := resolveWith(t.Context(), d, fixedFacts{dev: "mlx5_2", mtu: 1500, method: RDMACMConfigfs, gid: -1})
	if err := CheckResolved(d, r); err != nil {
		t.Errorf("MTU raised to the floor, GID pending: %v", err)
	}
	r.Files[0].Lines = []string{"* soft memlock 1"}
	if err := CheckResolved(d, r); err == nil || !strings.Contains(err.Error(), FileMemlock) {
		t.Errorf("edited memlock lines: %v", err)
	}
}

type fixedFacts struct {
	dev    string
	mtu    int
	method string
	gid    int
}

func (f fixedFacts) rdmaDevice(string) (string, error) { return f.dev, nil }
func (f fixedFacts) currentMTU(_ context.Context, _ string) (int, bool, error) {
	return f.mtu, true, nil
}
func (f fixedFacts) rdmacmMethod(m string) (string, error) { return f.method, nil }
func (f fixedFacts) gidIndex(_, _ string, _ GIDRef) (int, error) {
	if f.gid < 0 {
		return 0, errors.New("pending")
	}
	return f.gid, nil
}
