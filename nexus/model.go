package nexus

import (
	"strings"
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
	o.write(&b)
	return b.String()
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
	f := strings.Fields(l)
	if len(f) < 4 || f[0] != "service-policy" || f[1] != "type" {
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

// Line renders the service-policy line.
func (sp ServicePolicy) Line() string {
	if sp.Direction == "" {
		return "service-policy type " + sp.Type + " " + sp.Name
	}
	return "service-policy type " + sp.Type + " " + sp.Direction + " " + sp.Name
}

// Clone returns a deep copy.
func (o *Object) Clone() *Object {
	n := *o
	n.Lines = append([]string(nil), o.Lines...)
	n.Classes = nil
	for _, c := range o.Classes {
		n.Classes = append(n.Classes, &PolicyClass{Name: c.Name, Actions: append([]string(nil), c.Actions...)})
	}
	return &n
}

// String prints the configuration as NX-OS prints it (show running-config):
// objects in order, unmodelled lines verbatim. Header lines are not printed.
func (c *Config) String() string {
	var b strings.Builder
	for _, o := range c.Objects {
		o.write(&b)
	}
	return b.String()
}

// Clone returns a deep copy.
func (c *Config) Clone() *Config {
	n := &Config{Header: append([]string(nil), c.Header...)}
	for _, o := range c.Objects {
		n.Objects = append(n.Objects, o.Clone())
	}
	return n
}

// Find returns the object with that Key, or nil.
func (c *Config) Find(key string) *Object {
	for _, o := range c.Objects {
		if o.Key() == key {
			return o
		}
	}
	return nil
}

// index maps each object's Key to the object.
func (c *Config) index() map[string]*Object {
	m := make(map[string]*Object, len(c.Objects))
	for _, o := range c.Objects {
		m[o.Key()] = o
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
	c.Objects = append(c.Objects[:at], append([]*Object{o}, c.Objects[at:]...)...)
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
