package nexus

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// classMapMode handles match lines in config-cmap-{qos,nqos,que}.
func (e *Editor) classMapMode(t []tok) error {
	neg, t, err := splitNo(t)
	if err != nil {
		return err
	}
	w, ok := kw(t[0], "match", "description")
	if !ok {
		return invalidAt(t[0].pos)
	}
	if w == "description" {
		return e.description(neg, t)
	}
	if e.obj.Name == "class-fcoe" && !(e.obj.Type == TypeQoS) {
		return cliErrorf("ERROR: class-fcoe match criteria are fixed; only its CoS can change")
	}
	if len(t) < 2 {
		return incompleteAt(endPos(t))
	}
	i := 1
	not := false
	if x, ok := kw(t[1], "not"); ok && x == "not" && e.obj.Type == TypeQoS {
		not, i = true, 2
		if len(t) < 3 {
			return incompleteAt(endPos(t))
		}
	}
	var cands []string
	switch {
	case e.obj.Type == TypeQoS:
		cands = []string{"cos", "dscp", "access-group", "precedence"}
	case e.p.Is7000():
		cands = []string{"cos"}
	default:
		cands = []string{"qos-group"}
	}
	what, ok := kw(t[i], cands...)
	if !ok {
		return invalidAt(t[i].pos)
	}
	if i+1 >= len(t) {
		return incompleteAt(endPos(t))
	}
	arg := t[i+1]
	var line string
	switch what {
	case "cos":
		if err := valueList(arg, 0, 7); err != nil {
			return err
		}
	case "precedence":
		if err := valueList(arg, 0, 7); err != nil {
			return err
		}
	case "dscp":
		if err := dscpList(arg); err != nil {
			return err
		}
	case "qos-group":
		if _, err := number(arg, 1, 5); err != nil {
			return err
		}
	case "access-group":
		if n, ok := kw(arg, "name"); !ok || n != "name" {
			return invalidAt(arg.pos)
		}
		if i+2 >= len(t) {
			return incompleteAt(endPos(t))
		}
		acl := t[i+2].s
		if !neg && e.cfg.Find("ip access-list "+acl) == nil && e.cfg.Find("mac access-list "+acl) == nil {
			return cliErrorf("ERROR: access-list " + acl + " does not exist")
		}
		line = "match access-group name " + acl
		i++
	}
	if i+2 < len(t) {
		return invalidAt(t[i+2].pos)
	}
	if line == "" {
		line = "match " + what + " " + arg.s
		if not {
			line = "match not " + what + " " + arg.s
		}
	}
	if neg {
		var found bool
		e.obj.Lines, found = removeKey(e.obj.Lines, line)
		if !found {
			return cliErrorf("ERROR: no such match statement in class-map " + e.obj.Name)
		}
		return nil
	}
	if !slices.Contains(e.obj.Lines, line) {
		e.obj.Lines = append(e.obj.Lines, line)
	}
	return nil
}

func dscpList(t tok) error {
	named := map[string]bool{"ef": true, "default": true}
	for _, n := range []string{"af11", "af12", "af13", "af21", "af22", "af23", "af31", "af32", "af33", "af41", "af42", "af43", "cs1", "cs2", "cs3", "cs4", "cs5", "cs6", "cs7"} {
		named[n] = true
	}
	for _, part := range strings.Split(t.s, ",") {
		if named[part] {
			continue
		}
		if err := valueList(tok{part, t.pos}, 0, 63); err != nil {
			return invalidAt(t.pos)
		}
	}
	return nil
}

// policyMapMode handles `class` lines in config-pmap-*.
func (e *Editor) policyMapMode(t []tok) error {
	neg, t, err := splitNo(t)
	if err != nil {
		return err
	}
	w, ok := kw(t[0], "class", "description")
	if !ok {
		return invalidAt(t[0].pos)
	}
	if w == "description" {
		return e.description(neg, t)
	}
	typ, i, err := typeArg(t, 1)
	if err != nil {
		return err
	}
	switch {
	case i == 1 && e.obj.Type != TypeQoS:
		// `class NAME` without "type" is only valid in type qos policies
		if len(t) < 2 {
			return incompleteAt(endPos(t))
		}
		return invalidAt(t[1].pos)
	case typ != e.obj.Type:
		return invalidAt(t[2].pos)
	}
	if i >= len(t) {
		return incompleteAt(endPos(t))
	}
	if i+1 < len(t) {
		return invalidAt(t[i+1].pos)
	}
	name := t[i].s
	c := e.obj.Class(name)
	if neg {
		if c == nil {
			return cliErrorf(fmt.Sprintf("ERROR: class %s is not in policy-map %s", name, e.obj.Name))
		}
		if e.p.Is7000() && typ == TypeNetworkQoS {
			return cliErrorf("ERROR: classes of a network-qos template copy cannot be removed")
		}
		e.obj.Classes = slices.DeleteFunc(e.obj.Classes, func(x *PolicyClass) bool { return x == c })
		return nil
	}
	if c == nil {
		if e.p.Is7000() && typ == TypeNetworkQoS {
			return cliErrorf(fmt.Sprintf("ERROR: class %s is not part of template copy %s; only the template's classes can be edited", name, e.obj.Name))
		}
		if !builtinClassMap(e.p, typ, name) && e.cfg.ClassMap(typ, name) == nil {
			return cliErrorf(fmt.Sprintf("ERROR: class-map %s of type %s does not exist", name, typ))
		}
		c = &PolicyClass{Name: name}
		// New classes go before class-default, which NX-OS keeps last.
		at := len(e.obj.Classes)
		if at > 0 && e.obj.Classes[at-1].Name == "class-default" {
			at--
		}
		e.obj.Classes = slices.Insert(e.obj.Classes, at, c)
	}
	e.setMode(pmapClassMode(typ), e.obj, c)
	return nil
}

// policyClassMode handles the actions inside a policy-map class.
func (e *Editor) policyClassMode(t []tok) error {
	neg, t, err := splitNo(t)
	if err != nil {
		return err
	}
	var cands []string
	switch e.obj.Type {
	case TypeQoS:
		cands = []string{"set"}
	case TypeNetworkQoS:
		cands = []string{"pause", "mtu", "multicast-optimize", "queue-limit", "congestion-control", "set"}
	case TypeQueuing:
		cands = []string{"bandwidth", "priority", "queue-limit"}
	}
	w, ok := kw(t[0], cands...)
	if !ok {
		return invalidAt(t[0].pos)
	}
	c := e.cls
	var line string
	switch w {
	case "set":
		if len(t) < 2 {
			return incompleteAt(endPos(t))
		}
		whats := []string{"qos-group", "cos", "dscp"} // type qos: classify, or re-mark
		if e.obj.Type == TypeNetworkQoS {
			whats = []string{"cos"}
		}
		what, ok := kw(t[1], whats...)
		if !ok {
			return invalidAt(t[1].pos)
		}
		if neg {
			return e.removeAction(c, "set "+what, t)
		}
		if len(t) < 3 {
			return incompleteAt(endPos(t))
		}
		lo, hi := 0, 7
		switch {
		case what == "dscp":
			hi = 63
		case what == "qos-group":
			lo, hi = 1, 5
			if c.Name == "class-default" {
				lo = 0
			}
		}
		if _, err := number(t[2], lo, hi); err != nil {
			return err
		}
		if len(t) > 3 {
			return invalidAt(t[3].pos)
		}
		line = "set " + what + " " + t[2].s
	case "pause":
		if neg {
			return e.removeAction(c, "pause", t)
		}
		if len(t) < 2 {
			return incompleteAt(endPos(t))
		}
		if x, ok := kw(t[1], "no-drop"); !ok || x != "no-drop" {
			return invalidAt(t[1].pos)
		}
		line = "pause no-drop"
		if len(t) > 2 {
			if x, ok := kw(t[2], "pfc-cos"); !ok || x != "pfc-cos" {
				return invalidAt(t[2].pos)
			}
			if len(t) < 4 {
				return incompleteAt(endPos(t))
			}
			if err := valueList(t[3], 0, 7); err != nil {
				return err
			}
			if len(t) > 4 {
				return invalidAt(t[4].pos)
			}
			line += " pfc-cos " + t[3].s
		}
		if c.Name == "class-default" && !e.p.Caps.ClassDefaultNoDrop {
			// UNCONFIRMED (docs/nxos.md): modelled as refused.
			return cliErrorf("ERROR: class-default cannot be configured as no-drop on this platform")
		}
		if hasKey(c.Actions, "queue-limit") {
			return cliErrorf("ERROR: queue-limit is not configurable for no-drop classes; remove it first")
		}
	case "mtu":
		if neg {
			return e.removeAction(c, "mtu", t)
		}
		if len(t) < 2 {
			return incompleteAt(endPos(t))
		}
		if _, err := number(t[1], e.p.Caps.MinMTU, e.p.Caps.MaxMTU); err != nil {
			return err
		}
		if len(t) > 2 {
			return invalidAt(t[2].pos)
		}
		line = "mtu " + t[1].s
	case "multicast-optimize", "priority":
		if len(t) > 1 {
			return invalidAt(t[1].pos)
		}
		if neg {
			return e.removeAction(c, w, t)
		}
		line = w
	case "queue-limit":
		if neg {
			return e.removeAction(c, w, t)
		}
		if len(t) < 2 {
			return incompleteAt(endPos(t))
		}
		if _, err := number(t[1], 1, 1<<30); err != nil {
			return err
		}
		if len(t) > 2 {
			if x, ok := kw(t[2], "bytes"); !ok || x != "bytes" || len(t) > 3 {
				return invalidAt(t[2].pos)
			}
		}
		if e.obj.Type == TypeNetworkQoS && hasKey(c.Actions, "pause") {
			// docs/nxos.md: queue-limit "not configurable for no-drop system classes"
			return cliErrorf("ERROR: queue-limit is not configurable for no-drop classes")
		}
		line = "queue-limit " + t[1].s + " bytes"
	case "congestion-control":
		if len(t) < 2 {
			return incompleteAt(endPos(t))
		}
		if x, ok := kw(t[1], "tail-drop"); !ok || x != "tail-drop" || len(t) > 2 {
			return invalidAt(t[1].pos)
		}
		if neg {
			return e.removeAction(c, w, t)
		}
		line = "congestion-control tail-drop"
	case "bandwidth":
		if neg {
			return e.removeAction(c, "bandwidth", t)
		}
		if len(t) < 3 {
			return incompleteAt(endPos(t))
		}
		if x, ok := kw(t[1], "percent"); !ok || x != "percent" {
			return invalidAt(t[1].pos)
		}
		if _, err := number(t[2], 0, 100); err != nil {
			return err
		}
		if len(t) > 3 {
			return invalidAt(t[3].pos)
		}
		line = "bandwidth percent " + t[2].s
	}
	c.Actions = setLine(c.Actions, lineKey(line), line)
	return nil
}

func hasKey(lines []string, key string) bool {
	for _, l := range lines {
		if lineKey(l) == key {
			return true
		}
	}
	return false
}

func (e *Editor) removeAction(c *PolicyClass, key string, t []tok) error {
	var found bool
	c.Actions, found = removeKey(c.Actions, key)
	if !found {
		return cliErrorf(fmt.Sprintf("ERROR: '%s' is not configured in class %s", joined(t), c.Name))
	}
	return nil
}

// servicePolicyArgs parses "service-policy type T [input|output] NAME"
// starting at t[0] == "service-policy". A type qos policy attaches on
// input only, unless qosOut (a routed port of a Nexus 7000, see
// qosOutputAllowed).
func servicePolicyArgs(t []tok, allowNQ, qosOut bool) (ServicePolicy, error) {
	if len(t) < 2 {
		return ServicePolicy{}, incompleteAt(endPos(t))
	}
	if x, ok := kw(t[1], "type"); !ok || x != "type" {
		return ServicePolicy{}, invalidAt(t[1].pos)
	}
	if len(t) < 3 {
		return ServicePolicy{}, incompleteAt(endPos(t))
	}
	cands := []string{TypeQoS, TypeQueuing}
	if allowNQ {
		cands = append(cands, TypeNetworkQoS)
	}
	typ, ok := kw(t[2], cands...)
	if !ok {
		return ServicePolicy{}, invalidAt(t[2].pos)
	}
	sp := ServicePolicy{Type: typ}
	i := 3
	if typ != TypeNetworkQoS {
		if i >= len(t) {
			return ServicePolicy{}, incompleteAt(endPos(t))
		}
		dirs := []string{"input", "output"}
		if typ == TypeQoS && !qosOut {
			dirs = []string{"input"} // type qos "applies to input traffic only" (docs/nxos.md)
		}
		d, ok := kw(t[i], dirs...)
		if !ok {
			return ServicePolicy{}, invalidAt(t[i].pos)
		}
		sp.Direction = d
		i++
	}
	if i >= len(t) {
		return ServicePolicy{}, incompleteAt(endPos(t))
	}
	if i+1 < len(t) {
		return ServicePolicy{}, invalidAt(t[i+1].pos)
	}
	sp.Name = t[i].s
	return sp, nil
}

// systemQoSMode handles service-policy attachments under system qos.
func (e *Editor) systemQoSMode(t []tok) error {
	neg, t, err := splitNo(t)
	if err != nil {
		return err
	}
	if x, ok := kw(t[0], "service-policy"); !ok || x != "service-policy" {
		return invalidAt(t[0].pos)
	}
	sp, err := servicePolicyArgs(t, true, false)
	if err != nil {
		return err
	}
	return e.attach(sp, neg)
}

func (e *Editor) attach(sp ServicePolicy, neg bool) error {
	line := sp.Line()
	if neg {
		var found bool
		if slices.Contains(e.obj.Lines, line) {
			e.obj.Lines, found = removeKey(e.obj.Lines, lineKey(line))
		}
		if !found {
			return cliErrorf("ERROR: service-policy " + sp.Name + " is not attached here")
		}
		return nil
	}
	pm := lookupPolicy(e.cfg, e.p, sp.Type, sp.Name)
	if pm == nil {
		return cliErrorf(fmt.Sprintf("ERROR: policy-map %s of type %s does not exist", sp.Name, sp.Type))
	}
	if sp.Type == TypeQueuing {
		total := 0
		for _, c := range pm.Classes {
			for _, a := range c.Actions {
				if f := strings.Fields(a); len(f) == 3 && f[0] == "bandwidth" {
					n, _ := strconv.Atoi(f[2])
					total += n
				}
			}
		}
		if total > 100 {
			return cliErrorf(fmt.Sprintf("ERROR: policy-map %s: the bandwidth percentages add up to %d, more than 100", sp.Name, total))
		}
	}
	e.obj.Lines = setLine(e.obj.Lines, lineKey(line), line)
	return nil
}

// interfaceMode handles config-if lines.
func (e *Editor) interfaceMode(t []tok) error {
	neg, t, err := splitNo(t)
	if err != nil {
		return err
	}
	w, ok := kw(t[0], "priority-flow-control", "flowcontrol", "untagged", "service-policy", "description", "shutdown", "switchport", "mtu", "speed", "channel-group", "spanning-tree")
	if !ok {
		return invalidAt(t[0].pos)
	}
	o := e.obj
	switch w {
	case "priority-flow-control":
		if len(t) < 2 {
			return incompleteAt(endPos(t))
		}
		if x, ok := kw(t[1], "mode"); !ok || x != "mode" {
			return invalidAt(t[1].pos)
		}
		if neg {
			o.Lines, _ = removeKey(o.Lines, "priority-flow-control mode")
			return nil
		}
		if len(t) < 3 {
			return incompleteAt(endPos(t))
		}
		mode, ok := kw(t[2], "on", "off", "auto")
		if !ok || len(t) > 3 {
			return invalidAt(t[2].pos)
		}
		if mode == "on" {
			if err := e.pfcAllowed(o.Name); err != nil {
				return err
			}
			if slices.Contains(o.Lines, "flowcontrol receive on") || slices.Contains(o.Lines, "flowcontrol send on") {
				// docs/nxos.md: PFC or link-level flow control, not both.
				return cliErrorf("ERROR: " + o.Name + ": priority-flow-control cannot be enabled while link-level flowcontrol is on")
			}
		}
		if mode == "auto" { // the default: not printed
			o.Lines, _ = removeKey(o.Lines, "priority-flow-control mode")
			return nil
		}
		o.Lines = setLine(o.Lines, "priority-flow-control mode", "priority-flow-control mode "+mode)
	case "flowcontrol":
		if len(t) < 2 {
			return incompleteAt(endPos(t))
		}
		dir, ok := kw(t[1], "receive", "send")
		if !ok {
			return invalidAt(t[1].pos)
		}
		key := "flowcontrol " + dir
		if neg {
			o.Lines, _ = removeKey(o.Lines, key)
			return nil
		}
		if len(t) < 3 {
			return incompleteAt(endPos(t))
		}
		v, ok := kw(t[2], "on", "off")
		if !ok || len(t) > 3 {
			return invalidAt(t[2].pos)
		}
		if v == "off" { // the default: not printed
			o.Lines, _ = removeKey(o.Lines, key)
			return nil
		}
		if slices.Contains(o.Lines, "priority-flow-control mode on") {
			return cliErrorf("ERROR: " + o.Name + ": link-level flowcontrol cannot be enabled while priority-flow-control mode is on")
		}
		o.Lines = setLine(o.Lines, key, key+" on")
	case "untagged":
		if len(t) < 2 {
			return incompleteAt(endPos(t))
		}
		if x, ok := kw(t[1], "cos"); !ok || x != "cos" {
			return invalidAt(t[1].pos)
		}
		if neg {
			o.Lines, _ = removeKey(o.Lines, "untagged cos")
			return nil
		}
		if len(t) < 3 {
			return incompleteAt(endPos(t))
		}
		if _, err := number(t[2], 0, 7); err != nil {
			return err
		}
		if len(t) > 3 {
			return invalidAt(t[3].pos)
		}
		o.Lines = setLine(o.Lines, "untagged cos", "untagged cos "+t[2].s)
	case "service-policy":
		sp, err := servicePolicyArgs(t, false, e.qosOutputAllowed(o))
		if err != nil {
			return err
		}
		return e.attach(sp, neg)
	case "shutdown":
		if len(t) > 1 {
			return invalidAt(t[1].pos)
		}
		if neg {
			o.Lines, _ = removeKey(o.Lines, "shutdown")
			return nil
		}
		o.Lines = setLine(o.Lines, "shutdown", "shutdown")
	default: // description, switchport, mtu, speed, channel-group, spanning-tree: kept as typed
		if w == "switchport" && len(t) == 1 {
			// The port mode: "no switchport" makes it a routed port, as
			// the running configuration prints it; the two replace each
			// other.
			line := "switchport"
			if neg {
				line = "no switchport"
			}
			if i := slices.IndexFunc(o.Lines, func(l string) bool { return l == "switchport" || l == "no switchport" }); i >= 0 {
				o.Lines[i] = line
			} else {
				o.Lines = append(o.Lines, line)
			}
			return nil
		}
		if len(t) < 2 && w != "switchport" {
			return incompleteAt(endPos(t))
		}
		if !neg {
			if ce := e.portLineRefusal(w, t); ce != nil {
				return ce
			}
		}
		line := w + " " + joined(t[1:])
		if neg {
			if k := lineKey(line); k != line {
				o.Lines, _ = removeKey(o.Lines, k)
			} else {
				o.Lines = slices.DeleteFunc(o.Lines, func(l string) bool { return l == line })
			}
			return nil
		}
		o.Lines = setLine(o.Lines, lineKey(line), line)
	}
	return nil
}

// portLineRefusal answers the port lines nexus.Check judges beyond the
// QoS grammar (check_lines.go), as the CLI does when they are typed: a
// `switchport mode` the switch does not have, or words after a mode that
// takes none, and an `mtu` value outside what the port takes, at the
// caret of the bad word. t starts at w.
func (e *Editor) portLineRefusal(w string, t []tok) *CLIError {
	switch w {
	case "switchport":
		if m, ok := kw(t[1], "mode"); !ok || m != "mode" {
			return nil // access vlan, trunk allowed vlan, …: kept as typed
		}
		if len(t) < 3 {
			return incompleteAt(endPos(t))
		}
		if switchportModeRefusal("switchport mode "+joined(t[2:])) == nil {
			return nil
		}
		if switchportModeRefusal("switchport mode "+t[2].s) == nil {
			return invalidAt(t[3].pos) // a good mode, then words it does not take
		}
		return invalidAt(t[2].pos)
	case "mtu":
		if len(t) > 2 {
			return invalidAt(t[2].pos)
		}
		// The range `mtu ?` lists; which value in it a 7000 Layer 2 port
		// takes (1500 or the system jumbomtu) is the simulator's to
		// answer (PortMTURefusal), as the jumbomtu may be read apart
		// from the configuration being edited.
		lo := minRoutedMTU
		if e.p.Is7000() && !e.cfg.Routed(e.p, e.obj.Name) {
			lo = DefaultPortMTU
		}
		if n, err := strconv.Atoi(t[1].s); err != nil || n < lo || n > DefaultJumboMTU {
			return invalidAt(t[1].pos)
		}
	}
	return nil
}

// qosOutputAllowed reports whether a type qos policy may be attached to
// port o in the output direction: on a Nexus 7000 a routed port ("no
// switchport") takes one ingress and one egress QoS policy, while "egress
// type qos policies are not allowed on Layer 2 port or Layer 2
// port-channel interfaces" (Cisco Nexus 7000 Series NX-OS Quality of
// Service Configuration Guide, "Attaching and Detaching a QoS Policy
// Action", e.g. http://www.manualslib.com/manual/1437626/Cisco-Nexus-7000-Series.html?page=40).
// On a 5000 type qos is input only (docs/nxos.md#refuses).
func (e *Editor) qosOutputAllowed(o *Object) bool {
	return e.p.Is7000() && e.cfg.Routed(e.p, o.Name)
}

// pfcAllowed refuses PFC on ports of M-series modules (docs/nxos.md).
func (e *Editor) pfcAllowed(ifname string) error {
	if !e.p.Caps.RequiresFSeries {
		return nil
	}
	slot, ok := InterfaceSlot(ifname)
	if !ok {
		return nil
	}
	for _, m := range e.modules {
		if m.Slot == slot && m.Series == "M" {
			return cliErrorf(fmt.Sprintf("ERROR: %s: priority-flow-control is not supported on module %d (%s, M-series); no-drop needs an F-series module", ifname, slot, m.Model))
		}
	}
	return nil
}

// splitNo strips a leading "no" (NX-OS negation), refusing a bare "no".
func splitNo(t []tok) (neg bool, rest []tok, err error) {
	if t[0].s != "no" {
		return false, t, nil
	}
	if len(t) == 1 {
		return true, nil, incompleteAt(2)
	}
	return true, t[1:], nil
}

// description sets or removes the current object's description line.
func (e *Editor) description(neg bool, t []tok) error {
	if neg {
		e.obj.Lines, _ = removeKey(e.obj.Lines, "description")
		return nil
	}
	if len(t) < 2 {
		return incompleteAt(endPos(t))
	}
	e.obj.Lines = setLine(e.obj.Lines, "description", "description "+joined(t[1:]))
	return nil
}
