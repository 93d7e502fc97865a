package nexus

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/policies"
)

// FCoE class actions used when fcoe = true and the attached policy does not
// already carry class-fcoe (docs/nxos.md: qos-group 1, no-drop,
// FCoE MTU 2158; 50 % bandwidth as in the fcoe-default policies).
const (
	fcoeQoSAction     = "set qos-group 1"
	fcoeNQPause       = "pause no-drop"
	fcoeNQMTU         = "mtu 2158"
	fcoeQueuingAction = "bandwidth percent 50"
)

const fcoeQoSGroup = 1

// render5000 builds the Nexus 5000/5500 objects: classify (type qos) →
// qos-group; network-qos no-drop + MTU; queuing bandwidth; the three
// system qos attachments (docs/nxos.md).
func (r *renderer) render5000() error {
	var classes []*policies.Lossless
	for _, c := range r.in.Classes {
		if c.Match.Kind != policies.MatchAll {
			classes = append(classes, c)
		}
	}
	carQoS := r.carried(TypeQoS, "input")
	if err := r.checkOverlaps(classes, carQoS); err != nil {
		return err
	}
	if err := r.checkAttachedQoS(classes); err != nil {
		return err
	}
	carNQ := r.carried(TypeNetworkQoS, "")
	carQ := r.carried(TypeQueuing, "output")
	if r.in.FCoE {
		carQoS = withClass(carQoS, "class-fcoe", fcoeQoSAction)
		carNQ = withClass(carNQ, "class-fcoe", fcoeNQPause, fcoeNQMTU)
		carQ = withClass(carQ, "class-fcoe", fcoeQueuingAction)
	}
	groups, err := r.allocateGroups(classes, carQoS, carNQ, carQ)
	if err != nil {
		return err
	}
	var qosCls, nqCls []*PolicyClass
	for i, c := range classes {
		name := r.prefix + c.Name
		match, pureCoS, err := r.classify(c)
		if err != nil {
			return err
		}
		g := strconv.Itoa(groups[i])
		r.put(r.classMap(TypeQoS, name, match))
		r.put(r.classMap(TypeNetworkQoS, name, []string{"match qos-group " + g}))
		r.put(r.classMap(TypeQueuing, name, []string{"match qos-group " + g}))
		qosCls = append(qosCls, &PolicyClass{Name: name, Actions: []string{"set qos-group " + g}})
		// docs/nxos.md: pfc-cos when the class is not matched purely on CoS.
		pause := "pause no-drop"
		if !pureCoS {
			pause += " pfc-cos " + strconv.Itoa(c.Priority)
		}
		nq := []string{pause}
		if c.MTU > 0 {
			nq = append(nq, "mtu "+strconv.Itoa(c.MTU))
		}
		nqCls = append(nqCls, &PolicyClass{Name: name, Actions: nq})
	}
	qCls, qDefault, err := r.bandwidth(classes, carQ)
	if err != nil {
		return err
	}
	carQ = append(slices.DeleteFunc(slices.Clone(carQ), func(c *PolicyClass) bool { return c.Name == "class-default" }), qDefault)
	var want []ServicePolicy
	add := func(typ, dir, suffix string, ours, carried []*PolicyClass) {
		name := r.prefix + suffix
		if len(ours) == 0 && !hasNonDefault(carried) {
			return // nothing of ours to carry: leave system qos to others
		}
		if len(ours) == 0 && !r.ours(attached(r.cur, typ, dir)) {
			return
		}
		r.put(r.policy(typ, name, orderClasses(ours, carried)))
		want = append(want, ServicePolicy{Type: typ, Direction: dir, Name: name})
	}
	add(TypeQoS, "input", qosPolicySuffix, qosCls, carQoS)
	add(TypeNetworkQoS, "", nqPolicySuffix, nqCls, carNQ)
	add(TypeQueuing, "output", queuingPolicySuffix, qCls, carQ)
	r.attach(want)
	return nil
}

// withClass adds a class with actions unless the list already has it.
func withClass(cls []*PolicyClass, name string, actions ...string) []*PolicyClass {
	for _, c := range cls {
		if c.Name == name {
			return cls
		}
	}
	return append([]*PolicyClass{{Name: name, Actions: slices.Clone(actions)}}, cls...)
}

func hasNonDefault(cls []*PolicyClass) bool {
	for _, c := range cls {
		if c.Name != "class-default" {
			return true
		}
	}
	return false
}

// orderClasses: ours first, then the carried classes, class-default last.
func orderClasses(ours, carried []*PolicyClass) []*PolicyClass {
	out := slices.Clone(ours)
	var def *PolicyClass
	for _, c := range carried {
		if c.Name == "class-default" {
			def = c
			continue
		}
		out = append(out, c)
	}
	if def != nil {
		out = append(out, def)
	}
	return out
}

// classify returns the type qos match lines for a class, whether it is
// matched purely on CoS, and creates the ACL it needs.
func (r *renderer) classify(c *policies.Lossless) ([]string, bool, error) {
	acl := r.prefix + aclInfix + c.Name
	switch c.Match.Kind {
	case policies.MatchCoS:
		if len(c.Match.CoS) == 0 {
			return nil, false, fmt.Errorf("nexus: lossless %q matches on CoS but lists none", c.Name)
		}
		return []string{"match cos " + cosList(c.Match.CoS)}, true, nil
	case policies.MatchDSCP:
		if len(c.Match.DSCP) == 0 {
			return nil, false, fmt.Errorf("nexus: lossless %q matches on DSCP but lists none", c.Name)
		}
		// `match dscp` argument syntax on N5K is UNCONFIRMED (docs/nxos.md).
		return []string{"match dscp " + cosList(c.Match.DSCP)}, false, nil
	case policies.MatchUDPPort:
		var rules []string
		base := "permit udp any any eq " + strconv.Itoa(c.Match.UDPPort)
		if len(c.Match.DSCP) == 0 {
			rules = []string{"10 " + base}
		}
		for i, d := range c.Match.DSCP {
			rules = append(rules, strconv.Itoa(10*(i+1))+" "+base+" dscp "+strconv.Itoa(d))
		}
		r.put(&Object{Kind: KindACL, Type: "ip", Name: acl, Lines: rules})
		return []string{"match access-group name " + acl}, false, nil
	case policies.MatchEthertype:
		if !r.p.Caps.EthertypeACLInQoS {
			// docs/nxos.md: MAC ACLs in type qos are UNCONFIRMED; the
			// host marks the PCP and the switch matches the CoS.
			return []string{"match cos " + strconv.Itoa(c.Priority)}, true, nil
		}
		rule := fmt.Sprintf("10 permit any any 0x%04x", c.Match.Ethertype)
		r.put(&Object{Kind: KindACL, Type: "mac", Name: acl, Lines: []string{rule}})
		return []string{"match access-group name " + acl}, false, nil
	}
	return nil, false, fmt.Errorf("nexus: lossless %q: match kind %q has no class-map rendering", c.Name, c.Match.Kind)
}

// allocateGroups gives each class a qos-group from the free user groups:
// the one it already has when still free, else the lowest free one. A
// group is in use when a foreign class of the policies under system qos
// sets or matches it, or one of a policy attached anywhere else
// (attachedGroups).
func (r *renderer) allocateGroups(classes []*policies.Lossless, carQoS, carNQ, carQ []*PolicyClass) ([]int, error) {
	used := map[int]bool{0: true}
	for _, c := range carQoS {
		for _, a := range c.Actions {
			if f := strings.Fields(a); len(f) == 3 && f[0] == "set" && f[1] == "qos-group" {
				n, _ := strconv.Atoi(f[2])
				used[n] = true
			}
		}
	}
	for _, tc := range [...]struct {
		typ string
		cls []*PolicyClass
	}{{TypeNetworkQoS, carNQ}, {TypeQueuing, carQ}} {
		typ, cls := tc.typ, tc.cls
		for _, c := range cls {
			if c.Name == "class-fcoe" {
				used[fcoeQoSGroup] = true
			}
			if cm := r.cur.ClassMap(typ, c.Name); cm != nil {
				for _, l := range cm.Lines {
					if f := strings.Fields(l); len(f) == 3 && f[0] == "match" && f[1] == "qos-group" {
						n, _ := strconv.Atoi(f[2])
						used[n] = true
					}
				}
			}
		}
	}
	if r.in.FCoE {
		used[fcoeQoSGroup] = true
	}
	// Groups of the policies attached to interfaces and VLANs: their
	// packets carry them whatever system qos says.
	for _, g := range r.attachedGroups() {
		used[g] = true
	}
	free := slices.Clone(r.p.Caps.UserQoSGroups)
	if r.p.Caps.QoSGroup1WithoutFCoE && !r.in.FCoE && !used[fcoeQoSGroup] {
		// docs/nxos.md: group 1 without FCoE is UNCONFIRMED as a rule.
		free = append([]int{fcoeQoSGroup}, free...)
	}
	free = slices.DeleteFunc(free, func(g int) bool { return used[g] })
	out := make([]int, len(classes))
	taken := map[int]bool{}
	// first pass: keep the group a class already has
	for i, c := range classes {
		if g := r.existingGroup(r.prefix + c.Name); g > 0 && slices.Contains(free, g) && !taken[g] {
			out[i], taken[g] = g, true
		}
	}
	for i, c := range classes {
		if out[i] != 0 {
			continue
		}
		for _, g := range free {
			if !taken[g] {
				out[i], taken[g] = g, true
				break
			}
		}
		if out[i] == 0 {
			return nil, fmt.Errorf("nexus: lossless %q: no free qos-group on %s (user groups %v, in use %v)", c.Name, r.p.Kind, r.p.Caps.UserQoSGroups, sortedKeys(used))
		}
	}
	return out, nil
}

// existingGroup is the qos-group our class already uses (0 when none).
func (r *renderer) existingGroup(name string) int {
	if cm := r.cur.ClassMap(TypeNetworkQoS, name); cm != nil {
		for _, l := range cm.Lines {
			if f := strings.Fields(l); len(f) == 3 && f[1] == "qos-group" {
				n, _ := strconv.Atoi(f[2])
				return n
			}
		}
	}
	return 0
}

func sortedKeys(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// bandwidth builds the queuing classes so the total stays 100: carried
// classes keep their share, ours get theirs (or an equal split of what is
// left with class-default when unset), class-default takes the rest.
func (r *renderer) bandwidth(classes []*policies.Lossless, carQ []*PolicyClass) ([]*PolicyClass, *PolicyClass, error) {
	foreign := 0
	for _, c := range carQ {
		if c.Name != "class-default" {
			foreign += percentOf(c.Actions)
		}
	}
	set, unset := 0, 0
	for _, c := range classes {
		if c.BandwidthPercent > 0 {
			set += c.BandwidthPercent
		} else {
			unset++
		}
	}
	left := 100 - foreign - set
	share := 0
	if unset > 0 {
		share = left / (unset + 1)
		if share < 1 {
			return nil, nil, fmt.Errorf("nexus: queuing bandwidth does not fit: other classes keep %d%%, roce classes ask %d%%, leaving nothing for unset classes", foreign, set)
		}
	}
	var out []*PolicyClass
	ours := 0
	for _, c := range classes {
		b := c.BandwidthPercent
		if b == 0 {
			b = share
		}
		ours += b
		out = append(out, &PolicyClass{Name: r.prefix + c.Name, Actions: []string{"bandwidth percent " + strconv.Itoa(b)}})
	}
	def := 100 - foreign - ours
	if def < 1 {
		return nil, nil, fmt.Errorf("nexus: queuing bandwidth does not fit in 100%%: other classes keep %d%%, roce classes ask %d%%, class-default needs at least 1%%", foreign, ours)
	}
	var defActions []string
	for _, c := range carQ {
		if c.Name == "class-default" {
			defActions = slices.DeleteFunc(slices.Clone(c.Actions), func(a string) bool { return lineKey(a) == "bandwidth" })
		}
	}
	return out, &PolicyClass{Name: "class-default", Actions: append([]string{"bandwidth percent " + strconv.Itoa(def)}, defActions...)}, nil
}

func percentOf(actions []string) int {
	for _, a := range actions {
		if f := strings.Fields(a); len(f) == 3 && f[0] == "bandwidth" && f[1] == "percent" {
			n, _ := strconv.Atoi(f[2])
			return n
		}
	}
	return 0
}
