package gnmisim

import (
	"sort"
	"strings"

	"github.com/openconfig/goyang/pkg/yang"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// SONiC's CONFIG_DB as sonic-gnmi serves it: /CONFIG_DB/<namespace>/
// <TABLE>/<row key>/<field>, namespace "localhost" on a single-ASIC
// switch, every value a string. sonic-yang-models describe the same data
// as a container per table holding a list <TABLE>_LIST whose keys are the
// row key's "|"-separated parts; a map table (DSCP_TO_TC_MAP and the like)
// has, inside each row, a list named like the table whose key is the field
// name and whose one other leaf is the value. This file maps one onto the
// other, as SONiC's own sonic-cfggen/sonic-yang loader does.

const (
	sonicDB        = "CONFIG_DB"
	sonicNamespace = "localhost"
)

// sonicLeaf is where one CONFIG_DB field lives in the sonic-yang schema.
type sonicLeaf struct {
	table *yang.Entry // the table's container
	list  *yang.Entry // the row list
	parts []string    // the row key's parts, one per list key
	leaf  *yang.Entry // the field's leaf (a map table: the inner value leaf)
	inner *yang.Entry // map tables: the inner list, keyed by the field name
}

// sonicTable finds the container of a CONFIG_DB table.
func (c *compiled) sonicTable(name string) *yang.Entry {
	mods := make([]string, 0, len(c.roots))
	for m := range c.roots {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	for _, m := range mods {
		if t := c.roots[m].Dir[name]; t != nil && t.IsContainer() {
			return t
		}
	}
	return nil
}

// sonicRowList picks the table's list whose key has as many parts as row.
func sonicRowList(table *yang.Entry, row string) (*yang.Entry, []string) {
	parts := strings.Split(row, "|")
	names := make([]string, 0, len(table.Dir))
	for n := range table.Dir {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if l := table.Dir[n]; l.IsList() && len(listKeys(l)) == len(parts) {
			return l, parts
		}
	}
	return nil, nil
}

// sonicInner is the map table's inner list of a row list, if any.
func sonicInner(table, list *yang.Entry) *yang.Entry {
	if in := list.Dir[table.Name]; in != nil && in.IsList() {
		return in
	}
	return nil
}

// sonicResolve checks a CONFIG_DB path against the mapping; it returns
// the leaf's entry for a field path, nil for a shorter path.
func (s *schema) sonicResolve(p gpath.Path) (*yang.Entry, error) {
	notFound := status.Errorf(codes.NotFound, "path %s is not supported by this target", p)
	for _, e := range p {
		if len(e.Keys) > 0 {
			return nil, notFound
		}
	}
	if len(p) >= 1 && p[0].Name != sonicDB {
		return nil, notFound
	}
	if len(p) >= 2 && p[1].Name != sonicNamespace {
		return nil, notFound
	}
	if len(p) < 3 {
		return nil, nil
	}
	table := s.c.sonicTable(p[2].Name)
	if table == nil {
		return nil, notFound
	}
	if len(p) == 3 {
		return nil, nil
	}
	if l, _ := sonicRowList(table, p[3].Name); l == nil {
		return nil, notFound
	}
	if len(p) == 4 {
		return nil, nil
	}
	f, err := s.sonicField(p)
	if err != nil {
		return nil, err
	}
	return f.leaf, nil
}

// sonicField maps a CONFIG_DB field path onto the schema; a path that
// maps to nothing is NotFound, a row key part or map field name that its
// key leaf refuses is InvalidArgument.
func (s *schema) sonicField(p gpath.Path) (sonicLeaf, error) {
	notFound := status.Errorf(codes.NotFound, "path %s is not supported by this target", p)
	if len(p) != 5 || p[0].Name != sonicDB || p[1].Name != sonicNamespace {
		return sonicLeaf{}, notFound
	}
	f := sonicLeaf{table: s.c.sonicTable(p[2].Name)}
	if f.table == nil {
		return sonicLeaf{}, notFound
	}
	f.list, f.parts = sonicRowList(f.table, p[3].Name)
	if f.list == nil {
		return sonicLeaf{}, notFound
	}
	for i, k := range listKeys(f.list) {
		kl := f.list.Dir[k]
		if err := s.c.checkLexical(kl, kl.Type, f.parts[i]); err != nil {
			return sonicLeaf{}, status.Errorf(codes.InvalidArgument, "%s: row key %s (%s): %v", p[:4], p[3].Name, k, err)
		}
	}
	field := p[4].Name
	if f.inner = sonicInner(f.table, f.list); f.inner != nil {
		ik := listKeys(f.inner)
		if len(ik) != 1 {
			return sonicLeaf{}, notFound
		}
		kl := f.inner.Dir[ik[0]]
		if err := s.c.checkLexical(kl, kl.Type, field); err != nil {
			return sonicLeaf{}, status.Errorf(codes.InvalidArgument, "%s: field %s (%s): %v", p, field, ik[0], err)
		}
		for n, l := range f.inner.Dir {
			if n != ik[0] && l.IsLeaf() {
				f.leaf = l
			}
		}
		if f.leaf == nil {
			return sonicLeaf{}, notFound
		}
		return f, nil
	}
	f.leaf = f.list.Dir[field]
	if f.leaf == nil || !f.leaf.IsLeaf() && !f.leaf.IsLeafList() {
		return sonicLeaf{}, notFound
	}
	for _, k := range listKeys(f.list) {
		if k == field {
			return sonicLeaf{}, notFound // keys are the row key, not fields
		}
	}
	return f, nil
}

// sonicCheckValue checks one Set value at a CONFIG_DB path: no module
// qualifiers (CONFIG_DB is not YANG-encoded JSON), every field known,
// every value a string valid for its leaf.
func (s *schema) sonicCheckValue(p gpath.Path, v any) error {
	if _, err := s.sonicResolve(p); err != nil {
		return err
	}
	if err := noQualifiers(p.String(), v); err != nil {
		return err
	}
	leaves, err := gpath.Flatten(p, v, s.keysOf)
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "%v", err)
	}
	for _, l := range leaves {
		f, err := s.sonicField(l.Path)
		if status.Code(err) == codes.NotFound && len(l.Path) > len(p) {
			return status.Errorf(codes.InvalidArgument, "%s: unknown element %q: not in this target's schema", l.Path[:len(p)], l.Path[len(p)].Name)
		}
		if err != nil {
			return err
		}
		if f.leaf.ReadOnly() {
			return status.Errorf(codes.InvalidArgument, "%s: config false in the model (state data): not writable", l.Path)
		}
		if err := s.c.checkType(f.leaf, f.leaf.Type, l.Value, formLexical); err != nil {
			return status.Errorf(codes.InvalidArgument, "%s: %v", l.Path, err)
		}
	}
	return nil
}

func noQualifiers(at string, v any) error {
	switch x := v.(type) {
	case map[string]any:
		for k, cv := range x {
			if strings.Contains(k, ":") {
				return status.Errorf(codes.InvalidArgument, "%s: member %q: this target's data carries no module qualifiers", at, k)
			}
			if err := noQualifiers(at+"/"+k, cv); err != nil {
				return err
			}
		}
	case []any:
		for _, cv := range x {
			if err := noQualifiers(at, cv); err != nil {
				return err
			}
		}
	}
	return nil
}

// sonicInstance turns CONFIG_DB leaves into sonic-yang instance leaves
// (lexical values): each field, and the key leaves of its row (and, in a
// map table, of its inner entry).
func (s *schema) sonicInstance(t tree) ([]instLeaf, error) {
	seen := map[string]bool{}
	var out []instLeaf
	add := func(p gpath.Path, v any, from string) {
		if k := p.Key(); !seen[k] {
			seen[k] = true
			out = append(out, instLeaf{path: p, value: v, form: formLexical, from: from})
		}
	}
	for _, k := range sortedKeys(t) {
		l := t[k]
		f, err := s.sonicField(l.Path)
		if err != nil {
			return nil, commitErr("%s is not supported by this target: %v", l.Path, status.Convert(err).Message())
		}
		mod := dataParent(f.table)
		base := gpath.Path{{Name: mod.Name}, {Name: f.table.Name}}
		row := gpath.Elem{Name: f.list.Name, Keys: map[string]string{}}
		for i, kn := range listKeys(f.list) {
			row.Keys[kn] = f.parts[i]
		}
		base = append(base, row)
		for i, kn := range listKeys(f.list) {
			add(base.Append(gpath.Elem{Name: kn}), f.parts[i], l.Path.String())
		}
		if f.inner != nil {
			ik := listKeys(f.inner)[0]
			in := gpath.Elem{Name: f.inner.Name, Keys: map[string]string{ik: l.Path[4].Name}}
			add(base.Append(in, gpath.Elem{Name: ik}), l.Path[4].Name, l.Path.String())
			add(base.Append(in, gpath.Elem{Name: f.leaf.Name}), l.Value, l.Path.String())
			continue
		}
		add(base.Append(gpath.Elem{Name: f.leaf.Name}), l.Value, l.Path.String())
	}
	return out, nil
}

func sortedKeys(t tree) []string {
	out := make([]string, 0, len(t))
	for k := range t {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
