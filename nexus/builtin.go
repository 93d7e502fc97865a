package nexus

import "strings"

// System-defined objects: they exist on the switch without appearing in
// `show running-config ipqos`, so the Editor accepts references to them and
// Render reads their classes when one is attached under system qos.

// builtinClassMaps are the class-maps every policy type may name.
// class-fcoe is the Nexus 5000 FCoE system class (qos-group 1, docs/nxos.md).
func builtinClassMap(p Platform, typ, name string) bool {
	if name == "class-default" {
		return true
	}
	return !p.Is7000() && name == "class-fcoe"
}

// n5kBuiltinPolicies are the Nexus 5000 system-defined policy-maps that
// `system qos` may reference (docs/nxos.md "default QoS configuration").
// Their exact contents are not printed by the switch without `all`; these are
// the well-known FCoE defaults (class-fcoe no-drop on qos-group 1, MTU 2158,
// 50/50 bandwidth) — UNCONFIRMED in detail, docs/nxos.md.
const n5kBuiltinPolicies = `policy-map type qos default-in-policy
  class class-default
    set qos-group 0
policy-map type qos fcoe-default-in-policy
  class class-fcoe
    set qos-group 1
  class class-default
    set qos-group 0
policy-map type network-qos default-nq-policy
  class type network-qos class-default
    mtu 1500
    multicast-optimize
policy-map type network-qos fcoe-default-nq-policy
  class type network-qos class-fcoe
    pause no-drop
    mtu 2158
  class type network-qos class-default
    mtu 1500
    multicast-optimize
policy-map type queuing default-in-policy
  class type queuing class-default
    bandwidth percent 100
policy-map type queuing default-out-policy
  class type queuing class-default
    bandwidth percent 100
policy-map type queuing fcoe-default-in-policy
  class type queuing class-fcoe
    bandwidth percent 50
  class type queuing class-default
    bandwidth percent 50
policy-map type queuing fcoe-default-out-policy
  class type queuing class-fcoe
    bandwidth percent 50
  class type queuing class-default
    bandwidth percent 50
`

// builtinPolicy returns a system-defined policy-map of the platform, or nil.
func builtinPolicy(p Platform, typ, name string) *Object {
	if p.Is7000() {
		if typ != TypeNetworkQoS {
			return nil
		}
		t, ok := nqTemplateByName(name)
		if !ok {
			return nil
		}
		return t.policy(name)
	}
	cfg, err := Parse(n5kBuiltinPolicies)
	if err != nil {
		return nil // the constant above parses; covered by TestBuiltinPoliciesParse
	}
	return cfg.PolicyMap(typ, name)
}

// LookupPolicy finds a policy-map in the config, then among the platform's
// system-defined ones (Nexus 5000 fcoe-default-*/default-* policies, Nexus
// 7000 default-nq-* templates), which the switch uses without printing them.
func LookupPolicy(c *Config, p Platform, typ, name string) *Object {
	return lookupPolicy(c, p, typ, name)
}

// lookupPolicy finds a policy-map in the config, then among the built-ins.
func lookupPolicy(c *Config, p Platform, typ, name string) *Object {
	if o := c.PolicyMap(typ, name); o != nil {
		return o
	}
	return builtinPolicy(p, typ, name)
}

// ownedBy reports whether a name carries our prefix.
func ownedBy(name, prefix string) bool {
	return prefix != "" && strings.HasPrefix(name, prefix)
}
