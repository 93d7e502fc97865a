package main

import (
	"encoding/json"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// TestKillAnywhereNetnsHostRecovers is the kill matrix on a lab host in a
// network namespace this test creates: the MTU and addresses are real
// netlink changes on a veth, DCB, the VLAN device and rdma_cm the lab's
// emulation, the MPI files real files. After every kill and recover, the
// links read back by ip(8) are exactly as before or as after, matching
// what recover says.
func TestKillAnywhereNetnsHostRecovers(t *testing.T) {
	testenv.Root(t, "network namespaces")
	testenv.Tool(t, "ip", "apt-get install iproute2")
	bin := buildHookAgent(t)

	c := &policies.Lossless{Name: "roce", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 3}
	h := &policies.Host{Name: "h1", Local: true, MPI: []string{"nccl", "openmpi"},
		NICs: []*policies.NIC{{Netdev: "ens1f0", VLAN: 100, Address: "10.10.0.11/24", RoCEMode: "v2", MTU: 9000}}}
	fab := &policies.Fabric{Lossless: []*policies.Lossless{c}, Hosts: []*policies.Host{h}, Credentials: map[string]*policies.Credentials{}}
	desired, err := nics.Desired(fab, h)
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	nsOf := map[string]string{}
	var before, after string
	kc := killCase{
		desired: desired,
		seed: func(t *testing.T, root string) {
			ns := newKillNetns(t)
			spec := nics.LabSpec{Netns: ns, NICs: []nics.LabNIC{{Netdev: "ens1f0", RDMADevice: "mlx5_0"}}}
			if err := nics.SeedLab(root, spec); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			nsOf[root] = ns
			st := linkState(t, ns)
			if before == "" {
				before = st
			} else if st != before {
				t.Fatalf("a fresh namespace reads %s, the first one %s", st, before)
			}
		},
		argv: func(root string) []string {
			mu.Lock()
			defer mu.Unlock()
			return []string{"ip", "netns", "exec", nsOf[root], bin, "--root", root}
		},
		// The lab's emulated DCB/VLAN state is compared through the
		// agent's read (fingerprint before, empty diff after).
		ignore: func(rel string) bool {
			switch rel {
			case "var/", "var/lib/": // made for the emulated state below
				return true
			case nics.LabNetnsMarker: // names this run's namespace
				return true
			}
			return strings.HasPrefix(rel, "var/lib/roce-lab/")
		},
		verify: func(t *testing.T, root, status string) {
			mu.Lock()
			ns := nsOf[root]
			mu.Unlock()
			st := linkState(t, ns)
			switch status {
			case plan.StatusApplied:
				if after == "" {
					after = st // the reference apply
				} else if st != after {
					t.Fatalf("recover says applied; links %s, after the reference apply %s", st, after)
				}
			case plan.StatusRolledBack:
				if st != before {
					t.Fatalf("recover says rolled back; links %s, before %s", st, before)
				}
			default:
				if st != before && st != after {
					t.Fatalf("links %s are neither before (%s) nor after (%s)", st, before, after)
				}
			}
		},
	}
	runKillMatrix(t, kc, 6)
	if before == after {
		t.Fatalf("the apply did not change the links (%s)", before)
	}
}

// newKillNetns creates a namespace holding the veth ens1f0 (up), removed
// when the test ends.
func newKillNetns(t *testing.T) string {
	t.Helper()
	ns, run := testenv.Netns(t, "roce-k")
	run("-n", ns, "link", "add", "ens1f0", "type", "veth", "peer", "name", "peer0")
	run("-n", ns, "link", "set", "ens1f0", "up")
	return ns
}

// linkState is every netdev's name, MTU and addresses in ns, as ip(8)
// reports them.
func linkState(t *testing.T, ns string) string {
	t.Helper()
	out, err := exec.Command("ip", "-n", ns, "-j", "addr", "show").Output()
	if err != nil {
		t.Fatalf("ip -n %s addr: %v", ns, err)
	}
	var links []struct {
		Name  string `json:"ifname"`
		MTU   int    `json:"mtu"`
		Addrs []struct {
			Local  string `json:"local"`
			Prefix int    `json:"prefixlen"`
			Scope  string `json:"scope"`
		} `json:"addr_info"`
	}
	if err := json.Unmarshal(out, &links); err != nil {
		t.Fatalf("ip -j: %v", err)
	}
	var parts []string
	for _, l := range links {
		var as []string
		for _, a := range l.Addrs {
			if a.Scope == "link" {
				continue // IPv6 link-local: the kernel's, not roce's
			}
			as = append(as, a.Local)
		}
		sort.Strings(as)
		parts = append(parts, l.Name+" mtu "+strconv.Itoa(l.MTU)+" ["+strings.Join(as, " ")+"]")
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
