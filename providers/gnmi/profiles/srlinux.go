package profiles

import (
	"fmt"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// srlProfile renders SR Linux native qos (srl_nokia-qos.yang, v25.3.1, on
// a platform with the qos-pfc-xgs feature: 7220 IXR): a PFC mapping
// profile whose pfc-queue N takes the class's dot1p values or forwarding
// class (PFC generation), whose received-pfc-pause-frames/queue makes the
// egress queue of priority N react to received pause frames, and the
// deadlock timers; per port, pfc-enable and the profile; per routed
// subinterface <port>.0, the DSCP classifier (the model allows classifiers
// on subinterfaces only and PFC on ports only). Native paths have no
// config/. enable-pfc under received-traffic is not written: it is behind
// if-feature future-0-0, which no released image has.
type srlProfile struct {
	origin string
}

const (
	srlPFCProfile = Prefix + "PFC"
	srlDSCPPolicy = Prefix + "DSCP"
	// srlSubinterface is the routed subinterface of each port the DSCP
	// classifier is attached to.
	srlSubinterface = 0
)

// SRLinuxEgressQueue is the system-reserved name of the egress queue with
// index n (the default forwarding class fc<n> uses it): "unicast-<n>".
func SRLinuxEgressQueue(n int) string { return fmt.Sprintf("unicast-%d", n) }

// srlSubinterfaceID is the qos interface-id of a port's subinterface.
func srlSubinterfaceID(port string) string { return fmt.Sprintf("%s.%d", port, srlSubinterface) }

func (p *srlProfile) Name() string { return policies.ProfileSRLinux }

// Models: SR Linux advertises its modules as "urn:srl_nokia/qos:srl_nokia-qos",
// organization Nokia, version the module's revision date
// (srl-labs/learn-srlinux docs/get-started.md, gnmic capabilities); the
// pinned release is v25.3.1, revision 2025-03-31.
func (p *srlProfile) Models() []Model {
	return []Model{{"srl_nokia-qos", "Nokia", "2025-03-31"}, {"srl_nokia-interfaces", "Nokia", "2025-03-31"}}
}

var srlKeys = keyTable{
	"interface":                               {"name"},
	"interface/subinterface":                  {"index"},
	"qos/queues/queue":                        {"name"},
	"qos/forwarding-classes/forwarding-class": {"name"},
	"qos/queues/pfc-queue":                    {"pfc-queue-name"},
	"qos/classifiers/dscp-policy":             {"name"},
	"qos/classifiers/dscp-policy/dscp":        {"value"},
	"qos/pfc-mapping-profile":                 {"name"},
	"qos/pfc-mapping-profile/received-traffic/unicast-mapping/pfc-queue": {"pfc-queue-name"},
	"qos/pfc-mapping-profile/received-pfc-pause-frames/queue":            {"queue-name"},
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
		sq := "/qos/interfaces/interface[interface-id=" + gpath.EscapeKey(srlSubinterfaceID(i)) + "]"
		cs = append(cs,
			Collection{Origin: p.origin, Container: q, OwnLeaves: []string{"pfc/pfc-mapping-profile"}},
			Collection{Origin: p.origin, Container: sq, OwnLeaves: []string{"input/classifiers/ipv4-dscp-policy"}},
		)
	}
	return cs
}

func (p *srlProfile) Render(in Input) (*Desired, error) {
	const kind = "gnmi/srlinux"
	if err := checkCommon(kind, in); err != nil {
		return nil, err
	}
	d := &Desired{}
	if len(in.Classes) == 0 {
		return d, nil
	}
	var queues, pauseQueues, dscps []any
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
			}
			seenQ[c.Priority] = q
			queues = append(queues, q)
			pauseQueues = append(pauseQueues, map[string]any{
				"queue-name": SRLinuxEgressQueue(c.Priority), "pfc-pause-frame-priority": c.Priority, "enable-pfc": true,
			})
		}
		switch c.Match.Kind {
		case policies.MatchCoS:
			q["dot1p"] = ints(c.Match.CoS)
		case policies.MatchDSCP, policies.MatchUDPPort:
			ds, err := dscpsOf(kind, c)
			if err != nil {
				return nil, err
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
	received := map[string]any{"queue": pauseQueues}
	pmp := map[string]any{
		"name":                      srlPFCProfile,
		"received-traffic":          map[string]any{"unicast-mapping": map[string]any{"pfc-queue": queues}},
		"received-pfc-pause-frames": received,
	}
	if wd := watchdogOf(in.Classes); wd != nil {
		if err := CheckSRLinuxWatchdog(wd); err != nil {
			return nil, err // names gnmi/srlinux
		}
		received["deadlock"] = map[string]any{
			"enable": true, "detection-timer": wd.DetectionMS, "recovery-timer": wd.RestorationMS,
		}
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
		d.add(Merge, p.origin, "/qos/interfaces/interface[interface-id="+k+"]", qi, plan.DisruptionLink)
		if len(dscps) > 0 {
			sub := srlSubinterfaceID(ifc)
			d.add(Merge, p.origin, "/qos/interfaces/interface[interface-id="+gpath.EscapeKey(sub)+"]", map[string]any{
				"interface-id":  sub,
				"interface-ref": map[string]any{"interface": ifc, "subinterface": srlSubinterface},
				"input":         map[string]any{"classifiers": map[string]any{"ipv4-dscp-policy": srlDSCPPolicy}},
			}, plan.DisruptionBrief)
		}
	}
	return d, nil
}

// CheckSRLinuxWatchdog refuses a PFC watchdog SR Linux's deadlock
// recovery cannot express (detection-timer 10-1500 ms, recovery-timer
// 100-1500 ms, and only drop: the queue ignores pause frames for the
// recovery time): the gnmi/srlinux row of the capability table.
func CheckSRLinuxWatchdog(wd *policies.PFCWatchdog) error {
	return checkWatchdog(policies.ProfileSRLinux, wd)
}
