package nexus

import (
	"fmt"
	"strings"
)

// Parse reads running-configuration text (`show running-config ipqos`,
// `show running-config interface ...`, or the whole running-config). It
// accepts CR, LF and CRLF endings, `!Command:`/`!Time:` headers, built-in
// class-maps without match lines, and keeps every line it does not model
// verbatim and in order. Blank lines are not configuration and are dropped.
// Errors name the 1-based line number.
func Parse(text string) (*Config, error) {
	lines := splitLines(text)
	c := &Config{}
	var cur *Object      // the open top-level block
	var cls *PolicyClass // the open class of a policy-map
	clsIndent := -1      // indentation of the open policy-map's class lines
	seen := map[string]int{}
	for i, raw := range lines {
		n := i + 1
		if strings.TrimSpace(raw) == "" {
			continue
		}
		indent := leadingSpace(raw)
		text := strings.TrimSpace(raw)
		if indent == 0 {
			cls, clsIndent = nil, -1
			if isHeaderComment(text) {
				c.Header = append(c.Header, raw)
				cur = nil
				continue
			}
			o, err := parseHeader(raw)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			if o.Kind != KindRaw {
				if prev, dup := seen[o.Key()]; dup {
					return nil, fmt.Errorf("line %d: %q is defined twice (first on line %d); the text is not one running-config", n, o.Key(), prev)
				}
				seen[o.Key()] = n
			}
			c.Objects = append(c.Objects, o)
			cur = o
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("line %d: indented line %q is not inside any configuration block", n, text)
		}
		switch cur.Kind {
		case KindRaw:
			cur.Lines = append(cur.Lines, raw)
		case KindPolicyMap:
			if clsIndent < 0 || indent <= clsIndent {
				if name, ok := parseClassLine(cur.Type, text); ok {
					clsIndent = indent
					if cur.Class(name) != nil {
						return nil, fmt.Errorf("line %d: policy-map %s has class %s twice", n, cur.Name, name)
					}
					cls = &PolicyClass{Name: name}
					cur.Classes = append(cur.Classes, cls)
					continue
				}
				if cls != nil {
					return nil, fmt.Errorf("line %d: policy-map %s: %q at class level is not a class line", n, cur.Name, text)
				}
				cur.Lines = append(cur.Lines, text)
				continue
			}
			cls.Actions = append(cls.Actions, relIndent(raw, clsIndent+2)+text)
		default:
			cur.Lines = append(cur.Lines, text)
		}
	}
	return c, nil
}

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

// isHeaderComment reports the banner lines NX-OS prints above a
// running-config (reference §1.7).
func isHeaderComment(s string) bool {
	return strings.HasPrefix(s, "!Command:") || strings.HasPrefix(s, "!Time:") ||
		strings.HasPrefix(s, "!Running configuration last done") || strings.HasPrefix(s, "!running configuration last done")
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
