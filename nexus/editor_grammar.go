package nexus

import (
	"fmt"
	"strconv"
	"strings"
)

// tok is one word of a typed line with its column, for the caret.
type tok struct {
	s   string
	pos int
}

func tokenize(line string) []tok {
	var out []tok
	start := -1
	for i, r := range line {
		if r == ' ' || r == '\t' {
			if start >= 0 {
				out = append(out, tok{line[start:i], start})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, tok{line[start:], start})
	}
	return out
}

// kw matches a keyword, accepting a unique abbreviation among cands as NX-OS
// does ("int" for "interface"). It returns the full keyword.
func kw(t tok, cands ...string) (string, bool) {
	found := ""
	for _, c := range cands {
		if t.s == c {
			return c, true
		}
		if strings.HasPrefix(c, t.s) {
			if found != "" {
				return "", false // ambiguous
			}
			found = c
		}
	}
	return found, found != ""
}

// modeParent is the parent of a policy-map class sub-mode ("" for other
// modes, whose parent is "config"): a line the sub-mode does not know is
// tried in the parent, as the NX-OS parser does.
func modeParent(mode string) string {
	switch mode {
	case "config-pmap-c-qos":
		return "config-pmap-qos"
	case "config-pmap-nqos-c":
		return "config-pmap-nqos"
	case "config-pmap-c-que":
		return "config-pmap-que"
	}
	return ""
}

func (e *Editor) line(line string) error {
	if !e.inConfig {
		return cliErrorf("ERROR: not in configuration mode")
	}
	toks := tokenize(line)
	if len(toks) == 0 || strings.HasPrefix(toks[0].s, "!") {
		return nil
	}
	if toks[0].s == "end" && len(toks) == 1 {
		e.setMode("", nil, nil)
		e.inConfig = false
		return nil
	}
	if toks[0].s == "exit" && len(toks) == 1 {
		e.exit()
		return nil
	}
	// Try the current mode, then its parents up to "config", as the NX-OS
	// parser does. A refused line leaves the mode as it was and reports the
	// error that got furthest into the line.
	var best *CLIError
	mode, obj, cls := e.mode, e.obj, e.cls
	restore := func() { e.mode, e.obj, e.cls = mode, obj, cls }
	for {
		err := e.dispatch(toks)
		if err == nil {
			return nil
		}
		ce, ok := err.(*CLIError)
		if !ok || ce.Kind != "invalid" {
			restore()
			return err
		}
		if best == nil || ce.Pos > best.Pos {
			best = ce
		}
		if e.mode == "config" {
			break
		}
		if p := modeParent(e.mode); p != "" {
			e.mode, e.cls = p, nil
		} else {
			e.setMode("config", nil, nil)
		}
	}
	restore()
	return best
}

func (e *Editor) setMode(m string, o *Object, c *PolicyClass) { e.mode, e.obj, e.cls = m, o, c }

func (e *Editor) exit() {
	switch {
	case e.mode == "config":
		e.inConfig = false
		e.setMode("", nil, nil)
	case modeParent(e.mode) != "":
		e.setMode(modeParent(e.mode), e.obj, nil)
	default:
		e.setMode("config", nil, nil)
	}
}

func (e *Editor) dispatch(t []tok) error {
	switch e.mode {
	case "config":
		return e.config(t)
	case "config-cmap-qos", "config-cmap-nqos", "config-cmap-que":
		return e.classMapMode(t)
	case "config-pmap-qos", "config-pmap-nqos", "config-pmap-que":
		return e.policyMapMode(t)
	case "config-pmap-c-qos", "config-pmap-nqos-c", "config-pmap-c-que":
		return e.policyClassMode(t)
	case "config-sys-qos":
		return e.systemQoSMode(t)
	case "config-if":
		return e.interfaceMode(t)
	case "config-acl":
		return e.ipACLMode(t)
	case "config-mac-acl":
		return e.macACLMode(t)
	}
	return invalidAt(0)
}

func cmapMode(typ string) string {
	return map[string]string{TypeQoS: "config-cmap-qos", TypeNetworkQoS: "config-cmap-nqos", TypeQueuing: "config-cmap-que"}[typ]
}

func pmapMode(typ string) string {
	return map[string]string{TypeQoS: "config-pmap-qos", TypeNetworkQoS: "config-pmap-nqos", TypeQueuing: "config-pmap-que"}[typ]
}

func pmapClassMode(typ string) string {
	return map[string]string{TypeQoS: "config-pmap-c-qos", TypeNetworkQoS: "config-pmap-nqos-c", TypeQueuing: "config-pmap-c-que"}[typ]
}

// end reports "incomplete" when the line stops where more is needed.
func need(t []tok, i int, line int) error {
	if i >= len(t) {
		return incompleteAt(line)
	}
	return nil
}

// endPos is the column just after the last token (caret for incomplete).
func endPos(t []tok) int {
	l := t[len(t)-1]
	return l.pos + len(l.s)
}

// typeArg reads an optional "type T" at t[i]; it returns the type and the
// next index. Without "type" the type is qos.
func typeArg(t []tok, i int) (string, int, error) {
	if i < len(t) {
		if w, ok := kw(t[i], "type"); ok && w == "type" {
			if i+1 >= len(t) {
				return "", 0, incompleteAt(endPos(t))
			}
			typ, ok := kw(t[i+1], TypeQoS, TypeNetworkQoS, TypeQueuing)
			if !ok {
				return "", 0, invalidAt(t[i+1].pos)
			}
			return typ, i + 2, nil
		}
	}
	return TypeQoS, i, nil
}

func (e *Editor) config(t []tok) error {
	neg := false
	if t[0].s == "no" {
		neg = true
		t = t[1:]
		if len(t) == 0 {
			return incompleteAt(2)
		}
	}
	w, ok := kw(t[0], "class-map", "policy-map", "interface", "ip", "mac", "system", "qos")
	if !ok {
		return invalidAt(t[0].pos)
	}
	switch w {
	case "class-map":
		return e.cmdClassMap(t, neg)
	case "policy-map":
		return e.cmdPolicyMap(t, neg)
	case "interface":
		if neg {
			return cliErrorf("ERROR: physical interfaces cannot be deleted")
		}
		if len(t) < 2 {
			return incompleteAt(endPos(t))
		}
		var parts []string
		for _, x := range t[1:] {
			parts = append(parts, x.s)
		}
		name, ok := CanonicalInterface(strings.Join(parts, ""))
		if !ok {
			return invalidAt(t[1].pos)
		}
		o := e.cfg.Interface(name)
		if o == nil {
			o = &Object{Kind: KindInterface, Name: name}
			e.cfg.insert(o)
		}
		e.setMode("config-if", o, nil)
		return nil
	case "ip", "mac":
		if len(t) < 2 {
			return incompleteAt(endPos(t))
		}
		if a, ok := kw(t[1], "access-list"); !ok || a != "access-list" {
			return invalidAt(t[1].pos)
		}
		if len(t) < 3 {
			return incompleteAt(endPos(t))
		}
		if len(t) > 3 {
			return invalidAt(t[3].pos)
		}
		return e.cmdACL(w, t[2].s, neg)
	case "system":
		if len(t) < 2 {
			return incompleteAt(endPos(t))
		}
		if q, ok := kw(t[1], "qos"); !ok || q != "qos" || len(t) > 2 {
			return invalidAt(t[1].pos)
		}
		if neg {
			return invalidAt(0)
		}
		o := e.cfg.SystemQoS()
		if o == nil {
			o = &Object{Kind: KindSystemQoS}
			e.cfg.insert(o)
		}
		e.setMode("config-sys-qos", o, nil)
		return nil
	case "qos":
		if neg {
			return invalidAt(0)
		}
		return e.cmdQoSCopy(t)
	}
	return invalidAt(t[0].pos)
}

func (e *Editor) cmdClassMap(t []tok, neg bool) error {
	typ, i, err := typeArg(t, 1)
	if err != nil {
		return err
	}
	match := ""
	if i < len(t) {
		if m, ok := kw(t[i], "match-all", "match-any"); ok && i+1 < len(t) {
			match, i = m, i+1
		}
	}
	if i >= len(t) {
		return incompleteAt(endPos(t))
	}
	if i+1 < len(t) {
		return invalidAt(t[i+1].pos)
	}
	name := t[i].s
	if err := validName(name); err != nil {
		return &CLIError{Kind: "invalid", Pos: t[i].pos, Message: msgInvalid}
	}
	existing := e.cfg.ClassMap(typ, name)
	if neg {
		if existing == nil {
			return cliErrorf(fmt.Sprintf("ERROR: class-map %s of type %s does not exist", name, typ))
		}
		for _, o := range e.cfg.Objects {
			if o.Kind == KindPolicyMap && o.Type == typ && o.Class(name) != nil {
				return cliErrorf(fmt.Sprintf("ERROR: class-map %s is being used by policy-map %s", name, o.Name))
			}
		}
		e.cfg.remove(existing)
		return nil
	}
	if name == "class-default" {
		return cliErrorf("ERROR: class-default cannot be modified")
	}
	if typ == TypeNetworkQoS && e.p.Is7000() {
		return cliErrorf("ERROR: network-qos class-maps are system-defined on this platform; copy a default-nq template with 'qos copy policy-map type network-qos'")
	}
	if existing == nil {
		if match == "" && name != "class-fcoe" && typ == TypeQoS {
			// NX-OS's default for type qos, printed in the running-config;
			// network-qos and queuing class-maps print no keyword in every
			// capture (docs/nxos.md#class-map-match).
			match = "match-all"
		}
		existing = &Object{Kind: KindClassMap, Type: typ, Match: match, Name: name}
		e.cfg.insert(existing)
	} else if match != "" && existing.Match != "" && match != existing.Match {
		return cliErrorf(fmt.Sprintf("ERROR: class-map %s exists as %s; delete it to change the match type", name, existing.Match))
	}
	e.setMode(cmapMode(typ), existing, nil)
	return nil
}

func (e *Editor) cmdPolicyMap(t []tok, neg bool) error {
	typ, i, err := typeArg(t, 1)
	if err != nil {
		return err
	}
	if i >= len(t) {
		return incompleteAt(endPos(t))
	}
	if i+1 < len(t) {
		return invalidAt(t[i+1].pos)
	}
	name := t[i].s
	if validName(name) != nil {
		return invalidAt(t[i].pos)
	}
	existing := e.cfg.PolicyMap(typ, name)
	if neg {
		if existing == nil {
			return cliErrorf(fmt.Sprintf("ERROR: policy-map %s of type %s does not exist", name, typ))
		}
		if where := e.attachedAt(typ, name); where != "" {
			return cliErrorf(fmt.Sprintf("ERROR: policy-map %s is attached to %s; remove the service-policy first", name, where))
		}
		e.cfg.remove(existing)
		return nil
	}
	if existing == nil {
		if builtinPolicy(e.p, typ, name) != nil {
			return cliErrorf(fmt.Sprintf("ERROR: policy-map %s is system-defined and cannot be modified", name))
		}
		if typ == TypeNetworkQoS && e.p.Is7000() {
			// docs/nxos.md: network-qos is only ever a copy of a template.
			return cliErrorf(fmt.Sprintf("ERROR: network-qos policy-map %s does not exist; on this platform network-qos policies are created only with 'qos copy policy-map type network-qos <template> prefix <prefix>'", name))
		}
		existing = &Object{Kind: KindPolicyMap, Type: typ, Name: name}
		e.cfg.insert(existing)
	}
	e.setMode(pmapMode(typ), existing, nil)
	return nil
}

// attachedAt names where a policy is attached ("system qos",
// "interface Ethernet1/1"), or "".
func (e *Editor) attachedAt(typ, name string) string {
	for _, o := range e.cfg.Objects {
		if o.Kind != KindSystemQoS && o.Kind != KindInterface {
			continue
		}
		for _, sp := range o.ServicePolicies() {
			if sp.Type == typ && sp.Name == name {
				return o.Key()
			}
		}
	}
	return ""
}

func (e *Editor) cmdACL(kind, name string, neg bool) error {
	if validName(name) != nil {
		return cliErrorf("ERROR: invalid access-list name " + name)
	}
	key := kind + " access-list " + name
	existing := e.cfg.Find(key)
	if neg {
		if existing == nil {
			return cliErrorf("ERROR: access-list " + name + " does not exist")
		}
		for _, o := range e.cfg.Objects {
			if o.Kind == KindClassMap {
				for _, l := range o.Lines {
					if l == "match access-group name "+name {
						return cliErrorf(fmt.Sprintf("ERROR: access-list %s is used by class-map %s", name, o.Name))
					}
				}
			}
		}
		e.cfg.remove(existing)
		return nil
	}
	if existing == nil {
		existing = &Object{Kind: KindACL, Type: kind, Name: name}
		e.cfg.insert(existing)
	}
	if kind == "ip" {
		e.setMode("config-acl", existing, nil)
	} else {
		e.setMode("config-mac-acl", existing, nil)
	}
	return nil
}

// cmdQoSCopy: qos copy policy-map type network-qos <template> prefix <p>
func (e *Editor) cmdQoSCopy(t []tok) error {
	words := []string{"qos", "copy", "policy-map", "type"}
	for i, w := range words {
		if i >= len(t) {
			return incompleteAt(endPos(t))
		}
		if got, ok := kw(t[i], w); !ok || got != w {
			return invalidAt(t[i].pos)
		}
	}
	if len(t) < 8 {
		return incompleteAt(endPos(t))
	}
	if typ, ok := kw(t[4], TypeNetworkQoS); !ok || typ != TypeNetworkQoS {
		return invalidAt(t[4].pos)
	}
	if p, ok := kw(t[6], "prefix"); !ok || p != "prefix" {
		return invalidAt(t[6].pos)
	}
	if len(t) > 8 {
		return invalidAt(t[8].pos)
	}
	if !e.p.Is7000() {
		return invalidAt(t[0].pos)
	}
	tpl, ok := nqTemplateByName(t[5].s)
	if !ok {
		return cliErrorf("ERROR: " + t[5].s + " is not a network-qos template")
	}
	name := tpl.CopyName(t[7].s)
	if validName(name) != nil {
		return invalidAt(t[7].pos)
	}
	if e.cfg.PolicyMap(TypeNetworkQoS, name) != nil {
		return cliErrorf("ERROR: policy-map " + name + " already exists")
	}
	e.cfg.insert(tpl.policy(name))
	return nil
}

func validName(s string) error {
	if s == "" || len(s) > 40 {
		return fmt.Errorf("name must be 1-40 characters")
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("name %q has %q", s, r)
		}
	}
	return nil
}

// joined renders tokens as one normalised line.
func joined(t []tok) string {
	s := make([]string, len(t))
	for i, x := range t {
		s[i] = x.s
	}
	return strings.Join(s, " ")
}

// number parses an integer token within [lo, hi].
func number(t tok, lo, hi int) (int, error) {
	n, err := strconv.Atoi(t.s)
	if err != nil || n < lo || n > hi {
		return 0, invalidAt(t.pos)
	}
	return n, nil
}

// valueList validates "a-b,c" lists within [lo, hi] (CoS 0-7, DSCP 0-63).
func valueList(t tok, lo, hi int) error {
	for _, part := range strings.Split(t.s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		x, err := strconv.Atoi(a)
		if err != nil || x < lo || x > hi {
			return invalidAt(t.pos)
		}
		if isRange {
			y, err := strconv.Atoi(b)
			if err != nil || y < x || y > hi {
				return invalidAt(t.pos)
			}
		}
	}
	return nil
}

// setLine replaces the line with the same key (or appends it).
func setLine(lines []string, key, line string) []string {
	for i, l := range lines {
		if lineKey(l) == key {
			lines[i] = line
			return lines
		}
	}
	return append(lines, line)
}

// removeKey removes the line with that key; ok is false when none exists.
func removeKey(lines []string, key string) ([]string, bool) {
	for i, l := range lines {
		if lineKey(l) == key {
			return append(lines[:i], lines[i+1:]...), true
		}
	}
	return lines, false
}

// lineKey is what a line sets, so a new value replaces the old one:
// "mtu 9216" → "mtu", "pause no-drop pfc-cos 4" → "pause",
// "flowcontrol send on" → "flowcontrol send". Lines that may repeat
// (match lines, switchport lines) are their own key.
func lineKey(l string) string {
	var buf [2]string
	f := fieldsUpTo(l, buf[:]) // strings.Fields without allocating: Render and Diff call this per line
	if len(f) == 0 {
		return ""
	}
	switch f[0] {
	case "set", "flowcontrol", "untagged":
		if len(f) > 1 {
			return joinedFields(l, f[0], f[1])
		}
	case "priority-flow-control":
		return "priority-flow-control mode"
	case "service-policy":
		if sp, ok := parseServicePolicy(l); ok {
			return "service-policy " + sp.Type + " " + sp.Direction
		}
	case "bandwidth", "pause", "mtu", "multicast-optimize", "queue-limit", "congestion-control", "priority", "description", "speed", "channel-group", "shutdown":
		return f[0]
	}
	return l
}
