package host

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/policies"
)

// Every host of every example policy renders a state the agent accepts:
// the files, keys and value forms nics.Desired writes are exactly those
// the agent's content rules allow (nics.CheckFileContent), so a new key in
// the renderer can't ship without the agent knowing it.
func TestExampleHostsPassTheAgentsRules(t *testing.T) {
	dirs, err := filepath.Glob("../../examples/*")
	if err != nil {
		t.Fatal(err)
	}
	hosts := 0
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "*.hcl")); len(m) == 0 {
			continue
		}
		fab, _, diags := policies.Load(dir, policies.LoadOptions{Getenv: func(string) (string, bool) { return "", false }})
		if diags.HasErrors() {
			t.Logf("%s: not loadable without its variables, skipped: %v", dir, diags)
			continue
		}
		for _, h := range fab.Hosts {
			d, err := nics.Desired(fab, h)
			if err != nil {
				t.Errorf("%s host %s: %v", dir, h.Name, err)
				continue
			}
			if err := nics.CheckManaged(d); err != nil {
				t.Errorf("%s host %s: the agent would refuse it: %v", dir, h.Name, err)
			}
			hosts++
		}
	}
	// And every MPI stack at once, with a pinned and a resolved GID index.
	c := &policies.Lossless{Name: "roce", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 3}
	for _, gid := range []*int{nil, new(int)} {
		h := &policies.Host{Name: "all", Local: true, MPI: []string{"mvapich2", "openmpi", "ucx", "nccl"},
			NICs: []*policies.NIC{{Netdev: "ens1f0", VLAN: 100, Address: "10.10.0.11/24", RoCEMode: "v2", GIDIndex: gid},
				{Netdev: "ens2f0", Address: "fd00::11/64", RoCEMode: "v2"}}}
		fab := &policies.Fabric{Lossless: []*policies.Lossless{c}, Hosts: []*policies.Host{h}}
		d, err := nics.Desired(fab, h)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Files) < 5 {
			t.Fatalf("only %d files rendered", len(d.Files))
		}
		if err := nics.CheckManaged(d); err != nil {
			t.Errorf("every stack (gid %v): the agent would refuse it: %v", gid, err)
		}
		hosts++
	}
	if hosts == 0 {
		t.Fatal("no example host checked")
	}
	t.Logf("%d example hosts checked", hosts)
}
