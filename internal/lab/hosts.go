package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/verify"
)

// hostNet is the lab's host side: one namespace per host, each with a veth
// whose peer sits on a bridge in a shared "fabric" namespace, so hosts can
// reach each other as if cabled to one switch.
type hostNet struct {
	bridge string            // namespace holding the bridge ("" when simulated)
	netns  map[string]string // host name → namespace
	roots  map[string]string // host name → its tree (removed on close)
	state  string            // the lab's state directory
}

// startHosts creates the namespaces and seeds every host's root tree with a
// simulated RDMA device (nics.SeedLab), which also marks the tree as a lab
// host so the agent's lab-only emulation can be used there and nowhere else.
func startHosts(ctx context.Context, dir, id string, fab *policies.Fabric, topo *Topology, namespaces bool) (hn *hostNet, err error) {
	hn = &hostNet{netns: map[string]string{}, roots: map[string]string{}, state: filepath.Join(dir, StateDir)}
	defer func() {
		if err != nil {
			_ = hn.close()
		}
	}()
	if namespaces {
		hn.bridge = "roce-" + id + "-fabric"
		if err := ip(ctx, "netns", "add", hn.bridge); err != nil {
			return nil, err
		}
		if err := ip(ctx, "-n", hn.bridge, "link", "add", "br0", "type", "bridge"); err != nil {
			return nil, err
		}
		if err := ip(ctx, "-n", hn.bridge, "link", "set", "br0", "up"); err != nil {
			return nil, err
		}
	}
	for i, h := range fab.Hosts {
		root := h.Root
		if root == "" {
			return nil, fmt.Errorf("host %s: the lab needs a root (a directory under the lab) for the simulated RDMA device", h.Name)
		}
		if !filepath.IsAbs(root) {
			root = filepath.Join(dir, root)
		}
		if !within(root, hn.state) {
			return nil, fmt.Errorf("host %s: root %s is outside the lab's %s; lab hosts must live there", h.Name, root, hn.state)
		}
		// A new lab starts with new hosts: an earlier lab's emulated NIC
		// state must not leak in.
		if err := os.RemoveAll(root); err != nil {
			return nil, fmt.Errorf("host %s: clearing the previous lab's tree: %w", h.Name, err)
		}
		hn.roots[h.Name] = root
		if namespaces {
			if err := hn.addNamespace(ctx, id, i, h); err != nil {
				return nil, err
			}
		}
		spec := labSpec(h, topo.Hosts[h.Name])
		spec.EmulatedLinks = !namespaces // no namespace: nothing may reach a real interface
		spec.Netns = hn.netns[h.Name]    // the only namespace its real netdevs may be reached from
		if err := nics.SeedLab(root, spec); err != nil {
			return nil, fmt.Errorf("host %s: seeding its simulated RDMA device: %w", h.Name, err)
		}
		if err := writeBackground(root, topo.Hosts[h.Name]); err != nil {
			return nil, fmt.Errorf("host %s: %w", h.Name, err)
		}
	}
	return hn, nil
}

// addNamespace creates host h's namespace with one veth per NIC, cabled to
// the lab bridge.
func (hn *hostNet) addNamespace(ctx context.Context, id string, i int, h *policies.Host) error {
	ns := "roce-" + id + "-" + h.Name
	if err := ip(ctx, "netns", "add", ns); err != nil {
		return err
	}
	hn.netns[h.Name] = ns
	if err := ip(ctx, "-n", ns, "link", "set", "lo", "up"); err != nil {
		return err
	}
	peer := fmt.Sprintf("rl%s%d", id, i) // on the bridge; ≤ 15 characters
	for _, nic := range h.NICs {
		if err := ip(ctx, "link", "add", peer, "netns", hn.bridge, "type", "veth", "peer", "name", nic.Netdev, "netns", ns); err != nil {
			return fmt.Errorf("host %s: creating %s: %w", h.Name, nic.Netdev, err)
		}
		if err := ip(ctx, "-n", hn.bridge, "link", "set", peer, "master", "br0", "up"); err != nil {
			return err
		}
		// The bridge side carries jumbo frames like a lossless switch port.
		_ = ip(ctx, "-n", hn.bridge, "link", "set", peer, "mtu", "9216")
		if err := ip(ctx, "-n", ns, "link", "set", nic.Netdev, "up"); err != nil {
			return err
		}
		peer += "b"
	}
	return nil
}

func (hn *hostNet) close() error {
	var errs []error
	ctx := context.Background()
	for _, ns := range hn.netns {
		if err := ip(ctx, "netns", "del", ns); err != nil && !strings.Contains(err.Error(), "No such file") {
			errs = append(errs, err)
		}
	}
	if hn.bridge != "" {
		if err := ip(ctx, "netns", "del", hn.bridge); err != nil && !strings.Contains(err.Error(), "No such file") {
			errs = append(errs, err)
		}
	}
	// Host trees go with the lab: a lab marker left behind must never make
	// a later run treat a stale tree as a live lab host.
	for _, root := range hn.roots {
		if within(root, hn.state) {
			errs = append(errs, os.RemoveAll(root))
		}
	}
	return errors.Join(errs...)
}

// DeleteNamespaces removes a lab's namespaces by state (roce-lab down after
// the lab process died without cleaning up).
func DeleteNamespaces(st *State) error {
	hn := &hostNet{bridge: st.Bridge, netns: st.Netns}
	if st.Bridge == "" && len(st.Netns) == 0 {
		return nil
	}
	return hn.close()
}

func ip(ctx context.Context, args ...string) error {
	out, err := exec.CommandContext(ctx, "ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// within reports whether path lies strictly inside dir.
func within(path, dir string) bool {
	p, err1 := filepath.Abs(path)
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel)
}

// IsRoot reports whether the lab can create namespaces.
func IsRoot() bool { return os.Geteuid() == 0 }

// labSpec describes a lab host's simulated RDMA device from its policy NICs:
// the GID table holds the policy address on the VLAN device (or the netdev).
func labSpec(h *policies.Host, sim HostSim) nics.LabSpec {
	var spec nics.LabSpec
	for _, n := range h.NICs {
		ln := nics.LabNIC{Netdev: n.Netdev, RDMADevice: n.RDMADevice, FWVer: sim.FWVersion}
		if ln.RDMADevice == "" {
			ln.RDMADevice = sim.RDMADevice
		}
		if sim.RateGbps > 0 {
			ln.Rate = nics.FormatRateGbps(sim.RateGbps)
		}
		if n.Address != "" {
			dev := n.Netdev
			if n.VLAN > 0 {
				dev = nics.VLANName(n.Netdev, n.VLAN)
			}
			ln.GIDs = append(ln.GIDs, nics.LabGID{Netdev: dev, IP: n.Address})
		}
		spec.NICs = append(spec.NICs, ln)
	}
	return spec
}

// writeBackground declares the lab's background load toward a host for
// the emulated RDMA path (verify.LabBackgroundFile): lab.json's
// background_load, a share of the link between 0 and 1.
func writeBackground(root string, sim HostSim) error {
	if sim.BackgroundLoad == 0 {
		return nil
	}
	if sim.BackgroundLoad < 0 || sim.BackgroundLoad > 1 {
		return fmt.Errorf("lab.json: background_load %g is not a share of the link between 0 and 1", sim.BackgroundLoad)
	}
	return os.WriteFile(filepath.Join(root, verify.LabBackgroundFile), []byte(strconv.FormatFloat(sim.BackgroundLoad, 'g', -1, 64)+"\n"), 0o644)
}
