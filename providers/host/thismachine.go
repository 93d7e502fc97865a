package host

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vishvananda/netlink"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// hostRoot is the tree a local host's agent works under, resolved as New
// does: "/" by default, a relative root against the policy directory.
func hostRoot(fab *policies.Fabric, h *policies.Host) string {
	root := h.Root
	if root == "" {
		root = "/"
	}
	if h.Local && !filepath.IsAbs(root) && fab != nil && fab.Dir != "" {
		root = filepath.Join(fab.Dir, root)
	}
	return root
}

// checkLocalHost places a host: a lab host must be inside the namespace
// roce-lab up made for it (else an error naming the host, the namespace
// and what to do); any other local host outside a namespace, or in the
// namespace roce itself runs in, is this machine — and so is an SSH host
// whose address is this machine's own.
func checkLocalHost(addr string, h *policies.Host, root string, ns nics.NetnsProbe) (thisMachine bool, err error) {
	if !h.Local {
		// Over SSH: this machine when the address is one of its own.
		if !addressIsThisMachine(h.Address, machineHostname(), machineAddrs()) {
			return false, nil
		}
		return netnsIsThisMachine(h.Netns, ns), nil
	}
	if nics.IsLab(root) {
		if nics.IsEmulatedLinks(root) {
			return false, nil // every netdev is emulated: nothing real is reachable
		}
		if nics.LabNetns(root) != "" {
			return false, checkLabNamespace(addr, h, root, ns)
		}
		// A hand-seeded tree (emulated DCB and RDMA, real netdevs, no
		// namespace of its own): placed like any other local host below,
		// and its agent never touches PID 1's namespace (nics.CheckLabNetns).
	}
	return netnsIsThisMachine(h.Netns, ns), nil
}

// netnsIsThisMachine: no namespace, roce's own, or PID 1's.
func netnsIsThisMachine(netns string, ns nics.NetnsProbe) bool {
	if netns == "" {
		return true
	}
	named, err := ns.Named(netns)
	if err != nil {
		return false // not this machine; running the agent there fails with ip's own message
	}
	if cur, err := ns.Current(); err == nil && cur == named {
		return true
	}
	if init, ok := ns.Init(); ok && init == named {
		return true
	}
	return false
}

// addressIsThisMachine reports whether an SSH host's address ("host" or
// "host:port") is this machine: "localhost", a loopback or unspecified
// IP, one of this machine's own addresses, or its hostname. Names are not
// looked up in DNS.
func addressIsThisMachine(address, hostname string, own []net.IP) bool {
	host := address
	if h, _, err := net.SplitHostPort(address); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return false
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsLoopback() || ip.IsUnspecified() {
			return true
		}
		for _, o := range own {
			if o.Equal(ip) {
				return true
			}
		}
		return false
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	hn := strings.ToLower(hostname)
	if hn == "" {
		return false
	}
	short, _, _ := strings.Cut(hn, ".")
	return name == hn || name == short
}

// machineHostname is this machine's hostname ("" when unknown).
func machineHostname() string {
	h, _ := os.Hostname()
	return h
}

// machineAddrs lists the addresses of this machine's interfaces (in
// roce's namespace).
func machineAddrs() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			out = append(out, n.IP)
		}
	}
	return out
}

// checkLabNamespace refuses a host of roce-lab up (its tree names the
// namespace made for it) unless the policy names that namespace, it
// exists, and it is neither the namespace roce runs in nor PID 1's.
func checkLabNamespace(addr string, h *policies.Host, root string, ns nics.NetnsProbe) error {
	made := nics.LabNetns(root)
	fix := "run `roce-lab up` and plan with its .lab/lab.vars, and check that no other -var-file overrides lab_netns"
	switch {
	case h.Netns == "":
		return fmt.Errorf("%s: lab host has no network namespace (netns is empty; lab_netns = {} in a var file?), so it would act on this machine's own interfaces; refusing: roce-lab up made %s for it: %s", addr, made, fix)
	case h.Netns != made:
		return fmt.Errorf("%s: lab host names network namespace %s, but roce-lab up made %s for it; refusing: %s", addr, h.Netns, made, fix)
	}
	named, err := ns.Named(h.Netns)
	if err != nil {
		return fmt.Errorf("%s: lab host's %w; is the lab running? %s", addr, err, fix)
	}
	if cur, err := ns.Current(); err != nil {
		return fmt.Errorf("%s: %w", addr, err)
	} else if cur == named {
		return fmt.Errorf("%s: lab host's namespace %s is the one roce itself runs in, so it would act on this machine; refusing: %s", addr, h.Netns, fix)
	}
	if init, ok := ns.Init(); ok && init == named {
		return fmt.Errorf("%s: lab host's namespace %s is this machine's own network namespace; refusing: %s", addr, h.Netns, fix)
	}
	return nil
}

// machineRoutes is what could cut this machine off: the interfaces
// carrying its default routes and its SSH session, and the addresses those
// lead to.
type machineRoutes struct {
	Default  []string // interfaces with a default route
	Gateways []net.IP // their gateways
	SSH      string   // interface the SSH session leaves by ("" none)
	SSHPeer  net.IP   // the SSH client ($SSH_CONNECTION)
}

// readMachineRoutes reads the routing table of the calling thread's
// namespace through netlink, and finds the SSH session's interface from
// $SSH_CONNECTION ("client-ip client-port server-ip server-port").
func readMachineRoutes(ctx context.Context, sshConnection string) (machineRoutes, error) {
	var r machineRoutes
	if err := ctx.Err(); err != nil {
		return r, err
	}
	name := func(idx int) string {
		if l, err := netlink.LinkByIndex(idx); err == nil {
			return l.Attrs().Name
		}
		return fmt.Sprintf("ifindex %d", idx)
	}
	routes, err := netlink.RouteList(nil, netlink.FAMILY_ALL)
	if err != nil {
		return r, fmt.Errorf("reading this machine's routing table: %w", err)
	}
	for _, rt := range routes {
		if rt.Dst != nil {
			if ones, _ := rt.Dst.Mask.Size(); ones != 0 {
				continue
			}
		}
		hops := []struct {
			idx int
			gw  net.IP
		}{{rt.LinkIndex, rt.Gw}}
		for _, nh := range rt.MultiPath {
			hops = append(hops, struct {
				idx int
				gw  net.IP
			}{nh.LinkIndex, nh.Gw})
		}
		for _, hp := range hops {
			if hp.idx > 0 {
				r.Default = append(r.Default, name(hp.idx))
			}
			if hp.gw != nil {
				r.Gateways = append(r.Gateways, hp.gw)
			}
		}
	}
	if ip := sshClient(sshConnection); ip != nil {
		r.SSHPeer = ip
		if rs, err := netlink.RouteGet(ip); err == nil && len(rs) > 0 && rs[0].LinkIndex > 0 {
			r.SSH = name(rs[0].LinkIndex)
		}
	}
	return r, nil
}

// sshClient is the client address of $SSH_CONNECTION ("client-ip
// client-port server-ip server-port"); nil when it is absent or malformed.
func sshClient(sshConnection string) net.IP {
	f := strings.Fields(sshConnection)
	if len(f) != 4 {
		return nil
	}
	ip := net.ParseIP(strings.TrimPrefix(strings.TrimSuffix(f[0], "]"), "["))
	if ip == nil || ip.IsUnspecified() {
		return nil
	}
	if z := strings.IndexByte(f[0], '%'); z >= 0 {
		return nil // a zoned link-local client: RouteGet can't take the zone
	}
	return ip
}

// thisMachineOf lists the interfaces the changes touch and the changes
// that can cut this machine off: MTU, address and PFC (mlx5 toggles the
// link) on an interface carrying the default route or the SSH session, and
// any new address whose prefix would capture the route to the SSH client
// or a default gateway. When the routes could not be read (routesErr),
// every such change counts.
func thisMachineOf(desired *nics.HostState, changes []plan.Change, r machineRoutes, routesErr error) *plan.ThisMachine {
	tm := &plan.ThisMachine{Interfaces: []string{}}
	changed := map[string]plan.Change{}
	for _, c := range changes {
		changed[c.Address] = c
	}
	carries := func(ifname string) string {
		var why []string
		for _, d := range r.Default {
			if d == ifname {
				why = append(why, "this machine's default route")
				break
			}
		}
		if r.SSH != "" && r.SSH == ifname {
			why = append(why, "the SSH session from "+r.SSHPeer.String())
		}
		if routesErr != nil {
			why = append(why, "perhaps this machine's default route or SSH session (its routes could not be read: "+routesErr.Error()+")")
		}
		return strings.Join(why, " and ")
	}
	captures := func(ifname string, cidrs []string) []string {
		var out []string
		for _, a := range cidrs {
			_, n, err := net.ParseCIDR(a)
			if err != nil {
				continue
			}
			if r.SSHPeer != nil && n.Contains(r.SSHPeer) && r.SSH != ifname {
				out = append(out, fmt.Sprintf("%s: address %s covers the SSH client %s, whose traffic would leave by %s instead of %s", ifname, a, r.SSHPeer, ifname, orNone(r.SSH)))
			}
			for _, gw := range r.Gateways {
				if n.Contains(gw) && !contains(r.Default, ifname) {
					out = append(out, fmt.Sprintf("%s: address %s covers the default gateway %s, which would be reached by %s instead", ifname, a, gw, ifname))
				}
			}
		}
		return out
	}
	seen := map[string]bool{}
	addIf := func(n string) {
		if !seen[n] {
			seen[n] = true
			tm.Interfaces = append(tm.Interfaces, n)
		}
	}
	if desired != nil {
		for _, n := range desired.NICs {
			base := "nic." + n.Netdev
			why := carries(n.Netdev)
			for _, s := range []string{".dcbx", ".pfc", ".trust", ".mtu", ".address"} {
				c, ok := changed[base+s]
				if !ok {
					continue
				}
				addIf(n.Netdev)
				if why == "" {
					continue
				}
				switch s {
				case ".mtu":
					tm.CutOff = append(tm.CutOff, fmt.Sprintf("%s: %s → %s on the interface carrying %s", n.Netdev, c.Before, c.After, why))
				case ".address":
					tm.CutOff = append(tm.CutOff, fmt.Sprintf("%s: address %s added on the interface carrying %s", n.Netdev, c.After, why))
				case ".pfc":
					tm.CutOff = append(tm.CutOff, fmt.Sprintf("%s: PFC change toggles the link (mlx5) of the interface carrying %s", n.Netdev, why))
				}
			}
			if c, ok := changed[base+".address"]; ok {
				tm.CutOff = append(tm.CutOff, captures(n.Netdev, strings.Fields(c.After))...)
			}
			if n.VLAN == nil {
				continue
			}
			if _, ok := changed[fmt.Sprintf("%s.vlan%d", base, n.VLAN.ID)]; !ok {
				continue
			}
			addIf(n.VLAN.Name)
			if why := carries(n.VLAN.Name); why != "" {
				tm.CutOff = append(tm.CutOff, fmt.Sprintf("%s: VLAN device changed (MTU %d, addresses %s) while it carries %s", n.VLAN.Name, n.VLAN.MTU, orNone(strings.Join(n.VLAN.Addresses, " ")), why))
			}
			tm.CutOff = append(tm.CutOff, captures(n.VLAN.Name, n.VLAN.Addresses)...)
		}
	}
	sort.Strings(tm.Interfaces)
	return tm
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// errThisMachine marks a refusal to apply to this machine.
var errThisMachine = errors.New("refused: this machine")

// thisMachineApplyCheck is the provider's own check at apply time, so no
// caller of Apply — roce-apply or another program — changes this machine
// without consent in ctx (plan.WithThisMachineConsent). It re-places the
// host now (a saved plan is a file: the host may have become this machine
// since) and re-reads the routes for the cut-off check.
func thisMachineApplyCheck(ctx context.Context, addr string, h *policies.Host, root string, tp *plan.TargetPlan, desired *nics.HostState, ns nics.NetnsProbe, sshConnection string) error {
	this, err := checkLocalHost(addr, h, root, ns)
	if err != nil {
		return err
	}
	if !this || !tp.HasChanges() {
		return nil
	}
	if tp.ThisMachine == nil {
		return fmt.Errorf("%w: %s is the machine roce runs on, but the plan did not say so; nothing was sent: re-run roce-plan and review it", errThisMachine, addr)
	}
	routes, rerr := routesHere(ctx, h, ns, sshConnection)
	now := *tp
	now.ThisMachine = thisMachineOf(desired, tp.Changes, routes, rerr)
	now.ThisMachine.CutOff = append(now.ThisMachine.CutOff, tp.ThisMachine.CutOff...)
	if why := plan.ThisMachineRefusal(&now, plan.ThisMachineConsentFrom(ctx)); why != "" {
		return fmt.Errorf("%w: %s; nothing was sent", errThisMachine, why)
	}
	return nil
}

// routesHere reads the routes for a host that is this machine. They are
// read in roce's own namespace, which is the host's unless it named PID
// 1's namespace from elsewhere: then every change counts as able to cut
// the machine off.
func routesHere(ctx context.Context, h *policies.Host, ns nics.NetnsProbe, sshConnection string) (machineRoutes, error) {
	if h.Netns != "" {
		named, err1 := ns.Named(h.Netns)
		cur, err2 := ns.Current()
		if err1 != nil || err2 != nil || named != cur {
			return machineRoutes{}, fmt.Errorf("namespace %s is not the one roce runs in", h.Netns)
		}
	}
	return readMachineRoutes(ctx, sshConnection)
}

// markThisMachine sets tp.ThisMachine when the host is the machine roce
// runs on (called by Plan once the changes are known).
func (t *Target) markThisMachine(ctx context.Context, tp *plan.TargetPlan, desired *nics.HostState) error {
	ns := nics.HostNetns{}
	this, err := checkLocalHost(t.Address(), t.h, hostRoot(t.fab, t.h), ns)
	if err != nil || !this {
		return err
	}
	routes, rerr := routesHere(ctx, t.h, ns, os.Getenv("SSH_CONNECTION"))
	tp.ThisMachine = thisMachineOf(desired, tp.Changes, routes, rerr)
	return nil
}

// checkThisMachineApply is Apply's consent check (thisMachineApplyCheck).
func (t *Target) checkThisMachineApply(ctx context.Context, tp *plan.TargetPlan, desired *nics.HostState) error {
	return thisMachineApplyCheck(ctx, t.Address(), t.h, hostRoot(t.fab, t.h), tp, desired, nics.HostNetns{}, os.Getenv("SSH_CONNECTION"))
}
