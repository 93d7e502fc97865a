package nexus

import (
	"errors"
	"fmt"
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
// platform's grammar. What the switch would refuse — a value out of range,
// a command the platform or release does not have, a class or service-policy
// naming a class-map or policy-map that is not defined (nor built in) — is
// reported as a *LineError with the line number; all of them are joined in
// the error. Lines of blocks roce does not model are not judged. The
// returned Config is Parse's (nil when Parse fails).
func Check(text string, p Platform, modules []Module) (*Config, error) {
	c, src, err := parse(text)
	if err != nil {
		return nil, err
	}
	replay := &Config{}
	// A Nexus 7000 running-config prints the network-qos policies made by
	// `qos copy` as ordinary policy-maps; reading one back is not creating
	// it, so they (and their template's classes) exist before the replay
	// starts.
	if p.Is7000() {
		for _, o := range c.Objects {
			if o.Kind == KindPolicyMap && o.Type == TypeNetworkQoS {
				cp := &Object{Kind: KindPolicyMap, Type: o.Type, Name: o.Name}
				for _, cl := range o.Classes {
					cp.Classes = append(cp.Classes, &PolicyClass{Name: cl.Name})
				}
				replay.insert(cp)
			}
		}
	}
	e := NewEditor(replay, p, modules)
	var errs []error
	var block *Object
	skip := false // the open block's header was refused
	for _, l := range src {
		if l.top {
			e.setMode("config", nil, nil)
			block, skip = nil, l.raw
			if l.raw {
				continue
			}
			block = c.Objects[l.obj]
			if block.Kind == KindACL {
				// ACL rules are not judged; the name must exist for
				// `match access-group name`.
				if replay.Find(block.Key()) == nil {
					replay.insert(&Object{Kind: KindACL, Type: block.Type, Name: block.Name})
				}
				skip = true
				continue
			}
			if err := e.Line(l.text); err != nil {
				errs = append(errs, &LineError{Line: l.n, Text: l.text, Err: err})
				skip = true
			}
			continue
		}
		if skip || l.raw || block == nil {
			continue
		}
		if block.Kind == KindInterface && !qosInterfaceLine(l.text) {
			continue
		}
		if block.Kind == KindClassMap && systemClass(block.Name) {
			continue // how the switch prints its own classes, not typed input
		}
		if err := e.Line(l.text); err != nil {
			errs = append(errs, &LineError{Line: l.n, Text: l.text, Err: err})
		}
	}
	return c, errors.Join(errs...)
}

// qosInterfaceLine reports the interface lines that matter to lossless
// QoS, which the replay judges; the rest of an interface is not roce's.
func qosInterfaceLine(s string) bool {
	f := strings.Fields(s)
	if len(f) > 1 && f[0] == "no" {
		f = f[1:]
	}
	switch f[0] {
	case "priority-flow-control", "flowcontrol", "service-policy":
		return true
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
