package nexus

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/policies"
)

// render7000 builds the Nexus 7000 network-qos: a copy of the default-nq-*
// template whose no-drop CoS cover what the classes need (docs/nxos.md#qos),
// with the classes' MTU set on the no-drop template classes, attached under
// system qos (default VDC, docs/nxos.md#qos). Classification is by CoS only
// (platforms.Capabilities.CoSOnly): hosts mark the PCP.
func (r *renderer) render7000() error {
	var need []int
	mtu := map[int]int{}
	for _, c := range r.in.Classes {
		if c.Match.Kind == policies.MatchAll {
			continue
		}
		need = append(need, c.Priority)
		mtu[c.Priority] = max(mtu[c.Priority], c.MTU)
	}
	if len(need) == 0 {
		r.attach(nil)
		return nil
	}
	if err := r.checkQueueCoS(); err != nil {
		return err
	}
	if r.in.FCoE {
		need = append(need, r.p.Caps.FCoECoS)
	}
	// The network-qos attached now (foreign, or an earlier copy of ours):
	// a foreign one is replaced, so its no-drop CoS stay no-drop; for both,
	// the MTU of every CoS that is not one of our classes' is carried over
	// (the superset rule, see the package doc).
	var current NQTemplate
	otherMTU := map[int]int{}
	if att := attached(r.cur, TypeNetworkQoS, ""); att != "" {
		tpl, ok := templateFor(att)
		if !ok && !r.ours(att) {
			return unknownNQ(att)
		}
		if ok {
			current = tpl
			if !r.ours(att) {
				need = append(need, tpl.NoDropCoS()...)
			}
			if pm := r.lookupPolicy(TypeNetworkQoS, att); pm != nil {
				for _, tc := range tpl.Classes {
					if pc := pm.Class(tc.Name); pc != nil {
						for _, cos := range tc.CoS {
							if _, ours := mtu[cos]; !ours {
								otherMTU[cos] = mtuOf(pc.Actions)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(need)
	need = slices.Compact(need)
	tpl, err := chooseNQTemplate(need)
	if err != nil {
		return err
	}
	if current.Name != "" && covers(current, need) {
		tpl = current // stable: keep the template in use while it still fits
	}
	name := tpl.CopyName(r.prefix)
	want := tpl.policy(name)
	minMTU := make([]int, len(tpl.Classes)) // per template class: the MTU it must carry
	for i, tc := range tpl.Classes {
		m := 0
		for _, cos := range tc.CoS {
			m = max(m, otherMTU[cos])
			if tc.NoDrop {
				m = max(m, mtu[cos])
			}
		}
		minMTU[i] = m
		if m > mtuOf(tc.Actions) {
			want.Classes[i].Actions = setLine(want.Classes[i].Actions, "mtu", "mtu "+strconv.Itoa(m))
		}
	}
	if have := r.cur.PolicyMap(TypeNetworkQoS, name); have != nil && sameClasses(have, tpl) {
		want.Classes = ownedLines7000(have, tpl, want, minMTU)
	}
	r.put(r.policy(TypeNetworkQoS, name, want.Classes))
	queuing, err := r.queuing7000()
	if err != nil {
		return err
	}
	r.attach(append([]ServicePolicy{{Type: TypeNetworkQoS, Name: name}}, queuing...))
	return nil
}

// ownedLines7000 is the copy roce wants when the switch already has it
// (issue #15): the switch's copy as it echoes it, with only the lines roce
// sets in it made right, so a template line roce does not own — missing
// (a default the switch does not print) or extra (a line the template
// table lacks; the table is UNCONFIRMED, nexus/templates.go) — is kept as
// the switch has it and never becomes a change to push again. roce owns,
// in each class of the template tpl (want is tpl's copy as roce renders
// it, minMTU the MTU each of its classes must carry):
//   - a no-drop class's `pause` line, and its `congestion-control` line
//     (none in a no-drop template class: tail-drop there is drop), as the
//     template has them: that is what makes roce's CoS lossless;
//   - `mtu`, where roce needs it at least minMTU (its own classes' MTU, or
//     the MTU carried over from the policy the copy replaces): a class
//     whose mtu is lower gets want's line; a class without an mtu line is
//     taken to have the template's (a default the switch does not print,
//     UNCONFIRMED, docs/nxos.md#echo) unless it must carry frames above
//     1500: then it gets its line.
//
// The caller checked that have's classes are tpl's (sameClasses).
func ownedLines7000(have *Object, tpl NQTemplate, want *Object, minMTU []int) []*PolicyClass {
	out := make([]*PolicyClass, 0, len(have.Classes))
	for _, hc := range have.Classes {
		i := slices.IndexFunc(tpl.Classes, func(tc NQTemplateClass) bool { return tc.Name == hc.Name })
		tc, wc := tpl.Classes[i], want.Classes[i]
		actions := slices.Clone(hc.Actions)
		if tc.NoDrop {
			for _, key := range []string{"pause", "congestion-control"} {
				line := slices.IndexFunc(wc.Actions, func(a string) bool { return lineKey(a) == key })
				switch {
				case line < 0:
					actions = slices.DeleteFunc(actions, func(a string) bool { return lineKey(a) == key })
				case !slices.Contains(actions, wc.Actions[line]):
					actions = setLine(actions, key, wc.Actions[line])
				}
			}
		}
		cur := mtuOf(tc.Actions)
		switch {
		case hasKey(actions, "mtu"):
			cur = mtuOf(actions)
		case minMTU[i] > DefaultPortMTU:
			// Not printed, so a default, whose value is UNCONFIRMED (the
			// template table comes from memory): a class that must carry
			// frames above 1500 gets its line rather than trusting that
			// default. A line the switch then hides comes back in every
			// plan, which is loud; frames dropped for their size are not.
			cur = DefaultPortMTU
		}
		if minMTU[i] > cur {
			actions = setLine(actions, "mtu", "mtu "+strconv.Itoa(max(minMTU[i], mtuOf(wc.Actions))))
		}
		out = append(out, &PolicyClass{Name: hc.Name, Actions: actions})
	}
	return out
}

// sameClasses reports whether the policy has exactly the template's
// classes, each once. A copy that does not (the switch's editor allows
// neither adding nor removing a class, so it would be a template table
// that is wrong for this release) is rendered from the template as a
// first copy is, and the plan shows every difference.
func sameClasses(o *Object, tpl NQTemplate) bool {
	if len(o.Classes) != len(tpl.Classes) {
		return false
	}
	for _, tc := range tpl.Classes {
		if o.Class(tc.Name) == nil {
			return false
		}
	}
	return true
}

// unknownNQ refuses to replace an attached network-qos policy that is
// neither a template roce knows nor a copy of one: roce cannot tell which
// CoS it makes no-drop or with which MTU, so attaching its own copy in its
// place would silently take that away (the superset rule, see the package
// doc). Configurations read from a 5000 or a 9000 have such policies; on a
// 7000 it would be a template missing from the table, or a copy of one.
func unknownNQ(name string) error {
	return fmt.Errorf("nexus: system qos has network-qos policy %s attached, which is neither a Nexus 7000 template roce knows (%s) nor a `qos copy` of one (named by its prefix and the template, e.g. SAN-nq-7e): "+
		"roce cannot tell which CoS it makes no-drop and with which MTU, and attaching roce's copy in its place would silently drop that. "+
		"Attach one of those templates, or a copy of one, under system qos in the default VDC and plan again; "+
		"if %s is a template of this release that roce's table lacks (nexus/templates.go), it has to be added there first",
		name, nqTemplateNames(), name)
}

// queuing7000 pins what the egress queuing default could otherwise take
// from the lossless classes: each class's CoS gets its own queue class
// (`class-map type queuing` with `match cos`, the 7000's CoS-to-queue
// map) and its bandwidth share, class-default the rest, attached as the
// system output queuing policy. Without it the switch keeps the default
// queuing policy selected with the network-qos template, and a release
// that changes that default changes the class's share with no drift on
// our objects. The 7000 form of this (queue names of the default-4q-*
// templates, queue-limit) is UNCONFIRMED (docs/lab-upgrades.md); the
// class-map-per-class form is what the editor and simulator accept.
func (r *renderer) queuing7000() ([]ServicePolicy, error) {
	var classes []*policies.Lossless
	for _, c := range r.in.Classes {
		if c.Match.Kind != policies.MatchAll {
			classes = append(classes, c)
		}
	}
	if len(classes) == 0 {
		return nil, nil
	}
	for _, c := range classes {
		r.put(r.classMap(TypeQueuing, r.prefix+c.Name, []string{"match cos " + strconv.Itoa(c.Priority)}))
	}
	carQ := r.carried(TypeQueuing, "output")
	qCls, qDefault, err := r.bandwidth(classes, carQ)
	if err != nil {
		return nil, err
	}
	carQ = append(slices.DeleteFunc(slices.Clone(carQ), func(c *PolicyClass) bool { return c.Name == "class-default" }), qDefault)
	name := r.prefix + queuingPolicySuffix
	r.put(r.policy(TypeQueuing, name, orderClasses(qCls, carQ)))
	return []ServicePolicy{{Type: TypeQueuing, Direction: "output", Name: name}}, nil
}

// covers reports whether the template makes every CoS in need no-drop.
func covers(t NQTemplate, need []int) bool {
	nd := t.NoDropCoS()
	for _, c := range need {
		if !slices.Contains(nd, c) {
			return false
		}
	}
	return len(nd) > 0
}

// templateFor returns the template a network-qos policy is, or was copied
// from.
func templateFor(name string) (NQTemplate, bool) {
	if t, ok := nqTemplateByName(name); ok {
		return t, true
	}
	return templateOfCopy(name)
}

// mtuOf reads "mtu N" from class actions (0 when absent).
func mtuOf(actions []string) int {
	for _, a := range actions {
		if f := strings.Fields(a); len(f) == 2 && f[0] == "mtu" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// Port MTU on a Nexus 7000 (docs/nxos.md#port-mtu): a Layer 2 port frames
// at its own `mtu`, 1500 by default, and takes only 1500 or the system
// jumbomtu, 9216 unless `system jumbomtu N` says otherwise. Sources: the
// MadNetworks blog "MTU–Nexus 7000" (2014-10, a real N7K's show interface,
// refusal and `mtu ?` range) and Cisco TechNote 118994 (Configure and
// Verify Maximum Transmission Unit on Nexus Platforms).
const (
	DefaultPortMTU  = 1500
	DefaultJumboMTU = 9216
)

// JumboMTU returns the system jumbomtu of a Nexus 7000 configuration: the
// `system jumbomtu N` line, else the default 9216 (running-config omits
// it then). NX-OSv 7000 prints `system jumbomtu 0` (NAPALM's captures in
// testdata/corpus/config): a value below 1500 leaves Layer 2 ports at
// 1500. A line whose value is not a number 0-9216 is refused.
func JumboMTU(c *Config) (int, error) {
	j := DefaultJumboMTU
	for _, o := range c.Objects {
		if o.Kind != KindRaw || !isJumboLine(o.Header) {
			continue
		}
		n, err := ParseJumboMTU(o.Header)
		if err != nil {
			return 0, err
		}
		j = n
	}
	return j, nil
}

// isJumboLine reports a `system jumbomtu …` line.
func isJumboLine(l string) bool {
	f := strings.Fields(l)
	return len(f) >= 2 && f[0] == "system" && f[1] == "jumbomtu"
}

// ParseJumboMTU reads the value of one `system jumbomtu N` line (what
// `show running-config | include jumbomtu` prints); "" is the default
// 9216. A line that is not `system jumbomtu N` with N 0-9216 is refused.
func ParseJumboMTU(line string) (int, error) {
	line = strings.TrimSpace(line)
	if line == "" {
		return DefaultJumboMTU, nil
	}
	f := strings.Fields(line)
	n, err := 0, error(nil)
	if len(f) == 3 && isJumboLine(line) {
		n, err = strconv.Atoi(f[2])
	}
	if len(f) != 3 || !isJumboLine(line) || err != nil || n < 0 || n > DefaultJumboMTU {
		return 0, fmt.Errorf("nexus: the configuration's %q is not `system jumbomtu N` with N at most 9216; correct it on the switch and plan again", line)
	}
	return n, nil
}

// jumboMTU is the switch's system jumbomtu for an intent: the line the
// caller read apart from the configuration (Intent.JumboMTULine), else
// the configuration's own line, else 9216.
func jumboMTU(in Intent, c *Config) (int, error) {
	if in.JumboMTULine != "" {
		return ParseJumboMTU(in.JumboMTULine)
	}
	return JumboMTU(c)
}

// PortMTURefusal is what a Nexus 7000 answers to `mtu N` typed on Layer 2
// port ifname (Config.Routed false) of cfg: only 1500 and the system
// jumbomtu are taken, anything else is refused with the switch's error
// line. It returns nil for every other line, port or platform, and for a
// configuration whose jumbomtu cannot be read (JumboMTU's error is the
// planner's to report).
func PortMTURefusal(p Platform, cfg *Config, ifname, line string) *CLIError {
	if !p.Is7000() {
		return nil
	}
	f := strings.Fields(line)
	if len(f) != 2 || !strings.HasPrefix("mtu", strings.ToLower(f[0])) || len(f[0]) < 2 {
		return nil
	}
	if cfg.Routed(p, ifname) {
		return nil // a routed port takes 576-9216
	}
	j, err := JumboMTU(cfg)
	if err != nil {
		return nil
	}
	if n, err := strconv.Atoi(f[1]); err != nil || n == DefaultPortMTU || n == j {
		return nil // not a number: the grammar's to answer
	}
	return cliErrorf("ERROR: " + ifname + ": MTU on L2 interfaces can only be set to default or system-jumboMTU")
}
