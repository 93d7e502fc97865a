package policies

import (
	"fmt"
	"net/netip"

	"github.com/hashicorp/hcl/v2"
)

var hostSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "for_each"}, {Name: "address"}, {Name: "local"}, {Name: "credentials"}, {Name: "known_hosts"},
		{Name: "host_key"}, {Name: "root"}, {Name: "netns"}, {Name: "mpi"}, {Name: "rdma_cm"}, {Name: "switch"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "nic", LabelNames: []string{"netdev"}}},
}

var nicSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "rdma_device"}, {Name: "port"}, {Name: "vlan"}, {Name: "address"}, {Name: "roce_mode"},
	{Name: "gid_index"}, {Name: "mtu"}, {Name: "lossless"}, {Name: "trust"},
}}

// Settings a host can name, with the words shown in errors.
var (
	mpiStacks   = []string{"mvapich2", "openmpi", "ucx", "nccl"}
	rdmaCMModes = []string{"auto", "configfs", "def_prec2sl"}
)

// MinRoCENetdevMTU is the smallest netdev MTU accepted on a RoCE NIC: a
// 4096-byte RoCE path MTU plus the RoCE v2 headers (IPv6 40, UDP 8, BTH 12,
// RETH 16, ICRC 4 = 4176 bytes) must fit, and the project standardises on
// 4192 as the floor (issue 2) to leave headroom for extended headers.
const MinRoCENetdevMTU = 4192

func (l *loader) decodeHostBlock(b *hcl.Block, ctx *hcl.EvalContext, f *Fabric) {
	f.Hosts = append(f.Hosts, decodeInstances(l, b, hostSchema, ctx, "host",
		func(content *hcl.BodyContent, inst instance) (*Host, bool) {
			h := l.decodeHost(b, content, inst)
			return h, h != nil
		})...)
}

func (l *loader) decodeHost(b *hcl.Block, content *hcl.BodyContent, inst instance) *Host {
	what := fmt.Sprintf("host %q", inst.name)
	if inst.name == "" {
		l.diags = append(l.diags, errorDiag(b.DefRange, "Empty host name", what+": a host needs a non-empty name (check the for_each keys)."))
		return nil
	}
	r := newReader(what, content.Attributes, inst.ctx, &l.diags)
	h := &Host{Name: inst.name, DeclRange: b.DefRange, RDMACM: "auto"}
	r.str("address", &h.Address)
	r.boolean("local", &h.Local)
	switch {
	case h.Address == "" && !h.Local:
		l.diags = append(l.diags, errorDiag(b.DefRange, "Missing address",
			fmt.Sprintf("%s needs address = \"host\" or \"host:port\" for SSH, or local = true to configure this machine.", what)))
	case h.Address != "" && h.Local:
		r.attrError("local", "Both address and local",
			fmt.Sprintf("%s sets address and local = true; a host is either reached over SSH or local. Remove one.", what))
	case h.Address != "":
		if err := checkAddress(h.Address); err != nil {
			r.attrError("address", "Invalid address", fmt.Sprintf("%s: %v.", what, err))
		}
	}
	r.str("credentials", &h.Credentials)
	if h.Address != "" && h.Credentials == "" {
		l.diags = append(l.diags, errorDiag(b.DefRange, "Missing credentials",
			fmt.Sprintf("%s is reached over SSH; set credentials = \"<name of a credentials block>\".", what)))
	}
	if r.str("known_hosts", &h.KnownHosts) {
		h.KnownHosts = l.path(h.KnownHosts)
	}
	r.str("host_key", &h.HostKey)
	if r.str("root", &h.Root) {
		h.Root = l.path(h.Root)
	}
	r.str("netns", &h.Netns)
	if r.strList("mpi", &h.MPI) {
		seen := map[string]bool{}
		for _, m := range h.MPI {
			if !containsString(mpiStacks, m) {
				r.attrError("mpi", "Unknown MPI stack", fmt.Sprintf("%s: mpi lists %q; use any of \"mvapich2\", \"openmpi\", \"ucx\", \"nccl\".", what, m))
				break
			}
			if seen[m] {
				r.attrError("mpi", "Duplicate MPI stack", fmt.Sprintf("%s: mpi lists %q twice.", what, m))
				break
			}
			seen[m] = true
		}
	}
	if r.str("rdma_cm", &h.RDMACM) && !containsString(rdmaCMModes, h.RDMACM) {
		r.attrError("rdma_cm", "Unknown rdma_cm style",
			fmt.Sprintf("%s: rdma_cm = %q; use \"configfs\" (default_roce_tos), \"def_prec2sl\" (legacy OFED module option) or \"auto\".", what, h.RDMACM))
	}
	r.str("switch", &h.Switch)

	byNetdev := map[string]*NIC{}
	for _, nb := range content.Blocks {
		n := l.decodeNIC(nb, inst, what)
		if n == nil {
			continue
		}
		if prev, dup := byNetdev[n.Netdev]; dup {
			l.diags = append(l.diags, errorDiag(nb.DefRange, "Duplicate NIC",
				fmt.Sprintf("%s already has nic %q at %s; remove one.", what, n.Netdev, prev.DeclRange)))
			continue
		}
		byNetdev[n.Netdev] = n
		h.NICs = append(h.NICs, n)
	}
	if len(content.Blocks) == 0 {
		l.diags = append(l.diags, errorDiag(b.DefRange, "Host without NICs",
			fmt.Sprintf("%s has no nic \"<netdev>\" { } block; add the RoCE port(s) to configure.", what)))
	}
	l.record(h, r)
	return h
}

func (l *loader) decodeNIC(b *hcl.Block, inst instance, hostWhat string) *NIC {
	content, diags := b.Body.Content(nicSchema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	what := fmt.Sprintf("%s nic %q", hostWhat, b.Labels[0])
	r := newReader(what, content.Attributes, inst.ctx, &l.diags)
	n := &NIC{Netdev: b.Labels[0], Port: 1, DeclRange: b.DefRange}
	if n.Netdev == "" {
		l.diags = append(l.diags, errorDiag(b.LabelRanges[0], "Empty netdev name", what+": name the Linux network device, e.g. nic \"ens1f0\"."))
	}
	r.str("rdma_device", &n.RDMADevice)
	r.integer("port", &n.Port, 1, 255)
	r.integer("vlan", &n.VLAN, 1, 4094)
	if r.str("address", &n.Address) {
		if _, err := netip.ParsePrefix(n.Address); err != nil {
			r.attrError("address", "Invalid NIC address",
				fmt.Sprintf("%s: address = %q must be an IP with its prefix length, e.g. \"10.10.0.11/24\".", what, n.Address))
		}
	}
	if r.str("roce_mode", &n.RoCEMode) && n.RoCEMode != "v1" && n.RoCEMode != "v2" {
		r.attrError("roce_mode", "Unknown RoCE mode", fmt.Sprintf("%s: roce_mode = %q; use \"v1\" or \"v2\".", what, n.RoCEMode))
	}
	var gid int
	if r.integer("gid_index", &gid, 0, 255) {
		n.GIDIndex = &gid
	}
	if r.integer("mtu", &n.MTU, 68, 65535) && n.MTU < MinRoCENetdevMTU {
		r.attrError("mtu", "NIC MTU too small for RoCE",
			fmt.Sprintf("%s: mtu = %d, but RoCE path MTU 4096 needs a netdev MTU of at least %d (4096 bytes of payload plus the RoCE, UDP and IP headers). Set mtu = %d or more, or leave it unset to derive it.", what, n.MTU, MinRoCENetdevMTU, MinRoCENetdevMTU))
	}
	r.str("lossless", &n.Lossless)
	if r.str("trust", &n.Trust) && n.Trust != "pcp" && n.Trust != "dscp" {
		r.attrError("trust", "Unknown trust mode", fmt.Sprintf("%s: trust = %q; use \"pcp\" or \"dscp\".", what, n.Trust))
	}
	l.record(n, r)
	return n
}
