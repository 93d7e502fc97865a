package profiles

import (
	"fmt"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// srlProfile renders SR Linux native qos (reference/gnmi.md §2.4,
// srl_nokia-qos.yang): a PFC mapping profile whose pfc-queue N takes the
// class's dot1p values or forwarding class, per-interface pfc-enable, and a
// DSCP classifier policy for DSCP classes. Native paths have no config/.
type srlProfile struct {
	origin string
}

const (
	srlPFCProfile = Prefix + "PFC"
	srlDSCPPolicy = Prefix + "DSCP"
)

func (p *srlProfile) Name() string { return policies.ProfileSRLinux }

func (p *srlProfile) Models() []string { return []string{"srl_nokia-qos", "srl_nokia-interfaces"} }

var srlKeys = keyTable{
	"interface": {"name"},
	"qos/forwarding-classes/forwarding-class":                            {"name"},
	"qos/queues/pfc-queue":                                               {"pfc-queue-name"},
	"qos/classifiers/dscp-policy":                                        {"name"},
	"qos/classifiers/dscp-policy/dscp":                                   {"value"},
	"qos/pfc-mapping-profile":                                            {"name"},
	"qos/pfc-mapping-profile/received-traffic/unicast-mapping/pfc-queue": {"pfc-queue-name"},
	"qos/interfaces/interface":                                           {"interface-id"},
}

func (p *srlProfile) KeysOf(names []string) []string { return srlKeys.keysOf(names) }

func (p *srlProfile) VersionPath() (string, string) { return p.origin, "/system/information/version" }

func (p *srlProfile) PauseCounters(iface string) (string, []string, []string) {
	b := "/interface[name=" + gpath.EscapeKey(iface) + "]/ethernet/statistics/"
	return p.origin, []string{b + "in-mac-pause-frames"}, []string{b + "out-mac-pause-frames"}
}

func (p *srlProfile) Collections(ifaces []string) []Collection {
	cs := []Collection{
		{Origin: p.origin, Container: "/qos/classifiers", List: "dscp-policy", Key: "name"},
		{Origin: p.origin, Container: "/qos", List: "pfc-mapping-profile", Key: "name"},
	}
	for _, i := range ifaces {
		q := "/qos/interfaces/interface[interface-id=" + gpath.EscapeKey(i) + "]"
		cs = append(cs,
			Collection{Origin: p.origin, Container: q, OwnLeaves: []string{"pfc/pfc-mapping-profile", "input/classifiers/ipv4-dscp-policy"}},
		)
	}
	return cs
}

func (p *srlProfile) Render(in Input) (*Desired, error) {
	const kind = "gnmi/srlinux"
	if err := checkCommon(kind, in, 1500, 9412); err != nil {
		return nil, err
	}
	d := &Desired{}
	if len(in.Classes) == 0 {
		return d, nil
	}
	var queues, dscps []any
	seenQ := map[int]map[string]any{}
	for _, c := range sortedByPriority(in.Classes) {
		if c.ECN != nil {
			return nil, fmt.Errorf("%s: class %s asks for ECN, which this profile does not model (SR Linux WRED slopes are keyed by traffic type and drop probability); remove ecn for this switch", kind, c.Name)
		}
		q, ok := seenQ[c.Priority]
		if !ok {
			q = map[string]any{
				"pfc-queue-name":           fmt.Sprintf("pfc%d", c.Priority),
				"pfc-pause-frame-priority": c.Priority,
				"enable-pfc":               true,
			}
			seenQ[c.Priority] = q
			queues = append(queues, q)
		}
		switch c.Match.Kind {
		case policies.MatchCoS:
			q["dot1p"] = ints(c.Match.CoS)
		case policies.MatchDSCP, policies.MatchUDPPort:
			ds, warn, err := dscpsOf(kind, c)
			if err != nil {
				return nil, err
			}
			if warn != "" {
				d.Warnings = append(d.Warnings, warn)
			}
			fc := fmt.Sprintf("fc%d", c.Priority)
			q["forwarding-class"] = []any{fc}
			for _, v := range ds {
				dscps = append(dscps, map[string]any{"value": v, "forwarding-class": fc})
			}
		default:
			return nil, fmt.Errorf("%s: class %s: match %q is not expressible; SR Linux PFC maps dot1p values or forwarding classes", kind, c.Name, c.Match.Kind)
		}
	}
	pmp := map[string]any{
		"name":             srlPFCProfile,
		"received-traffic": map[string]any{"unicast-mapping": map[string]any{"pfc-queue": queues}},
	}
	if wd := watchdogOf(in.Classes); wd != nil {
		if wd.DetectionMS < 10 || wd.DetectionMS > 1500 || wd.RestorationMS < 100 || wd.RestorationMS > 1500 {
			return nil, fmt.Errorf("%s: PFC watchdog detection %dms / restoration %dms: SR Linux deadlock timers take 10-1500 / 100-1500 ms", kind, wd.DetectionMS, wd.RestorationMS)
		}
		if wd.Action != "drop" {
			return nil, fmt.Errorf("%s: PFC watchdog action %q: SR Linux deadlock recovery only ignores pause (drop)", kind, wd.Action)
		}
		pmp["received-pfc-pause-frames"] = map[string]any{"deadlock": map[string]any{
			"enable": true, "detection-timer": wd.DetectionMS, "recovery-timer": wd.RestorationMS,
		}}
	}
	d.add(Entry, p.origin, "/qos/pfc-mapping-profile[name="+srlPFCProfile+"]", pmp, plan.DisruptionBrief)
	if len(dscps) > 0 {
		d.add(Entry, p.origin, "/qos/classifiers/dscp-policy[name="+srlDSCPPolicy+"]", map[string]any{
			"name": srlDSCPPolicy, "dscp": dscps,
		}, plan.DisruptionBrief)
	}
	mtu := classMTU(in.Classes)
	for _, ifc := range in.Interfaces {
		k := gpath.EscapeKey(ifc)
		if mtu > 0 {
			d.add(Merge, p.origin, "/interface[name="+k+"]", map[string]any{"name": ifc, "mtu": mtu}, plan.DisruptionLink)
		}
		qi := map[string]any{
			"interface-id":  ifc,
			"interface-ref": map[string]any{"interface": ifc},
			"pfc":           map[string]any{"pfc-enable": true, "pfc-mapping-profile": srlPFCProfile},
		}
		if len(dscps) > 0 {
			qi["input"] = map[string]any{"classifiers": map[string]any{"ipv4-dscp-policy": srlDSCPPolicy}}
		}
		d.add(Merge, p.origin, "/qos/interfaces/interface[interface-id="+k+"]", qi, plan.DisruptionLink)
	}
	return d, nil
}
