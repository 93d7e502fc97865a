package nexus

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The lines Check judges beyond the QoS grammar the Editor replays: a
// port's `mtu`, `system jumbomtu`, `switchport mode`, and whether the
// switch's modules have the interface a block names
// (docs/nxos.md#refuses, with the sources). Where a rule is not
// confirmed it refuses only what no public source shows a switch taking.

// minRoutedMTU is the smallest `mtu` a routed port takes (576–9216, the
// NX-OS range the Ansible nxos_mtu module documents for an interface).
const minRoutedMTU = 576

// interfaceMTURefusal judges an interface's `mtu N` line text on
// platform p, for port ifname of cfg (the configuration as loaded up to
// that line: the port's mode, Config.Routed, and the system jumbomtu
// line). nil when the switch takes it, or when the line is no `mtu`
// line.
func interfaceMTURefusal(p Platform, cfg *Config, ifname, text string) error {
	if !strings.HasPrefix(text, "mtu") {
		return nil // `no mtu` and every other line, without splitting it
	}
	f := strings.Fields(text)
	if f[0] != "mtu" {
		return nil
	}
	routed := cfg.Routed(p, ifname)
	if len(f) != 2 {
		return fmt.Errorf("mtu takes one number (%s)", mtuAllowed(p, cfg, routed))
	}
	n, err := strconv.Atoi(f[1])
	switch {
	case routed:
		if err != nil || n < minRoutedMTU || n > DefaultJumboMTU {
			return fmt.Errorf("%s is a routed port: %s", ifname, mtuAllowed(p, cfg, routed))
		}
	case p.Is7000():
		if err != nil {
			return fmt.Errorf("mtu takes a number (%s)", mtuAllowed(p, cfg, routed))
		}
		if n < DefaultPortMTU || n > DefaultJumboMTU {
			// `mtu ?` on a Layer 2 port lists <1500-9216>, whatever the
			// jumbomtu (readable or not) allows within it.
			return fmt.Errorf("%s: mtu %d is outside 1500-9216 (%s)", ifname, n, mtuAllowed(p, cfg, routed))
		}
		if ce := PortMTURefusal(p, cfg, ifname, text); ce != nil {
			return fmt.Errorf("%s (%s)", ce.Message, mtuAllowed(p, cfg, routed))
		}
	default:
		// The 5000 guides say its interfaces take no mtu (the class's
		// network-qos mtu is the frame size); what a release answers to
		// one is UNCONFIRMED, so only a value no NX-OS port takes is
		// refused.
		if err != nil || n < minRoutedMTU || n > DefaultJumboMTU {
			return fmt.Errorf("%s: %s", ifname, mtuAllowed(p, cfg, routed))
		}
	}
	return nil
}

// mtuAllowed says which `mtu` values a port takes.
func mtuAllowed(p Platform, cfg *Config, routed bool) string {
	switch {
	case routed:
		return fmt.Sprintf("a routed port takes %d-%d, 1500 by default", minRoutedMTU, DefaultJumboMTU)
	case p.Is7000():
		j, err := JumboMTU(cfg)
		if err != nil {
			return "a Layer 2 port of a Nexus 7000 takes 1500 or the system jumbomtu"
		}
		return fmt.Sprintf("a Layer 2 port of a Nexus 7000 takes 1500, the default, or the system jumbomtu, here %d", j)
	}
	return fmt.Sprintf("an interface mtu is a number from %d to %d; a Layer 2 port of a Nexus 5000 frames at its network-qos class's mtu, which is where to set it", minRoutedMTU, DefaultJumboMTU)
}

// jumboMTURefusal judges a top-level `system jumbomtu N` line: N is a
// number up to 9216 (ParseJumboMTU; 0 is what NX-OSv prints). nil for
// every other line.
func jumboMTURefusal(text string) error {
	if !isJumboLine(text) {
		return nil
	}
	if _, err := ParseJumboMTU(text); err != nil {
		return fmt.Errorf("system jumbomtu takes one number up to %d, the default (docs/nxos.md#port-mtu)", DefaultJumboMTU)
	}
	return nil
}

// switchportModes are the port modes of `switchport mode` on NX-OS, from
// the public sources docs/nxos.md#refuses cites, and whether the mode
// takes more words (private-vlan host|promiscuous|trunk …, monitor
// buffer-limit …).
func switchportModes() map[string]bool {
	return map[string]bool{
		"access": false, "trunk": false, "dot1q-tunnel": false, "fex-fabric": false, "fabricpath": false,
		"private-vlan": true, "monitor": true,
	}
}

// switchportModeRefusal judges a `switchport mode X` line: X must be one
// of switchportModes (or an unambiguous abbreviation of one, as the CLI
// takes it), with nothing after it unless the mode takes more. nil for
// `no switchport mode …` and every other line.
func switchportModeRefusal(text string) error {
	if len(text) < len("switchport mode") || (text[0] != 's' && text[0] != 'S') {
		return nil // every other line, without splitting it
	}
	f := strings.Fields(strings.ToLower(text))
	if len(f) < 2 || f[0] != "switchport" || f[1] != "mode" {
		return nil
	}
	modes := switchportModes()
	names := make([]string, 0, len(modes))
	for m := range modes {
		names = append(names, m)
	}
	slices.Sort(names)
	if len(f) == 2 {
		return fmt.Errorf("switchport mode needs a mode: one of %s", strings.Join(names, ", "))
	}
	m, ok := kw(tok{s: f[2]}, names...)
	if !ok {
		return fmt.Errorf("%q is not a port mode: switchport mode takes one of %s", f[2], strings.Join(names, ", "))
	}
	if len(f) > 3 && !modes[m] {
		return fmt.Errorf("switchport mode %s takes nothing after it, not %q", m, strings.Join(f[3:], " "))
	}
	return nil
}

// missingPortRefusal says why interface name (canonical: EthernetS/P,
// EthernetS/P/B for a breakout port, EthernetF/S/P for a FEX port,
// port-channelN) is not a port of a switch with these modules, or nil.
// Only Ethernet ports of a chassis slot are judged, and only when the
// module list is known (some module has ports): a FEX's ports (FEX ids
// 100-199) come from the FEX, not from `show module`, and port-channels
// are made by configuration. A breakout port is judged by its parent
// port.
//
// A slot the configuration pre-provisions (a `slot N` block, with
// `provision model …`) is not judged: the switch takes interfaces of a
// module that is not inserted yet there.
func missingPortRefusal(name string, modules []Module, provisioned map[int]bool) error {
	if !strings.HasPrefix(name, "Ethernet") || !slices.ContainsFunc(modules, func(m Module) bool { return m.Ports > 0 }) {
		return nil
	}
	num, _, _ := strings.Cut(strings.TrimPrefix(name, "Ethernet"), ".") // a subinterface is judged by its port
	parts := strings.Split(num, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return nil
	}
	// A range header (`interface Ethernet1/6-7`) is judged by its last
	// port (the first exists if the last does); a range of breakout ports
	// or one that does not read as a range is not judged.
	first, last, isRange := strings.Cut(parts[1], "-")
	if isRange && len(parts) != 2 {
		return nil
	}
	slot, err1 := strconv.Atoi(parts[0])
	port, err2 := strconv.Atoi(first)
	if isRange && err2 == nil {
		hi, err := strconv.Atoi(last)
		if err != nil || hi < port {
			return nil
		}
		if port >= 1 {
			port = hi
		}
	}
	if err1 != nil || err2 != nil || slot >= 100 || provisioned[slot] {
		return nil // a FEX port, a pre-provisioned slot, or not a number
	}
	i := slices.IndexFunc(modules, func(m Module) bool { return m.Slot == slot })
	if i < 0 {
		return fmt.Errorf("the switch has no module in slot %d (show module: %s): name a port of one of its modules", slot, moduleList(modules))
	}
	m := modules[i]
	if m.Ports == 0 {
		return fmt.Errorf("module %d (%s) has no Ethernet ports (show module: %s): name a port of a line card", slot, moduleName(m), moduleList(modules))
	}
	if port < 1 || port > m.Ports {
		return fmt.Errorf("module %d (%s) has %d ports, Ethernet%d/1-%d: there is no port %d; name one of them, or a port of another module (show module: %s)", slot, moduleName(m), m.Ports, slot, m.Ports, port, moduleList(modules))
	}
	return nil
}

// portRange reads a range header, `interface Ethernet1/6-7` in any
// abbreviation, as "Ethernet1/6-7" for missingPortRefusal; false for every
// other line (lists with commas and ranges of other interfaces included).
func portRange(line string) (string, bool) {
	f := strings.Fields(line)
	if len(f) != 2 || !strings.EqualFold(f[0], "interface") || strings.Contains(f[1], ",") {
		return "", false
	}
	first, last, ok := strings.Cut(f[1], "-")
	if !ok {
		return "", false
	}
	name, ok := CanonicalInterface(first)
	if !ok || !strings.HasPrefix(name, "Ethernet") {
		return "", false
	}
	return name + "-" + last, true
}

// provisionedSlots are the slots configuration c pre-provisions: its
// top-level `slot N` blocks.
func provisionedSlots(c *Config) map[int]bool {
	var out map[int]bool
	for _, o := range c.Objects {
		f := strings.Fields(o.Header)
		if o.Kind != KindRaw || len(f) != 2 || f[0] != "slot" {
			continue
		}
		if n, err := strconv.Atoi(f[1]); err == nil {
			if out == nil {
				out = map[int]bool{}
			}
			out[n] = true
		}
	}
	return out
}

// moduleName is a module's model, else its type.
func moduleName(m Module) string {
	if m.Model != "" {
		return m.Model
	}
	return m.Type
}

// moduleList prints the modules as "1 (N7K-SUP2, 0 ports), 3 (N7K-F248XP-25E, 48 ports)".
func moduleList(modules []Module) string {
	parts := make([]string, 0, len(modules))
	for _, m := range modules {
		parts = append(parts, fmt.Sprintf("%d (%s, %d ports)", m.Slot, moduleName(m), m.Ports))
	}
	return strings.Join(parts, ", ")
}

// subModeRefusal judges a top-level line that is a command of a QoS
// sub-mode fallen out of its block: `match cos 3` outside a class-map,
// `set qos-group 2`, `pause no-drop`, `bandwidth percent 50`, `mtu 9216`
// … outside a policy-map's class, `class X` outside a policy-map,
// `service-policy …` outside system qos (or an interface), and
// `priority-flow-control mode …` outside an interface. NX-OS answers
// `% Invalid command at '^' marker.` for them in global configuration
// mode (docs/nxos.md#refuses). nil for every other line.
//
// The line is refused only when the top level's grammar refuses it at
// its command word, the word (spelled out) is one Parse knows as a
// sub-mode's (childOf), and the Editor's grammar of that sub-mode reads
// it: it takes the line, or refuses it for a value, a missing word or a
// name, or marks a word after the command. So a sub-mode command roce
// has no grammar for (`police`, `shape`) and a global command sharing
// its first word (`priority-flow-control watch-dog-interval on`, which
// the interface grammar marks at its second word) are kept, not judged.
// `description` is kept too: whether a top-level one is refused is
// UNCONFIRMED.
func subModeRefusal(p Platform, text string) error {
	all := tokenize(text)
	t := all
	if len(t) > 1 && t[0].s == "no" {
		t = t[1:]
	}
	if len(t) == 0 || t[0].s == "description" {
		return nil
	}
	words := make([]string, len(t))
	for i, x := range t {
		words[i] = x.s
	}
	// priority-flow-control is judged as an interface's only; an
	// interface takes service-policy and mtu too.
	iface := words[0] == "priority-flow-control"
	ifaceToo := iface || words[0] == "service-policy" || words[0] == "mtu"
	if !iface && !childOf(&Object{Kind: KindClassMap}, false, words) &&
		!childOf(&Object{Kind: KindPolicyMap}, true, words) && !childOf(&Object{Kind: KindSystemQoS}, false, words) {
		return nil
	}
	e := NewEditor(&Config{}, p, nil)
	top, ok := e.config(all).(*CLIError)
	// `class` is class-map abbreviated to the top level's grammar; roce
	// takes block headers only written in full (Parse), so a top-level
	// `class` line is refused either way, as a policy-map's line.
	abbrev := words[0] == "class"
	if !abbrev && (!ok || top.Kind != "invalid" || top.Pos != t[0].pos) {
		return nil // the top level has it (or not this way): not judged
	}
	var where []string
	for _, m := range subModeProbes() {
		if (m.mode == "config-if" && !ifaceToo) || (m.mode != "config-if" && iface) {
			continue
		}
		e.setMode(m.mode, m.obj, m.cls)
		err := e.dispatch(all)
		ce, isCLI := err.(*CLIError)
		// The sub-mode's command word reads; an interface's
		// priority-flow-control needs its second word too.
		past := t[0].pos
		if iface && len(t) > 1 {
			past = t[1].pos
		}
		if err == nil || !isCLI || ce.Kind != "invalid" || ce.Pos > past {
			if !slices.Contains(where, m.name) {
				where = append(where, m.name)
			}
		}
	}
	if len(where) == 0 {
		return nil
	}
	if abbrev {
		return fmt.Errorf("class is a command of %s, not of the top level (where it could only abbreviate class-map, and roce takes block headers written in full); indent it under its policy-map, write class-map in full, or remove it",
			strings.Join(where, " or "))
	}
	return fmt.Errorf("%s (at column %d): %s is a command of %s, not of the top level; indent it under its block, or remove it",
		strings.TrimPrefix(msgInvalid, "% "), t[0].pos+1, t[0].s, strings.Join(where, " or "))
}

// subModeProbe is a sub-mode subModeRefusal tries a line in, with the
// objects it edits (a scratch configuration's).
type subModeProbe struct {
	mode, name string
	obj        *Object
	cls        *PolicyClass
}

// subModeProbes are the QoS sub-modes of the Editor's grammar, each with
// a scratch object of its own, and an interface for its
// priority-flow-control.
func subModeProbes() []subModeProbe {
	const name = "roce-check-probe"
	var out []subModeProbe
	for _, typ := range []string{TypeQoS, TypeNetworkQoS, TypeQueuing} {
		cm := &Object{Kind: KindClassMap, Type: typ, Name: name}
		cls := &PolicyClass{Name: name}
		pm := &Object{Kind: KindPolicyMap, Type: typ, Name: name, Classes: []*PolicyClass{cls}}
		out = append(out,
			subModeProbe{mode: cmapMode(typ), name: "a class-map", obj: cm},
			subModeProbe{mode: pmapMode(typ), name: "a policy-map", obj: pm},
			subModeProbe{mode: pmapClassMode(typ), name: "a policy-map's class", obj: pm, cls: cls},
		)
	}
	return append(out,
		subModeProbe{mode: "config-sys-qos", name: "system qos", obj: &Object{Kind: KindSystemQoS}},
		subModeProbe{mode: "config-if", name: "an interface", obj: &Object{Kind: KindInterface, Name: "Ethernet1/1"}},
	)
}

// aclValueRefusal judges the numbers of an `ip access-list` rule that no
// NX-OS rule takes: a port (after eq, neq, gt, lt or range) above 65535,
// and a `dscp` value above 63, as the Editor's grammar refuses them
// (parseIPRule), with the caret under the number. Only what is written as
// a number is judged: port and DSCP names, `packet-length` (whose
// operators take a length) and every other form of a rule are kept, as
// the rules of an access-list are not otherwise judged. nil when the
// line has no such value.
func aclValueRefusal(text string) error {
	t := tokenize(text)
	if len(t) > 1 && isDigits(t[0].s) {
		t = t[1:] // the sequence number
	}
	if len(t) == 0 || (t[0].s != "permit" && t[0].s != "deny") {
		return nil // a remark's text, statistics, …
	}
	for i := 1; i < len(t); i++ {
		lo, hi, what := 0, 65535, "a port"
		n := 1
		switch t[i-1].s {
		case "eq", "neq", "gt", "lt":
		case "range":
			n = 2
		case "dscp":
			hi, what = 63, "a DSCP value"
		default:
			continue
		}
		if i >= 2 && t[i-2].s == "packet-length" {
			continue
		}
		for k := i; k < i+n && k < len(t); k++ {
			if !isDigits(t[k].s) {
				continue
			}
			if _, err := number(t[k], lo, hi); err != nil {
				return fmt.Errorf("%s (at column %d): %s is %d-%d, not %s; correct the rule", strings.TrimPrefix(msgInvalid, "% "), t[k].pos+1, what, lo, hi, t[k].s)
			}
		}
	}
	return nil
}

// isDigits reports a non-empty string of decimal digits.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
