package policies

import (
	"fmt"
	"strconv"

	"github.com/rocefabric/roce/platforms"
)

// validateNames applies the per-platform name rules of package platforms
// to every name the policy sends to a device or puts in a path: switch and
// host names, class names, switch interfaces, NIC netdevs, their VLAN
// devices and RDMA devices. Plan and the providers use the same rules, so
// a name validate accepts is never refused later (and one it refuses never
// reaches a device).
func (l *loader) validateNames(f *Fabric) {
	for _, c := range f.Lossless {
		if err := platforms.CheckClassName(c.Name); err != nil {
			l.diags = append(l.diags, errorDiag(c.DeclRange, "Invalid class name", fmt.Sprintf("lossless %q: %v.", c.Name, err)))
		}
	}
	for _, sw := range f.Switches {
		if err := platforms.CheckTargetName(sw.Name); err != nil {
			l.diags = append(l.diags, errorDiag(sw.DeclRange, "Invalid switch name", fmt.Sprintf("switch %s: %v.", strconv.Quote(clip(sw.Name)), err)))
		}
		if sw.VDC != "" {
			if err := platforms.CheckVDCName(sw.VDC); err != nil {
				l.diags = append(l.diags, errorDiag(l.at(sw, "vdc", sw.DeclRange), "Invalid VDC name", fmt.Sprintf("switch %q: %v.", sw.Name, err)))
			}
		}
		kind := capsKey(sw)
		for _, ifc := range sw.Interfaces {
			if err := platforms.CheckInterfaceName(kind, ifc); err != nil {
				l.diags = append(l.diags, errorDiag(l.at(sw, "interfaces", sw.DeclRange), "Invalid interface name",
					fmt.Sprintf("switch %q: %v.", sw.Name, err)))
				break // one per switch: the rest are usually the same mistake
			}
		}
	}
	for _, h := range f.Hosts {
		if err := platforms.CheckTargetName(h.Name); err != nil {
			l.diags = append(l.diags, errorDiag(h.DeclRange, "Invalid host name", fmt.Sprintf("host %s: %v.", strconv.Quote(clip(h.Name)), err)))
		}
		for _, n := range h.NICs {
			what := fmt.Sprintf("host %q nic %s", h.Name, strconv.Quote(clip(n.Netdev)))
			if err := platforms.CheckNetdevName(n.Netdev); err != nil {
				l.diags = append(l.diags, errorDiag(n.DeclRange, "Invalid network device name", fmt.Sprintf("%s: %v.", what, err)))
			} else if n.VLAN > 0 {
				vlanDev := n.Netdev + "." + strconv.Itoa(n.VLAN)
				if err := platforms.CheckNetdevName(vlanDev); err != nil {
					l.diags = append(l.diags, errorDiag(l.at(n, "vlan", n.DeclRange), "VLAN device name too long",
						fmt.Sprintf("%s: the VLAN device roce creates is named %s: %v. Rename the parent netdev (udev) or use a shorter one.", what, vlanDev, err)))
				}
			}
			if n.RDMADevice != "" {
				if err := platforms.CheckRDMADeviceName(n.RDMADevice); err != nil {
					l.diags = append(l.diags, errorDiag(l.at(n, "rdma_device", n.DeclRange), "Invalid RDMA device name", fmt.Sprintf("%s: %v.", what, err)))
				}
			}
		}
	}
}

// clip shortens a hostile name for a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
