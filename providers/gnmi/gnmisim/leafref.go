package gnmisim

import (
	"fmt"
	"strings"

	"github.com/openconfig/goyang/pkg/yang"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// A leafref's path (RFC 7950 §9.9.2) is a location path whose list steps
// may carry predicates "[key = current()/../x]" (or a quoted literal):
// the instance the leafref names is the one whose key equals that other
// leaf's value. goyang keeps the path as text; this file parses it into
// steps and evaluates it on the instance data.

type refStep struct {
	name  string // a data node name, or ".."
	preds []refPred
}

type refPred struct {
	key     string
	literal string   // a quoted literal; or
	rel     []string // the path after current(): ".." and names
}

// parseLeafref parses a leafref path; prefixes are dropped.
func parseLeafref(path string) (abs bool, steps []refStep, err error) {
	p := strings.Join(strings.Fields(path), "")
	if strings.HasPrefix(p, "/") {
		abs, p = true, p[1:]
	}
	for _, part := range splitOutside(p, '/') {
		if part == "" {
			return false, nil, fmt.Errorf("leafref path %q: empty step", path)
		}
		st := refStep{}
		name, rest, _ := strings.Cut(part, "[")
		st.name = gpath.StripModule(name)
		if rest != "" {
			rest = "[" + rest
		}
		for rest != "" {
			end := strings.IndexByte(rest, ']')
			if !strings.HasPrefix(rest, "[") || end < 0 {
				return false, nil, fmt.Errorf("leafref path %q: bad predicate %q", path, rest)
			}
			k, expr, ok := strings.Cut(rest[1:end], "=")
			if !ok {
				return false, nil, fmt.Errorf("leafref path %q: predicate %q is not key=value", path, rest[:end+1])
			}
			pr := refPred{key: gpath.StripModule(k)}
			switch {
			case len(expr) >= 2 && (expr[0] == '\'' || expr[0] == '"') && expr[len(expr)-1] == expr[0]:
				pr.literal = expr[1 : len(expr)-1]
			case strings.HasPrefix(expr, "current()"):
				for _, r := range strings.Split(strings.TrimPrefix(strings.TrimPrefix(expr, "current()"), "/"), "/") {
					if r != "" {
						pr.rel = append(pr.rel, gpath.StripModule(r))
					}
				}
			default:
				return false, nil, fmt.Errorf("leafref path %q: predicate value %q is neither current()/... nor a literal", path, expr)
			}
			st.preds = append(st.preds, pr)
			rest = rest[end+1:]
		}
		steps = append(steps, st)
	}
	return abs, steps, nil
}

// splitOutside splits s on sep outside brackets.
func splitOutside(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// instIndex is instance data indexed for leafref evaluation and the
// list and mandatory checks. Nodes are keyed by their path's Key, built
// once per node.
type instIndex struct {
	nodes    map[string]gpath.Path // every node (leaf, entry, container) by key
	children map[string][]nodeRef  // node key -> child nodes
	values   map[string]string     // leaf key -> value (a leaf-list: its values joined by "\x00")
	leafKeys []string              // the key of each instance leaf, in order
}

type nodeRef struct {
	path gpath.Path
	key  string
}

// childKey is the key of the child e of the node whose key is parent
// (gpath.Path.Key: "/" for the root, "/a/b[k=v]" below it).
func childKey(parent string, e gpath.Elem) string {
	if parent == "/" {
		return "/" + e.String()
	}
	return parent + "/" + e.String()
}

func newInstIndex(inst []instLeaf) *instIndex {
	x := &instIndex{nodes: map[string]gpath.Path{}, children: map[string][]nodeRef{}, values: map[string]string{}}
	for _, l := range inst {
		key := "/"
		for j := range l.path {
			parent := key
			key = childKey(parent, l.path[j])
			if _, seen := x.nodes[key]; !seen {
				p := l.path[:j+1]
				x.nodes[key] = p
				x.children[parent] = append(x.children[parent], nodeRef{path: p, key: key})
			}
		}
		x.leafKeys = append(x.leafKeys, key)
		vals := []any{l.value}
		if arr, ok := l.value.([]any); ok {
			vals = arr
		}
		var ss []string
		for _, v := range vals {
			sv, _ := gpath.ScalarString(v)
			ss = append(ss, sv)
		}
		x.values[key] = strings.Join(ss, "\x00")
	}
	return x
}

// refValues evaluates a leafref path from the leaf instance at cur and
// returns the values of the instances it reaches.
func (x *instIndex) refValues(cur gpath.Path, abs bool, steps []refStep) map[string]bool {
	nodes := []nodeRef{{path: cur, key: cur.Key()}}
	if abs {
		nodes = []nodeRef{{path: gpath.Path{}, key: "/"}}
	}
	for _, st := range steps {
		var next []nodeRef
		for _, n := range nodes {
			switch st.name {
			case "..":
				if len(n.path) > 0 {
					p := n.path[:len(n.path)-1]
					next = append(next, nodeRef{path: p, key: p.Key()})
				}
				continue
			case ".":
				next = append(next, n)
				continue
			}
			for _, ch := range x.children[n.key] {
				if ch.path[len(ch.path)-1].Name == st.name && x.predsHold(ch.path[len(ch.path)-1], st.preds, cur) {
					next = append(next, ch)
				}
			}
		}
		nodes = next
	}
	out := map[string]bool{}
	for _, n := range nodes {
		if v, ok := x.values[n.key]; ok {
			for _, s := range strings.Split(v, "\x00") {
				out[s] = true
			}
		}
	}
	return out
}

// dependsOnCurrent reports whether a path's predicates read current().
func dependsOnCurrent(steps []refStep) bool {
	for _, st := range steps {
		for _, pr := range st.preds {
			if pr.rel != nil {
				return true
			}
		}
	}
	return false
}

// predsHold checks a list entry's keys against a step's predicates.
func (x *instIndex) predsHold(e gpath.Elem, preds []refPred, cur gpath.Path) bool {
	for _, pr := range preds {
		want := pr.literal
		if pr.rel != nil {
			p := append(gpath.Path(nil), cur...)
			for _, r := range pr.rel {
				switch r {
				case "..":
					if len(p) == 0 {
						return false
					}
					p = p[:len(p)-1]
				case ".":
				default:
					p = append(p, gpath.Elem{Name: r})
				}
			}
			v, ok := x.values[p.Key()]
			if !ok {
				return false
			}
			want = v
		}
		if e.Keys[pr.key] != want {
			return false
		}
	}
	return true
}

// leafrefPath is the parsed path of a leafref leaf (of its leafref
// member, for a union); ok is false for a path parseLeafref does not read.
func (c *compiled) leafrefPath(e *yang.Entry) (bool, []refStep, bool) {
	r, ok := c.refPaths[e]
	return r.abs, r.steps, ok
}

type parsedRef struct {
	abs   bool
	steps []refStep
}

func leafrefType(t *yang.YangType) *yang.YangType {
	if t == nil {
		return nil
	}
	if t.Kind == yang.Yleafref {
		return t
	}
	for _, m := range t.Type {
		if r := leafrefType(m); r != nil {
			return r
		}
	}
	return nil
}
