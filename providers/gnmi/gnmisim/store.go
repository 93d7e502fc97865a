package gnmisim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/openconfig/goyang/pkg/yang"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// tree is one origin's leaves keyed by canonical path. Leaf values are never
// mutated in place, so a shallow copy is a full snapshot.
type tree map[string]gpath.Leaf

func (t tree) clone() tree {
	out := make(tree, len(t))
	for k, v := range t {
		out[k] = v
	}
	return out
}

// under returns the leaves at or below p, sorted by path.
func (t tree) under(p gpath.Path) []gpath.Leaf {
	var out []gpath.Leaf
	for _, l := range t {
		if l.Path.HasPrefix(p) {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path.Key() < out[j].Path.Key() })
	return out
}

func (t tree) remove(p gpath.Path) {
	for k, l := range t {
		if l.Path.HasPrefix(p) {
			delete(t, k)
		}
	}
}

// instLeaf is one leaf of the instance data the models describe: its
// data node path (list keys as path keys), its value and the form the
// value is in; from names the stored path it came from, for messages.
type instLeaf struct {
	path  gpath.Path
	value any
	form  valueForm
	from  string
}

// instance is the target's config tree as instance leaves of the models.
func (s *schema) instance(t tree) ([]instLeaf, error) {
	if s.sonic {
		return s.sonicInstance(t)
	}
	out := make([]instLeaf, 0, len(t))
	for _, k := range sortedKeys(t) {
		l := t[k]
		out = append(out, instLeaf{path: l.Path, value: l.Value, form: formIETF, from: k})
	}
	return out, nil
}

// validate checks the whole candidate tree the way a target's commit does:
// every leaf is a config leaf of the models with a valid value, list keys
// agree with their key leaves, leafrefs point at existing instances,
// mandatory leaves are present, CONFIG_DB PORT rows are interfaces of this
// target, and the must rules hold. A failure aborts the whole transaction.
func (s *schema) validate(t tree, ports map[string]bool) error {
	inst, err := s.instance(t)
	if err != nil {
		return err
	}
	if err := s.c.checkInstance(inst, false); err != nil {
		return err
	}
	if !s.sonic {
		for _, k := range sortedKeys(t) {
			if err := keyConsistent(t[k]); err != nil {
				return commitErr("%v", err)
			}
		}
	} else {
		for _, k := range sortedKeys(t) {
			p := t[k].Path
			if len(p) == 5 && p[2].Name == "PORT" && !ports[p[3].Name] {
				return commitErr("%s: %q is not an interface of this target", p, p[3].Name)
			}
		}
	}
	for _, r := range s.musts {
		if err := r.check(t); err != nil {
			return violation(r, err)
		}
	}
	return nil
}

// checkInstance checks instance leaves against the compiled models: each
// is a leaf of the models (config only, unless state is allowed), its
// value valid for its type; every leafref names an existing instance
// (require-instance, RFC 7950 §9.9.3); every mandatory leaf of an existing
// list entry or container is there (RFC 7950 §7.6.5), unless a when
// statement guards it (when is not evaluated).
func (c *compiled) checkInstance(inst []instLeaf, state bool) error {
	entries := make([]*yang.Entry, len(inst))
	values := map[*yang.Entry]map[string]bool{}
	idx := newInstIndex(inst)
	for i, l := range inst {
		e := c.entryAt(l.path.Names())
		if e == nil || (!e.IsLeaf() && !e.IsLeafList()) {
			return commitErr("%s is not supported by this target", l.from)
		}
		if !state && e.ReadOnly() {
			return commitErr("%s: config false in the model (state data)", l.from)
		}
		vals := []any{l.value}
		if arr, ok := l.value.([]any); ok && e.IsLeafList() {
			vals = arr
		}
		for _, v := range vals {
			if err := c.checkType(e, e.Type, v, l.form); err != nil {
				return commitErr("%s: %v", l.from, err)
			}
			sv, _ := gpath.ScalarString(v)
			if values[e] == nil {
				values[e] = map[string]bool{}
			}
			values[e][sv] = true
		}
		entries[i] = e
	}
	fixed := map[*yang.Entry]map[string]bool{}
	for i, l := range inst {
		e := entries[i]
		target := c.refs[e]
		if target == nil || !requiresInstance(e.Type) {
			continue
		}
		// The instances the path reaches from this leaf (its predicates
		// applied); any instance of the target if the path is not read.
		reach := values[target]
		if abs, steps, ok := c.leafrefPath(e); ok {
			if r, done := fixed[e]; done {
				reach = r
			} else {
				reach = idx.refValues(l.path, abs, steps)
				if abs && !dependsOnCurrent(steps) {
					fixed[e] = reach // the same from every leaf
				}
			}
		}
		vals := []any{l.value}
		if arr, ok := l.value.([]any); ok && e.IsLeafList() {
			vals = arr
		}
		for _, v := range vals {
			sv, _ := gpath.ScalarString(v)
			if reach[sv] || c.otherUnionMember(e, e.Type, v, l.form) {
				continue
			}
			return commitErr("%s: leafref %v does not name an existing %s (path %s)", l.from, v, target.Path(), leafrefType(e.Type).Path)
		}
	}
	if err := c.listConstraints(idx); err != nil {
		return err
	}
	// Mandatory leaves, from each existing list entry and top-level
	// container down through the non-presence containers.
	starts := make([]string, 0, len(idx.nodes))
	for k, p := range idx.nodes {
		if len(p[len(p)-1].Keys) > 0 || len(p) == 1 {
			starts = append(starts, k)
		}
	}
	sort.Strings(starts)
	for _, k := range starts {
		p := idx.nodes[k]
		e := c.entryAt(p.Names())
		if e == nil || !(e.IsList() || len(p) == 1 || isPresence(e)) {
			continue
		}
		if err := c.mandatory(e, p, k, idx.nodes, state); err != nil {
			return err
		}
	}
	return nil
}

func isPresence(e *yang.Entry) bool {
	ct, ok := e.Node.(*yang.Container)
	return ok && ct.Presence != nil
}

func hasWhen(e *yang.Entry) bool {
	_, ok := e.GetWhenXPath()
	return ok
}

// mandatory checks the mandatory leaves below the existing node p (data
// node e), descending into non-presence containers.
func (c *compiled) mandatory(e *yang.Entry, p gpath.Path, key string, exists map[string]gpath.Path, state bool) error {
	for _, k := range listKeys(e) {
		if _, ok := exists[childKey(key, gpath.Elem{Name: k})]; !ok {
			return commitErr("%s: list entry without its key leaf %s (RFC 7950 §7.8.2)", p, k)
		}
	}
	names := make([]string, 0, len(e.Dir))
	for n := range e.Dir {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ch := e.Dir[n]
		if hasWhen(ch) || (!state && ch.ReadOnly()) || ch.IsChoice() || ch.IsCase() {
			continue
		}
		cp := p.Append(gpath.Elem{Name: n})
		ck := childKey(key, gpath.Elem{Name: n})
		switch {
		case ch.IsLeaf() && ch.Mandatory == yang.TSTrue:
			if _, ok := exists[ck]; !ok {
				return commitErr("%s: mandatory leaf %s is missing (%s)", p, n, ch.Path())
			}
		case ch.IsContainer() && !isPresence(ch):
			if err := c.mandatory(ch, cp, ck, exists, state); err != nil {
				return err
			}
		}
	}
	return nil
}

// requiresInstance: a leafref (or a union with one) whose require-instance
// is true, the default.
func requiresInstance(t *yang.YangType) bool {
	if t == nil {
		return false
	}
	if t.Kind == yang.Yleafref {
		return !t.OptionalInstance
	}
	for _, m := range t.Type {
		if requiresInstance(m) {
			return true
		}
	}
	return false
}

// otherUnionMember reports whether a union's non-leafref member accepts v
// (SONiC's PFC_WD ifname: a port, or "GLOBAL").
func (c *compiled) otherUnionMember(leaf *yang.Entry, t *yang.YangType, v any, form valueForm) bool {
	if t.Kind != yang.Yunion {
		return false
	}
	for _, m := range t.Type {
		if m.Kind != yang.Yleafref && c.checkType(leaf, m, v, form) == nil {
			return true
		}
	}
	return false
}

// keyConsistent checks that a key leaf ("…/x[name=A]/name" or
// "…/x[name=A]/config/name") carries the key value of its entry.
func keyConsistent(l gpath.Leaf) error {
	p := l.Path
	n := len(p)
	var entry gpath.Elem
	switch {
	case n >= 2 && len(p[n-2].Keys) > 0:
		entry = p[n-2]
	case n >= 3 && p[n-2].Name == "config" && len(p[n-3].Keys) > 0:
		entry = p[n-3]
	default:
		return nil
	}
	want, isKey := entry.Keys[p[n-1].Name]
	if !isKey {
		return nil
	}
	got, err := gpath.ScalarString(l.Value)
	if err != nil || got != want {
		return fmt.Errorf("%s: key leaf value %v does not match the list key %q", p, l.Value, want)
	}
	return nil
}

// listConstraints checks each list's max-elements and min-elements (RFC
// 7950 §7.7.5, §7.7.6; a list with no entry at all is not seen) and its
// unique statements (§7.8.3: no two entries with the same values of the
// named descendant leaves, counting entries that have them all), and
// each leaf-list's max-elements.
func (c *compiled) listConstraints(idx *instIndex) error {
	parents := make([]string, 0, len(idx.children))
	for k := range idx.children {
		parents = append(parents, k)
	}
	sort.Strings(parents)
	for _, pk := range parents {
		groups := map[string][]nodeRef{}
		var order []string
		for _, ch := range idx.children[pk] {
			n := ch.path[len(ch.path)-1].Name
			if groups[n] == nil {
				order = append(order, n)
			}
			groups[n] = append(groups[n], ch)
		}
		for _, n := range order {
			refs := groups[n]
			g := make([]gpath.Path, len(refs))
			for i, r := range refs {
				g[i] = r.path
			}
			e := c.entryAt(g[0].Names())
			if e == nil {
				continue
			}
			if e.IsLeafList() {
				if vals := strings.Split(idx.values[refs[0].key], "\x00"); e.ListAttr != nil && uint64(len(vals)) > e.ListAttr.MaxElements {
					return commitErr("%s: %d values, more than max-elements %d (%s)", g[0], len(vals), e.ListAttr.MaxElements, e.Path())
				}
				continue
			}
			if !e.IsList() {
				continue
			}
			if la := e.ListAttr; la != nil {
				if uint64(len(g)) > la.MaxElements {
					return commitErr("%s: %d entries, more than max-elements %d (%s)", g[0][:len(g[0])-1], len(g), la.MaxElements, e.Path())
				}
				if uint64(len(g)) < la.MinElements {
					return commitErr("%s: %d entries, fewer than min-elements %d (%s)", g[0][:len(g[0])-1], len(g), la.MinElements, e.Path())
				}
			}
			l, ok := e.Node.(*yang.List)
			if !ok {
				continue
			}
			for _, u := range l.Unique {
				seen := map[string]gpath.Path{}
				for ei, ent := range g {
					var tuple []string
					complete := true
					for _, rel := range strings.Fields(u.Name) {
						k := refs[ei].key
						for _, step := range strings.Split(rel, "/") {
							k = childKey(k, gpath.Elem{Name: gpath.StripModule(step)})
						}
						v, ok := idx.values[k]
						if !ok {
							complete = false
							break
						}
						tuple = append(tuple, v)
					}
					if !complete {
						continue
					}
					k := strings.Join(tuple, "\x01")
					if prev, dup := seen[k]; dup {
						return commitErr("%s: %s %s is already used by %s (unique %q, %s)", ent, u.Name, strings.Join(tuple, " "), prev, u.Name, e.Path())
					}
					seen[k] = ent
				}
			}
		}
	}
	return nil
}
