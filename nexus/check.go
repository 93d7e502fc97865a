package nexus

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// LineError is a configuration line the switch would reject, with its
// 1-based line number in the text it came from.
type LineError struct {
	Line int
	Text string
	Err  error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("line %d: %q: %v", e.Line, e.Text, cliMessage(e.Err))
}

func (e *LineError) Unwrap() error { return e.Err }

// cliMessage is the text the switch prints for an Editor error, the caret
// position spelled out.
func cliMessage(err error) string {
	var ce *CLIError
	if errors.As(err, &ce) && (ce.Kind == "invalid" || ce.Kind == "incomplete" || ce.Kind == "ambiguous" || ce.Kind == "range") {
		return fmt.Sprintf("%s (at column %d)", strings.TrimPrefix(ce.Message, "% "), ce.Pos+1)
	}
	return err.Error()
}

// Check reads a configuration file as the switch of platform p (with these
// modules) would load it: Parse, then every line of the blocks roce models
// (class-maps, policy-maps and their classes, system qos, the QoS lines of
// interfaces, access-list names) replayed in file order through the
// platform's grammar, and the other lines roce has rules for (check_lines.go:
// a port's mtu, system jumbomtu, switchport mode, an interface the modules
// do not have, a QoS sub-mode command fallen out to the top level, an ip
// access-list rule's port or DSCP number out of range). What the switch would refuse — a value out of range,
// a command the platform or release does not have, a class or service-policy
// naming a class-map or policy-map that is not defined (nor built in), on
// a Nexus 7000 a network-qos policy-map that is neither a default-nq-*
// template nor named as a copy of one, or a class its template does not
// have — is reported as a *LineError with the line number. All of them
// come in one error, sorted by line, Parse's own (template placeholders,
// …) included: the lines Parse refuses are set aside and the rest is
// still judged, so one round names every refused line (check_round.go).
// The error's message names the first few and counts the rest; its
// Unwrap() []error gives them all. Lines of blocks roce does not model,
// and top-level commands it does not know, are not judged. The returned
// Config is Parse's (nil when Parse fails).
func Check(text string, p Platform, modules []Module) (*Config, error) {
	return check(text, p, modules, "")
}

// check is Check, and CheckRelease with a readable release.
func check(text string, p Platform, modules []Module, release string) (*Config, error) {
	c, src, perr := parse(text)
	var errs []error
	skip := map[int]bool{} // line numbers not to judge
	read := c
	if perr != nil {
		errs = flatten(perr)
		bad := make([]int, 0, len(errs))
		for _, e := range errs {
			bad = append(bad, errLine(e))
		}
		var ok bool
		if read, src, ok = parseAround(text, bad, skip); !ok {
			return nil, refused(errs)
		}
	}
	errs = append(errs, replay(read, src, p, modules, skip)...)
	if _, ok := parseRelease(release); ok {
		for _, l := range src {
			if r, _, ok := releaseRule(l.text, p, release); ok && !skip[l.n] {
				errs = append(errs, &LineError{Line: l.n, Text: l.text, Err: releaseError(r, release)})
			}
		}
	}
	if perr != nil {
		return nil, refused(errs)
	}
	return c, refused(errs)
}

// replay judges the lines src of configuration c, as Check describes,
// but for the lines in skip.
func replay(c *Config, src []srcLine, p Platform, modules []Module, skipped map[int]bool) []error {
	replay := &Config{}
	// A Nexus 7000 running-config prints the network-qos policies made by
	// `qos copy` as ordinary policy-maps; reading one back is not creating
	// it, so each copy (and each template printed as such) exists before
	// the replay starts, with its template's classes and no others: a
	// class the template does not have is refused, as the switch's editor
	// refuses it in the copy. A network-qos policy that is neither a
	// template nor named as a copy of one cannot exist on a 7000.
	var notCopy map[*Object]bool
	if p.Is7000() {
		for _, o := range c.Objects {
			if o.Kind != KindPolicyMap || o.Type != TypeNetworkQoS || replay.Find(o.Key()) != nil {
				continue
			}
			cp := &Object{Kind: KindPolicyMap, Type: o.Type, Name: o.Name}
			t, ok := templateFor(o.Name)
			if !ok {
				// Refused once, at its header; it still exists for the
				// lines that name it, so they are not refused again.
				if notCopy == nil {
					notCopy = map[*Object]bool{}
				}
				notCopy[o] = true
			}
			for _, cl := range t.Classes {
				cp.Classes = append(cp.Classes, &PolicyClass{Name: cl.Name})
			}
			replay.insert(cp)
		}
	}
	// The port mode's default (Config.Routed) and the system jumbomtu
	// (a Layer 2 port's MTU on a 7000) are global lines the replay does
	// not type: carry them over.
	var globals []*Object
	for _, o := range c.Objects {
		if o.Kind == KindRaw && (o.Header == DefaultSwitchportLine || isJumboLine(o.Header)) && replay.Find(o.Key()) == nil {
			cp := *o
			replay.insert(&cp)
			globals = append(globals, &cp)
		}
	}
	provisioned := provisionedSlots(c)
	e := NewEditor(replay, p, modules)
	var errs []error
	refuse := func(l srcLine, err error) {
		errs = append(errs, &LineError{Line: l.n, Text: l.text, Err: err})
	}
	var block *Object
	skip := false    // the open block's header was refused
	ipRules := false // the open block is an ip access-list whose numbers are judged
	for _, l := range src {
		if l.top {
			e.setMode("config", nil, nil)
			block, skip, ipRules = nil, l.raw, false
			if l.raw {
				if err := jumboMTURefusal(l.text); err != nil && !skipped[l.n] {
					refuse(l, err)
				}
				if err := subModeRefusal(p, l.text); err != nil && !skipped[l.n] {
					refuse(l, err)
				}
				// A range header (`interface Ethernet1/6-7`) is a block
				// roce does not model, but its ports must exist.
				if name, ok := portRange(l.text); ok && !skipped[l.n] {
					if err := missingPortRefusal(name, modules, provisioned); err != nil {
						refuse(l, err)
					}
				}
				continue
			}
			block = c.Objects[l.obj]
			if skipped[l.n] {
				skip = true
				continue
			}
			if first, seen := notCopy[block]; seen {
				if first { // once, at its first header
					errs = append(errs, &LineError{Line: l.n, Text: l.text, Err: notCopyError(block.Name)})
					notCopy[block] = false
				}
				skip = true
				continue
			}
			if block.Kind == KindACL {
				// ACL rules are not replayed (only their port and DSCP
				// numbers are judged); the name must exist for
				// `match access-group name`.
				if replay.Find(block.Key()) == nil {
					replay.insert(&Object{Kind: KindACL, Type: block.Type, Name: block.Name})
				}
				skip, ipRules = true, block.Type == "ip"
				continue
			}
			if block.Kind == KindInterface {
				if err := missingPortRefusal(block.Name, modules, provisioned); err != nil {
					refuse(l, err)
					skip = true
					continue
				}
			}
			if err := e.Line(l.text); err != nil {
				refuse(l, err)
				skip = true
			}
			continue
		}
		if ipRules && !l.raw && !skipped[l.n] {
			if err := aclValueRefusal(l.text); err != nil {
				refuse(l, err)
			}
		}
		if skip || l.raw || block == nil || skipped[l.n] {
			continue
		}
		if block.Kind == KindInterface {
			// The port as loaded so far, with the global lines its mtu
			// depends on: a small Config, so a large file is not searched
			// once per line.
			port := replay
			if e.mode == "config-if" && e.obj != nil {
				port = &Config{Objects: append(slices.Clip(globals), e.obj)}
			}
			err := interfaceMTURefusal(p, port, block.Name, l.text)
			if err == nil {
				err = switchportModeRefusal(l.text)
			}
			if err != nil {
				refuse(l, err)
				continue
			}
			if !qosInterfaceLine(l.text) {
				continue
			}
		}
		if block.Kind == KindClassMap && systemClass(block.Name) {
			continue // how the switch prints its own classes, not typed input
		}
		if err := e.Line(l.text); err != nil {
			refuse(l, err)
		}
	}
	return errs
}

// notCopyError is why a Nexus 7000 refuses a network-qos policy-map that
// is neither a default-nq-* template nor a copy of one, and what to do.
func notCopyError(name string) error {
	return fmt.Errorf("network-qos policy-map %s is neither a template (%s) nor named as a copy of one (PREFIX followed by the template's short name, e.g. PREFIXnq-7e): a Nexus 7000 creates network-qos policies only with 'qos copy policy-map type network-qos <template> prefix <prefix>'; copy a template and edit the copy", name, nqTemplateNames())
}

// qosInterfaceLine reports the interface lines that matter to lossless
// QoS, which the replay judges; the rest of an interface is not roce's.
func qosInterfaceLine(s string) bool {
	f := strings.Fields(s)
	if len(f) > 1 && f[0] == "no" {
		f = f[1:]
	}
	switch f[0] {
	case "priority-flow-control", "flowcontrol", "service-policy", "untagged":
		return true
	case "switchport":
		return len(f) == 1 // the port mode (routed or not), which decides the QoS directions a 7000 port takes
	}
	return false
}

// systemClass reports the class-maps the switch defines itself; the
// running-config prints their match lines (class-fcoe's `match qos-group
// 1`) though no one may type them.
func systemClass(name string) bool {
	switch name {
	case "class-default", "class-fcoe", "class-ip-multicast", "class-all-flood":
		return true
	}
	return false
}

// versionRule is a command whose availability changed across NX-OS
// releases of one platform: a line matching it is refused on a release
// before since, with why and the source (docs/nxos.md#version-rules).
type versionRule struct {
	kind string // "nexus5000" | "nexus7000"
	// match reports whether the line's fields are the command, and the
	// index of the field the switch would mark with its caret.
	match func(f []string) (int, bool)
	since string // first release that has it, e.g. "6.2(2)"
	why   string
}

// versionRules lists the release-dependent commands CheckRelease,
// CheckPushRelease and ReleaseRefusal know, each from a public source
// cited in docs/nxos.md#version-rules. This is the one table.
func versionRules() []versionRule {
	return []versionRule{
		{
			// Nexus 7000 QoS guide 6.x, "Configuring Queuing and
			// Scheduling on F-Series I/O Modules": eight egress queues
			// (the 4q8q queuing templates) "beginning with Cisco Release
			// 6.2(2)", on the 7710 and 7718. Any line naming one of them
			// (attaching it, entering it, copying it) needs the release.
			kind: "nexus7000",
			match: func(f []string) (int, bool) {
				for i, w := range f {
					if strings.HasPrefix(w, "default-") && strings.Contains(w, "-4q8q-") {
						return i, true
					}
				}
				return 0, false
			},
			since: "6.2(2)",
			why:   "the eight-queue (4q8q) queuing templates exist from NX-OS 6.2(2), on the Nexus 7710 and 7718 only",
		},
	}
}

// releaseRule returns the rule that refuses line on platform p running
// release, and the 0-based column of the word the caret marks. A release
// parseRelease cannot read refuses nothing.
func releaseRule(line string, p Platform, release string) (versionRule, int, bool) {
	if _, ok := parseRelease(release); !ok {
		return versionRule{}, 0, false
	}
	f := strings.Fields(line)
	if len(f) > 1 && f[0] == "no" {
		f = f[1:]
	}
	for _, r := range versionRules() {
		i, ok := r.match(f)
		if r.kind != p.Kind || !ok || !releaseBefore(release, r.since) {
			continue
		}
		return r, wordColumn(line, f[i]), true
	}
	return versionRule{}, 0, false
}

// wordColumn is the 0-based column of word's first whole-word occurrence
// in line (0 if absent).
func wordColumn(line, word string) int {
	for i := 0; i+len(word) <= len(line); i++ {
		if line[i:i+len(word)] == word && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			return i
		}
	}
	return 0
}

// releaseError is why a release refuses a line, with the next step.
func releaseError(r versionRule, release string) error {
	return fmt.Errorf("not in NX-OS %s: %s; upgrade to %s or later, or use another policy", release, r.why, r.since)
}

// CheckRelease is Check for a switch running NX-OS release (as `show
// version` prints it: "6.2(14)", "5.2(1)N1(4)", "7.3(1)D1(1)"): it also
// refuses the lines that release does not have yet (versionRules), each
// as a *LineError naming the release that has it, in the same one error
// as Check's. An empty or unreadable
// release judges no version rule, only what Check judges.
func CheckRelease(text string, p Platform, modules []Module, release string) (*Config, error) {
	return check(text, p, modules, release)
}

// CheckPushRelease judges the configuration lines roce would send to a
// switch of platform p running release (Diff's commands, in order) by the
// same version rules: every line that release does not have is a
// *LineError whose Line is its 1-based position in lines; all are joined.
// nil when every line passes or the release cannot be read.
func CheckPushRelease(lines []string, p Platform, release string) error {
	var errs []error
	for i, l := range lines {
		if r, _, ok := releaseRule(l, p, release); ok {
			errs = append(errs, &LineError{Line: i + 1, Text: strings.TrimSpace(l), Err: releaseError(r, release)})
		}
	}
	return errors.Join(errs...)
}

// ReleaseRefusal is what a switch of platform p running release answers
// when line is typed in configuration mode and the release does not have
// the command: "% Invalid command at '^' marker." with the caret under the
// word the release lacks (the parser of an older release has no such
// keyword or template). nil when the release has it (or cannot be read);
// then the line goes to the Editor as usual.
func ReleaseRefusal(line string, p Platform, release string) *CLIError {
	if _, col, ok := releaseRule(line, p, release); ok {
		return invalidAt(col)
	}
	return nil
}

// parseRelease reads the leading major.minor(maintenance) of an NX-OS
// release string: "6.2(14)" → [6 2 14], "5.2(1)N1(4)" → [5 2 1],
// "6.1(4a)" → [6 1 4].
func parseRelease(s string) ([3]int, bool) {
	var v [3]int
	s = strings.TrimSpace(s)
	maj, rest, ok := strings.Cut(s, ".")
	if !ok {
		return v, false
	}
	minor, rest, ok := strings.Cut(rest, "(")
	if !ok {
		return v, false
	}
	maint, _, ok := strings.Cut(rest, ")")
	if !ok {
		return v, false
	}
	// a maintenance release may carry a letter: "6.1(4a)", "5.2(1)N1(8b)"
	maint = strings.TrimRightFunc(maint, func(r rune) bool { return r >= 'a' && r <= 'z' })
	for i, part := range []string{maj, minor, maint} {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// releaseBefore reports whether release a is older than release b (both
// readable by parseRelease).
func releaseBefore(a, b string) bool {
	x, ok1 := parseRelease(a)
	y, ok2 := parseRelease(b)
	if !ok1 || !ok2 {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return false
}
