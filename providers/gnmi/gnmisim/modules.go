package gnmisim

import (
	"sort"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// modules says which YANG module defines each node, so the target can
// hold JSON_IETF values to RFC 7951 §4 (a member is namespace-qualified
// exactly when its module differs from its parent's) and qualify its Get
// replies the same way a real target does. roots names the module of each
// top-level node; augments the module of nodes another module adds (keyed
// by the joined element names, without list keys). A nil *modules (SONiC
// CONFIG_DB, which is not YANG-encoded JSON) checks no names.
type modules struct {
	roots    map[string]string
	augments map[string]string
}

// at is the module defining the node named by names.
func (m *modules) at(names []string) string {
	for i := len(names); i > 0; i-- {
		if mod, ok := m.augments[strings.Join(names[:i], "/")]; ok {
			return mod
		}
	}
	if len(names) == 0 {
		return ""
	}
	return m.roots[names[0]]
}

// checkValue walks a Set value at base before it is stored: member names
// must be modelled (an unknown member is InvalidArgument, as a target's
// schema unmarshal answers), carry the right module qualifier for the
// encoding, and list entries must not repeat a key (RFC 7950 §7.8.2).
// JSON_IETF wants RFC 7951 names; plain JSON (gNMI §2.3.1) has no module
// qualifiers at all.
func (s *schema) checkValue(base gpath.Path, v any, ietf bool) error {
	return s.walkValue(base.Names(), base.String(), v, ietf)
}

func (s *schema) walkValue(names []string, at string, v any, ietf bool) error {
	switch x := v.(type) {
	case map[string]any:
		members := make([]string, 0, len(x))
		for k := range x {
			members = append(members, k)
		}
		sort.Strings(members)
		for _, k := range members {
			mod, name, qualified := strings.Cut(k, ":")
			if !qualified {
				name, mod = k, ""
			}
			child := append(append([]string(nil), names...), name)
			if !s.knownNames(child) {
				return status.Errorf(codes.InvalidArgument, "%s: unknown element %q: not in this target's schema", at, k)
			}
			if err := s.checkQualifier(names, child, k, mod, qualified, ietf, at); err != nil {
				return err
			}
			if err := s.walkValue(child, at+"/"+k, x[k], ietf); err != nil {
				return err
			}
		}
	case []any:
		keys := s.keysOf(names)
		if keys == nil {
			return nil // a leaf-list: scalars, checked by the leaf's type
		}
		seen := map[string]bool{}
		for _, e := range x {
			ent, ok := e.(map[string]any)
			if !ok {
				continue // Flatten reports it
			}
			var kv []string
			for _, kn := range keys {
				for mk, mv := range ent {
					if gpath.StripModule(mk) == kn {
						sv, _ := gpath.ScalarString(mv)
						kv = append(kv, kn+"="+sv)
					}
				}
			}
			id := strings.Join(kv, ",")
			if seen[id] {
				return status.Errorf(codes.InvalidArgument, "%s: duplicate list entry [%s]: list keys are unique (RFC 7950 §7.8.2)", at, id)
			}
			seen[id] = true
			if err := s.walkValue(names, at, ent, ietf); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkQualifier applies RFC 7951 §4 to one member name.
func (s *schema) checkQualifier(parent, child []string, member, mod string, qualified, ietf bool, at string) error {
	if s.mods == nil {
		if qualified {
			return status.Errorf(codes.InvalidArgument, "%s: member %q: this target's data carries no module qualifiers", at, member)
		}
		return nil
	}
	if !ietf {
		if qualified {
			return status.Errorf(codes.InvalidArgument, "%s: member %q is module-qualified, which JSON encoding does not allow; send it as %q or use JSON_IETF", at, member, gpath.StripModule(member))
		}
		return nil
	}
	want := s.mods.at(child)
	if qualified && mod != want {
		return status.Errorf(codes.InvalidArgument, "%s: member %q: unknown module prefix %q; %s is defined in %s (RFC 7951 §4)", at, member, mod, gpath.StripModule(member), want)
	}
	if !qualified && (len(parent) == 0 || s.mods.at(parent) != want) {
		return status.Errorf(codes.InvalidArgument, "%s: member %q is defined in module %s, not its parent's: it must be sent as %q (RFC 7951 §4)", at, member, want, want+":"+member)
	}
	return nil
}

// knownNames reports whether the element names (no keys) are a modelled
// node or an ancestor of one.
func (s *schema) knownNames(names []string) bool {
	p := make(gpath.Path, len(names))
	for i, n := range names {
		p[i] = gpath.Elem{Name: n}
	}
	return s.known(p)
}

// qualify renames the members of a Get value at base whose module differs
// from their parent's to "module:name" (RFC 7951 §4), as a real target's
// JSON_IETF reply carries them.
func (s *schema) qualify(base gpath.Path, v any) any {
	if s.mods == nil {
		return v
	}
	return s.qualifyAt(base.Names(), v)
}

func (s *schema) qualifyAt(names []string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, cv := range x {
			child := append(append([]string(nil), names...), k)
			name := k
			if mod := s.mods.at(child); mod != "" && (len(names) == 0 || mod != s.mods.at(names)) {
				name = mod + ":" + k
			}
			out[name] = s.qualifyAt(child, cv)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = s.qualifyAt(names, e)
		}
		return out
	}
	return v
}
