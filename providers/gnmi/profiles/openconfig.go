package profiles

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// ocProfile renders upstream OpenConfig QoS (openconfig-qos) and, for
// arista, the arista-qos-augments leaves (docs/gnmi-profiles.md).
type ocProfile struct {
	arista bool
	s      Settings
}

const (
	ocOrigin     = "openconfig"
	augment      = "arista-qos-augments:"
	ocClassifier = Prefix + "IPV4" // one IPV4 classifier: the binding is one per type
	ocScheduler  = Prefix + "SCHED"
)

func (p *ocProfile) Name() string {
	if p.arista {
		return policies.ProfileArista
	}
	return policies.ProfileOpenConfig
}

func (p *ocProfile) kind() string { return "gnmi/" + p.Name() }

// Models: the openconfig-version of the pinned files (openconfig/public at
// 94f58962 for openconfig; aristanetworks/yang EOS-4.36.1F for arista,
// whose openconfig-qos is Arista's older 2.0.1).
func (p *ocProfile) Models() []Model {
	const oc = "OpenConfig working group"
	if p.arista {
		return []Model{
			{"openconfig-interfaces", oc, "3.8.1"}, {"openconfig-qos", oc, "2.0.1"},
			{"arista-qos-augments", "Arista Networks, Inc.", "0.0.4"},
		}
	}
	return []Model{{"openconfig-interfaces", oc, "3.8.1"}, {"openconfig-qos", oc, "2.2.0"}}
}

var ocKeys = keyTable{
	"interfaces/interface":                                                      {"name"},
	"qos/classifiers/classifier":                                                {"name"},
	"qos/classifiers/classifier/terms/term":                                     {"id"},
	"qos/forwarding-groups/forwarding-group":                                    {"name"},
	"qos/queues/queue":                                                          {"name"},
	"qos/scheduler-policies/scheduler-policy":                                   {"name"},
	"qos/scheduler-policies/scheduler-policy/schedulers/scheduler":              {"sequence"},
	"qos/scheduler-policies/scheduler-policy/schedulers/scheduler/inputs/input": {"id"},
	"qos/queue-management-profiles/queue-management-profile":                    {"name"},
	"qos/interfaces/interface":                                                  {"interface-id"},
	"qos/interfaces/interface/input/classifiers/classifier":                     {"type"},
	"qos/interfaces/interface/output/queues/queue":                              {"name"},
}

func (p *ocProfile) KeysOf(names []string) []string { return ocKeys.keysOf(names) }

func (p *ocProfile) VersionPath() (string, string) { return ocOrigin, "/system/state/software-version" }

func (p *ocProfile) PauseCounters(iface string) (string, []string, []string) {
	b := "/interfaces/interface[name=" + gpath.EscapeKey(iface) + "]/ethernet/state/counters/"
	return ocOrigin, []string{b + "in-mac-pause-frames"}, []string{b + "out-mac-pause-frames"}
}

func (p *ocProfile) Collections(ifaces []string) []Collection {
	cs := []Collection{
		{Origin: ocOrigin, Container: "/qos/classifiers", List: "classifier", Key: "name"},
		{Origin: ocOrigin, Container: "/qos/forwarding-groups", List: "forwarding-group", Key: "name"},
		{Origin: ocOrigin, Container: "/qos/queues", List: "queue", Key: "name"},
		{Origin: ocOrigin, Container: "/qos/scheduler-policies", List: "scheduler-policy", Key: "name"},
		{Origin: ocOrigin, Container: "/qos/queue-management-profiles", List: "queue-management-profile", Key: "name"},
	}
	for _, i := range ifaces {
		q := "/qos/interfaces/interface[interface-id=" + gpath.EscapeKey(i) + "]"
		cs = append(cs,
			Collection{Origin: ocOrigin, Container: q + "/input/classifiers", List: "classifier", Key: "type", OwnLeaves: []string{"config/name"}},
			Collection{Origin: ocOrigin, Container: q + "/output/queues", List: "queue", Key: "name"},
			Collection{Origin: ocOrigin, Container: q + "/output/scheduler-policy", OwnLeaves: []string{"config/name"}},
		)
	}
	return cs
}

func (p *ocProfile) Render(in Input) (*Desired, error) {
	if err := checkCommon(p.kind(), in); err != nil {
		return nil, err
	}
	if !p.arista && len(in.Classes) > 0 {
		c := in.Classes[0]
		caps, _ := capsOf(p.kind())
		return nil, fmt.Errorf("gnmi/openconfig: switch %s: class %s is lossless, and upstream OpenConfig has no PFC model: it cannot express %s. "+
			"It can express only %s, and a class without its no-drop pause is not lossless, so nothing is rendered. "+
			"Use profile arista, sonic or srlinux for this switch (their vendor models add PFC)", in.Switch, c.Name, strings.Join(caps.CannotExpress, ", "), caps.CanExpress)
	}
	return p.render(in)
}

// OpenConfigCannotExpress lists the parts of a lossless class that upstream
// OpenConfig (openconfig-qos 2.2.0) has no leaves for. The gnmi/openconfig
// row of the capability table holds the list, which validation names too.
func OpenConfigCannotExpress() []string {
	caps, _ := capsOf("gnmi/" + policies.ProfileOpenConfig)
	return append([]string(nil), caps.CannotExpress...)
}

// render builds the objects; Render has refused what the profile cannot
// express. Kept separate so the plain OpenConfig rendering is testable.
func (p *ocProfile) render(in Input) (*Desired, error) {
	d := &Desired{}
	if len(in.Classes) == 0 {
		return d, nil
	}
	var terms []any
	needSched := false
	for _, c := range in.Classes {
		q := Prefix + c.Name
		// Queue and forwarding group: one per class. queue-id = priority
		// on upstream OpenConfig; Arista's not-supported deviations remove
		// queue-id (arista-qos-notsupported-deviations, EOS-4.36.1F).
		qcfg := map[string]any{"name": q}
		if !p.arista {
			qcfg["queue-id"] = c.Priority
		}
		queue := map[string]any{"name": q, "config": qcfg}
		if p.arista {
			if c.BandwidthPercent > 0 {
				qcfg[augment+"bandwidth"] = c.BandwidthPercent
			}
			if e := c.ECN; e != nil {
				queue[augment+"ecn"] = map[string]any{"config": map[string]any{
					"min-threshold": e.MinThresholdKB, "max-threshold": e.MaxThresholdKB,
					"threshold-unit": "KILOBYTES", "max-drop-rate": e.Probability,
				}}
			}
		} else if c.BandwidthPercent > 0 {
			needSched = true
		}
		d.add(Entry, ocOrigin, "/qos/queues/queue[name="+gpath.EscapeKey(q)+"]", queue, plan.DisruptionBrief)
		d.add(Entry, ocOrigin, "/qos/forwarding-groups/forwarding-group[name="+gpath.EscapeKey(q)+"]", map[string]any{
			"name": q, "config": map[string]any{"name": q, "output-queue": q},
		}, plan.DisruptionBrief)
		if !p.arista && c.ECN != nil {
			e := c.ECN
			qmp := q + "-ECN"
			d.add(Entry, ocOrigin, "/qos/queue-management-profiles/queue-management-profile[name="+gpath.EscapeKey(qmp)+"]", map[string]any{
				"name": qmp, "config": map[string]any{"name": qmp},
				"wred": map[string]any{"uniform": map[string]any{"config": map[string]any{
					"min-threshold": strconv.Itoa(e.MinThresholdKB * 1024), "max-threshold": strconv.Itoa(e.MaxThresholdKB * 1024),
					"max-drop-probability-percent": e.Probability, "enable-ecn": true, "drop": false,
				}}},
			}, plan.DisruptionNone)
		}
		term, warn, err := p.term(c)
		if err != nil {
			return nil, err
		}
		if warn != "" {
			d.Warnings = append(d.Warnings, warn)
		}
		if term != nil {
			terms = append(terms, term)
		}
	}
	if len(terms) > 0 {
		d.add(Entry, ocOrigin, "/qos/classifiers/classifier[name="+ocClassifier+"]", map[string]any{
			"name": ocClassifier, "config": map[string]any{"name": ocClassifier, "type": "IPV4"},
			"terms": map[string]any{"term": terms},
		}, plan.DisruptionBrief)
	}
	if needSched {
		var scheds []any
		for i, c := range in.Classes {
			q := Prefix + c.Name
			s := map[string]any{
				"sequence": i + 1,
				"config":   map[string]any{"sequence": i + 1, "type": "openconfig-qos-types:ONE_RATE_TWO_COLOR"},
				"inputs": map[string]any{"input": []any{map[string]any{
					"id": q, "config": map[string]any{"id": q, "input-type": "QUEUE", "queue": q},
				}}},
			}
			if c.BandwidthPercent > 0 {
				s["one-rate-two-color"] = map[string]any{"config": map[string]any{"cir-pct": c.BandwidthPercent}}
			}
			scheds = append(scheds, s)
		}
		d.add(Entry, ocOrigin, "/qos/scheduler-policies/scheduler-policy[name="+ocScheduler+"]", map[string]any{
			"name": ocScheduler, "config": map[string]any{"name": ocScheduler},
			"schedulers": map[string]any{"scheduler": scheds},
		}, plan.DisruptionBrief)
	}
	mtu := classMTU(in.Classes)
	bitmap := p.noDropBitmap(priorities(in.Classes))
	for _, ifc := range in.Interfaces {
		k := gpath.EscapeKey(ifc)
		if mtu > 0 {
			d.add(Merge, ocOrigin, "/interfaces/interface[name="+k+"]", map[string]any{
				"name": ifc, "config": map[string]any{"mtu": mtu},
			}, plan.DisruptionLink)
		}
		qi := map[string]any{
			"interface-id":  ifc,
			"config":        map[string]any{"interface-id": ifc},
			"interface-ref": map[string]any{"config": map[string]any{"interface": ifc}},
		}
		if len(terms) > 0 {
			qi["input"] = map[string]any{"classifiers": map[string]any{"classifier": []any{map[string]any{
				"type": "IPV4", "config": map[string]any{"type": "IPV4", "name": ocClassifier},
			}}}}
		}
		out := map[string]any{}
		if needSched {
			out["scheduler-policy"] = map[string]any{"config": map[string]any{"name": ocScheduler}}
		}
		if p.arista {
			out[augment+"pfc"] = map[string]any{"config": map[string]any{"priorities-no-drop": bitmap}}
		}
		if len(out) > 0 {
			qi["output"] = out
		}
		disrupt := plan.DisruptionBrief
		if p.arista {
			disrupt = plan.DisruptionLink // PFC on a port renegotiates the link
		}
		d.add(Merge, ocOrigin, "/qos/interfaces/interface[interface-id="+k+"]", qi, disrupt)
		if !p.arista {
			for _, c := range in.Classes {
				if c.ECN == nil {
					continue
				}
				q := Prefix + c.Name
				d.add(Entry, ocOrigin, "/qos/interfaces/interface[interface-id="+k+"]/output/queues/queue[name="+q+"]", map[string]any{
					"name": q, "config": map[string]any{"name": q, "queue-management-profile": q + "-ECN"},
				}, plan.DisruptionNone)
			}
		}
	}
	if p.arista {
		if wd := watchdogOf(in.Classes); wd != nil {
			if err := checkWatchdog(policies.ProfileArista, wd); err != nil {
				return nil, err // names gnmi/arista
			}
			v, err := aristaWatchdog(wd)
			if err != nil {
				return nil, err
			}
			d.add(Merge, ocOrigin, "/qos/pfc/watchdog/config", v, plan.DisruptionNone)
		}
	}
	return d, nil
}

// term is the classifier term of one class (nil when the class is not
// classified by an IPv4 term).
func (p *ocProfile) term(c *policies.Lossless) (map[string]any, string, error) {
	id := Prefix + c.Name
	var cond map[string]any
	switch c.Match.Kind {
	case policies.MatchDSCP:
		cond = map[string]any{"ipv4": map[string]any{"config": map[string]any{"dscp-set": ints(c.Match.DSCP)}}}
	case policies.MatchUDPPort:
		if p.arista {
			ds, err := dscpsOf(p.kind(), c)
			if err != nil {
				return nil, "", err
			}
			cond = map[string]any{"ipv4": map[string]any{"config": map[string]any{"dscp-set": ints(ds)}}}
			break
		}
		ip := map[string]any{"protocol": 17}
		if len(c.Match.DSCP) > 0 {
			ip["dscp-set"] = ints(c.Match.DSCP)
		}
		cond = map[string]any{
			"ipv4":      map[string]any{"config": ip},
			"transport": map[string]any{"config": map[string]any{"destination-port": c.Match.UDPPort}},
		}
	case policies.MatchCoS:
		if p.arista {
			// OpenConfig terms have no 802.1p condition; EOS maps CoS to
			// traffic class by its default trust map,
			// so the no-drop bitmap on the priority is all that is needed.
			return nil, fmt.Sprintf("class %s: classified by the switch's default CoS-to-traffic-class map (OpenConfig has no 802.1p match)", c.Name), nil
		}
		return nil, "", fmt.Errorf("gnmi/openconfig: class %s matches CoS, and OpenConfig classifier terms have no 802.1p condition", c.Name)
	case policies.MatchEthertype:
		return nil, "", fmt.Errorf("%s: class %s matches Ethertype 0x%04x: an ETHERNET classifier cannot be bound to an interface in OpenConfig (the binding type is IPV4/IPV6/MPLS only)", p.kind(), c.Name, c.Match.Ethertype)
	default:
		return nil, "", fmt.Errorf("%s: class %s: match %q is not expressible; OpenConfig has no catch-all lossless class", p.kind(), c.Name, c.Match.Kind)
	}
	return map[string]any{
		"id": id, "config": map[string]any{"id": id},
		"conditions": cond,
		"actions":    map[string]any{"config": map[string]any{"target-group": Prefix + c.Name}},
	}, "", nil
}

// noDropBitmap renders Arista's priorities-no-drop hex bitmap.
func (p *ocProfile) noDropBitmap(prios []int) string {
	var b uint8
	for _, pr := range prios {
		if p.s.bitOrder() == "msb0" {
			b |= 1 << (7 - pr)
		} else {
			b |= 1 << pr
		}
	}
	return fmt.Sprintf("%02x", b)
}

// watchdogOf returns the first class's watchdog (one per switch on these
// platforms); nil when no class sets one.
func watchdogOf(cs []*policies.Lossless) *policies.PFCWatchdog {
	for _, c := range cs {
		if c.PFCWatchdog != nil {
			return c.PFCWatchdog
		}
	}
	return nil
}

// aristaWatchdog renders the global PFC watchdog: decimal64 seconds with two
// fraction digits, as JSON strings (RFC 7951).
func aristaWatchdog(w *policies.PFCWatchdog) (map[string]any, error) {
	sec := func(ms int, what string) (string, error) {
		if ms <= 0 || ms%10 != 0 {
			return "", fmt.Errorf("gnmi/arista: PFC watchdog %s %dms: must be a positive multiple of 10ms (the leaf has 2 decimal places of seconds)", what, ms)
		}
		return fmt.Sprintf("%d.%02d", ms/1000, (ms%1000)/10), nil
	}
	det, err := sec(w.DetectionMS, "detection")
	if err != nil {
		return nil, err
	}
	rec, err := sec(w.RestorationMS, "restoration")
	if err != nil {
		return nil, err
	}
	// "forward" keeps forwarding and ignores the pause; "drop" drops the
	// stuck queue's traffic.
	action := map[string]string{"drop": "DROP", "forward": "IGNORE_PFC"}[w.Action]
	if action == "" {
		return nil, fmt.Errorf("gnmi/arista: PFC watchdog action %q: want drop or forward", w.Action)
	}
	return map[string]any{"default-timeout": det, "default-recovery-time": rec, "action": action}, nil
}

func (d *Desired) add(m Mode, origin, path string, v any, dis plan.Disruption) {
	d.Objects = append(d.Objects, Object{Mode: m, Origin: origin, Path: path, Value: v, Disrupt: dis})
}

// QueueWeighter is a profile that renders a scheduler weight for a class's
// queue, and says where to read it back (roce-verify's lab path model
// reads the share: docs/verify.md). Profiles that render none don't
// implement it: their queues keep the switch's default share.
type QueueWeighter interface {
	// QueueWeight is where the weight of class's queue is: the origin,
	// the container path to Get, the leaf holding the percentage, and how
	// to name it in a report.
	QueueWeight(class string) (origin, container, leaf, what string, ok bool)
}

// QueueWeight: only arista renders one, arista-qos-augments' bandwidth
// under the queue's config.
func (p *ocProfile) QueueWeight(class string) (origin, container, leaf, what string, ok bool) {
	if !p.arista {
		return "", "", "", "", false
	}
	q := Prefix + class
	return ocOrigin, "/qos/queues/queue[name=" + gpath.EscapeKey(q) + "]/config", "bandwidth",
		"queue " + q + " bandwidth (arista-qos-augments)", true
}
