package nexus

import (
	"fmt"
	"strconv"
	"strings"
)

// QueueShare is the egress bandwidth a lossless priority's queue is
// guaranteed under contention: the `bandwidth percent` of the class of the
// system output queuing policy that carries the priority. roce-verify's
// lab path model uses it (docs/verify.md, "queue share").
type QueueShare struct {
	// Percent is the guaranteed share, 1-100; 0 when it cannot be known
	// from the configuration (Why says why).
	Percent int
	// Where names the policy and class it comes from, for a person:
	// "ROCE-QUEUING-OUT class ROCE-rocev2".
	Where string
	// Why is set when Percent is 0.
	Why string
}

// ReadQueueShare finds the share of the queue that carries priority (CoS)
// on the switch configured as cfg:
//
//   - Nexus 7000: the system output queuing policy's class whose queuing
//     class-map matches the CoS (`match cos`), else its class-default.
//     Without an output queuing policy the switch runs the default
//     egress policy selected with the network-qos template, whose split
//     roce does not know: Percent 0.
//   - Nexus 5000: the CoS's qos-group — the network-qos class that pauses
//     it (`pause no-drop pfc-cos`, class-fcoe for CoS 3 without pfc-cos),
//     else the input qos policy's class matching `match cos` — and the
//     output queuing class of that qos-group (class-map `match
//     qos-group`), else class-default; the system-defined default-out-policy
//     (class-default 100 %) when none is attached.
func ReadQueueShare(cfg *Config, p Platform, priority int) QueueShare {
	if priority < 0 || priority > 7 {
		return QueueShare{Why: fmt.Sprintf("priority %d is not a CoS (0-7)", priority)}
	}
	name := ""
	input := ""
	nq := ""
	if sq := cfg.SystemQoS(); sq != nil {
		for _, sp := range sq.ServicePolicies() {
			switch {
			case sp.Type == TypeQueuing && sp.Direction == "output":
				name = sp.Name
			case sp.Type == TypeQoS && sp.Direction == "input":
				input = sp.Name
			case sp.Type == TypeNetworkQoS:
				nq = sp.Name
			}
		}
	}
	if name == "" {
		if p.Is7000() {
			return QueueShare{Why: "no system output queuing policy: the switch uses the default egress policy of its network-qos template, whose bandwidth split roce does not know"}
		}
		name = "default-out-policy"
	}
	pol := lookupPolicy(cfg, p, TypeQueuing, name)
	if pol == nil {
		return QueueShare{Why: fmt.Sprintf("output queuing policy %s is attached under system qos but not defined", name)}
	}
	match := func(class string) bool {
		if p.Is7000() {
			return classMatches(cfg, TypeQueuing, class, "cos", priority)
		}
		g := qosGroupOf(cfg, p, nq, input, priority)
		switch class {
		case "class-fcoe":
			return g == 1
		case "class-default":
			return false
		}
		return classMatches(cfg, TypeQueuing, class, "qos-group", g)
	}
	var def *PolicyClass
	for _, c := range pol.Classes {
		if c.Name == "class-default" {
			def = c
			continue
		}
		if match(c.Name) {
			return shareOf(name, c)
		}
	}
	if def != nil {
		return shareOf(name, def)
	}
	return QueueShare{Why: fmt.Sprintf("output queuing policy %s has no class for priority %d and no class-default", name, priority)}
}

func shareOf(policy string, c *PolicyClass) QueueShare {
	where := policy + " class " + c.Name
	for _, a := range c.Actions {
		f := strings.Fields(a)
		if len(f) == 3 && f[0] == "bandwidth" && f[1] == "percent" {
			if n, err := strconv.Atoi(f[2]); err == nil && n > 0 && n <= 100 {
				return QueueShare{Percent: n, Where: where}
			}
		}
	}
	return QueueShare{Where: where, Why: where + " sets no bandwidth percent"}
}

// classMatches reports whether class-map type typ NAME has `match KEY
// LIST` with n in LIST ("3", "0-2,4").
func classMatches(cfg *Config, typ, name, key string, n int) bool {
	cm := cfg.ClassMap(typ, name)
	if cm == nil {
		return false
	}
	for _, l := range cm.Lines {
		f := strings.Fields(l)
		if len(f) >= 3 && f[0] == "match" && f[1] == key && inList(strings.Join(f[2:], ""), n) {
			return true
		}
	}
	return false
}

// inList reports whether n (0-7) is in a CoS-style list such as "0-2,4".
func inList(list string, n int) bool {
	return n >= 0 && n <= 7 && CoSBits(list)&(1<<n) != 0
}

// CoSBits parses a CoS (or qos-group) list such as "3" or "0-2,4" — the
// argument of `match cos`, `pause ... pfc-cos` — into a bitmap, bit n for
// value n. Values outside 0-7 and parts that are not numbers or ranges
// are left out.
func CoSBits(list string) uint8 {
	var bits uint8
	for _, part := range strings.Split(list, ",") {
		lo, hi, found := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			continue
		}
		b := a
		if found {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil {
				continue
			}
		}
		for c := max(a, 0); c <= b && c <= 7; c++ {
			bits |= 1 << c
		}
	}
	return bits
}

// qosGroupOf is the Nexus 5000 qos-group that carries priority: the
// network-qos class pausing it, else the input qos class matching its
// CoS, else 0 (class-default).
func qosGroupOf(cfg *Config, p Platform, nq, input string, priority int) int {
	if nq != "" {
		if pol := lookupPolicy(cfg, p, TypeNetworkQoS, nq); pol != nil {
			for _, c := range pol.Classes {
				for _, a := range c.Actions {
					f := strings.Fields(a)
					if len(f) < 2 || f[0] != "pause" || f[1] != "no-drop" {
						continue
					}
					cos := 3 // class-fcoe pauses the FCoE CoS unless pfc-cos says otherwise
					listed := false
					if len(f) >= 4 && f[2] == "pfc-cos" {
						listed = inList(strings.Join(f[3:], ""), priority)
					} else {
						listed = c.Name == "class-fcoe" && priority == cos
					}
					if !listed {
						continue
					}
					if c.Name == "class-fcoe" {
						return 1
					}
					if g, ok := matchedGroup(cfg, TypeNetworkQoS, c.Name); ok {
						return g
					}
				}
			}
		}
	}
	if input != "" {
		if pol := lookupPolicy(cfg, p, TypeQoS, input); pol != nil {
			for _, c := range pol.Classes {
				if !classMatches(cfg, TypeQoS, c.Name, "cos", priority) {
					continue
				}
				for _, a := range c.Actions {
					f := strings.Fields(a)
					if len(f) == 3 && f[0] == "set" && f[1] == "qos-group" {
						if g, err := strconv.Atoi(f[2]); err == nil {
							return g
						}
					}
				}
			}
		}
	}
	return 0
}

// matchedGroup is the `match qos-group N` of a class-map.
func matchedGroup(cfg *Config, typ, name string) (int, bool) {
	cm := cfg.ClassMap(typ, name)
	if cm == nil {
		return 0, false
	}
	for _, l := range cm.Lines {
		f := strings.Fields(l)
		if len(f) == 3 && f[0] == "match" && f[1] == "qos-group" {
			if g, err := strconv.Atoi(f[2]); err == nil {
				return g, true
			}
		}
	}
	return 0, false
}
