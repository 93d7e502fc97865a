package nxsim

import (
	"fmt"
	"strings"

	"github.com/rocefabric/roce/nexus"
)

func (sw *Switch) showVersion() string {
	sw.mu.Lock() // an upgrade changes the version (upgrade.go)
	defer sw.mu.Unlock()
	return nexus.FormatShowVersionReport(sw.versionReport())
}

func (sw *Switch) showModule() string { return nexus.FormatShowModule(sw.modules) }

// showPFC prints `show interface priority-flow-control` for every port.
func (sw *Switch) showPFC() string {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return nexus.FormatShowPFC(sw.pfcRows(sw.cfg))
}

// showQueuing prints `show queuing interface [LIST]`; no list means every
// port. A Nexus 5000 prints its layout; a 7000 the simulator's notice that
// it has none to print (queuing7000Notice).
func (sw *Switch) showQueuing(list string) (string, error) {
	names := sw.interfaces
	if list != "" {
		var err error
		if names, err = sw.expandInterfaces(list); err != nil {
			return "", err
		}
	}
	if sw.platform.Is7000() {
		return queuing7000Notice, nil
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	bits := noDropCoS(sw.cfg)
	ifs := make([]nexus.QueuingInterface, 0, len(names))
	for _, n := range names {
		ifs = append(ifs, sw.queuing(sw.cfg, n, bits))
	}
	return nexus.FormatShowQueuing(ifs), nil
}

// showPolicyMapInterface prints `show policy-map interface [LIST] [input|
// output] [type T]` from the configuration: per port the service-policies
// in effect — the port's own `service-policy` lines, and those under
// `system qos` for a type and direction the port does not set itself —
// with each policy's classes and configured actions. Queuing classes carry
// the per-queue counters a switch prints, at zero (docs/nxos.md, "show
// policy-map interface").
func (sw *Switch) showPolicyMapInterface(args []string) (string, error) {
	typ, dir, list, err := policyMapInterfaceArgs(args)
	if err != nil {
		return "", err
	}
	names := sw.interfaces
	if list != "" {
		if names, err = sw.expandInterfaces(list); err != nil {
			return "", err
		}
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	var system []nexus.ServicePolicy
	if sq := sw.cfg.SystemQoS(); sq != nil {
		system = servicePolicies(sq.Lines)
	}
	ifs := make([]nexus.PolicyMapInterface, 0, len(names))
	for _, n := range names {
		var own []nexus.ServicePolicy
		if o := sw.cfg.Interface(n); o != nil {
			own = servicePolicies(o.Lines)
		}
		ifc := nexus.PolicyMapInterface{Interface: n}
		for _, sp := range effectivePolicies(own, system) {
			if (typ != "" && sp.Type != typ) || (dir != "" && sp.Direction != dir) {
				continue
			}
			p, err := sw.attachedPolicy(sp)
			if err != nil {
				return "", err
			}
			ifc.Policies = append(ifc.Policies, p)
		}
		ifs = append(ifs, ifc)
	}
	return nexus.FormatShowPolicyMapInterface(ifs), nil
}

// policyMapInterfaceArgs splits the words after `show policy-map
// interface`: an optional trailing `type T`, an optional input|output, and
// the interface list before them.
func policyMapInterfaceArgs(args []string) (typ, dir, list string, err error) {
	var f []string
	if len(args) > 0 {
		f = strings.Fields(args[0])
	}
	if n := len(f); n >= 2 && f[n-2] == "type" {
		typ, f = f[n-1], f[:n-2]
		if typ != nexus.TypeQoS && typ != nexus.TypeQueuing && typ != nexus.TypeNetworkQoS {
			return "", "", "", fmt.Errorf("ERROR: type %q: want qos, queuing or network-qos", typ)
		}
	}
	if n := len(f); n >= 1 && (f[n-1] == "input" || f[n-1] == "output") {
		dir, f = f[n-1], f[:n-1]
	}
	return typ, dir, strings.Join(f, " "), nil
}

// servicePolicies reads the `service-policy type T [input|output] NAME`
// lines of a block.
func servicePolicies(lines []string) []nexus.ServicePolicy {
	var out []nexus.ServicePolicy
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) == 5 && f[0] == "service-policy" && f[1] == "type":
			out = append(out, nexus.ServicePolicy{Type: f[2], Direction: f[3], Name: f[4]})
		case len(f) == 4 && f[0] == "service-policy" && f[1] == "type":
			out = append(out, nexus.ServicePolicy{Type: f[2], Name: f[3]})
		}
	}
	return out
}

// effectivePolicies is the port's own policies, then the system ones of a
// type and direction the port does not set.
func effectivePolicies(own, system []nexus.ServicePolicy) []nexus.ServicePolicy {
	out := append([]nexus.ServicePolicy(nil), own...)
	for _, s := range system {
		overridden := false
		for _, o := range own {
			if o.Type == s.Type && o.Direction == s.Direction {
				overridden = true
			}
		}
		if !overridden {
			out = append(out, s)
		}
	}
	return out
}

// attachedPolicy is one Service-policy block: the policy-map's classes
// with their match type and actions. The caller holds sw.mu.
func (sw *Switch) attachedPolicy(sp nexus.ServicePolicy) (nexus.AttachedPolicy, error) {
	p := nexus.AttachedPolicy{Type: sp.Type, Direction: sp.Direction, Name: sp.Name}
	pm := sw.cfg.PolicyMap(sp.Type, sp.Name)
	if pm == nil {
		return p, nil
	}
	for _, c := range pm.Classes {
		match := "match-any"
		if cm := sw.cfg.ClassMap(sp.Type, c.Name); cm != nil {
			match = classMapMatch(cm)
		}
		lines := c.Actions
		if sp.Type == nexus.TypeQueuing {
			lines = append(append([]string(nil), lines...), "queue dropped pkts : 0", "queue depth in bytes : 0")
		}
		cs, err := nexus.ClassStatsFromLines(c.Name, match, lines)
		if err != nil {
			return p, fmt.Errorf("ERROR: policy-map %s: %w", sp.Name, err)
		}
		p.Classes = append(p.Classes, cs)
	}
	return p, nil
}
