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
// file: the command decides the nesting, not the indentation, in flat,
// indented and mixed files alike. A mode-entering command (interface,
// class-map, policy-map, system qos, an access-list, vlan, router, …)
// opens a block; a following line belongs to it while the block's mode has
// that command (a `class` line opens a class inside a policy-map; `set`,
// `pause`, `mtu`, … are the class's actions; an interface takes every
// command but the global ones), at any indentation; a command only the top
// level has closes it, at any indentation. So any indentation width, tabs,
// flat files with no indentation, files that indent some lines and not
// others, `!` and `#` comment lines, `end`, trailing spaces and CR/LF/CRLF
// endings all read the same. Indentation decides only what the command
// cannot (openBlock.keeps): a line roce knows neither as the block's nor as
// a global one, and the lines of blocks roce does not model (kept
// verbatim, in order). Blank lines are not configuration and are dropped.
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

// openBlock is the configuration mode parse is in: the block the last
// header opened (o nil: the top level).
type openBlock struct {
	o       *Object
	idx     int  // o's index in Config.Objects
	drop    bool // the header was refused: o stands in for the block, whose lines are read by the same rule and dropped
	indent  int  // the header's indentation
	enters  bool // a raw block's header enters a sub-mode
	inClass bool // a class of the policy-map is open
	cls     *PolicyClass
	// childIndent is the least indentation of the lines read so far in
	// a raw block or a policy-map class (-1 before the first): lines
	// roce does not model keep their depth relative to it.
	childIndent int
}

// keeps reports whether the open block takes a line, as NX-OS decides it
// when it loads a file: by the command. A command the block's mode has
// stays in the block, at any indentation; a command only the top level
// has (or one that opens another block) closes it, at any indentation;
// an interface takes every other command (it has too many to list). The
// indentation counts only for a line the mode's grammar, as roce knows
// it, does not decide:
//   - in a class-map, policy-map, system qos or access-list, an unknown
//     line indented deeper than the block's header is one of its nested
//     lines (kept, and printed back, as it came); at the header's column
//     or left of it, it is a top-level line. A flat file therefore reads
//     such a line as top-level, as it always did.
//   - a block roce does not model (router ospf, vrf context, vpc domain,
//     line vty, …) has a grammar roce does not know. A line indented
//     deeper than its header stays in it (vrf context's own `ip route`
//     lines), unless it is a header of a block roce models, which is
//     never a sub-command; a line at the header's column or left of it
//     stays in it unless it is a top-level command. That is the flat-file
//     rule, and a flat file reads the same way.
func (b *openBlock) keeps(f []string, indent int) bool {
	switch b.o.Kind {
	case KindRaw:
		if indent > b.indent {
			return !modelledHeader(f)
		}
		return b.enters && !isTopLevel(f)
	case KindInterface:
		return childOf(b.o, false, f)
	}
	return childOf(b.o, b.inClass, f) || (indent > b.indent && !isTopLevel(f))
}

// standIn is the block a refused header would have opened (by its first
// keywords, written in full), so the refused block's lines are found by
// the same rule as any block's.
func standIn(f []string) *Object {
	if full := abbreviatedHeader(f); full != "" {
		f = strings.Fields(full)
	}
	switch {
	case f[0] == "interface":
		return &Object{Kind: KindInterface}
	case f[0] == "class-map":
		return &Object{Kind: KindClassMap}
	case f[0] == "policy-map":
		return &Object{Kind: KindPolicyMap}
	case len(f) >= 2 && f[0] == "system" && f[1] == "qos":
		return &Object{Kind: KindSystemQoS}
	case len(f) >= 2 && (f[0] == "ip" || f[0] == "mac") && f[1] == "access-list":
		return &Object{Kind: KindACL}
	}
	return &Object{Kind: KindRaw}
}

func parse(text string) (*Config, []srcLine, error) {
	lines := splitLines(text)
	c := &Config{}
	var src []srcLine
	var errs []error
	var b openBlock
	seen := map[string]int{} // object key → index in c.Objects
	banners, bannerErrs := bannerSpans(lines)
	// refuse drops a header NX-OS would not take, and the lines of its
	// block with it: the one error already names the problem.
	refuse := func(f []string, indent int) {
		b = openBlock{o: standIn(f), drop: true, indent: indent, enters: opensBlock(f)}
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
			b = openBlock{}
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
			b = openBlock{}
			continue
		}
		if strings.HasPrefix(text, "!") || strings.HasPrefix(text, "#") {
			continue // a comment
		}
		if text == "end" {
			b = openBlock{}
			continue
		}
		indent := leadingSpace(raw)
		f := strings.Fields(text)
		top := b.o == nil || !b.keeps(f, indent)
		if !top && b.drop {
			// A line of a refused block. A placeholder in it is another
			// problem and is still reported.
			if p := placeholder(text); p != "" {
				errs = append(errs, placeholderError(n, p, text))
			}
			if b.o.Kind == KindPolicyMap && f[0] == "class" {
				b.inClass = true
			}
			continue
		}
		if p := placeholder(text); p != "" {
			errs = append(errs, placeholderError(n, p, text))
			if top {
				refuse(f, indent) // its block goes with it
			}
			continue
		}
		if top {
			if indent > 0 && b.o == nil && !opensBlock(f) && !isTopLevel(f) {
				errs = append(errs, fmt.Errorf("line %d: indented line %q is not inside any configuration block", n, text))
				continue
			}
			if full := abbreviatedHeader(f); full != "" {
				errs = append(errs, fmt.Errorf("line %d: %q: write the full keyword %q: roce reads a block header only as the switch's running-config prints it (full lower-case keywords), and would otherwise keep this block as a line it does not look into", n, text, full))
				refuse(f, indent)
				continue
			}
			o, err := parseHeader(text)
			if err != nil {
				errs = append(errs, fmt.Errorf("line %d: %w", n, err))
				refuse(f, indent)
				continue
			}
			enters := false
			if o.Kind == KindRaw {
				o.Header = raw[min(indent, len(raw)-len(text)):]
				enters = opensBlock(f)
			}
			idx := len(c.Objects)
			if prev, again := seen[o.Key()]; again && (o.Kind != KindRaw || enters) {
				// Typing a header again re-enters the block, as the switch
				// does when it loads a file: the lines add to it.
				o, idx = c.Objects[prev], prev
			} else {
				if o.Kind != KindRaw || enters {
					seen[o.Key()] = idx
				}
				c.Objects = append(c.Objects, o)
			}
			b = openBlock{o: o, idx: idx, indent: indent, enters: enters, childIndent: -1}
			src = append(src, srcLine{n: n, text: text, top: true, raw: o.Kind == KindRaw, obj: idx})
			continue
		}
		cur := b.o
		src = append(src, srcLine{n: n, text: text, raw: cur.Kind == KindRaw, obj: b.idx})
		switch cur.Kind {
		case KindRaw:
			// The first level prints as NX-OS prints it (two spaces),
			// whatever width the file used; deeper levels keep their
			// depth relative to it.
			if b.childIndent < 0 || indent < b.childIndent {
				b.childIndent = indent
			}
			cur.Lines = append(cur.Lines, "  "+relIndent(raw, b.childIndent)+text)
		case KindPolicyMap:
			if name, ok := parseClassLine(cur.Type, text); ok {
				b.cls, b.inClass, b.childIndent = cur.Class(name), true, -1
				if b.cls == nil { // else: the class is entered again
					b.cls = &PolicyClass{Name: name}
					cur.Classes = append(cur.Classes, b.cls)
				}
				continue
			}
			if b.cls == nil || isPolicyLine(f) {
				// description is the policy-map's: a class has no such
				// command, so the switch takes it in the parent mode.
				cur.Lines = append(cur.Lines, text)
				continue
			}
			if b.childIndent < 0 || indent < b.childIndent {
				b.childIndent = indent
			}
			if childOf(cur, true, f) {
				b.cls.Actions = append(b.cls.Actions, text) // an action: its command places it, not its indentation
				continue
			}
			b.cls.Actions = append(b.cls.Actions, relIndent(raw, b.childIndent)+text)
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
// sub-mode (by their first words). vlan, fex, track and spanning-tree mst
// are told apart from sub-mode commands by opensBlock.
var blockHeaders = map[string][]string{
	"interface": nil, "class-map": nil, "policy-map": nil, "router": nil, "line": nil, "route-map": nil,
	"object-group": nil, "control-plane": nil, "vdc": nil, "key": {"chain"},
	"system": {"qos"}, "ip": {"access-list", "sla"}, "ipv6": {"access-list"}, "mac": {"access-list"},
	"arp": {"access-list"}, "vrf": {"context"}, "role": {"name"}, "vpc": {"domain"}, "port-profile": nil,
	"monitor": {"session"}, "aaa": {"group"}, "event": {"manager"}, "scheduler": {"job"},
	"zone": {"name"}, "zoneset": {"name"}, "vsan": {"database"},
	"device-alias": {"database"}, "slot": nil, "callhome": nil, "feature-set": nil,
}

// opensBlock reports whether a line is a command that enters a sub-mode.
// Some of these keywords start sub-mode commands too, which are told apart
// by the words after them: `fex 101` enters a FEX's mode where an
// interface's `fex associate 101` does not; `track 1 interface …` (or
// `ip`, `ipv6`, `list`) defines a tracked object where an HSRP group's
// `track 1 decrement 20` does not (Batfish's NX-OS grammar, s_track and
// ihg_track); only `spanning-tree mst configuration` enters MST's mode.
func opensBlock(f []string) bool {
	switch f[0] {
	case "vlan", "fex":
		return len(f) >= 2 && isNumber(f[1][:1])
	case "track":
		return len(f) >= 3 && slices.Contains([]string{"interface", "ip", "ipv6", "list"}, f[2])
	case "spanning-tree":
		return len(f) >= 3 && f[1] == "mst" && f[2] == "configuration"
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
	"npiv": nil, "npv": nil, "poap": nil, "qos": nil, "fabricpath": nil,
	"logging": {"server", "level", "logfile", "console", "monitor", "timestamp", "source-interface", "origin-id", "module"},
	"ip": {"route", "domain-name", "domain-lookup", "domain-list", "name-server", "prefix-list", "community-list",
		"as-path", "host", "routing", "tftp", "ftp", "http", "source-route", "msdp", "extcommunity-list"},
	"ipv6":   {"route", "prefix-list", "routing"},
	"mac":    {"address-table"},
	"system": {"default", "jumbomtu", "routing", "auto-upgrade"},
	"vpc":    {"domain"},
	// An interface has `hardware multicast hw-hash` and `no port-channel
	// port load-defer` (Batfish's NX-OS grammar, i_hardware_null and
	// i_no_port_channel_null; its interface_properties test config).
	"hardware":     {"access-list", "profile"},
	"port-channel": {"load-balance", "load-defer"},
}

// isTopLevel reports whether a line is a command only the top level has:
// at any indentation it closes the open block.
func isTopLevel(f []string) bool {
	if len(f) > 1 && f[0] == "no" {
		f = f[1:]
	}
	if opensBlock(f) {
		return true
	}
	if f[0] == "spanning-tree" {
		return spanningTreeGlobal(f)
	}
	second, ok := topOnly[f[0]]
	if !ok {
		return false
	}
	if second == nil {
		return true
	}
	return len(f) >= 2 && slices.Contains(second, f[1])
}

// spanningTreeGlobal reports the spanning-tree commands only the global
// mode has. An interface has spanning-tree commands of its own (port type,
// cost, port-priority, link-type, guard, bpduguard, …), among them the
// per-instance `spanning-tree mst 4 cost …` (Cisco Nexus 6000 Series NX-OS
// Layer 2 Switching Configuration Guide, Release 7.x, "Configuring the
// Port Cost": switch(config-if)# spanning-tree mst instance-id cost) and,
// read the same way, `spanning-tree vlan 10 cost|port-priority …`; a
// global `spanning-tree port type … default` sets every port's default.
func spanningTreeGlobal(f []string) bool {
	if len(f) < 2 {
		return false
	}
	switch f[1] {
	case "mode", "pathcost", "loopguard", "bridge":
		return true
	case "port":
		return f[len(f)-1] == "default"
	case "vlan", "mst":
		return len(f) < 4 || (f[3] != "cost" && f[3] != "port-priority")
	}
	return false
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
// the neighbor and join/prune policies (docs/nxos.md#flat-files). Such a
// line after an interface, at any indentation, is a global one, as the
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
