package nexus

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Parse reads running-configuration text (`show running-config ipqos`,
// `show running-config interface ...`, the whole running-config, or a
// configuration file written by hand) the way NX-OS reads a configuration
// file: the command decides the nesting, not the indentation. A
// mode-entering command (interface, class-map, policy-map, system qos, an
// access-list, vlan, router, …) opens a block; a following line belongs to
// it while the block's mode has that command (a `class` line opens a class
// inside a policy-map; `set`, `pause`, `mtu`, … are the class's actions); a
// command only the top level has closes it. So any indentation width, tabs,
// flat files with no indentation, `!` and `#` comment lines, `end`, trailing
// spaces and CR/LF/CRLF endings all read the same. Indentation is used only
// inside blocks of commands roce does not model (kept verbatim, in order).
// Blank lines are not configuration and are dropped.
//
// A banner (`banner motd #` … `#`) is read as the switch reads it: its
// text runs to the closing delimiter, and `!`/`#` lines inside it are
// text; it prints back as it came. The free text some commands end with
// (description, remark, snmp-server location, …) may hold anything.
//
// Lines NX-OS would reject outright are errors that name their 1-based
// line: template placeholders ({{ … }}, ${ }, and <name> outside free
// text), an indented line outside any block, a header without its name,
// a banner never closed. A refused header takes its block with it: its
// lines are not reported again. Check adds what depends on the platform
// (ranges, references).
func Parse(text string) (*Config, error) {
	c, _, err := parse(text)
	return c, err
}

// srcLine is one configuration line of a modelled block, as read: its
// 1-based line number and text. parse returns them in file order so Check
// can replay them through the Editor, as the switch would.
type srcLine struct {
	n    int
	text string
	top  bool // a top-level line (a block header or a single command)
	raw  bool // part of a block roce does not model
	obj  int  // index in Config.Objects of the block the line is in
}

func parse(text string) (*Config, []srcLine, error) {
	lines := splitLines(text)
	c := &Config{}
	var src []srcLine
	var errs []error
	var cur *Object      // the open top-level block
	var cls *PolicyClass // the open class of a policy-map
	curIndent, clsIndent := 0, 0
	childIndent := -1        // indentation of the open block's (or class's) first line
	rawEnters := false       // the open raw block's header enters a sub-mode
	seen := map[string]int{} // object key → index in c.Objects
	refused := -1            // indentation of a refused header whose block is skipped, or -1
	banners, bannerErrs := bannerSpans(lines)
	indented := false // some configuration line is indented: not a flat file
	for i := 0; i < len(lines); i++ {
		if end, ok := banners[i]; ok {
			i = end // a banner's text is not configuration
			continue
		}
		l := lines[i]
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "!") && !strings.HasPrefix(t, "#") && leadingSpace(l) > 0 {
			indented = true
			break
		}
	}
	for i := 0; i < len(lines); i++ {
		raw := lines[i]
		n := i + 1
		if end, ok := banners[i]; ok {
			// A banner is read as the switch reads it: its text runs to
			// the closing delimiter, whatever the lines hold (a `#` or
			// `!` line is text, not a comment), and it prints back as
			// it came.
			o := &Object{Kind: KindRaw, Header: strings.TrimSpace(raw)}
			o.Lines = append(o.Lines, lines[i+1:end+1]...)
			for j := i; j <= end; j++ {
				if p := templatePlaceholder(lines[j]); p != "" {
					errs = append(errs, placeholderError(j+1, p, strings.TrimSpace(lines[j])))
				}
			}
			c.Objects = append(c.Objects, o)
			src = append(src, srcLine{n: n, text: o.Header, top: true, raw: true, obj: len(c.Objects) - 1})
			cur, cls, refused = nil, nil, -1
			i = end
			continue
		}
		raw = strings.TrimRight(raw, " \t")
		text := strings.TrimSpace(raw)
		if text == "" {
			continue
		}
		if isHeaderComment(text) {
			c.Header = append(c.Header, raw)
			cur, cls = nil, nil
			continue
		}
		if strings.HasPrefix(text, "!") || strings.HasPrefix(text, "#") {
			continue // a comment
		}
		if text == "end" {
			cur, cls = nil, nil
			continue
		}
		indent := leadingSpace(raw)
		f := strings.Fields(text)
		if refused >= 0 {
			// The lines of a block whose header was refused: the one
			// error already names the problem. A placeholder in them is
			// another problem and is still reported.
			if indent > refused || (!indented && !opensBlock(f) && !isTopLevel(f)) {
				if p := placeholder(text); p != "" {
					errs = append(errs, placeholderError(n, p, text))
				}
				continue
			}
			refused = -1
		}
		if p := placeholder(text); p != "" {
			errs = append(errs, placeholderError(n, p, text))
			if cur == nil || opensBlock(f) || (indented && indent <= curIndent) || (!indented && !childOf(cur, cls != nil, f)) {
				refused, cur, cls = indent, nil, nil // its block goes with it
			}
			continue
		}
		top := cur == nil
		if !top {
			switch {
			case cur.Kind == KindRaw:
				// In a block roce does not model, indentation is all there
				// is to go by, except for the blocks roce reads: none of
				// them is a sub-command of another mode.
				top = (indent <= curIndent && (!rawEnters || isTopLevel(f))) || (indent > curIndent && modelledHeader(f))
			case indent > curIndent:
				top = opensBlock(f) && !childOf(cur, cls != nil, f)
			case cur.Kind == KindInterface && indented && (indent < curIndent || indent == 0):
				// An interface takes almost any command; in a file that
				// indents its blocks, a line back at the header's column
				// is a top-level one (ip pim rp-address after the ports).
				top = true
			default:
				top = !childOf(cur, cls != nil, f)
			}
		}
		if top {
			cls = nil
			if indent > 0 && cur == nil && !opensBlock(f) && !isTopLevel(f) {
				errs = append(errs, fmt.Errorf("line %d: indented line %q is not inside any configuration block", n, text))
				continue
			}
			if full := abbreviatedHeader(f); full != "" {
				errs = append(errs, fmt.Errorf("line %d: %q: write the full keyword %q: roce reads a block header only as the switch's running-config prints it (full lower-case keywords), and would otherwise keep this block as a line it does not look into", n, text, full))
				cur, refused = nil, indent
				continue
			}
			o, err := parseHeader(text)
			if err != nil {
				errs = append(errs, fmt.Errorf("line %d: %w", n, err))
				cur, refused = nil, indent
				continue
			}
			if o.Kind == KindRaw {
				o.Header = raw[min(indent, len(raw)-len(text)):]
				rawEnters = opensBlock(f)
			}
			if prev, again := seen[o.Key()]; again && (o.Kind != KindRaw || rawEnters) {
				// Typing a header again re-enters the block, as the switch
				// does when it loads a file: the lines add to it.
				o = c.Objects[prev]
				cur, curIndent, childIndent = o, indent, -1
				src = append(src, srcLine{n: n, text: text, top: true, raw: o.Kind == KindRaw, obj: prev})
				continue
			}
			if o.Kind != KindRaw || rawEnters {
				seen[o.Key()] = len(c.Objects)
			}
			c.Objects = append(c.Objects, o)
			cur, curIndent, childIndent = o, indent, -1
			src = append(src, srcLine{n: n, text: text, top: true, raw: o.Kind == KindRaw, obj: len(c.Objects) - 1})
			continue
		}
		src = append(src, srcLine{n: n, text: text, raw: cur.Kind == KindRaw, obj: len(c.Objects) - 1})
		switch cur.Kind {
		case KindRaw:
			// The first level prints as NX-OS prints it (two spaces),
			// whatever width the file used; deeper levels keep their
			// depth relative to it.
			if childIndent < 0 || indent < childIndent {
				childIndent = indent
			}
			cur.Lines = append(cur.Lines, "  "+relIndent(raw, childIndent)+text)
		case KindPolicyMap:
			if name, ok := parseClassLine(cur.Type, text); ok {
				cls, clsIndent, childIndent = cur.Class(name), indent, -1
				if cls == nil { // else: the class is entered again
					cls = &PolicyClass{Name: name}
					cur.Classes = append(cur.Classes, cls)
				}
				continue
			}
			if cls == nil || (isPolicyLine(f) && indent <= clsIndent) {
				cur.Lines = append(cur.Lines, text)
				continue
			}
			if childIndent < 0 || indent < childIndent {
				childIndent = indent
			}
			cls.Actions = append(cls.Actions, relIndent(raw, childIndent)+text)
		default:
			cur.Lines = append(cur.Lines, text)
		}
	}
	errs = append(errs, bannerErrs...)
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return c, src, nil
}

// placeholder returns the template placeholder in a configuration line
// ("{{ cos }}", "{% if %}", "${var}", "<name>"), or "". The {{ }}, {% %}
// and ${ } forms are placeholders wherever they are; a <name> is one
// only outside the free text some commands end with (a description, a
// remark, …; freeTextStart), where NX-OS takes any characters.
func placeholder(s string) string {
	if p := templatePlaceholder(s); p != "" {
		return p
	}
	if strings.IndexByte(s, '<') < 0 || !rePlaceholder.MatchString(s) {
		return "" // the common case, without splitting the line
	}
	return rePlaceholder.FindString(s[:freeTextStart(s)])
}

// templatePlaceholder returns the {{ }}, {% %} or ${ } placeholder in s,
// or "".
func templatePlaceholder(s string) string {
	for _, pair := range [][2]string{{"{{", "}}"}, {"{%", "%}"}, {"${", "}"}} {
		if i := strings.Index(s, pair[0]); i >= 0 {
			j := strings.Index(s[i:], pair[1])
			if j < 0 {
				return s[i:]
			}
			return s[i : i+j+len(pair[1])]
		}
	}
	return ""
}

func placeholderError(n int, p, text string) error {
	return fmt.Errorf("line %d: %q is a template placeholder, not a value; NX-OS rejects the line %q (fill the template in first)", n, p, text)
}

// rePlaceholder matches the <name> placeholders of documentation and
// templates. Outside free text, NX-OS configuration never has '<'
// followed by a word and '>'.
var rePlaceholder = regexp.MustCompile(`<[A-Za-z][A-Za-z0-9_ .:/-]*>`)

// freeText lists the commands whose tail is free text, by their first
// words: NX-OS takes any characters there, '<' and '>' included, to the
// end of the line (docs/nxos.md#free-text). Source: Batfish's NX-OS
// lexer, which reads the rest of these lines as one text token
// (M_Remark), and the NX-OS guides for what each command is for.
var freeText = [][]string{
	{"description"},             // interfaces, class-maps, policy-maps, …
	{"remark"},                  // access-list remarks (after the optional sequence number)
	{"username"},                // the whole tail: name, password hash, role
	{"snmp-server", "contact"},  // sysContact
	{"snmp-server", "location"}, // sysLocation
	{"key-string"},              // key chain keys
	{"clock", "timezone"},       // zone name and offsets
	{"version"},                 // the release line a running-config starts with
	{"banner", "motd"},          // a one-line banner: banner motd #text#
	{"banner", "exec"},
}

// freeTextStart is the byte offset in s where its free text starts (the
// first character after the command words of a freeText row), or len(s)
// when the line has none.
func freeTextStart(s string) int {
	f := strings.Fields(s)
	skip := 0
	if len(f) > 1 && f[0] == "no" {
		skip = 1
	}
	if len(f) > skip+1 && isNumber(f[skip]) { // "10 remark …" in an access-list
		skip++
	}
	for _, row := range freeText {
		if len(f) < skip+len(row) || !slices.Equal(f[skip:skip+len(row)], row) {
			continue
		}
		// the offset just past the row's last word
		off := 0
		for _, w := range f[:skip+len(row)] {
			off = strings.Index(s[off:], w) + off + len(w)
		}
		return off
	}
	return len(s)
}

func isNumber(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return w != ""
}

// bannerSpans finds the banners of a configuration the way NX-OS reads
// `banner motd` and `banner exec`: the first character after the keyword
// is the delimiter, and the banner's text runs to the next occurrence of
// that character, across lines; the rest of the closing line is not read
// (docs/nxos.md#free-text). It returns, for each banner whose text goes
// on past its first line, the index of its header line mapped to the
// index of its closing line, and an error for each banner that is never
// closed.
func bannerSpans(lines []string) (map[int]int, []error) {
	var spans map[int]int
	var errs []error
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "banner") {
			continue // the common case, without splitting the line
		}
		f := strings.Fields(t)
		if len(f) < 3 || f[0] != "banner" || (f[1] != "motd" && f[1] != "exec") {
			continue
		}
		rest := strings.TrimLeft(t[strings.Index(t, f[1])+len(f[1]):], " \t")
		_, size := utf8.DecodeRuneInString(rest)
		delim := rest[:size] // one character, which may take several bytes
		if strings.Contains(rest[size:], delim) {
			continue // closed on its own line
		}
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if strings.Contains(lines[j], delim) {
				end = j
				break
			}
		}
		if end < 0 {
			errs = append(errs, fmt.Errorf("line %d: %q opens a banner with the delimiter %q that no later line closes; NX-OS would take every following line as banner text (end the banner with a line holding %q)", i+1, t, delim, delim))
			return spans, errs
		}
		if spans == nil {
			spans = map[int]int{}
		}
		spans[i] = end
		i = end
	}
	return spans, errs
}

// blockHeaders are the top-level commands that enter a configuration
// sub-mode (by their first words). "vlan" enters one only with a number.
var blockHeaders = map[string][]string{
	"interface": nil, "class-map": nil, "policy-map": nil, "router": nil, "line": nil, "route-map": nil,
	"object-group": nil, "control-plane": nil, "vdc": nil, "track": nil, "key": {"chain"},
	"system": {"qos"}, "ip": {"access-list", "sla"}, "ipv6": {"access-list"}, "mac": {"access-list"},
	"arp": {"access-list"}, "vrf": {"context"}, "role": {"name"}, "vpc": {"domain"}, "port-profile": nil,
	"monitor": {"session"}, "aaa": {"group"}, "event": {"manager"}, "scheduler": {"job"},
	"spanning-tree": {"mst"}, "zone": {"name"}, "zoneset": {"name"}, "vsan": {"database"},
	"device-alias": {"database"}, "fex": nil, "slot": nil, "callhome": nil, "feature-set": nil,
}

// opensBlock reports whether a line is a command that enters a sub-mode.
func opensBlock(f []string) bool {
	if len(f) >= 2 && f[0] == "vlan" {
		return f[1] != "" && f[1][0] >= '0' && f[1][0] <= '9'
	}
	second, ok := blockHeaders[f[0]]
	if !ok {
		return false
	}
	if second == nil {
		return true
	}
	return len(f) >= 2 && slices.Contains(second, f[1])
}

// modelledHeader reports the headers of the blocks roce models.
func modelledHeader(f []string) bool {
	switch f[0] {
	case "interface", "class-map", "policy-map", "system", "ip", "mac":
		return opensBlock(f)
	}
	return false
}

// topOnly are first words of commands that exist only at the top level
// (never inside an interface or another sub-mode), with, where the same
// word also starts sub-mode commands, the second words that make it a
// top-level one.
var topOnly = map[string][]string{
	"hostname": nil, "switchname": nil, "feature": nil, "version": nil, "username": nil, "snmp-server": nil,
	"ntp": nil, "boot": nil, "banner": nil, "clock": nil, "cli": nil, "radius-server": nil, "tacacs-server": nil,
	"ssh": nil, "telnet": nil, "copp": nil, "service": nil, "power": nil, "errdisable": nil, "install": nil,
	"license": nil, "nv": nil, "password": nil, "rmon": nil, "crypto": nil, "zoneset": nil, "fcdomain": nil,
	"npiv": nil, "npv": nil, "poap": nil, "hardware": nil, "qos": nil, "port-channel": nil, "fabricpath": nil,
	"logging": {"server", "level", "logfile", "console", "monitor", "timestamp", "source-interface", "origin-id", "module"},
	"ip": {"route", "domain-name", "domain-lookup", "domain-list", "name-server", "prefix-list", "community-list",
		"as-path", "host", "routing", "tftp", "ftp", "http", "source-route", "msdp", "extcommunity-list"},
	"ipv6":          {"route", "prefix-list", "routing"},
	"mac":           {"address-table"},
	"spanning-tree": {"mode", "vlan", "pathcost", "loopguard", "bridge", "port"},
	"system":        {"default", "jumbomtu", "routing", "auto-upgrade"},
	"vpc":           {"domain"},
}

// isTopLevel reports whether a line is a command only the top level has:
// in a flat file it closes the open block.
func isTopLevel(f []string) bool {
	if len(f) > 1 && f[0] == "no" {
		f = f[1:]
	}
	if opensBlock(f) {
		return true
	}
	second, ok := topOnly[f[0]]
	if !ok {
		return false
	}
	if second == nil {
		return true
	}
	if f[0] == "spanning-tree" && len(f) >= 3 && f[1] == "port" {
		return f[2] == "type" && len(f) >= 5 // "spanning-tree port type edge default" is global
	}
	return len(f) >= 2 && slices.Contains(second, f[1])
}

// childOf reports whether a line belongs to the open modelled block: the
// block's mode (or, inside a policy-map class, the class's) has the
// command. An interface has too many commands to list, so it keeps every
// line that is not a top-level one.
func childOf(o *Object, inClass bool, f []string) bool {
	w := f[0]
	if w == "no" && len(f) > 1 {
		w = f[1]
	}
	switch o.Kind {
	case KindInterface:
		return !isTopLevel(f) && !globalPIM(f)
	case KindClassMap:
		return w == "match" || w == "description"
	case KindPolicyMap:
		if w == "class" || w == "description" {
			return true
		}
		return inClass && isClassAction(w)
	case KindSystemQoS:
		return w == "service-policy" || w == "fex"
	case KindACL:
		switch w {
		case "permit", "deny", "remark", "statistics", "fragments":
			return true
		}
		return w[0] >= '0' && w[0] <= '9'
	}
	return false
}

// globalPIM reports the `ip pim` commands an interface does not have: the
// rendezvous-point and SSM settings are PIM's global (and VRF) parameters,
// the interface ones being sparse-mode, border, hello, DR priority and
// the neighbor and join/prune policies (docs/nxos.md#flat-files). In a
// flat file such a line after an interface is a global one, as the
// switch falls back to the global mode for it.
func globalPIM(f []string) bool {
	if len(f) > 1 && f[0] == "no" {
		f = f[1:]
	}
	if len(f) < 3 || f[0] != "ip" || f[1] != "pim" {
		return false
	}
	switch f[2] {
	case "rp-address", "rp-candidate", "bsr", "bsr-candidate", "anycast-rp", "auto-rp",
		"send-rp-announce", "send-rp-discovery", "ssm":
		return true
	}
	return false
}

// isClassAction reports the commands of a policy-map class sub-mode.
func isClassAction(w string) bool {
	switch w {
	case "set", "pause", "mtu", "bandwidth", "priority", "queue-limit", "police", "multicast-optimize",
		"congestion-control", "shape", "random-detect", "service-policy", "pfc-cos", "network-qos", "drop":
		return true
	}
	return false
}

// isPolicyLine reports the policy-map-level commands other than class.
func isPolicyLine(f []string) bool { return f[0] == "description" }

// relIndent keeps indentation deeper than base (nested lines we do not
// model) so they print back as they came.
func relIndent(raw string, base int) string {
	if n := leadingSpace(raw) - base; n > 0 {
		return strings.Repeat(" ", n)
	}
	return ""
}

func splitLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	return strings.Split(text, "\n")
}

func leadingSpace(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		default:
			return n
		}
	}
	return n
}

// abbreviatedHeader returns the header keywords ("interface", "class-map
// type qos", …) that a line abbreviates or writes in upper case, or "":
// such a block would otherwise be kept as an unmodelled line that the
// overlap and conflict checks cannot see.
func abbreviatedHeader(f []string) string {
	lower := func(i int) string {
		if i < len(f) {
			return strings.ToLower(f[i])
		}
		return ""
	}
	w0 := lower(0)                                 // the next words only where needed: lowering "Ethernet1/1" allocates
	abbrev := func(w, full string, min int) bool { // w stands for full
		return len(w) >= min && strings.HasPrefix(full, w)
	}
	switch {
	case abbrev(w0, "interface", 3) && len(f) > 1:
		if f[0] != "interface" {
			return "interface"
		}
	case abbrev(w0, "class-map", 7), abbrev(w0, "policy-map", 8):
		full := "class-map"
		if w0[0] == 'p' {
			full = "policy-map"
		}
		if f[0] != full {
			return full
		}
		if len(f) > 2 && lower(1) == "type" && (f[1] != "type" || (f[2] != lower(2) && knownType(lower(2)))) {
			return full + " type " + lower(2)
		}
	case abbrev(w0, "system", 3) && abbrev(lower(1), "qos", 1):
		if f[0] != "system" || f[1] != "qos" {
			return "system qos"
		}
	case (w0 == "ip" || w0 == "mac") && abbrev(lower(1), "access-list", 8):
		if f[0] != w0 || f[1] != "access-list" {
			return w0 + " access-list"
		}
	}
	return ""
}

// parseHeader recognises the top-level blocks we model; anything else is a
// KindRaw object kept verbatim.
func parseHeader(raw string) (*Object, error) {
	f := strings.Fields(raw)
	rawObj := &Object{Kind: KindRaw, Header: raw}
	switch {
	case len(f) >= 2 && (f[0] == "ip" || f[0] == "mac") && f[1] == "access-list":
		if len(f) != 3 {
			return nil, fmt.Errorf("%q: an access-list header needs exactly one name", raw)
		}
		return &Object{Kind: KindACL, Type: f[0], Name: f[2]}, nil
	case f[0] == "class-map":
		typ, rest := TypeQoS, f[1:]
		if len(rest) >= 2 && rest[0] == "type" {
			typ, rest = rest[1], rest[2:]
		}
		if !knownType(typ) {
			return rawObj, nil
		}
		o := &Object{Kind: KindClassMap, Type: typ}
		if len(rest) >= 1 && (rest[0] == "match-all" || rest[0] == "match-any") {
			o.Match, rest = rest[0], rest[1:]
		}
		if len(rest) != 1 {
			return nil, fmt.Errorf("%q: a class-map header needs exactly one name", raw)
		}
		o.Name = rest[0]
		return o, nil
	case f[0] == "policy-map":
		typ, rest := TypeQoS, f[1:]
		if len(rest) >= 2 && rest[0] == "type" {
			typ, rest = rest[1], rest[2:]
		}
		if !knownType(typ) {
			return rawObj, nil
		}
		if len(rest) != 1 {
			return nil, fmt.Errorf("%q: a policy-map header needs exactly one name", raw)
		}
		return &Object{Kind: KindPolicyMap, Type: typ, Name: rest[0]}, nil
	case len(f) == 2 && f[0] == "system" && f[1] == "qos":
		return &Object{Kind: KindSystemQoS}, nil
	case f[0] == "interface":
		name, ok := CanonicalInterface(strings.Join(f[1:], ""))
		if !ok {
			return rawObj, nil
		}
		return &Object{Kind: KindInterface, Name: name}, nil
	}
	return rawObj, nil
}

func knownType(t string) bool {
	return t == TypeQoS || t == TypeNetworkQoS || t == TypeQueuing
}

// parseClassLine reads a policy-map class line: "class NAME" or
// "class type T NAME" (T must be the policy's type).
func parseClassLine(policyType, text string) (string, bool) {
	f := strings.Fields(text)
	switch {
	case len(f) == 2 && f[0] == "class":
		return f[1], true
	case len(f) == 4 && f[0] == "class" && f[1] == "type" && f[2] == policyType:
		return f[3], true
	}
	return "", false
}

// CanonicalInterface turns the forms NX-OS accepts ("Ethernet1/1",
// "ethernet 1/1", "Eth1/1", "e1/1") into "Ethernet1/1". Port-channels become
// "port-channel10". ok is false for anything else.
func CanonicalInterface(s string) (string, bool) {
	s = strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	ls := strings.ToLower(s)
	i := strings.IndexFunc(ls, func(r rune) bool { return r >= '0' && r <= '9' })
	if i <= 0 {
		return "", false
	}
	prefix, num := ls[:i], ls[i:]
	for _, r := range num {
		if !(r >= '0' && r <= '9') && r != '/' && r != '.' {
			return "", false
		}
	}
	switch {
	case strings.HasPrefix("ethernet", prefix):
		if !validSlotPort(num) {
			return "", false
		}
		return "Ethernet" + num, true
	case strings.HasPrefix("port-channel", prefix) && len(prefix) >= 2:
		return "port-channel" + num, true
	}
	return "", false
}

func validSlotPort(num string) bool {
	parts := strings.Split(num, "/")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" {
			return false
		}
	}
	return true
}

// InterfaceSlot returns the module slot of an Ethernet interface
// ("Ethernet3/1" → 3).
func InterfaceSlot(name string) (int, bool) {
	if !strings.HasPrefix(name, "Ethernet") {
		return 0, false
	}
	rest := strings.TrimPrefix(name, "Ethernet")
	slash := strings.IndexByte(rest, '/')
	if slash <= 0 {
		return 0, false
	}
	n := 0
	for _, r := range rest[:slash] {
		if r < '0' || r > '9' || n > 1000 {
			return 0, false
		}
		n = n*10 + int(r-'0')
	}
	return n, true
}
