package gnmisim

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// patElem is one element of a schema pattern: a fixed name or "*" (any
// name, for SONiC CONFIG_DB table keys and fields), and the list key names
// when the element is a list.
type patElem struct {
	name string
	keys []string
	// namePat constrains the concrete name matched by "*".
	namePat *regexp.Regexp
}

// node is one modelled config leaf.
type node struct {
	pattern string
	pat     []patElem
	t       leafType
	// ref, when set, is a leafref: the value must name an existing entry of
	// the list (its single key) or table ("*" element) the pattern ends at.
	ref string
	// port is the index+1 of an element whose name (before any '|') must be
	// one of the target's interfaces; 0 = no such check.
	port int
}

// leaf builds a node from a pattern such as
// "/qos/classifiers/classifier[name]/config/type" or
// "/CONFIG_DB/QUEUE/*{Ethernet\d+\|[0-7]}/wred_profile".
func leaf(pattern string, t leafType) node {
	return node{pattern: pattern, pat: mustPattern(pattern), t: t}
}

func (n node) refs(r string) node { n.ref = r; return n }
func (n node) portAt(i int) node  { n.port = i + 1; return n }
func (n node) named() []string    { return patNames(n.pat) }
func (n node) String() string     { return n.pattern }
func patNames(p []patElem) []string {
	out := make([]string, len(p))
	for i, e := range p {
		out[i] = e.name
	}
	return out
}

func mustPattern(s string) []patElem {
	p, err := parsePattern(s)
	if err != nil {
		panic(err) // schema tables are constants in this package; a bad one is a programming error caught by every test
	}
	return p
}

func parsePattern(s string) ([]patElem, error) {
	if !strings.HasPrefix(s, "/") {
		return nil, fmt.Errorf("schema pattern %q must start with /", s)
	}
	var out []patElem
	for _, part := range splitPattern(s[1:]) {
		e := patElem{}
		if i := strings.IndexByte(part, '{'); i >= 0 && strings.HasSuffix(part, "}") {
			e.namePat = regexp.MustCompile("^(?:" + part[i+1:len(part)-1] + ")$")
			part = part[:i]
		}
		if i := strings.IndexByte(part, '['); i >= 0 && strings.HasSuffix(part, "]") {
			e.keys = strings.Split(part[i+1:len(part)-1], ",")
			part = part[:i]
		}
		if part == "" {
			return nil, fmt.Errorf("schema pattern %q has an empty element", s)
		}
		e.name = part
		out = append(out, e)
	}
	return out, nil
}

// splitPattern splits on '/' outside {} (name regexps may hold '/').
func splitPattern(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case '/':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// matchElem reports whether a concrete element matches a pattern element.
// exactKeys demands the concrete keys be exactly the pattern's (a leaf);
// otherwise an element without keys may stand for a whole list.
func matchElem(pe patElem, e gpath.Elem, exactKeys bool) bool {
	if pe.name == "*" {
		if len(e.Keys) > 0 {
			return false
		}
		return pe.namePat == nil || pe.namePat.MatchString(e.Name)
	}
	if pe.name != e.Name {
		return false
	}
	if len(e.Keys) == 0 && !exactKeys {
		return true
	}
	if len(e.Keys) != len(pe.keys) {
		return false
	}
	for _, k := range pe.keys {
		if _, ok := e.Keys[k]; !ok {
			return false
		}
	}
	return true
}

// schema is the set of leaves one origin of one profile models.
type schema struct {
	nodes []node
	keys  map[string][]string // joined names of a list node -> its key names
	// musts are the model's cross-leaf constraints, checked on the whole
	// candidate after the per-leaf checks.
	musts []mustRule
	// mods says which module defines each node (nil: names unqualified).
	mods *modules
}

func newSchema(nodes []node) *schema {
	s := &schema{nodes: nodes, keys: map[string][]string{}}
	for _, n := range nodes {
		for i, pe := range n.pat {
			if pe.keys != nil {
				s.keys[strings.Join(patNames(n.pat[:i+1]), "/")] = pe.keys
			}
		}
	}
	return s
}

// keysOf is the gpath.KeysOf for this schema.
func (s *schema) keysOf(names []string) []string { return s.keys[strings.Join(names, "/")] }

// lookup returns the node modelling a concrete leaf path.
func (s *schema) lookup(p gpath.Path) (node, bool) {
	for _, n := range s.nodes {
		if len(n.pat) != len(p) {
			continue
		}
		ok := true
		for i := range p {
			if !matchElem(n.pat[i], p[i], true) {
				ok = false
				break
			}
		}
		if ok {
			return n, true
		}
	}
	return node{}, false
}

// known reports whether p is a modelled leaf or an ancestor of one.
func (s *schema) known(p gpath.Path) bool {
	for _, n := range s.nodes {
		if len(n.pat) < len(p) {
			continue
		}
		ok := true
		for i := range p {
			if !matchElem(n.pat[i], p[i], false) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// isList reports whether p names a whole list (its last element is a list
// given without keys).
func (s *schema) isList(p gpath.Path) bool {
	if len(p) == 0 || len(p[len(p)-1].Keys) > 0 {
		return false
	}
	return s.keysOf(p.Names()) != nil
}

// ModelledLeaves lists the config leaves a simulated profile accepts, as
// schema patterns: elements with their list keys in brackets ("[name]"),
// "*" for a SONiC table key or field, with its name regexp in braces. Tests
// hold them to the vendors' models.
func ModelledLeaves(profile string) ([]string, error) {
	p, err := newProfile(profile, "")
	if err != nil {
		return nil, err
	}
	out := make([]string, len(p.cfg.nodes))
	for i, n := range p.cfg.nodes {
		out[i] = n.pattern
	}
	return out, nil
}
