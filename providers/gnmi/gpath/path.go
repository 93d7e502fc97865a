// Package gpath converts between the string form of a gNMI path used in plans
// ("/qos/classifiers/classifier[name=ROCE-IPV4]/config/name") and gnmi.Path,
// and compares paths element by element. Both the client (providers/gnmi) and
// the simulator (gnmisim) use it, so a path prints and parses the same way on
// both sides of the wire.
package gpath

import (
	"fmt"
	"sort"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
)

// Elem is one path element: a name and its list keys (nil when not a list entry).
type Elem struct {
	Name string
	Keys map[string]string
}

// Path is a parsed path without origin.
type Path []Elem

// Parse reads the string form. Key values may contain '/' (interface names
// such as "Ethernet1/1"); ']' and '\' inside a key value are escaped with '\'.
func Parse(s string) (Path, error) {
	if s == "" || s == "/" {
		return Path{}, nil
	}
	if s[0] != '/' {
		return nil, fmt.Errorf("path %q: must start with '/'", s)
	}
	var p Path
	i := 1
	for i < len(s) {
		e, next, err := parseElem(s, i)
		if err != nil {
			return nil, err
		}
		p = append(p, e)
		i = next
		if i < len(s) {
			if s[i] != '/' {
				return nil, fmt.Errorf("path %q: expected '/' at offset %d", s, i)
			}
			i++
			if i == len(s) {
				return nil, fmt.Errorf("path %q: trailing '/'", s)
			}
		}
	}
	return p, nil
}

// parseElem reads "name[k=v][k2=v2]" starting at s[i] and returns the offset
// after it (at a '/' or the end).
func parseElem(s string, i int) (Elem, int, error) {
	start := i
	for i < len(s) && s[i] != '/' && s[i] != '[' {
		if s[i] == ']' || s[i] == '=' {
			return Elem{}, 0, fmt.Errorf("path %q: unexpected %q at offset %d", s, s[i], i)
		}
		i++
	}
	e := Elem{Name: s[start:i]}
	if e.Name == "" {
		return Elem{}, 0, fmt.Errorf("path %q: empty element name at offset %d", s, start)
	}
	for i < len(s) && s[i] == '[' {
		i++
		ks := i
		for i < len(s) && s[i] != '=' && s[i] != ']' {
			i++
		}
		if i >= len(s) || s[i] != '=' {
			return Elem{}, 0, fmt.Errorf("path %q: key without '=' in element %q", s, e.Name)
		}
		k := s[ks:i]
		if k == "" {
			return Elem{}, 0, fmt.Errorf("path %q: empty key name in element %q", s, e.Name)
		}
		i++
		var v strings.Builder
		closed := false
		for i < len(s) {
			c := s[i]
			if c == '\\' && i+1 < len(s) {
				v.WriteByte(s[i+1])
				i += 2
				continue
			}
			if c == ']' {
				closed = true
				i++
				break
			}
			v.WriteByte(c)
			i++
		}
		if !closed {
			return Elem{}, 0, fmt.Errorf("path %q: unterminated key %q in element %q", s, k, e.Name)
		}
		if e.Keys == nil {
			e.Keys = map[string]string{}
		}
		if _, dup := e.Keys[k]; dup {
			return Elem{}, 0, fmt.Errorf("path %q: key %q repeated in element %q", s, k, e.Name)
		}
		e.Keys[k] = v.String()
	}
	return e, i, nil
}

// String prints the canonical form: keys sorted by name, ']' and '\' escaped.
func (p Path) String() string {
	if len(p) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, e := range p {
		b.WriteByte('/')
		b.WriteString(e.String())
	}
	return b.String()
}

// String prints one element.
func (e Elem) String() string {
	if len(e.Keys) == 0 {
		return e.Name
	}
	var b strings.Builder
	b.WriteString(e.Name)
	for _, k := range sortedKeys(e.Keys) {
		b.WriteByte('[')
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(EscapeKey(e.Keys[k]))
		b.WriteByte(']')
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Append returns a new path with e appended (p is not modified).
func (p Path) Append(e ...Elem) Path {
	out := make(Path, 0, len(p)+len(e))
	out = append(out, p...)
	return append(out, e...)
}

// Names returns the element names without keys.
func (p Path) Names() []string {
	out := make([]string, len(p))
	for i, e := range p {
		out[i] = e.Name
	}
	return out
}

// HasPrefix reports whether q is p or under p. An element of p without keys
// matches an element of q with any keys (a whole list); with keys, the keys
// must be equal.
func (p Path) HasPrefix(prefix Path) bool {
	if len(prefix) > len(p) {
		return false
	}
	for i, pe := range prefix {
		e := p[i]
		if e.Name != pe.Name {
			return false
		}
		if len(pe.Keys) == 0 {
			continue
		}
		if len(pe.Keys) != len(e.Keys) {
			return false
		}
		for k, v := range pe.Keys {
			if e.Keys[k] != v {
				return false
			}
		}
	}
	return true
}

// Equal reports whether two paths are the same.
func (p Path) Equal(q Path) bool {
	return len(p) == len(q) && p.HasPrefix(q) && q.HasPrefix(p)
}

// Proto converts to a gnmi.Path with the given origin.
func (p Path) Proto(origin string) *gpb.Path {
	out := &gpb.Path{Origin: origin}
	for _, e := range p {
		pe := &gpb.PathElem{Name: e.Name}
		if len(e.Keys) > 0 {
			pe.Key = make(map[string]string, len(e.Keys))
			for k, v := range e.Keys {
				pe.Key[k] = v
			}
		}
		out.Elem = append(out.Elem, pe)
	}
	return out
}

// FromProto converts a gnmi.Path (joined with an optional prefix) to a Path
// and its origin. The deprecated string "element" field is refused.
func FromProto(prefix, p *gpb.Path) (Path, string, error) {
	var out Path
	origin := ""
	for _, x := range []*gpb.Path{prefix, p} {
		if x == nil {
			continue
		}
		if len(x.GetElement()) > 0 { //nolint:staticcheck // detect the deprecated field to refuse it
			return nil, "", fmt.Errorf("path uses the deprecated 'element' field; send 'elem'")
		}
		if x.GetOrigin() != "" {
			if origin != "" {
				return nil, "", fmt.Errorf("origin set in both prefix and path")
			}
			origin = x.GetOrigin()
		}
		for _, pe := range x.GetElem() {
			if pe.GetName() == "" {
				return nil, "", fmt.Errorf("path has an element with an empty name")
			}
			e := Elem{Name: pe.GetName()}
			if len(pe.GetKey()) > 0 {
				e.Keys = make(map[string]string, len(pe.GetKey()))
				for k, v := range pe.GetKey() {
					e.Keys[k] = v
				}
			}
			out = append(out, e)
		}
	}
	return out, origin, nil
}

// Key returns the canonical string of a path (used as a map key).
func (p Path) Key() string { return p.String() }

// StripModule drops a "module:" prefix from a JSON_IETF member name.
func StripModule(name string) string {
	if i := strings.IndexByte(name, ':'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// EscapeKey escapes a key value for the string form ('\' and ']').
func EscapeKey(v string) string {
	v = strings.ReplaceAll(v, `\`, `\\`)
	return strings.ReplaceAll(v, `]`, `\]`)
}
