package nexus

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ObjectKind says which top-level configuration object a block is.
type ObjectKind int

const (
	KindRaw       ObjectKind = iota // a top-level line (and its body) we do not model; kept verbatim
	KindACL                         // ip access-list / mac access-list
	KindClassMap                    // class-map type qos|network-qos|queuing
	KindPolicyMap                   // policy-map type qos|network-qos|queuing
	KindSystemQoS                   // system qos
	KindInterface                   // interface X
)

// Policy and class-map types.
const (
	TypeQoS        = "qos"
	TypeNetworkQoS = "network-qos"
	TypeQueuing    = "queuing"
)

// Config is the modelled running configuration: the QoS objects, the
// interfaces, and every other top-level line kept verbatim, in order.
type Config struct {
	// Header holds the "!Command:", "!Time:" and "!running configuration"
	// lines NX-OS prints first; String does not print them.
	Header  []string
	Objects []*Object
}

// Object is one top-level block of the running configuration.
type Object struct {
	Kind ObjectKind
	// Type: "qos" | "network-qos" | "queuing" for class-maps and policy-maps;
	// "ip" | "mac" for ACLs.
	Type string
	Name string // ACL / class-map / policy-map name, canonical interface name
	// Match is a class-map's "match-all" | "match-any" ("" when not printed).
	Match string
	// Header is the first line of a KindRaw block, verbatim. Modelled
	// objects print a canonical header built from Kind, Type, Match, Name.
	Header string
	// Lines are the body lines with the block's own indentation removed:
	// class-map match lines, ACL rules ("10 permit udp any any eq 4791"),
	// system qos service-policies, interface lines, policy-map lines that are
	// not classes, and for KindRaw the verbatim body (original indentation).
	Lines []string
	// Classes are a policy-map's classes, in order.
	Classes []*PolicyClass
}

// PolicyClass is one `class` inside a policy-map with its action lines
// (e.g. "set qos-group 3", "pause no-drop pfc-cos 4", "mtu 9216",
// "bandwidth percent 50", "priority", "multicast-optimize",
// "queue-limit ...", "congestion-control tail-drop").
type PolicyClass struct {
	Name    string
	Actions []string
}

// ServicePolicy is one `service-policy` line (system qos or interface).
type ServicePolicy struct {
	Type      string // qos | network-qos | queuing
	Direction string // input | output | "" (network-qos)
	Name      string
}

// String prints the object as NX-OS prints it in the running configuration.
func (o *Object) String() string {
	var b strings.Builder
	b.Grow(o.textLen())
	o.write(&b)
	return b.String()
}

// textLen is the length of String's result, so it is built in one
// allocation.
func (o *Object) textLen() int {
	if o.Kind == KindRaw {
		n := len(o.Header) + 1
		for _, l := range o.Lines {
			n += len(l) + 1
		}
		return n
	}
	n := o.headerLen() + 1
	for _, l := range o.Lines {
		n += len(l) + 3
	}
	for _, c := range o.Classes {
		n += classHeaderLen(o.Type, c.Name) + 3
		for _, a := range c.Actions {
			n += len(a) + 5
		}
	}
	return n
}

// headerLen is len(o.canonicalHeader()) without building it.
func (o *Object) headerLen() int {
	switch o.Kind {
	case KindACL:
		return len(o.Type) + len(" access-list ") + len(o.Name)
	case KindClassMap:
		if o.Match == "" {
			return len("class-map type  ") + len(o.Type) + len(o.Name)
		}
		return len("class-map type   ") + len(o.Type) + len(o.Match) + len(o.Name)
	case KindPolicyMap:
		return len("policy-map type  ") + len(o.Type) + len(o.Name)
	case KindSystemQoS:
		return len("system qos")
	case KindInterface:
		return len("interface ") + len(o.Name)
	}
	return len(o.Header)
}

func classHeaderLen(t, name string) int {
	if t == TypeQoS {
		return len("class ") + len(name)
	}
	return len("class type  ") + len(t) + len(name)
}

// sameText reports whether a.String() == b.String() for two objects with
// the same Key, comparing their parts instead of printing both. It falls
// back to printing when the parts differ, so the answer is always the
// printed text's (a line holding what looks like a class header, say).
func sameText(a, b *Object) bool {
	if a.Kind == b.Kind && a.Type == b.Type && a.Name == b.Name && a.Header == b.Header &&
		(a.Kind != KindClassMap || a.Match == b.Match) && slices.Equal(a.Lines, b.Lines) && len(a.Classes) == len(b.Classes) {
		same := true
		for i, c := range a.Classes {
			if c.Name != b.Classes[i].Name || !slices.Equal(c.Actions, b.Classes[i].Actions) {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return a.textLen() == b.textLen() && a.String() == b.String()
}

func (o *Object) write(b *strings.Builder) {
	if o.Kind == KindRaw {
		b.WriteString(o.Header)
		b.WriteByte('\n')
		for _, l := range o.Lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		return
	}
	b.WriteString(o.canonicalHeader())
	b.WriteByte('\n')
	for _, l := range o.Lines {
		b.WriteString("  ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for _, c := range o.Classes {
		b.WriteString("  ")
		b.WriteString(classHeader(o.Type, c.Name))
		b.WriteByte('\n')
		for _, a := range c.Actions {
			b.WriteString("    ")
			b.WriteString(a)
			b.WriteByte('\n')
		}
	}
}

// canonicalHeader is the first line of a modelled object as NX-OS prints it.
func (o *Object) canonicalHeader() string {
	switch o.Kind {
	case KindACL:
		return o.Type + " access-list " + o.Name
	case KindClassMap:
		if o.Match == "" {
			return "class-map type " + o.Type + " " + o.Name
		}
		return "class-map type " + o.Type + " " + o.Match + " " + o.Name
	case KindPolicyMap:
		return "policy-map type " + o.Type + " " + o.Name
	case KindSystemQoS:
		return "system qos"
	case KindInterface:
		return "interface " + o.Name
	}
	return o.Header
}

// classHeader is how NX-OS prints a class inside a policy-map of type t:
// `class NAME` in type qos, `class type T NAME` otherwise.
func classHeader(t, name string) string {
	if t == TypeQoS {
		return "class " + name
	}
	return "class type " + t + " " + name
}

// objID is an object's Key as a comparable value: building the Key string
// for every lookup was a third of Diff's allocations. Two objects have the
// same objID exactly when they have the same Key (names hold no spaces).
type objID struct {
	kind      ObjectKind
	typ, name string
}

func (o *Object) id() objID {
	switch o.Kind {
	case KindACL, KindClassMap, KindPolicyMap:
		return objID{o.Kind, o.Type, o.Name}
	case KindSystemQoS:
		return objID{kind: KindSystemQoS}
	case KindInterface:
		return objID{kind: KindInterface, name: o.Name}
	}
	return objID{kind: KindRaw, name: o.Header}
}

// keyIs reports whether o.Key() == key without building the Key.
func (o *Object) keyIs(key string) bool {
	switch o.Kind {
	case KindACL:
		return joinedIs(key, o.Type, " access-list ", o.Name)
	case KindClassMap:
		return joinedIs(key, "class-map type ", o.Type, " ", o.Name)
	case KindPolicyMap:
		return joinedIs(key, "policy-map type ", o.Type, " ", o.Name)
	case KindSystemQoS:
		return key == "system qos"
	case KindInterface:
		return joinedIs(key, "interface ", o.Name)
	}
	return joinedIs(key, "raw ", o.Header)
}

// joinedIs reports whether s equals the concatenation of parts.
func joinedIs(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.HasPrefix(s, p) {
			return false
		}
		s = s[len(p):]
	}
	return s == ""
}

// Key identifies an object across two configurations.
func (o *Object) Key() string {
	switch o.Kind {
	case KindACL:
		return o.Type + " access-list " + o.Name
	case KindClassMap:
		return "class-map type " + o.Type + " " + o.Name
	case KindPolicyMap:
		return "policy-map type " + o.Type + " " + o.Name
	case KindSystemQoS:
		return "system qos"
	case KindInterface:
		return "interface " + o.Name
	}
	return "raw " + o.Header
}

// Class returns the policy-map class with that name, or nil.
func (o *Object) Class(name string) *PolicyClass {
	for _, c := range o.Classes {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// ServicePolicies parses the service-policy lines of a system qos or
// interface block.
func (o *Object) ServicePolicies() []ServicePolicy {
	var out []ServicePolicy
	for _, l := range o.Lines {
		if sp, ok := parseServicePolicy(l); ok {
			out = append(out, sp)
		}
	}
	return out
}

// parseServicePolicy reads "service-policy type T [input|output] NAME".
func parseServicePolicy(l string) (ServicePolicy, bool) {
	var buf [6]string
	f := fieldsUpTo(l, buf[:])
	if len(f) < 4 || len(f) > 5 || f[0] != "service-policy" || f[1] != "type" {
		return ServicePolicy{}, false
	}
	sp := ServicePolicy{Type: f[2]}
	rest := f[3:]
	if rest[0] == "input" || rest[0] == "output" {
		sp.Direction = rest[0]
		rest = rest[1:]
	}
	if len(rest) != 1 {
		return ServicePolicy{}, false
	}
	sp.Name = rest[0]
	return sp, true
}

// fieldsUpTo splits s as strings.Fields does into dst, without allocating:
// it returns dst[:n] for the first n fields, n ≤ len(dst); when s has more
// than len(dst) fields the result is all of dst (so a caller wanting at
// most k fields passes a dst longer than k).
func fieldsUpTo(s string, dst []string) []string {
	n, start := 0, -1
	for i := 0; i < len(s) && n < len(dst); {
		c, size := s[i], 1
		sp := c == ' ' || c-'\t' <= '\r'-'\t' // ASCII: \t \n \v \f \r and space
		if c >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			sp = unicode.IsSpace(r)
		}
		switch {
		case sp && start >= 0:
			dst[n], start = s[start:i], -1
			n++
		case !sp && start < 0:
			start = i
		}
		i += size
	}
	if start >= 0 && n < len(dst) {
		dst[n] = s[start:]
		n++
	}
	return dst[:n]
}

// joinedFields is f0 + " " + f1 for the first two fields of l, as a
// substring of l when l separates them by one space (no allocation).
func joinedFields(l, f0, f1 string) string {
	rest := l[len(l)-len(strings.TrimLeftFunc(l, isSpace)):]
	if len(rest) > len(f0)+len(f1) && rest[len(f0)] == ' ' && rest[len(f0)+1:len(f0)+1+len(f1)] == f1 {
		return rest[:len(f0)+1+len(f1)]
	}
	return f0 + " " + f1
}

// isSpace is the white space of strings.Fields.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
	}
	return unicode.IsSpace(r)
}

// Line renders the service-policy line.
func (sp ServicePolicy) Line() string {
	if sp.Direction == "" {
		return "service-policy type " + sp.Type + " " + sp.Name
	}
	return "service-policy type " + sp.Type + " " + sp.Direction + " " + sp.Name
}

// Clone returns a deep copy.
func (o *Object) Clone() *Object {
	n := new(Object)
	o.cloneInto(n)
	return n
}

// cloneInto makes n a deep copy of o.
func (o *Object) cloneInto(n *Object) {
	*n = *o
	n.Lines = append([]string(nil), o.Lines...)
	n.Classes = nil
	if len(o.Classes) > 0 {
		n.Classes = make([]*PolicyClass, len(o.Classes))
		cls := make([]PolicyClass, len(o.Classes))
		for i, c := range o.Classes {
			cls[i] = PolicyClass{Name: c.Name, Actions: append([]string(nil), c.Actions...)}
			n.Classes[i] = &cls[i]
		}
	}
}

// String prints the configuration as NX-OS prints it (show running-config):
// objects in order, unmodelled lines verbatim. Header lines are not printed.
func (c *Config) String() string {
	var b strings.Builder
	n := 0
	for _, o := range c.Objects {
		n += o.textLen()
	}
	b.Grow(n)
	for _, o := range c.Objects {
		o.write(&b)
	}
	return b.String()
}

// Clone returns a deep copy. The copy's objects, lines and classes are
// carved out of a few shared backing arrays (each slice capped, so an
// append by one object never writes into another's): Render clones the
// whole running config of every switch it renders.
func (c *Config) Clone() *Config {
	nLines, nClasses, nActions := 0, 0, 0
	for _, o := range c.Objects {
		nLines += len(o.Lines)
		nClasses += len(o.Classes)
		for _, pc := range o.Classes {
			nActions += len(pc.Actions)
		}
	}
	n := &Config{Header: append([]string(nil), c.Header...), Objects: make([]*Object, len(c.Objects), len(c.Objects)+8)}
	objs := make([]Object, len(c.Objects))
	strs := make([]string, 0, nLines+nActions)
	classes := make([]PolicyClass, 0, nClasses)
	classPtrs := make([]*PolicyClass, 0, nClasses)
	carve := func(src []string) []string {
		if len(src) == 0 {
			return nil // as append([]string(nil), src...) gives
		}
		at := len(strs)
		strs = append(strs, src...)
		return strs[at:len(strs):len(strs)]
	}
	for i, o := range c.Objects {
		no := &objs[i]
		*no = *o
		no.Lines = carve(o.Lines)
		no.Classes = nil
		if len(o.Classes) > 0 {
			at := len(classPtrs)
			for _, pc := range o.Classes {
				classes = append(classes, PolicyClass{Name: pc.Name, Actions: carve(pc.Actions)})
				classPtrs = append(classPtrs, &classes[len(classes)-1])
			}
			no.Classes = classPtrs[at:len(classPtrs):len(classPtrs)]
		}
		n.Objects[i] = no
	}
	return n
}

// Find returns the object with that Key, or nil.
func (c *Config) Find(key string) *Object {
	for _, o := range c.Objects {
		if o.keyIs(key) {
			return o
		}
	}
	return nil
}

// objIndex finds the objects of two configs by Key: through pairIndex for
// large configs, by scanning for small ones, where building a map costs
// more than it saves (a 5000 with a few ports has a dozen modelled
// objects; the map was an eighth of the bytes Diff allocated).
type objIndex struct {
	m    map[objID][2]*Object
	a, b []*Object
}

// indexScanMax is the most objects (both configs) objIndex scans.
const indexScanMax = 64

func newObjIndex(a, b *Config) objIndex {
	if len(a.Objects)+len(b.Objects) > indexScanMax {
		return objIndex{m: pairIndex(a, b)}
	}
	return objIndex{a: a.Objects, b: b.Objects}
}

// get returns the object with that id in a ([0]) and in b ([1]); the last
// one wins when a config has two, as in pairIndex.
func (x objIndex) get(id objID) [2]*Object {
	if x.m != nil {
		return x.m[id]
	}
	var p [2]*Object
	if id.kind == KindRaw {
		return p
	}
	for side, objs := range [2][]*Object{x.a, x.b} {
		for _, o := range objs {
			if o.Kind == id.kind && o.id() == id {
				p[side] = o
			}
		}
	}
	return p
}

// pairIndex maps each modelled object's Key (as an objID) to the object
// in a (pair[0]) and in b (pair[1]), so a diff looks either side up in one
// map. Unmodelled (KindRaw) blocks are left out: Diff never looks them up.
func pairIndex(a, b *Config) map[objID][2]*Object {
	m := make(map[objID][2]*Object, max(len(a.Objects), len(b.Objects)))
	for side, c := range [2]*Config{a, b} {
		for _, o := range c.Objects {
			if o.Kind == KindRaw {
				continue
			}
			id := o.id()
			p := m[id]
			p[side] = o
			m[id] = p
		}
	}
	return m
}

// Interface returns the interface block for a canonical name, or nil.
func (c *Config) Interface(name string) *Object {
	return c.Find("interface " + name)
}

// SystemQoS returns the system qos block, or nil.
func (c *Config) SystemQoS() *Object { return c.Find("system qos") }

// PolicyMap returns the policy-map of that type and name, or nil.
func (c *Config) PolicyMap(typ, name string) *Object {
	return c.Find("policy-map type " + typ + " " + name)
}

// ClassMap returns the class-map of that type and name, or nil.
func (c *Config) ClassMap(typ, name string) *Object {
	return c.Find("class-map type " + typ + " " + name)
}

// Section returns the text of the running configuration restricted to one
// section, as `show running-config <name>` prints it: "ipqos" (ACLs,
// class-maps, policy-maps, system qos), "interface" (all interfaces), or
// "aclmgr" (ACLs). Unknown names return "".
func (c *Config) Section(name string) string {
	var b strings.Builder
	for _, o := range c.Objects {
		keep := false
		switch name {
		case "ipqos":
			keep = o.Kind == KindClassMap || o.Kind == KindPolicyMap || o.Kind == KindSystemQoS
		case "interface":
			keep = o.Kind == KindInterface
		case "aclmgr":
			keep = o.Kind == KindACL
		}
		if keep {
			o.write(&b)
		}
	}
	return b.String()
}

// InterfaceConfig returns the text `show running-config interface X` prints
// for those interfaces (names in any form NX-OS accepts), in the order given;
// an interface without a block prints just its header line.
func (c *Config) InterfaceConfig(names ...string) string {
	var b strings.Builder
	for _, n := range names {
		canon, ok := CanonicalInterface(n)
		if !ok {
			continue
		}
		if o := c.Interface(canon); o != nil {
			o.write(&b)
			continue
		}
		b.WriteString("interface " + canon + "\n")
	}
	return b.String()
}

// rank orders top-level objects the way NX-OS prints them; new objects are
// inserted after the last object of the same or a lower rank.
func rank(o *Object) int {
	switch o.Kind {
	case KindACL:
		return 1
	case KindClassMap:
		return 2
	case KindPolicyMap:
		return 3
	case KindSystemQoS:
		return 4
	case KindInterface:
		return 5
	}
	return 0
}

// insert adds a new object in its section.
func (c *Config) insert(o *Object) {
	r := rank(o)
	at := -1
	for i, x := range c.Objects {
		if xr := rank(x); xr > 0 && xr <= r {
			at = i + 1
		}
	}
	if at < 0 {
		at = len(c.Objects)
		for i, x := range c.Objects {
			if rank(x) > r {
				at = i
				break
			}
		}
	}
	c.Objects = slices.Insert(c.Objects, at, o) // in place when there is room
}

// remove deletes the object (by identity).
func (c *Config) remove(o *Object) {
	for i, x := range c.Objects {
		if x == o {
			c.Objects = append(c.Objects[:i], c.Objects[i+1:]...)
			return
		}
	}
}
