package gnmisim

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/openconfig/goyang/pkg/yang"
)

// modelFS holds the vendors' YANG pinned per profile (models/README.md
// lists sources, revisions and licences). Only the import closure of the
// modules each profile writes is there.
//
//go:embed models
var modelFS embed.FS

// ModelSet is how one profile's pinned models are loaded: the directories
// searched for imports, the modules loaded as implemented (their data
// nodes are the target's schema), and the if-features a released image
// enables. Tests hand the same set to yanglint.
type ModelSet struct {
	// Search are directories under models/ whose .yang files are parsed.
	Search []string
	// Modules are the files (under models/) whose data nodes the target
	// serves.
	Modules []string
	// Features are the enabled features as "module:feature"; nil means
	// every feature is enabled (the profile's models use none that an
	// image could lack).
	Features []string
}

// srlFeatures are the srl_nokia-features a 7220 IXR (Broadcom XGS)
// image on SR Linux 25.3 enables among those the srlinux profile's nodes
// depend on (docs/gnmi-profiles.md). Everything else is off: future-0-0,
// which guards received-traffic/.../enable-pfc, is in no released image.
func srlFeatures() []string {
	return []string{
		"qos", "qos-pfc", "qos-pfc-xgs", "qos-dscp-classifier-policy", "qos-ipv4-dscp-classifier-policy",
		"qos-ipv6-dscp-classifier-policy", "qos-dot1p-classifier-policy", "qos-unicast-queue", "qos-multicast-queue",
		"qos-drop-probability", "bridged", "lag",
		"port-speed-10G", "port-speed-25G", "port-speed-40G", "port-speed-50G", "port-speed-100G", "port-speed-400G",
	}
}

// Models returns the model set of a profile.
func Models(profile string) (ModelSet, error) {
	switch profile {
	case "openconfig":
		return ModelSet{
			Search: []string{"openconfig"},
			Modules: []string{
				"openconfig/release/models/qos/openconfig-qos.yang",
				"openconfig/release/models/interfaces/openconfig-interfaces.yang",
				"openconfig/release/models/interfaces/openconfig-if-ethernet.yang",
				"openconfig/third_party/ietf/iana-if-type.yang",
			},
		}, nil
	case "arista":
		return ModelSet{
			Search: []string{"arista", "openconfig/third_party"},
			Modules: []string{
				"arista/openconfig/public/release/models/qos/openconfig-qos.yang",
				"arista/openconfig/public/release/models/interfaces/openconfig-interfaces.yang",
				"arista/openconfig/public/release/models/interfaces/openconfig-if-ethernet.yang",
				"arista/release/openconfig/models/qos/arista-qos-augments.yang",
				"arista/release/openconfig/models/not-supported/arista-qos-notsupported-deviations.yang",
				"openconfig/third_party/ietf/iana-if-type.yang",
			},
		}, nil
	case "srlinux":
		feats := srlFeatures()
		fs := make([]string, len(feats))
		for i, f := range feats {
			fs[i] = "srl_nokia-features:" + f
		}
		return ModelSet{
			Search: []string{"srlinux"},
			Modules: []string{
				// First, so yanglint sets the features before anything
				// imports it.
				"srlinux/srl_nokia/models/common/srl_nokia-features.yang",
				"srlinux/srl_nokia/models/qos/srl_nokia-qos.yang",
				"srlinux/srl_nokia/models/interfaces/srl_nokia-interfaces.yang",
			},
			Features: fs,
		}, nil
	case "sonic":
		// ietf-inet-types and ietf-yang-types: libyang has them built in;
		// goyang reads the copies in openconfig/third_party/ietf (same
		// revision, 2013-07-15).
		return ModelSet{
			Search: []string{"sonic", "openconfig/third_party"},
			Modules: []string{
				"sonic/sonic-port.yang", "sonic/sonic-port-qos-map.yang", "sonic/sonic-dscp-tc-map.yang",
				"sonic/sonic-dot1p-tc-map.yang", "sonic/sonic-tc-queue-map.yang", "sonic/sonic-wred-profile.yang",
				"sonic/sonic-queue.yang", "sonic/sonic-pfcwd.yang", "sonic/sonic-device_metadata.yang",
			},
		}, nil
	}
	return ModelSet{}, fmt.Errorf("gnmisim: unknown profile %q (want openconfig, arista, sonic or srlinux)", profile)
}

// ModelFiles is the file system holding the models (paths as in
// ModelSet, under "models/").
func ModelFiles() fs.FS {
	sub, err := fs.Sub(modelFS, "models")
	if err != nil {
		panic(err) // "models" is embedded above; fs.Sub fails only on an invalid name
	}
	return sub
}

// compiled is one profile's schema compiled by goyang: deviations
// applied, augments merged, nodes behind a disabled if-feature removed.
type compiled struct {
	// roots are the top-level data nodes by name.
	roots map[string]*yang.Entry
	// modOf caches Entry.InstantiatingModule.
	modOf map[*yang.Entry]string
	// patterns are the Go regexps of the models' string patterns; a
	// pattern RE2 cannot express is absent (unchecked).
	patterns map[string]*regexp.Regexp
	// refs are the leafref targets, by leaf (nil: outside the models).
	refs map[*yang.Entry]*yang.Entry
	// refPaths are the parsed leafref paths, by leaf (absent: a path
	// this parser does not read; then any instance of the target counts).
	refPaths map[*yang.Entry]parsedRef
	// unchecked lists what the models say that is not checked here.
	unchecked []string
}

// Schemas compiles each profile's models once and hands the result to
// every target built with it; safe for concurrent use. The zero value is
// ready. Targets that share one (the lab's switches) pay the compile once.
type Schemas struct {
	mu    sync.Mutex
	byKey map[string]*schemaOnce
}

type schemaOnce struct {
	once sync.Once
	c    *compiled
	err  error
}

func (s *Schemas) get(profile string) (*compiled, error) {
	s.mu.Lock()
	if s.byKey == nil {
		s.byKey = map[string]*schemaOnce{}
	}
	o, ok := s.byKey[profile]
	if !ok {
		o = &schemaOnce{}
		s.byKey[profile] = o
	}
	s.mu.Unlock()
	o.once.Do(func() { o.c, o.err = compileProfile(profile) })
	return o.c, o.err
}

// compileProfile parses the profile's model files with goyang, processes
// them (imports, augments, deviations) and prunes what the image's
// features leave out.
func compileProfile(profile string) (*compiled, error) {
	set, err := Models(profile)
	if err != nil {
		return nil, err
	}
	fsys := ModelFiles()
	ms := yang.NewModules()
	// Keep each entry's uses statements: an if-feature on a uses guards
	// the nodes of its grouping (featuresOn).
	ms.ParseOptions.StoreUses = true
	seen := map[string]bool{}
	for _, dir := range set.Search {
		err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yang") || seen[p] {
				return err
			}
			seen[p] = true
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			if err := ms.Parse(string(b), p); err != nil {
				return fmt.Errorf("parse %s: %w", p, err)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("gnmisim: profile %s models: %w", profile, err)
		}
	}
	if errs := processErrors(ms); len(errs) > 0 {
		return nil, fmt.Errorf("gnmisim: profile %s: compiling the models: %s", profile, strings.Join(errs, "; "))
	}
	c := &compiled{roots: map[string]*yang.Entry{}, modOf: map[*yang.Entry]string{},
		patterns: map[string]*regexp.Regexp{}, refs: map[*yang.Entry]*yang.Entry{}, refPaths: map[*yang.Entry]parsedRef{}}
	var feats map[string]bool
	if set.Features != nil {
		feats = map[string]bool{}
		for _, f := range set.Features {
			_, name, _ := strings.Cut(f, ":")
			feats[name] = true
		}
	}
	implemented := map[string]bool{}
	for _, f := range set.Modules {
		implemented[strings.TrimSuffix(path.Base(f), ".yang")] = true
	}
	for _, f := range set.Modules {
		name := strings.TrimSuffix(path.Base(f), ".yang")
		m, ok := ms.Modules[name]
		if !ok {
			return nil, fmt.Errorf("gnmisim: profile %s: module %s not loaded from %s", profile, name, f)
		}
		e := yang.ToEntry(m)
		pruneUnimplemented(e, implemented)
		if feats != nil {
			if err := pruneFeatures(e, feats); err != nil {
				return nil, fmt.Errorf("gnmisim: profile %s: %s: %w", profile, name, err)
			}
		}
		for n, ch := range e.Dir {
			if ch.RPC != nil || ch.Kind == yang.NotificationEntry {
				continue
			}
			c.roots[n] = ch
		}
	}
	if len(c.roots) == 0 {
		return nil, fmt.Errorf("gnmisim: profile %s: the models define no data nodes", profile)
	}
	c.index()
	return c, nil
}

// processErrors runs goyang's Process and returns its errors, less one
// kind libyang does not raise either: a deviation of a node inside a
// subtree another deviation already made not-supported (Arista's
// not-supported deviations deviate both a container and leaves below it;
// goyang applies them in turn and then finds no target).
func processErrors(ms *yang.Modules) []string {
	errs := ms.Process()
	if len(errs) == 0 {
		return nil
	}
	var gone []string
	for _, m := range ms.Modules {
		for _, d := range m.Deviation {
			for _, dv := range d.Deviate {
				if dv.Name == "not-supported" {
					gone = append(gone, d.Name+"/")
				}
			}
		}
	}
	var out []string
	for _, e := range errs {
		const noTarget = "cannot find target node to deviate, "
		if msg := e.Error(); strings.HasPrefix(msg, noTarget) {
			target := strings.TrimPrefix(msg, noTarget)
			inside := false
			for _, g := range gone {
				inside = inside || strings.HasPrefix(target, g)
			}
			if inside {
				continue
			}
		}
		out = append(out, e.Error())
	}
	return out
}

// index records, for every data node, its instantiating module (RFC 7951
// member qualification), the Go regexps of its patterns and its leafref
// target, so lookups at run time touch neither goyang's module maps nor
// the regexp compiler.
func (c *compiled) index() {
	names := make([]string, 0, len(c.roots))
	for n := range c.roots {
		names = append(names, n)
	}
	sort.Strings(names)
	var types func(leaf *yang.Entry, t *yang.YangType)
	types = func(leaf *yang.Entry, t *yang.YangType) {
		if t == nil {
			return
		}
		for _, p := range t.Pattern {
			if _, done := c.patterns[p]; done {
				continue
			}
			re, err := compilePattern(p)
			if err != nil {
				c.unchecked = append(c.unchecked, fmt.Sprintf("pattern %q of %s: %v", p, leaf.Path(), err))
				continue
			}
			c.patterns[p] = re
		}
		if t.Kind == yang.Yleafref {
			if _, done := c.refs[leaf]; !done {
				c.refs[leaf] = c.resolveLeafref(leaf, t.Path)
				if abs, steps, err := parseLeafref(t.Path); err == nil {
					c.refPaths[leaf] = parsedRef{abs: abs, steps: steps}
				} else {
					c.unchecked = append(c.unchecked, fmt.Sprintf("leafref of %s: %v", leaf.Path(), err))
				}
			}
		}
		for _, m := range t.Type {
			types(leaf, m)
		}
	}
	var walk func(e *yang.Entry)
	walk = func(e *yang.Entry) {
		if mod, err := e.InstantiatingModule(); err == nil {
			c.modOf[e] = mod
		}
		types(e, e.Type)
		for _, ch := range e.Dir {
			walk(ch)
		}
	}
	for _, n := range names {
		walk(c.roots[n])
	}
}

// module is the module that defines data node e in the instance tree.
func (c *compiled) module(e *yang.Entry) string { return c.modOf[e] }

// pruneUnimplemented removes the nodes that modules only imported (not
// implemented) augment into the tree: goyang applies the augments of every
// module it parsed, libyang (and a target) only those of implemented
// modules. The implemented ones are the profile's ModelSet.Modules.
func pruneUnimplemented(e *yang.Entry, implemented map[string]bool) {
	for name, ch := range e.Dir {
		if mod, err := ch.InstantiatingModule(); err == nil && !implemented[mod] {
			delete(e.Dir, name)
			continue
		}
		pruneUnimplemented(ch, implemented)
	}
}

// pruneFeatures removes the nodes whose if-feature (on the node, an
// enclosing choice, case or augment, or the uses that placed it) is false
// with the enabled features. goyang keeps if-feature as text; RFC 7950
// §7.20.2 gives the expression grammar evaluated here.
func pruneFeatures(e *yang.Entry, enabled map[string]bool) error {
	for name, ch := range e.Dir {
		ok, err := featuresOn(ch, enabled)
		if err != nil {
			return fmt.Errorf("%s: %w", ch.Path(), err)
		}
		if !ok {
			delete(e.Dir, name)
			continue
		}
		if err := pruneFeatures(ch, enabled); err != nil {
			return err
		}
	}
	return nil
}

// featuresOn evaluates the if-features that guard e.
func featuresOn(e *yang.Entry, enabled map[string]bool) (bool, error) {
	var exprs []string
	// The node and its AST ancestors up to the first data node ancestor
	// (an augment, choice or case in between carries its own if-feature).
	for n := e.Node; n != nil; n = n.ParentNode() {
		exprs = append(exprs, ifFeatures(n)...)
		if n != e.Node {
			if _, stop := n.(*yang.Container); stop {
				break
			}
			if _, stop := n.(*yang.List); stop {
				break
			}
			if _, stop := n.(*yang.Module); stop {
				break
			}
		}
	}
	// A uses or an augment that placed e here, with their if-features
	// (and those of a uses inside the augment).
	if p := e.Parent; p != nil {
		exprs = append(exprs, usesFeatures(p.Uses, e.Name)...)
		for _, a := range p.Augmented {
			if a.Dir[e.Name] == nil {
				continue
			}
			exprs = append(exprs, ifFeatures(a.Node)...)
			exprs = append(exprs, usesFeatures(a.Uses, e.Name)...)
		}
	}
	for _, x := range exprs {
		ok, err := evalIfFeature(x, enabled)
		if err != nil || !ok {
			return ok, err
		}
	}
	return true, nil
}

func usesFeatures(us []*yang.UsesStmt, name string) []string {
	var out []string
	for _, u := range us {
		if u.Uses != nil && u.Grouping != nil && u.Grouping.Dir[name] != nil {
			out = append(out, valuesOf(u.Uses.IfFeature)...)
		}
	}
	return out
}

func valuesOf(vs []*yang.Value) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.Name)
	}
	return out
}

// ifFeatures returns the if-feature arguments of an AST node.
func ifFeatures(n yang.Node) []string {
	switch x := n.(type) {
	case *yang.Leaf:
		return valuesOf(x.IfFeature)
	case *yang.LeafList:
		return valuesOf(x.IfFeature)
	case *yang.Container:
		return valuesOf(x.IfFeature)
	case *yang.List:
		return valuesOf(x.IfFeature)
	case *yang.Choice:
		return valuesOf(x.IfFeature)
	case *yang.Case:
		return valuesOf(x.IfFeature)
	case *yang.Augment:
		return valuesOf(x.IfFeature)
	case *yang.Uses:
		return valuesOf(x.IfFeature)
	case *yang.AnyData:
		return valuesOf(x.IfFeature)
	case *yang.AnyXML:
		return valuesOf(x.IfFeature)
	}
	return nil
}

// evalIfFeature evaluates an if-feature expression (RFC 7950 §7.20.2:
// feature names, "not", "and", "or", parentheses). Prefixes are dropped:
// the enabled set names features of the profile's one feature module.
func evalIfFeature(expr string, enabled map[string]bool) (bool, error) {
	toks := tokenizeIfFeature(expr)
	pos := 0
	var orExpr, andExpr, factor func() (bool, error)
	factor = func() (bool, error) {
		if pos >= len(toks) {
			return false, fmt.Errorf("if-feature %q: unexpected end", expr)
		}
		t := toks[pos]
		pos++
		switch t {
		case "not":
			v, err := factor()
			return !v, err
		case "(":
			v, err := orExpr()
			if err != nil {
				return false, err
			}
			if pos >= len(toks) || toks[pos] != ")" {
				return false, fmt.Errorf("if-feature %q: missing )", expr)
			}
			pos++
			return v, nil
		case ")", "and", "or":
			return false, fmt.Errorf("if-feature %q: unexpected %q", expr, t)
		}
		_, name, ok := strings.Cut(t, ":")
		if !ok {
			name = t
		}
		return enabled[name], nil
	}
	andExpr = func() (bool, error) {
		v, err := factor()
		for err == nil && pos < len(toks) && toks[pos] == "and" {
			pos++
			var w bool
			w, err = factor()
			v = v && w
		}
		return v, err
	}
	orExpr = func() (bool, error) {
		v, err := andExpr()
		for err == nil && pos < len(toks) && toks[pos] == "or" {
			pos++
			var w bool
			w, err = andExpr()
			v = v || w
		}
		return v, err
	}
	v, err := orExpr()
	if err == nil && pos != len(toks) {
		err = fmt.Errorf("if-feature %q: unexpected %q", expr, toks[pos])
	}
	return v, err
}

func tokenizeIfFeature(s string) []string {
	s = strings.NewReplacer("(", " ( ", ")", " ) ").Replace(s)
	return strings.Fields(s)
}
