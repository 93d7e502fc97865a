package nics

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

func TestDesiredPerClass(t *testing.T) {
	cases := []struct {
		name      string
		match     policies.Match
		prio      int
		ecn       bool
		trust     string // NIC override
		wantTrust string
		wantApps  []DSCPApp
		wantPFC   uint8
		wantToS   int
		wantErr   string
	}{
		{name: "roce v2 with dscp", match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, prio: 3,
			wantTrust: "dscp", wantApps: []DSCPApp{{26, 3}}, wantPFC: 0x08, wantToS: 104},
		{name: "roce v2 with dscp and ecn", match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, prio: 3, ecn: true,
			wantTrust: "dscp", wantApps: []DSCPApp{{26, 3}}, wantPFC: 0x08, wantToS: 106},
		{name: "roce v2 plain is pcp", match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791}, prio: 4,
			wantTrust: "pcp", wantPFC: 0x10, wantToS: 128},
		{name: "roce v1 ethertype", match: policies.Match{Kind: policies.MatchEthertype, Ethertype: 0x8915}, prio: 5,
			wantTrust: "pcp", wantPFC: 0x20, wantToS: 160},
		{name: "cos class", match: policies.Match{Kind: policies.MatchCoS, CoS: []int{3}}, prio: 3,
			wantTrust: "pcp", wantPFC: 0x08, wantToS: 96},
		{name: "dscp class, several values", match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{46, 24}}, prio: 5,
			wantTrust: "dscp", wantApps: []DSCPApp{{24, 5}, {46, 5}}, wantPFC: 0x20, wantToS: 184},
		{name: "all traffic", match: policies.Match{Kind: policies.MatchAll}, prio: 3,
			wantTrust: "pcp", wantPFC: 0xff, wantToS: 96},
		{name: "trust override pcp on dscp class", match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}, prio: 3, trust: "pcp",
			wantTrust: "pcp", wantPFC: 0x08, wantToS: 104},
		{name: "trust dscp without dscp values", match: policies.Match{Kind: policies.MatchCoS, CoS: []int{3}}, prio: 3, trust: "dscp",
			wantErr: "trust dscp needs a class matching DSCP"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &policies.Lossless{Name: "c", Match: tc.match, Priority: tc.prio}
			if tc.ecn {
				c.ECN = &policies.ECN{MinThresholdKB: 100, MaxThresholdKB: 400, Probability: 10}
			}
			h := &policies.Host{Name: "h", NICs: []*policies.NIC{{Netdev: "ens1f0", VLAN: 100, Address: "10.0.0.1/24", Trust: tc.trust}}, MPI: []string{"nccl"}}
			fab := &policies.Fabric{Lossless: []*policies.Lossless{c}, Hosts: []*policies.Host{h}}
			st, err := Desired(fab, h)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := st.NICs[0]
			if n.DCB.Trust != tc.wantTrust || n.DCB.PFCEnabled != tc.wantPFC {
				t.Errorf("trust %s pfc %#x, want %s %#x", n.DCB.Trust, n.DCB.PFCEnabled, tc.wantTrust, tc.wantPFC)
			}
			if !sameApps(n.DCB.DSCPApps, tc.wantApps) {
				t.Errorf("apps %v want %v", n.DCB.DSCPApps, tc.wantApps)
			}
			if st.RDMACM[0].ToS != tc.wantToS {
				t.Errorf("tos %d want %d", st.RDMACM[0].ToS, tc.wantToS)
			}
			for p := uint32(0); p < 8; p++ {
				if n.VLAN.EgressQoS[p] != uint32(tc.prio) {
					t.Errorf("egress %d -> %d, want %d", p, n.VLAN.EgressQoS[p], tc.prio)
				}
			}
			if n.MTU != 0 || n.MTUMin != MinRoCEMTU {
				t.Errorf("mtu %d min %d", n.MTU, n.MTUMin)
			}
		})
	}
}

func TestDesiredErrors(t *testing.T) {
	c := &policies.Lossless{Name: "c", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{3}}, Priority: 3}
	cases := []struct {
		name string
		nic  policies.NIC
		mpi  []string
		want string
	}{
		{"mtu too small", policies.NIC{Netdev: "e0", MTU: 1500}, nil, "below 4192"},
		{"bad cidr", policies.NIC{Netdev: "e0", Address: "10.0.0.1"}, nil, "want a CIDR"},
		{"vlan name too long", policies.NIC{Netdev: "enp130s0f0np0", VLAN: 100}, nil, "15 characters"},
		{"unknown class", policies.NIC{Netdev: "e0", Lossless: "nope"}, nil, "not defined"},
		{"unknown mpi", policies.NIC{Netdev: "e0", Address: "10.0.0.1/24"}, []string{"pvm"}, "want mvapich2"},
		{"mvapich2 without address", policies.NIC{Netdev: "e0"}, []string{"mvapich2"}, "needs the RoCE addresses"},
		{"bad roce mode", policies.NIC{Netdev: "e0", RoCEMode: "v3"}, nil, "want v1 or v2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.nic
			h := &policies.Host{Name: "h", NICs: []*policies.NIC{&n}, MPI: tc.mpi}
			_, err := Desired(&policies.Fabric{Lossless: []*policies.Lossless{c}}, h)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func TestDesiredGolden(t *testing.T) {
	fab, h := testFabric("mvapich2", "openmpi", "ucx", "nccl")
	st, err := Desired(fab, h)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(st, "", "  ")
	golden(t, "desired_h1.json", append(b, '\n'))
}

func TestDesiredPinnedGIDIndexIsUsedAsIs(t *testing.T) {
	fab, h := testFabric("nccl")
	idx := 7
	h.NICs[0].GIDIndex = &idx
	st, err := Desired(fab, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range st.Files {
		for _, e := range f.Entries {
			if e.Key == "NCCL_IB_GID_INDEX" && (e.Value != "7" || e.GID != nil) {
				t.Errorf("pinned GID entry %+v", e)
			}
		}
	}
}
