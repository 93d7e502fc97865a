package nexus

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rocefabric/roce/policies"
)

// DefaultPrefix is the name prefix of the objects we own.
const DefaultPrefix = "ROCE-"

// Names of our policy-maps (without the prefix).
const (
	qosPolicySuffix     = "QOS-IN"
	nqPolicySuffix      = "NQ"
	queuingPolicySuffix = "QUEUING-OUT"
	aclInfix            = "ACL-"
)

// Intent is what one switch must carry.
type Intent struct {
	Platform   Platform
	Classes    []*policies.Lossless // what this switch must carry (Fabric.LosslessFor)
	Interfaces []string             // managed ports, canonical "Ethernet1/1"
	FCoE       bool
	Prefix     string   // "ROCE-" when empty
	Modules    []Module // 7000: for the F/M refusal
	// JumboMTULine is a 7000's `system jumbomtu N` line when the caller
	// read it apart from current (`show running-config | include
	// jumbomtu`: the sections a provider reads do not hold it); "" takes
	// current's own line, else the default 9216 (docs/nxos.md#port-mtu).
	JumboMTULine string
	// DefaultSwitchport says the 7000 has `system default switchport`
	// (read apart, as JumboMTULine is): its ports without a switchport
	// line are Layer 2, not Layer 3 (Config.Routed).
	DefaultSwitchport bool
}

func (in Intent) prefix() string {
	if in.Prefix == "" {
		return DefaultPrefix
	}
	return in.Prefix
}

// allTraffic reports whether the intent is "every frame lossless".
func (in Intent) allTraffic() bool {
	for _, c := range in.Classes {
		if c.Match.Kind == policies.MatchAll {
			return true
		}
	}
	return false
}

// Render returns the desired config: current with our objects replaced by
// what the intent needs; foreign objects untouched. It never edits current.
// The desired config shares with current the objects it leaves as they are
// (foreign objects, unmanaged interfaces, unmodelled lines): copying every
// switch's whole running config was most of Render's memory (issue 19).
// Treat both as read-only, or Clone the one you edit (ApplyCommands does
// edit).
func Render(in Intent, current *Config) (*Config, error) {
	if err := validateIntent(in); err != nil {
		return nil, err
	}
	out := &Config{Header: slices.Clone(current.Header), Objects: make([]*Object, len(current.Objects), len(current.Objects)+16)}
	copy(out.Objects, current.Objects)
	r := &renderer{in: in, p: in.Platform, prefix: in.prefix(), cur: current, out: out}
	var err error
	if in.Platform.Is7000() {
		err = r.render7000()
	} else {
		err = r.render5000()
	}
	if err != nil {
		return nil, err
	}
	if err := r.checkPortMTU(); err != nil {
		return nil, err
	}
	r.interfaces()
	r.dropStale()
	return r.out, nil
}

// classMTU returns the largest MTU of the intent's classes and the class
// that has it (0 when no class sets one).
func (r *renderer) classMTU() (want int, name string) {
	for _, c := range r.in.Classes {
		if c.MTU > want {
			want, name = c.MTU, c.Name
		}
	}
	return want, name
}

// checkPortMTU refuses a lossless class whose MTU a managed port's own
// `mtu` line (not roce's: set by hand on a routed port, or on any port of
// a 7000) is below: the port would drop every RoCE frame longer than its
// MTU, so the class would be lossless everywhere but there. The port's
// MTU is someone else's decision, so roce names it instead of changing it.
// On a 7000 a Layer 2 port without an `mtu` line is at the default 1500
// and roce sets it (interfaces, docs/nxos.md#port-mtu); that is refused
// when the class MTU is above the system jumbomtu, the only value above
// 1500 such a port takes.
func (r *renderer) checkPortMTU() error {
	want, name := r.classMTU()
	if want == 0 {
		return nil
	}
	var (
		jumbo    int
		jumboErr error
	)
	if r.p.Is7000() {
		jumbo, jumboErr = jumboMTU(r.in, r.cur) // an error counts only for a Layer 2 port
		r.jumbo = jumbo
	}
	for _, ifn := range r.in.Interfaces {
		o := r.cur.Interface(ifn)
		routed := r.routed(ifn)
		// On a 5000 an L2 port's frame size is the network-qos class MTU;
		// its `mtu` line (printed as 1500 by `show running-config all`)
		// only counts on a routed port.
		if !r.p.Is7000() && !routed {
			continue
		}
		l2 := r.p.Is7000() && !routed
		if l2 && jumboErr != nil {
			return jumboErr
		}
		if l2 && want > jumbo {
			return fmt.Errorf("nexus: lossless %q has mtu %d, but managed port %s is a Layer 2 port of a Nexus 7000, whose MTU can only be 1500 or the system jumbomtu, here %d: it would drop every RoCE frame longer than %d bytes (docs/nxos.md#port-mtu). "+
				"Fix one side: raise the switch's `system jumbomtu` to %d or more (at most 9216), or lower the class's mtu to %d or less",
				name, want, ifn, jumbo, jumbo, want, jumbo)
		}
		if routed && want > DefaultPortMTU && (o == nil || !slices.ContainsFunc(o.Lines, isMTULine)) {
			// A routed port without an mtu line runs at the default 1500.
			// roce does not raise it: a routed port's MTU is part of its
			// routing adjacencies (OSPF compares it), someone else's call.
			return fmt.Errorf("nexus: lossless %q has mtu %d, but managed port %s is a routed port (no switchport, or no switchport line on a 7000 without `system default switchport`) at the default mtu %d: it would drop every RoCE frame longer than %d bytes (docs/nxos.md#port-mtu). "+
				"Fix one side: give the port `mtu %d` yourself (it is not roce's to change: routing neighbours compare it), or lower the class's mtu to %d, or leave %s out of the switch's interfaces",
				name, want, ifn, DefaultPortMTU, DefaultPortMTU, want, DefaultPortMTU, ifn)
		}
		if o == nil {
			continue
		}
		for _, l := range o.Lines {
			f := strings.Fields(l)
			if len(f) != 2 || f[0] != "mtu" {
				continue
			}
			n, err := strconv.Atoi(f[1])
			if err != nil || n >= want {
				continue
			}
			if l2 {
				return fmt.Errorf("nexus: lossless %q has mtu %d, but managed port %s is configured with mtu %d: it would drop every RoCE frame longer than %d bytes. "+
					"Fix one side: raise the port's mtu to %d, the system jumbomtu (a Layer 2 port of a Nexus 7000 takes only 1500 or that, docs/nxos.md#port-mtu; the line is not roce's to change), or lower the class's mtu, or leave %s out of the switch's interfaces",
					name, want, ifn, n, n, jumbo, ifn)
			}
			return fmt.Errorf("nexus: lossless %q has mtu %d, but managed port %s is configured with mtu %d: it would drop every RoCE frame longer than %d bytes. "+
				"Fix one side: raise the port's mtu to %d (it is not roce's to change), or lower the class's mtu, or leave %s out of the switch's interfaces",
				name, want, ifn, n, n, want, ifn)
		}
	}
	return nil
}

// routed reports whether managed port ifn is a routed port
// (Config.Routed), with the default mode the intent carries.
func (r *renderer) routed(ifn string) bool {
	return r.cur.routedWith(r.p, ifn, r.in.DefaultSwitchport || r.cur.Find("raw "+DefaultSwitchportLine) != nil)
}

// validateIntent refuses what the platform cannot carry, naming why.
func validateIntent(in Intent) error {
	p := in.Platform
	if p.Kind != "nexus5000" && p.Kind != "nexus7000" {
		return fmt.Errorf("nexus: render: platform %q is not an NX-OS kind", p.Kind)
	}
	if err := validName(in.prefix() + "X"); err != nil {
		return fmt.Errorf("nexus: render: prefix %q: %v", in.prefix(), err)
	}
	noDrop := 0
	for _, c := range in.Classes {
		if ok, why := p.Caps.Supports(string(c.Match.Kind)); !ok {
			return fmt.Errorf("nexus: lossless %q: %s", c.Name, why)
		}
		if err := validName(in.prefix() + aclInfix + c.Name); err != nil {
			return fmt.Errorf("nexus: lossless %q: the name cannot be part of an NX-OS object name (%v)", c.Name, err)
		}
		if c.Match.Kind == policies.MatchAll {
			if len(in.Classes) > 1 {
				return fmt.Errorf("nexus: lossless %q makes all traffic lossless, so it must be the only class on %s (link-level flow control and PFC are exclusive per port, docs/nxos.md#qos)", c.Name, p.Kind)
			}
			if !p.Caps.AllTrafficByLLFC {
				return fmt.Errorf("nexus: lossless %q: %s has no all-traffic rendering", c.Name, p.Kind)
			}
			if in.FCoE {
				return fmt.Errorf("nexus: lossless %q makes all traffic lossless, which %s renders as link-level flow control with PFC off on the ports (the two are exclusive per port, docs/nxos.md#qos), but the switch keeps FCoE (fcoe = true), which needs PFC on CoS %d; use a class on the RoCE priority instead, or set fcoe = false", c.Name, p.Kind, p.Caps.FCoECoS)
			}
			continue
		}
		noDrop++
		if c.Priority < 0 || c.Priority > 7 {
			return fmt.Errorf("nexus: lossless %q: priority %d is not a CoS 0-7", c.Name, c.Priority)
		}
		if c.MTU != 0 && (c.MTU < p.Caps.MinMTU || c.MTU > p.Caps.MaxMTU) {
			return fmt.Errorf("nexus: lossless %q: mtu %d is outside %s's range %d-%d", c.Name, c.MTU, p.Kind, p.Caps.MinMTU, p.Caps.MaxMTU)
		}
		if in.FCoE && c.Priority == p.Caps.FCoECoS && !p.Is7000() {
			return fmt.Errorf("nexus: lossless %q: priority %d is the FCoE CoS on this switch (fcoe = true); pick another priority", c.Name, c.Priority)
		}
	}
	if p.Caps.MaxNoDropClasses > 0 && noDrop > p.Caps.MaxNoDropClasses {
		// docs/nxos.md: the real limit is UNCONFIRMED; the table is conservative.
		return fmt.Errorf("nexus: %d no-drop classes requested but %s takes at most %d besides FCoE (platforms.Capabilities.MaxNoDropClasses, UNCONFIRMED limit, docs/nxos.md#qos)", noDrop, p.Kind, p.Caps.MaxNoDropClasses)
	}
	for _, ifn := range in.Interfaces {
		if canon, ok := CanonicalInterface(ifn); !ok || canon != ifn {
			return fmt.Errorf("nexus: managed interface %q is not a canonical NX-OS name (want e.g. Ethernet1/1)", ifn)
		}
	}
	if p.Caps.RequiresFSeries && len(in.Interfaces) > 0 && !in.allTraffic() {
		return checkFSeries(in)
	}
	return nil
}

// checkFSeries refuses managed ports on M-series modules (docs/nxos.md:
// network-qos and PFC are F-series only).
func checkFSeries(in Intent) error {
	if len(in.Modules) == 0 {
		return fmt.Errorf("nexus: %s needs the module list (show module) to check that the managed ports are on F-series modules", in.Platform.Kind)
	}
	var bad []string
	for _, ifn := range in.Interfaces {
		slot, ok := InterfaceSlot(ifn)
		if !ok {
			continue
		}
		var mod *Module
		for i := range in.Modules {
			if in.Modules[i].Slot == slot {
				mod = &in.Modules[i]
			}
		}
		switch {
		case mod == nil:
			bad = append(bad, fmt.Sprintf("%s: slot %d has no module in show module", ifn, slot))
		case mod.Series == "M":
			bad = append(bad, fmt.Sprintf("%s is on slot %d, module %s (M-series)", ifn, slot, mod.Model))
		case mod.Series != "F":
			bad = append(bad, fmt.Sprintf("%s is on slot %d, module %q (%s), which is not an F-series module", ifn, slot, mod.Model, mod.Type))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("nexus: refusing to make ports lossless on %s: %s; M-series modules have no PFC or no-drop queues (docs/nxos.md#qos) — move the ports to an F-series module or remove them from the switch's interfaces", in.Platform.Kind, strings.Join(bad, "; "))
	}
	return nil
}

type renderer struct {
	in     Intent
	p      Platform
	prefix string
	cur    *Config
	out    *Config
	keep   []objID // keys of our objects the intent wants (a dozen: a slice beats a map)
	// owned are the objects of out that are out's own (new, or copied by
	// own); every other object of out is shared with cur and never edited.
	owned []*Object
	jumbo int // 7000: the system jumbomtu of cur, set by checkPortMTU
}

// lookupPolicy is lookupPolicy on the current config, with the built-in
// policies parsed once instead of once per lookup.
func (r *renderer) lookupPolicy(typ, name string) *Object {
	if r.p.Is7000() {
		return lookupPolicy(r.cur, r.p, typ, name)
	}
	if o := r.cur.PolicyMap(typ, name); o != nil {
		return o
	}
	return n5kBuiltins().PolicyMap(typ, name)
}

// n5kBuiltins is n5kBuiltinPolicies parsed once per process: every Nexus
// 5000 whose system qos names a built-in policy used to parse it again.
// Read-only: carried clones the classes it takes, nothing else edits it.
var n5kBuiltins = sync.OnceValue(func() *Config {
	cfg, err := Parse(n5kBuiltinPolicies)
	if err != nil {
		return &Config{} // the constant parses; covered by TestBuiltinPoliciesParse
	}
	return cfg
})

func (r *renderer) ours(name string) bool { return ownedBy(name, r.prefix) }

// own returns r.out's copy of o to edit: the first time, o (shared with
// the current config) is replaced in r.out by a deep copy.
func (r *renderer) own(o *Object) *Object {
	if slices.Contains(r.owned, o) {
		return o
	}
	c := o.Clone()
	for i, x := range r.out.Objects {
		if x == o {
			r.out.Objects[i] = c
		}
	}
	r.owned = append(r.owned, c)
	return c
}

// put stores one of our objects: it replaces the object with the same key in
// place (so positions stay stable) or inserts it in its section.
func (r *renderer) put(o *Object) {
	id := o.id()
	if !slices.Contains(r.keep, id) {
		r.keep = append(r.keep, id)
	}
	for i, x := range r.out.Objects {
		if x.Kind == o.Kind && x.id() == id {
			r.out.Objects[i] = o
			return
		}
	}
	r.out.insert(o)
}

// dropStale removes our ACLs, class-maps and policy-maps the intent no
// longer wants.
func (r *renderer) dropStale() {
	r.out.Objects = slices.DeleteFunc(r.out.Objects, func(o *Object) bool {
		switch o.Kind {
		case KindACL, KindClassMap, KindPolicyMap:
			return r.ours(o.Name) && !slices.Contains(r.keep, o.id())
		}
		return false
	})
}

// attached returns the policy attached under system qos for a type and
// direction in the current config ("" when none).
func attached(c *Config, typ, dir string) string {
	sq := c.SystemQoS()
	if sq == nil {
		return ""
	}
	for _, l := range sq.Lines { // sq.ServicePolicies() without building the list
		if sp, ok := parseServicePolicy(l); ok && sp.Type == typ && sp.Direction == dir {
			return sp.Name
		}
	}
	return ""
}

// carried returns the foreign classes (with their actions) of the policy
// now attached for typ/dir: our policy must carry them so attaching it in
// place of the foreign one keeps FCoE and other users' classes working.
func (r *renderer) carried(typ, dir string) []*PolicyClass {
	name := attached(r.cur, typ, dir)
	if name == "" {
		return nil
	}
	pm := r.lookupPolicy(typ, name)
	if pm == nil {
		return nil
	}
	var out []*PolicyClass
	for _, c := range pm.Clone().Classes {
		if r.ours(c.Name) {
			continue
		}
		// A "no X" action (a hand-written file may have one) only undoes
		// a default; typed into the new class it is refused ("X is not
		// configured") and would fail the push, so it is not carried.
		c.Actions = slices.DeleteFunc(c.Actions, func(a string) bool { return strings.HasPrefix(strings.TrimSpace(a), "no ") })
		out = append(out, c)
	}
	return out
}

// reconcile returns the lines the Editor ends up with when the lines of want
// whose key changed are typed over existing (and "no" is typed for keys want
// no longer has). Render uses it so the desired order is the order a switch
// produces, which keeps render → diff → apply → diff empty.
func reconcile(existing, want []string) []string {
	var buf [8]string
	keys := buf[:0]
	for _, w := range want {
		keys = append(keys, lineKey(w))
	}
	out := slices.DeleteFunc(slices.Clone(existing), func(l string) bool { return !slices.Contains(keys, lineKey(l)) })
	for i, w := range want {
		out = setLine(out, keys[i], w)
	}
	return out
}

// reconcileClasses keeps the existing order of classes that stay; new ones
// go before class-default, as the Editor inserts them.
func reconcileClasses(existing *Object, want []*PolicyClass) []*PolicyClass {
	if existing == nil {
		return want
	}
	// by name, the last of a repeated name winning, as a map would
	wanted := func(name string) *PolicyClass {
		var w *PolicyClass
		for _, c := range want {
			if c.Name == name {
				w = c
			}
		}
		return w
	}
	out := make([]*PolicyClass, 0, len(existing.Classes)+len(want))
	var kept []string
	for _, c := range existing.Classes {
		if w := wanted(c.Name); w != nil && !slices.Contains(kept, c.Name) {
			out = append(out, &PolicyClass{Name: c.Name, Actions: reconcile(c.Actions, w.Actions)})
			kept = append(kept, c.Name)
		}
	}
	for _, w := range want {
		if slices.Contains(kept, w.Name) {
			continue
		}
		at := len(out)
		if at > 0 && out[at-1].Name == "class-default" {
			at--
		}
		out = slices.Insert(out, at, w)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// policy builds one of our policy-maps, stable against the existing one:
// the classes it has keep their place, and new ones go before
// class-default (reconcileClasses). In a type qos policy, where a packet
// gets the first class it matches, a class of ours that is new to it goes
// after the foreign classes (afterForeign): they keep their traffic, and
// RoCE packets never meet them first, as checkOverlaps refuses every
// foreign class that would see them (docs/nxos.md#overlap).
func (r *renderer) policy(typ, name string, want []*PolicyClass) *Object {
	existing := r.cur.PolicyMap(typ, name)
	if typ == TypeQoS {
		want = afterForeign(want, r.ours)
	}
	o := &Object{Kind: KindPolicyMap, Type: typ, Name: name, Classes: reconcileClasses(existing, want)}
	if existing != nil {
		o.Lines = slices.Clone(existing.Lines)
	}
	return o
}

// afterForeign orders the classes of a type qos policy for a switch that
// has none of them yet: the foreign ones first, in their order, then ours
// (ours reports which), class-default last, as NX-OS keeps it.
func afterForeign(cls []*PolicyClass, ours func(string) bool) []*PolicyClass {
	out := make([]*PolicyClass, 0, len(cls))
	for _, pass := range [...]func(*PolicyClass) bool{
		func(c *PolicyClass) bool { return c.Name != "class-default" && !ours(c.Name) },
		func(c *PolicyClass) bool { return c.Name != "class-default" && ours(c.Name) },
		func(c *PolicyClass) bool { return c.Name == "class-default" },
	} {
		for _, c := range cls {
			if pass(c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// classMap builds one of our class-maps. An existing one keeps the match
// type the switch echoes for it, even none: releases differ in whether
// `show running-config` prints the default (match-all for type qos, and
// for network-qos/queuing match-any or nothing, docs/nxos.md), and the
// match type cannot change in place anyway, so an echo difference must
// never show up as a change to push again and again.
//
// A new one is written as the switch prints such class-maps: type qos
// with match-all (roce's class may match on several fields, all of which
// must hold), network-qos and queuing with no keyword, as every capture
// shows them (`show running-config ipqos` in Cisco document 214515, the
// corpus configurations; docs/nxos.md#class-map-match) — no public
// source shows match-all on those types, and Batfish's NX-OS grammar
// takes only match-any there.
func (r *renderer) classMap(typ, name string, matches []string) *Object {
	o := &Object{Kind: KindClassMap, Type: typ, Name: name}
	if typ == TypeQoS {
		o.Match = "match-all"
	}
	if ex := r.cur.ClassMap(typ, name); ex != nil {
		o.Match = ex.Match
		o.Lines = reconcile(ex.Lines, matches)
		return o
	}
	o.Lines = matches
	return o
}

// attach sets our service-policies under system qos (replacing whatever is
// attached for the same type and direction) and detaches ours that are no
// longer rendered.
func (r *renderer) attach(want []ServicePolicy) {
	sq := r.out.SystemQoS()
	if sq == nil {
		if len(want) == 0 {
			return
		}
		sq = &Object{Kind: KindSystemQoS}
		r.out.insert(sq)
	} else {
		sq = r.own(sq)
	}
	lines := make([]string, 0, len(sq.Lines)+len(want))
	wantLines := make([]string, len(want))
	wantKeys := make([]string, len(want))
	for i, sp := range want {
		wantLines[i] = sp.Line()
		wantKeys[i] = lineKey(wantLines[i])
	}
	for _, l := range sq.Lines {
		sp, ok := parseServicePolicy(l)
		if ok && r.ours(sp.Name) && !slices.Contains(wantKeys, lineKey(l)) {
			continue // ours, no longer wanted: detach
		}
		lines = append(lines, l)
	}
	for i := range want {
		lines = setLine(lines, wantKeys[i], wantLines[i])
	}
	if len(lines) == 0 {
		lines = nil // as before: a system qos with nothing attached has no lines
	}
	sq.Lines = lines
}

// interfaces sets PFC (or link-level flow control for all-traffic) on the
// managed ports, and on a 7000 the MTU of Layer 2 ports that have none.
func (r *renderer) interfaces() {
	var want []string
	drop := []string{}
	switch {
	case len(r.in.Classes) == 0:
		return
	case r.in.allTraffic():
		// docs/nxos.md: LLFC on the whole link, PFC off (exclusive).
		want = []string{"priority-flow-control mode off", "flowcontrol receive on", "flowcontrol send on"}
	default:
		want = []string{"priority-flow-control mode on"}
		drop = []string{"flowcontrol receive", "flowcontrol send"}
	}
	wantKeys := make([]string, len(want))
	for i, w := range want {
		wantKeys[i] = lineKey(w)
	}
	// A Nexus 7000 Layer 2 port frames at its own MTU, 1500 unless it has
	// an `mtu` line (docs/nxos.md#port-mtu): a port without one gets the
	// system jumbomtu, the only larger value it takes (checkPortMTU has
	// refused a class above it). A port's own `mtu` line is never changed.
	portMTU := ""
	if cm, _ := r.classMTU(); r.p.Is7000() && cm > DefaultPortMTU {
		portMTU = "mtu " + strconv.Itoa(r.jumbo) // read and checked by checkPortMTU
	}
	for _, ifn := range r.in.Interfaces {
		o := r.out.Interface(ifn)
		if o == nil {
			o = &Object{Kind: KindInterface, Name: ifn}
			r.out.insert(o)
		} else {
			o = r.own(o)
		}
		for _, k := range drop {
			o.Lines, _ = removeKey(o.Lines, k)
		}
		for i, w := range want {
			o.Lines = setLine(o.Lines, wantKeys[i], w)
		}
		if portMTU != "" && !r.routed(ifn) && !slices.ContainsFunc(o.Lines, isMTULine) {
			o.Lines = append(o.Lines, portMTU)
		}
	}
}

// isMTULine reports an interface's `mtu N` line.
func isMTULine(l string) bool { return lineKey(l) == "mtu" }

// cosList prints a CoS/DSCP list the way it is typed: runs as a-b.
func cosList(v []int) string {
	v = slices.Clone(v)
	slices.Sort(v)
	v = slices.Compact(v)
	var parts []string
	for i := 0; i < len(v); {
		j := i
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(v[i])+"-"+strconv.Itoa(v[j]))
		} else {
			parts = append(parts, strconv.Itoa(v[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
