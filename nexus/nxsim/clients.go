package nxsim

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/rocefabric/roce/nexus"
)

// addClientCommands registers the exec commands third-party clients send
// (Ansible cisco.nxos cliconf and nxos_facts, netmiko/scrapli cisco_nxos,
// ntc-templates users): show inventory, show interface, show license
// host-id, show hostname, show class-map, show policy-map. docs/nxos.md
// lists each command with the real output its format follows.
func (sw *Switch) addClientCommands(t *cmdNode) {
	t.add("show inventory", func(s *session, _ []string) (string, error) {
		return nexus.FormatShowInventory(s.sw.inventory()), nil
	})
	t.add("show hostname", func(s *session, _ []string) (string, error) { return s.sw.hostname, nil })
	// Ansible's nxos_facts (gather_subset min) reads the license host ID;
	// the 5000/7000 print "License hostid: VDH=<chassis serial>".
	t.add("show license host-id", func(s *session, _ []string) (string, error) {
		return "License hostid: VDH=" + s.sw.facts().serial, nil
	})
	t.add("show interface", func(s *session, _ []string) (string, error) {
		return s.sw.showInterface(s.sw.interfaces), nil
	})
	t.add("show interface <list...>", func(s *session, a []string) (string, error) {
		if hasSubForm(a[0]) {
			return "", fmt.Errorf("ERROR: nxsim has no form of `show interface %s` (no public capture of it for this platform; docs/nxos.md#clients)", strings.Join(strings.Fields(a[0]), " "))
		}
		names, err := s.sw.expandInterfaces(a[0])
		if err != nil {
			return "", err
		}
		return s.sw.showInterface(names), nil
	})
	pmi := func(s *session, a []string) (string, error) { return s.sw.showPolicyMapInterface(a) }
	t.add("show policy-map interface", pmi)
	t.add("show policy-map interface <args...>", pmi)
	for _, typ := range []string{"", nexus.TypeQoS, nexus.TypeNetworkQoS, nexus.TypeQueuing} {
		typ := typ
		cm := func(s *session, a []string) (string, error) { return s.sw.showClassMaps(typ, first(a)) }
		pm := func(s *session, a []string) (string, error) { return s.sw.showPolicyMaps(typ, first(a), false) }
		sys := func(s *session, a []string) (string, error) { return s.sw.showPolicyMaps(typ, "", true) }
		pre := ""
		if typ != "" {
			pre = " type " + typ
		}
		t.add("show class-map"+pre, cm)
		t.add("show class-map"+pre+" <name>", cm)
		t.add("show policy-map"+pre, pm)
		t.add("show policy-map"+pre+" <name>", pm)
		t.add("show policy-map system"+pre, sys)
	}
}

// hasSubForm reports whether what follows `show interface` holds a
// sub-form such as `counters errors`, `brief` or `status` rather than only
// an interface list: a word made only of letters and hyphens that is not
// an interface type typed apart from its number ("ethernet 1/1"). Those
// forms, whose 5000/7000 output has no public capture we could copy, are
// answered with the simulator's "no form" error instead of being read as
// interface names.
func hasSubForm(args string) bool {
	for _, w := range strings.Fields(args) {
		if isKeyword(w) {
			if _, isType := nexus.CanonicalInterface(w + "1/1"); !isType {
				return true
			}
		}
	}
	return false
}

// isKeyword reports whether w starts with a letter and holds only letters
// and hyphens ("counters", "priority-flow-control"), as show keywords do
// and interface names ("Ethernet1/1", "e1/1-4") do not.
func isKeyword(w string) bool {
	for i, c := range w {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c != '-') {
			return false
		}
	}
	return w != ""
}

func first(a []string) string {
	if len(a) == 0 {
		return ""
	}
	return a[0]
}

// showInterface prints `show interface` for the named ports: state, MTU
// (the port's `mtu` line, else 1500), port mode (routed for a Layer 3
// port — `no switchport`, or a 7000 port without a switchport line and
// without `system default switchport` — else `switchport mode`, else
// access), description; the counters are zero but for the discards a test
// added (AddDiscards, Faults.DiscardsPerRead).
func (sw *Switch) showInterface(names []string) string {
	return nexus.FormatShowInterface(sw.interfaceStatus(names))
}

// interfaceStatus is the state `show interface` (and its JSON form) print
// for the named ports.
func (sw *Switch) interfaceStatus(names []string) []nexus.InterfaceStatus {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	ports := make([]nexus.InterfaceStatus, 0, len(names))
	for i, n := range names {
		p := nexus.InterfaceStatus{
			Name: n, Up: true, Hardware: "1000/10000 Ethernet",
			MAC: fmt.Sprintf("8c60.4f4e.%04x", 0x9300+i), MTU: 1500, Mode: "access",
			Duplex: "full-duplex", Speed: "10 Gb/s",
		}
		d := sw.readDiscards(n)
		p.InDiscards, p.OutDiscards = d.in, d.out
		routed := sw.cfg.Routed(sw.platform, n)
		if routed {
			p.Mode = "routed"
		}
		if o := sw.cfg.Interface(n); o != nil {
			for _, l := range o.Lines {
				f := strings.Fields(l)
				switch {
				case len(f) == 1 && f[0] == "shutdown":
					p.Up, p.Reason = false, "Administratively down"
				case len(f) == 2 && f[0] == "mtu":
					fmt.Sscan(f[1], &p.MTU)
				case len(f) == 3 && f[0] == "switchport" && f[1] == "mode" && !routed:
					p.Mode = f[2]
				case len(f) >= 2 && f[0] == "description":
					p.Description = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "description"))
				}
			}
		}
		ports = append(ports, p)
	}
	return ports
}

// qosTypes in the order NX-OS lists them.
var qosTypes = [...]string{nexus.TypeQoS, nexus.TypeQueuing, nexus.TypeNetworkQoS}

// showQoS prints the objects of one kind (class-map or policy-map) the way
// `show class-map` / `show policy-map` do: per type a "Type T class-maps"
// title underlined with '=', then each object keep accepts, printed by
// write. name, when set, must match at least one object.
func (sw *Switch) showQoS(kind nexus.ObjectKind, noun, typ, name string, keep func(*nexus.Object) bool, write func(*strings.Builder, *nexus.Object)) (string, error) {
	var b strings.Builder
	found := false
	for _, t := range qosTypes {
		if typ != "" && t != typ {
			continue
		}
		var objs []*nexus.Object
		for _, o := range sw.cfg.Objects {
			if o.Kind == kind && o.Type == t && (name == "" || o.Name == name) && keep(o) {
				objs = append(objs, o)
			}
		}
		if len(objs) == 0 {
			continue
		}
		found = true
		title := "Type " + t + " " + noun + "s"
		fmt.Fprintf(&b, "\n  %s\n  %s\n", title, strings.Repeat("=", len(title)+1))
		for _, o := range objs {
			write(&b, o)
		}
	}
	if name != "" && !found {
		return "", fmt.Errorf("ERROR: %s %s not found", noun, name)
	}
	return b.String(), nil
}

// showClassMaps prints `show class-map [type T] [NAME]`: each class-map
// with its match type (match-any for network-qos and queuing, match-all for
// qos unless configured) and match lines.
func (sw *Switch) showClassMaps(typ, name string) (string, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.showQoS(nexus.KindClassMap, "class-map", typ, name, func(*nexus.Object) bool { return true },
		func(b *strings.Builder, o *nexus.Object) {
			fmt.Fprintf(b, "\n    class-map type %s %s %s\n", o.Type, classMapMatch(o), o.Name)
			for _, l := range o.Lines {
				fmt.Fprintf(b, "      %s\n", l)
			}
		})
}

// classMapMatch is the match type `show class-map` prints for a class-map.
func classMapMatch(o *nexus.Object) string {
	if o.Match != "" {
		return o.Match
	}
	if o.Type == nexus.TypeQoS {
		return "match-all"
	}
	return "match-any"
}

// showPolicyMaps prints `show policy-map [type T] [NAME]` (or `show
// policy-map system [type T]`, only the policies attached under system
// qos): each policy-map with its classes and actions.
func (sw *Switch) showPolicyMaps(typ, name string, system bool) (string, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	attachedNames := map[string]bool{}
	if sq := sw.cfg.SystemQoS(); sq != nil {
		for _, l := range sq.Lines {
			f := strings.Fields(l)
			if len(f) >= 4 && f[0] == "service-policy" && f[1] == "type" {
				attachedNames[f[2]+" "+f[len(f)-1]] = true
			}
		}
	}
	return sw.showQoS(nexus.KindPolicyMap, "policy-map", typ, name,
		func(o *nexus.Object) bool { return !system || attachedNames[o.Type+" "+o.Name] },
		func(b *strings.Builder, o *nexus.Object) {
			fmt.Fprintf(b, "\n  policy-map type %s %s\n", o.Type, o.Name)
			for _, l := range o.Lines {
				fmt.Fprintf(b, "    %s\n", l)
			}
			for _, c := range o.Classes {
				fmt.Fprintf(b, "    class type %s %s\n", o.Type, c.Name)
				for _, a := range c.Actions {
					fmt.Fprintf(b, "      %s\n", a)
				}
			}
		})
}

// applyPipe runs an NX-OS output filter on out: include/exclude REGEX,
// begin REGEX, section REGEX (a matching line and the lines indented under
// it), count, and no-more. ok is false for a filter the switch does not
// have, which the CLI reports at the filter's column.
func applyPipe(out, filter string) (string, bool, error) {
	f := strings.Fields(filter)
	if len(f) == 0 {
		return "", false, nil
	}
	verb := strings.ToLower(f[0])
	arg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(filter), f[0]))
	arg = strings.Trim(arg, `"`)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var re *regexp.Regexp
	needsArg := map[string]bool{"include": true, "exclude": true, "begin": true, "section": true, "grep": true, "egrep": true}
	full := ""
	for _, v := range []string{"include", "exclude", "begin", "section", "count", "no-more", "grep", "egrep", "last", "head"} {
		if strings.HasPrefix(v, verb) {
			if full != "" {
				return "", false, nil // ambiguous
			}
			full = v
		}
	}
	switch full {
	case "grep", "egrep":
		full = "include"
	case "":
		return "", false, nil
	}
	if needsArg[full] {
		if arg == "" {
			return "", false, nil
		}
		var err error
		if re, err = regexp.Compile(arg); err != nil {
			return "", false, fmt.Errorf("ERROR: bad regular expression %q: %v", arg, err)
		}
	}
	var kept []string
	switch full {
	case "include":
		for _, l := range lines {
			if re.MatchString(l) {
				kept = append(kept, l)
			}
		}
	case "exclude":
		for _, l := range lines {
			if !re.MatchString(l) {
				kept = append(kept, l)
			}
		}
	case "begin":
		for i, l := range lines {
			if re.MatchString(l) {
				kept = lines[i:]
				break
			}
		}
	case "section":
		in := false
		for _, l := range lines {
			top := l != "" && l[0] != ' '
			if top {
				in = re.MatchString(l)
			} else if !in && re.MatchString(l) {
				kept = append(kept, l)
				continue
			}
			if in && l != "" {
				kept = append(kept, l)
			}
		}
	case "count":
		n := 0
		for _, l := range lines {
			if l != "" {
				n++
			}
		}
		return fmt.Sprint(n), true, nil
	case "no-more":
		return out, true, nil
	default:
		return "", false, nil
	}
	return strings.Join(kept, "\n"), true, nil
}

// help lists what may follow the words typed before a '?', as NX-OS does:
// each keyword and, where one may come, <CR> (the line may end here).
func (n *cmdNode) help(line string) (string, *matchError) {
	toks := tokenize(line)
	partial := ""
	if len(line) > 0 && line[len(line)-1] != ' ' && len(toks) > 0 {
		partial = strings.ToLower(toks[len(toks)-1].text)
		toks = toks[:len(toks)-1]
	}
	cur := n
	for _, t := range toks {
		var next *cmdNode
		var cands []*cmdNode
		for _, k := range cur.keywords {
			lw := strings.ToLower(t.text)
			if k.word == lw {
				next = k
				break
			}
			if strings.HasPrefix(k.word, lw) {
				cands = append(cands, k)
			}
		}
		switch {
		case next != nil:
		case len(cands) == 1:
			next = cands[0]
		case cur.arg != nil:
			next = cur.arg
		default:
			return "", &matchError{"invalid", t.col}
		}
		cur = next
		if cur.rest {
			break
		}
	}
	var words []string
	for _, k := range cur.keywords {
		if strings.HasPrefix(k.word, partial) {
			words = append(words, k.word)
		}
	}
	sort.Strings(words)
	var b strings.Builder
	for _, w := range words {
		fmt.Fprintf(&b, "  %s\n", w)
	}
	if partial == "" {
		if cur.arg != nil {
			b.WriteString("  WORD    Name or value\n")
		}
		if cur.run != nil {
			b.WriteString("  <CR>\n")
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}
