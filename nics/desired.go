package nics

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/policies"
)

// MinRoCEMTU is the smallest netdev MTU giving RoCE path MTU 4096: the
// kernel subtracts 96 bytes of RoCE headers and rounds down to an IB MTU
// (iboe_get_mtu, docs/platform-hosts.md #mtu).
const MinRoCEMTU = 4192

// classFor returns the lossless class a NIC carries (policies.ClassForNIC),
// with an error that says what to fix.
func classFor(fab *policies.Fabric, n *policies.NIC) (*policies.Lossless, error) {
	if c := fab.ClassForNIC(n); c != nil {
		return c, nil
	}
	if n.Lossless != "" {
		return nil, fmt.Errorf("lossless class %q not defined", n.Lossless)
	}
	return nil, fmt.Errorf("the policy has %d lossless classes: set lossless on the NIC", len(fab.Lossless))
}

// Trust returns the trust mode for a NIC: explicit, else dscp when the
// class is recognised by DSCP (a DSCP class, or RoCE v2 with a DSCP
// refinement), else pcp.
func Trust(n *policies.NIC, c *policies.Lossless) string {
	if n.Trust != "" {
		return n.Trust
	}
	if c.Match.Kind == policies.MatchDSCP || (c.Match.Kind == policies.MatchUDPPort && len(c.Match.DSCP) > 0) {
		return "dscp"
	}
	return "pcp"
}

// ToS is the IP ToS byte rdma_cm gives RoCE QPs (configfs
// default_roce_tos) and NCCL/UCX use as traffic class. For a class
// recognised by DSCP it is the class's first DSCP << 2; otherwise the
// priority << 5, whose DSCP (CS<priority>) is what the NIC's default
// DSCP→priority map (dscp >> 3) puts on the same priority — so PCP and DSCP
// agree either way. ECT(0) (the low bits = 2) is added when the class has
// ECN, as in the common 106 = DSCP 26 + ECT(0) (docs/platform-hosts.md #rdma-cm).
func ToS(c *policies.Lossless) int {
	tos := c.Priority << 5
	if len(c.Match.DSCP) > 0 && (c.Match.Kind == policies.MatchDSCP || c.Match.Kind == policies.MatchUDPPort) {
		tos = c.Match.DSCP[0] << 2
	}
	if c.ECN != nil {
		tos |= 2
	}
	return tos
}

// PFCBitmap is the ieee_pfc.pfc_en a class needs: its priority, or every
// priority for an "all traffic" class (the NIC then pauses whatever it
// sends; switches doing 802.3x link-level flow control for that class are
// not matched by PFC frames — see the plan note).
func PFCBitmap(c *policies.Lossless) uint8 {
	if c.Match.Kind == policies.MatchAll {
		return 0xff
	}
	return 1 << uint(c.Priority)
}

// VLANName is the VLAN netdev name we create: <parent>.<id>.
func VLANName(parent string, id int) string { return parent + "." + strconv.Itoa(id) }

// Desired computes the host state the policy wants for h. It is pure: what
// only the host knows (RDMA device when unset, GID index, MTU floor,
// rdma_cm method) is left for the host-side Resolve.
func Desired(fab *policies.Fabric, h *policies.Host) (*HostState, error) {
	if h == nil {
		return nil, fmt.Errorf("desired host state: nil host")
	}
	st := &HostState{}
	var nics []nicPlan
	for _, n := range h.NICs {
		c, err := classFor(fab, n)
		if err != nil {
			return nil, fmt.Errorf("host.%s nic %s: %w", h.Name, n.Netdev, err)
		}
		np, err := desiredNIC(h, n, c)
		if err != nil {
			return nil, fmt.Errorf("host.%s nic %s: %w", h.Name, n.Netdev, err)
		}
		st.NICs = append(st.NICs, np.state)
		st.RDMACM = append(st.RDMACM, np.rdmacm)
		nics = append(nics, np)
	}
	files, err := desiredFiles(h, nics)
	if err != nil {
		return nil, fmt.Errorf("host.%s: %w", h.Name, err)
	}
	st.Files = append(files, persistFiles(nics)...) // persist.go: DCB re-applied after a driver reload
	return st, nil
}

// nicPlan is one NIC's desired state plus what the files need from it.
type nicPlan struct {
	state    NICState
	rdmacm   RDMACMState
	class    *policies.Lossless
	ipNetdev string // netdev carrying the address (VLAN or parent)
	cidr     string
	tos      int
	gidIndex *int // pinned by the policy; nil = resolve on the host
}

func desiredNIC(h *policies.Host, n *policies.NIC, c *policies.Lossless) (nicPlan, error) {
	if n.Netdev == "" {
		return nicPlan{}, fmt.Errorf("netdev is empty")
	}
	if c.Priority < 0 || c.Priority > 7 {
		return nicPlan{}, fmt.Errorf("class %s priority %d is not 0-7", c.Name, c.Priority)
	}
	port := n.Port
	if port == 0 {
		port = 1
	}
	mode := n.RoCEMode
	if mode == "" {
		mode = "v2"
	}
	if mode != "v1" && mode != "v2" {
		return nicPlan{}, fmt.Errorf("roce_mode %q: want v1 or v2", mode)
	}
	trust := Trust(n, c)
	dcb := &DCBState{DCBX: DCBXHost, PFCEnabled: PFCBitmap(c), Trust: trust}
	switch trust {
	case "dscp":
		if len(c.Match.DSCP) == 0 {
			return nicPlan{}, fmt.Errorf("trust dscp needs a class matching DSCP values; class %s matches %s", c.Name, c.Match.Kind)
		}
		for _, d := range c.Match.DSCP {
			if d < 0 || d > 63 {
				return nicPlan{}, fmt.Errorf("class %s: DSCP %d is not 0-63", c.Name, d)
			}
			dcb.DSCPApps = append(dcb.DSCPApps, DSCPApp{DSCP: d, Priority: c.Priority})
		}
		normalizeDCB(dcb)
	case "pcp":
	default:
		return nicPlan{}, fmt.Errorf("trust %q: want pcp or dscp", trust)
	}
	ns := NICState{Netdev: n.Netdev, RDMADevice: n.RDMADevice, Port: port, RoCEMode: mode, Exists: true, DCB: dcb}
	if n.MTU > 0 {
		if n.MTU < MinRoCEMTU {
			return nicPlan{}, fmt.Errorf("mtu %d is below %d, the least that gives RoCE path MTU 4096", n.MTU, MinRoCEMTU)
		}
		ns.MTU = n.MTU
	} else {
		ns.MTUMin = MinRoCEMTU
	}
	np := nicPlan{class: c, ipNetdev: n.Netdev, tos: ToS(c), gidIndex: n.GIDIndex}
	if n.GIDIndex != nil && (*n.GIDIndex < 0 || *n.GIDIndex > 255) {
		return nicPlan{}, fmt.Errorf("gid_index %d is not 0-255", *n.GIDIndex)
	}
	if n.Address != "" {
		ip, ipn, err := net.ParseCIDR(n.Address)
		if err != nil {
			return nicPlan{}, fmt.Errorf("address %q: want a CIDR like 10.10.0.11/24", n.Address)
		}
		ipn.IP = ip
		np.cidr = ipn.String()
	}
	if n.VLAN > 0 {
		if n.VLAN > 4094 {
			return nicPlan{}, fmt.Errorf("vlan %d is not 1-4094", n.VLAN)
		}
		name := VLANName(n.Netdev, n.VLAN)
		if len(name) > 15 {
			return nicPlan{}, fmt.Errorf("VLAN device name %q is longer than the kernel's 15 characters; use a shorter netdev name", name)
		}
		eg := make(map[uint32]uint32, 8)
		for p := uint32(0); p < 8; p++ {
			eg[p] = uint32(c.Priority)
		}
		v := &VLANState{Name: name, Parent: n.Netdev, ID: n.VLAN, Exists: true, EgressQoS: eg, MTU: ns.MTU}
		if np.cidr != "" {
			v.Addresses = []string{np.cidr}
		}
		ns.VLAN = v
		np.ipNetdev = name
	} else if np.cidr != "" {
		ns.Addresses = []string{np.cidr}
	}
	np.state = ns
	method := h.RDMACM
	if method == "" {
		method = RDMACMAuto
	}
	np.rdmacm = RDMACMState{Device: n.RDMADevice, Netdev: n.Netdev, Port: port, Method: method, ToS: np.tos, Mode: roceModeString(mode), Prec2SL: c.Priority}
	return np, nil
}

// deviceRef is substituted by Resolve with the NIC's RDMA device.
func deviceRef(netdev string) string { return "${rdma_device:" + netdev + "}" }

func sortedUnique(in []string) []string {
	sort.Strings(in)
	out := in[:0]
	for i, s := range in {
		if i == 0 || s != in[i-1] {
			out = append(out, s)
		}
	}
	return out
}

func joinComma(s []string) string { return strings.Join(s, ",") }
