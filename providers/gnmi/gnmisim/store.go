package gnmisim

import (
	"fmt"
	"sort"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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

// checkLeaves validates incoming leaves of one update/replace against the
// schema: an unmodelled path is NotFound, a bad value InvalidArgument
// (gNMI specification §3.4.7).
func (s *schema) checkLeaves(leaves []gpath.Leaf, ietf bool) error {
	for _, l := range leaves {
		n, ok := s.lookup(l.Path)
		if !ok {
			return status.Errorf(codes.NotFound, "path %s is not supported by this target", l.Path)
		}
		if err := n.t.inEncoding(ietf).check(l.Value); err != nil {
			return status.Errorf(codes.InvalidArgument, "%s: %v", l.Path, err)
		}
	}
	return nil
}

// validate checks the whole candidate tree the way a target's commit does:
// list keys agree with their key leaves, leafrefs point at existing entries,
// and port names are interfaces of this target. A failure aborts the whole
// transaction.
func (s *schema) validate(t tree, ports map[string]bool) error {
	refSets := map[string]map[string]bool{}
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		l := t[k]
		n, ok := s.lookup(l.Path)
		if !ok {
			return status.Errorf(codes.Aborted, "%s is not supported by this target", l.Path)
		}
		if err := keyConsistent(l); err != nil {
			return status.Errorf(codes.Aborted, "%v", err)
		}
		if n.port > 0 {
			name := l.Path[n.port-1].Name
			if i := strings.IndexByte(name, '|'); i >= 0 {
				name = name[:i]
			}
			if !ports[name] {
				return status.Errorf(codes.Aborted, "%s: %q is not an interface of this target", l.Path, name)
			}
		}
		if n.ref == "" {
			continue
		}
		set, ok := refSets[n.ref]
		if !ok {
			set = referable(t, mustPattern(n.ref))
			refSets[n.ref] = set
		}
		vals := []any{l.Value}
		if arr, isArr := l.Value.([]any); isArr {
			vals = arr
		}
		for _, v := range vals {
			sv, err := gpath.ScalarString(v)
			if err != nil || !set[sv] {
				return status.Errorf(codes.Aborted, "%s: leafref %v does not name an existing %s", l.Path, v, n.ref)
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

// referable collects the names a leafref pattern can point at: the single
// key of each list entry, or the element name at a "*" position.
func referable(t tree, pat []patElem) map[string]bool {
	out := map[string]bool{}
	last := len(pat) - 1
	for _, l := range t {
		if len(l.Path) <= last {
			continue
		}
		ok := true
		for i := 0; i <= last; i++ {
			if !matchElem(pat[i], l.Path[i], false) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		e := l.Path[last]
		if pat[last].name == "*" {
			out[e.Name] = true
			continue
		}
		for _, v := range e.Keys {
			out[v] = true
		}
	}
	return out
}
