package gnmisim

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/openconfig/goyang/pkg/yang"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// schema is what one profile's target accepts: the profile's YANG
// compiled by goyang (models.go), walked for every Set and Get. The gNMI
// paths of the openconfig, arista and srlinux profiles are the models' data
// node paths; the sonic profile's CONFIG_DB paths are mapped onto
// sonic-yang-models' containers and lists (sonic.go). What goyang does not
// evaluate — must and when expressions — are the mustRules (must.go), each
// citing its YANG statement.
type schema struct {
	c     *compiled
	sonic bool
	musts []mustRule
	// state accepts config false nodes (checking Get replies, not Sets).
	state bool
	// outside names the module of state the target serves outside the
	// pinned models (the software version under /system), by element
	// names joined with "/", so Get replies qualify it like a target.
	outside map[string]string
}

// dataParent is the data node above e (choice and case are not data).
func dataParent(e *yang.Entry) *yang.Entry {
	p := e.Parent
	for p != nil && (p.IsChoice() || p.IsCase()) {
		p = p.Parent
	}
	return p
}

// child finds the data node name below e, looking through choices and
// cases.
func child(e *yang.Entry, name string) *yang.Entry {
	if ch, ok := e.Dir[name]; ok && !ch.IsChoice() && !ch.IsCase() {
		return ch
	}
	for _, ch := range e.Dir {
		if ch.IsChoice() || ch.IsCase() {
			if x := child(ch, name); x != nil {
				return x
			}
		}
	}
	return nil
}

// entryAt resolves element names (YANG data node path, no module
// prefixes) to a data node; nil when the models have none.
func (c *compiled) entryAt(names []string) *yang.Entry {
	if len(names) == 0 {
		return nil
	}
	e := c.roots[names[0]]
	for _, n := range names[1:] {
		if e == nil {
			return nil
		}
		e = child(e, n)
	}
	return e
}

func listKeys(e *yang.Entry) []string {
	if e == nil || !e.IsList() {
		return nil
	}
	return strings.Fields(e.Key)
}

// resolveLeafref finds the schema node a leafref path points at: its
// predicates dropped (they pick one instance; the schema node is the same),
// prefixes dropped, ".." stepping over choice and case.
func (c *compiled) resolveLeafref(leaf *yang.Entry, path string) *yang.Entry {
	var b strings.Builder
	depth := 0
	for _, r := range path {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0 && r != ' ' && r != '\n' && r != '\t':
			b.WriteRune(r)
		}
	}
	p := b.String()
	var cur *yang.Entry
	parts := strings.Split(p, "/")
	if strings.HasPrefix(p, "/") {
		parts = parts[1:]
		if len(parts) == 0 {
			return nil
		}
		cur = c.roots[gpath.StripModule(parts[0])]
		parts = parts[1:]
	} else {
		cur = leaf
	}
	for _, part := range parts {
		if cur == nil {
			return nil
		}
		switch part {
		case "", ".":
		case "..":
			cur = dataParent(cur)
		default:
			cur = child(cur, gpath.StripModule(part))
		}
	}
	if cur == nil || (!cur.IsLeaf() && !cur.IsLeafList()) {
		return nil
	}
	return cur
}

// leafrefTarget is the leaf a leafref-typed leaf points at (nil: outside
// the loaded models).
func (c *compiled) leafrefTarget(leaf *yang.Entry) *yang.Entry {
	return c.refs[leaf]
}

// keysOf is the gpath.KeysOf of the target's gNMI paths.
func (s *schema) keysOf(names []string) []string {
	if s.sonic {
		return nil // CONFIG_DB rows are path elements, not lists
	}
	return listKeys(s.c.entryAt(names))
}

// resolve finds the data node of a gNMI path and checks its list keys:
// an element with keys must be a list keyed by exactly those names, each
// key value valid for its key leaf. An unknown element is NotFound.
func (s *schema) resolve(p gpath.Path) (*yang.Entry, error) {
	if s.sonic {
		return s.sonicResolve(p)
	}
	if len(p) == 0 {
		return nil, nil
	}
	e := s.c.roots[p[0].Name]
	for i, el := range p {
		if i > 0 {
			e = child(e, el.Name)
		}
		if e == nil {
			return nil, status.Errorf(codes.NotFound, "path %s is not supported by this target", p)
		}
		if len(el.Keys) == 0 {
			continue
		}
		keys := listKeys(e)
		if keys == nil || len(keys) != len(el.Keys) {
			return nil, status.Errorf(codes.NotFound, "path %s is not supported by this target: %s is keyed by [%s]", p, el.Name, strings.Join(keys, " "))
		}
		for _, k := range keys {
			v, ok := el.Keys[k]
			if !ok {
				return nil, status.Errorf(codes.NotFound, "path %s is not supported by this target: %s is keyed by [%s]", p, el.Name, strings.Join(keys, " "))
			}
			kl := e.Dir[k]
			if kl != nil {
				if err := s.c.checkLexical(kl, kl.Type, v); err != nil {
					return nil, status.Errorf(codes.InvalidArgument, "%s: key %s: %v", p[:i+1], k, err)
				}
			}
		}
	}
	return e, nil
}

// known reports whether p is a data node of the models (or the root).
func (s *schema) known(p gpath.Path) bool {
	if len(p) == 0 {
		return true
	}
	_, err := s.resolve(p)
	return err == nil
}

// isList reports whether p names a whole list (a list given without keys).
func (s *schema) isList(p gpath.Path) bool {
	if len(p) == 0 || len(p[len(p)-1].Keys) > 0 {
		return false
	}
	return s.keysOf(p.Names()) != nil
}

// checkValue walks a Set value at p before it is stored: every member must
// be a data node of the models (unknown is InvalidArgument, as a target's
// schema unmarshal answers), writable (not config false), carry the
// module qualifier RFC 7951 §4 asks for in JSON_IETF (none in plain JSON);
// list entries carry their keys, which are unique (RFC 7950 §7.8.2); each
// leaf value is valid for its type.
func (s *schema) checkValue(p gpath.Path, v any, ietf bool) error {
	if s.sonic {
		return s.sonicCheckValue(p, v)
	}
	form := formJSON
	if ietf {
		form = formIETF
	}
	at := p.String()
	if len(p) == 0 {
		return s.walkMembers(nil, "", at, v, form)
	}
	e, err := s.resolve(p)
	if err != nil {
		return err
	}
	if e.ReadOnly() {
		return status.Errorf(codes.InvalidArgument, "%s: config false in the model (state data): not writable", at)
	}
	if e.IsList() && len(p[len(p)-1].Keys) == 0 {
		return s.walkList(e, at, v, form)
	}
	return s.walk(e, at, v, form)
}

// walk checks value v of data node e.
func (s *schema) walk(e *yang.Entry, at string, v any, form valueForm) error {
	switch {
	case e.IsLeafList():
		arr, ok := v.([]any)
		if !ok {
			return status.Errorf(codes.InvalidArgument, "%s: leaf-list value must be a JSON array, got %s", at, jsonKind(v))
		}
		seen := map[string]bool{}
		for i, x := range arr {
			if err := s.c.checkType(e, e.Type, x, form); err != nil {
				return status.Errorf(codes.InvalidArgument, "%s: entry %d: %v", at, i, err)
			}
			k, _ := gpath.ScalarString(x)
			if seen[k] && e.Config != yang.TSFalse {
				return status.Errorf(codes.InvalidArgument, "%s: duplicate leaf-list value %s: values of a config leaf-list are unique (RFC 7950 §7.7)", at, k)
			}
			seen[k] = true
		}
		return nil
	case e.IsLeaf():
		if err := s.c.checkType(e, e.Type, v, form); err != nil {
			return status.Errorf(codes.InvalidArgument, "%s: %v", at, err)
		}
		return nil
	}
	return s.walkMembers(e, s.c.module(e), at, v, form)
}

// walkList checks a whole list's value: an array of entries, each with its
// keys, no two with the same keys.
func (s *schema) walkList(e *yang.Entry, at string, v any, form valueForm) error {
	arr, ok := v.([]any)
	if !ok {
		return status.Errorf(codes.InvalidArgument, "%s is a list: its value must be a JSON array of entries, got %s", at, jsonKind(v))
	}
	keys := listKeys(e)
	seen := map[string]bool{}
	for _, x := range arr {
		ent, ok := x.(map[string]any)
		if !ok {
			return status.Errorf(codes.InvalidArgument, "%s: list entries must be JSON objects, got %s", at, jsonKind(x))
		}
		var kv []string
		for _, kn := range keys {
			found := false
			for mk, mv := range ent {
				if gpath.StripModule(mk) == kn {
					sv, _ := gpath.ScalarString(mv)
					kv = append(kv, kn+"="+sv)
					found = true
				}
			}
			if !found {
				return status.Errorf(codes.InvalidArgument, "%s: entry lacks key %q (RFC 7950 §7.8.2)", at, kn)
			}
		}
		id := strings.Join(kv, ",")
		if seen[id] {
			return status.Errorf(codes.InvalidArgument, "%s: duplicate list entry [%s]: list keys are unique (RFC 7950 §7.8.2)", at, id)
		}
		seen[id] = true
		if err := s.walkMembers(e, s.c.module(e), at+"["+id+"]", ent, form); err != nil {
			return err
		}
	}
	return nil
}

// walkMembers checks the members of an object whose data node is e (nil:
// the root) defined in module parentMod.
func (s *schema) walkMembers(e *yang.Entry, parentMod, at string, v any, form valueForm) error {
	obj, ok := v.(map[string]any)
	if !ok {
		what := "the root"
		if e != nil {
			what = "a " + entryKind(e)
		}
		return status.Errorf(codes.InvalidArgument, "%s: %s takes a JSON object, got %s", at, what, jsonKind(v))
	}
	members := make([]string, 0, len(obj))
	for k := range obj {
		members = append(members, k)
	}
	sort.Strings(members)
	for _, k := range members {
		mod, name, qualified := strings.Cut(k, ":")
		if !qualified {
			name, mod = k, ""
		}
		var ch *yang.Entry
		if e == nil {
			ch = s.c.roots[name]
		} else {
			ch = child(e, name)
		}
		if ch == nil {
			return status.Errorf(codes.InvalidArgument, "%s: unknown element %q: not in this target's schema", at, k)
		}
		want := s.c.module(ch)
		switch {
		case form == formJSON && qualified:
			return status.Errorf(codes.InvalidArgument, "%s: member %q is module-qualified, which JSON encoding does not allow; send it as %q or use JSON_IETF", at, k, name)
		case form == formIETF && qualified && mod != want:
			return status.Errorf(codes.InvalidArgument, "%s: member %q: unknown module prefix %q; %s is defined in %s (RFC 7951 §4)", at, k, mod, name, want)
		case form == formIETF && !qualified && want != parentMod:
			return status.Errorf(codes.InvalidArgument, "%s: member %q is defined in module %s, not its parent's: it must be sent as %q (RFC 7951 §4)", at, k, want, want+":"+name)
		}
		if ch.ReadOnly() && !s.state {
			return status.Errorf(codes.InvalidArgument, "%s/%s: config false in the model (state data): not writable", at, k)
		}
		var err error
		if ch.IsList() {
			err = s.walkList(ch, at+"/"+k, obj[k], form)
		} else {
			err = s.walk(ch, at+"/"+k, obj[k], form)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func entryKind(e *yang.Entry) string {
	switch {
	case e.IsList():
		return "list entry"
	case e.IsContainer():
		return "container"
	}
	return "node"
}

// checkLeaves checks the flattened leaves of one update: each is a leaf or
// leaf-list of the models (a path that is not, NotFound).
func (s *schema) checkLeaves(leaves []gpath.Leaf) error {
	for _, l := range leaves {
		if s.sonic {
			if _, err := s.sonicField(l.Path); err != nil {
				return err
			}
			continue
		}
		e, err := s.resolve(l.Path)
		if err != nil {
			return err
		}
		if e == nil || (!e.IsLeaf() && !e.IsLeafList()) {
			return status.Errorf(codes.InvalidArgument, "%s: a %s cannot hold a scalar value", l.Path, entryKind(e))
		}
	}
	return nil
}

// qualify renames the members of a Get value at base whose module differs
// from their parent's to "module:name" (RFC 7951 §4), as a real target's
// JSON_IETF reply carries them.
func (s *schema) qualify(base gpath.Path, v any) any {
	if s.sonic {
		return v
	}
	var e *yang.Entry
	if len(base) > 0 {
		e = s.c.entryAt(base.Names())
		if e == nil {
			return v
		}
	}
	if e != nil && e.IsList() && len(base[len(base)-1].Keys) == 0 {
		arr, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(arr))
		for i, x := range arr {
			out[i] = s.qualifyAt(e, x)
		}
		return out
	}
	return s.qualifyAt(e, v)
}

func (s *schema) qualifyAt(e *yang.Entry, v any) any {
	obj, ok := v.(map[string]any)
	if !ok {
		return v
	}
	parentMod := ""
	if e != nil {
		parentMod = s.c.module(e)
	}
	out := make(map[string]any, len(obj))
	for k, cv := range obj {
		var ch *yang.Entry
		if e == nil {
			ch = s.c.roots[k]
		} else {
			ch = child(e, k)
		}
		if ch == nil {
			if e == nil {
				name, q := s.qualifyOutside(nil, k, cv)
				out[name] = q
				continue
			}
			out[k] = cv
			continue
		}
		name := k
		if mod := s.c.module(ch); mod != "" && mod != parentMod {
			name = mod + ":" + k
		}
		if arr, isArr := cv.([]any); isArr && ch.IsList() {
			q := make([]any, len(arr))
			for i, x := range arr {
				q[i] = s.qualifyAt(ch, x)
			}
			out[name] = q
			continue
		}
		out[name] = s.qualifyAt(ch, cv)
	}
	return out
}

// qualifyOutside qualifies member k (below parent) of a subtree outside
// the pinned models with the modules s.outside names: RFC 7951 §4, a
// member whose module differs from its parent's carries it.
func (s *schema) qualifyOutside(parent []string, k string, v any) (string, any) {
	names := append(append([]string(nil), parent...), k)
	name := k
	if mod := s.outsideModule(names); mod != "" && mod != s.outsideModule(parent) {
		name = mod + ":" + k
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return name, v
	}
	q := make(map[string]any, len(obj))
	for ck, cv := range obj {
		n, x := s.qualifyOutside(names, ck, cv)
		q[n] = x
	}
	return name, q
}

func (s *schema) outsideModule(names []string) string {
	for i := len(names); i > 0; i-- {
		if m, ok := s.outside[strings.Join(names[:i], "/")]; ok {
			return m
		}
	}
	return ""
}

// ModelledLeaves lists the config leaves a simulated profile accepts, as
// the models' data node paths with list keys in brackets
// ("/qos/queues/queue[name]/config/queue-id"); for sonic, sonic-yang
// paths ("/sonic-pfcwd/PFC_WD/PFC_WD_LIST[ifname]/detection_time"), which
// CONFIG_DB paths map onto. Tests hold them to yanglint's compiled tree.
func ModelledLeaves(profile string) ([]string, error) {
	c, err := compileProfile(profile)
	if err != nil {
		return nil, err
	}
	var out []string
	var walk func(e *yang.Entry, prefix string)
	walk = func(e *yang.Entry, prefix string) {
		if e.ReadOnly() {
			return
		}
		if e.IsChoice() || e.IsCase() {
			for _, ch := range e.Dir {
				walk(ch, prefix)
			}
			return
		}
		p := prefix + "/" + e.Name
		if e.IsList() {
			p += "[" + strings.Join(listKeys(e), ",") + "]"
		}
		if e.IsLeaf() || e.IsLeafList() {
			out = append(out, p)
			return
		}
		for _, ch := range e.Dir {
			walk(ch, p)
		}
	}
	for _, r := range c.roots {
		walk(r, "")
	}
	sort.Strings(out)
	return out, nil
}

// commitErr formats a schema failure found when the whole candidate is
// checked (a commit a target refuses).
func commitErr(format string, a ...any) error {
	return status.Errorf(codes.Aborted, format, a...)
}

// fromJSON rewrites leaves that came in plain JSON into the JSON_IETF form
// the store holds (identityrefs module-qualified).
func (s *schema) fromJSON(leaves []gpath.Leaf) {
	if s.sonic {
		return
	}
	for i, l := range leaves {
		if e := s.c.entryAt(l.Path.Names()); e != nil && (e.IsLeaf() || e.IsLeafList()) {
			leaves[i].Value = s.c.ietfIdentity(e, l.Value)
		}
	}
}

// toJSON returns leaves as a plain JSON Get answers them: identityref
// values without their module (gNMI specification §2.3.1).
func (s *schema) toJSON(leaves []gpath.Leaf) []gpath.Leaf {
	if s.sonic {
		return leaves
	}
	out := make([]gpath.Leaf, len(leaves))
	for i, l := range leaves {
		out[i] = l
		e := s.c.entryAt(l.Path.Names())
		if e == nil || !hasIdentityref(e.Type) {
			continue
		}
		strip := func(v any) any {
			if str, ok := v.(string); ok && s.c.checkType(e, e.Type, v, formIETF) == nil {
				if _, name, ok := strings.Cut(str, ":"); ok {
					return name
				}
			}
			return v
		}
		if arr, ok := l.Value.([]any); ok {
			vals := make([]any, len(arr))
			for j, x := range arr {
				vals[j] = strip(x)
			}
			out[i].Value = vals
			continue
		}
		out[i].Value = strip(l.Value)
	}
	return out
}

func hasIdentityref(t *yang.YangType) bool {
	if t == nil {
		return false
	}
	if t.Kind == yang.Yidentityref {
		return true
	}
	for _, m := range t.Type {
		if hasIdentityref(m) {
			return true
		}
	}
	return false
}

// keyLeaves are the key leaves of every list entry the leaves live in
// that the leaves do not carry themselves: a target creates an entry with
// its keys from the path (RFC 7950 §7.8.2: every entry has its key leaves).
func (s *schema) keyLeaves(leaves []gpath.Leaf) []gpath.Leaf {
	if s.sonic {
		return nil
	}
	have := map[string]bool{}
	for _, l := range leaves {
		have[l.Path.Key()] = true
	}
	var out []gpath.Leaf
	for _, l := range leaves {
		for i, el := range l.Path {
			if len(el.Keys) == 0 {
				continue
			}
			e := s.c.entryAt(l.Path[:i+1].Names())
			for _, k := range listKeys(e) {
				kp := l.Path[:i+1].Append(gpath.Elem{Name: k})
				if have[kp.Key()] {
					continue
				}
				have[kp.Key()] = true
				var v any = el.Keys[k]
				if kl := e.Dir[k]; kl != nil && kl.Type != nil && jsonNumberKind(kl.Type.Kind) {
					v = json.Number(el.Keys[k])
				}
				out = append(out, gpath.Leaf{Path: kp, Value: v})
			}
		}
	}
	return out
}

// CheckInstance validates an RFC 7951 instance document — top-level
// members qualified with their module, as yanglint reads it; for sonic,
// sonic-yang's containers and lists — against the profile's compiled
// models, the way the target checks a Set: names, module qualifiers,
// keys, types, leafrefs, mandatory leaves and, except for sonic (whose
// rules are written against CONFIG_DB paths), the must rules. state
// admits config false nodes (a Get of config and state). Tests hold the
// simulator's Get replies to it.
func (s *Schemas) CheckInstance(profile string, doc map[string]any, state bool) error {
	c, err := s.get(profile)
	if err != nil {
		return err
	}
	sch := &schema{c: c, state: state}
	if err := sch.walkMembers(nil, "", "", doc, formIETF); err != nil {
		return err
	}
	leaves, err := gpath.Flatten(gpath.Path{}, doc, sch.keysOf)
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "%v", err)
	}
	inst := make([]instLeaf, len(leaves))
	t := tree{}
	for i, l := range leaves {
		inst[i] = instLeaf{path: l.Path, value: l.Value, form: formIETF, from: l.Path.String()}
		t[l.Path.Key()] = l
	}
	if err := c.checkInstance(inst, state); err != nil {
		return err
	}
	if profile == "sonic" {
		return nil
	}
	p, err := newProfile(profile, "", s)
	if err != nil {
		return err
	}
	for _, r := range p.cfg.musts {
		if err := r.check(t); err != nil {
			return violation(r, err)
		}
	}
	return nil
}
