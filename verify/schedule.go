package verify

import (
	"cmp"
	"slices"

	"github.com/rocefabric/roce/policies"
)

// Endpoint is one host's NIC on a lossless class.
type Endpoint struct {
	Host   *policies.Host
	NIC    *policies.NIC
	Switch string // the switch the host hangs off ("" = unknown)
}

// Addr is the endpoint's target address, "host.NAME".
func (e Endpoint) Addr() string { return "host." + e.Host.Name }

// switchKey groups endpoints by switch; hosts with no known switch each get
// their own group, so they never count as "the same switch" as anyone.
func (e Endpoint) switchKey() string {
	if e.Switch == "" {
		return "\x00" + e.Host.Name
	}
	return e.Switch
}

// Pair is one probe: Server listens, Client connects and sends.
type Pair struct {
	Class  string
	Round  int // 1-based
	Server Endpoint
	Client Endpoint
}

// CrossSwitch reports whether the pair's traffic crosses between switches
// (the path we most want to prove).
func (p Pair) CrossSwitch() bool { return p.Server.switchKey() != p.Client.switchKey() }

// Schedule is the probe plan for one class.
type Schedule struct {
	Class  string
	Rounds [][]Pair
	// Unpaired lists hosts that could not be probed (a class with one host).
	Unpaired []Endpoint
}

// Pairs returns all pairs in round order.
func (s Schedule) Pairs() []Pair {
	var out []Pair
	for _, r := range s.Rounds {
		out = append(out, r...)
	}
	return out
}

// ClassEndpoints lists, per host, the first NIC carrying class (a NIC with
// no class set carries the fabric's only class), sorted by host name.
// Hosts with several NICs in one class are probed through the first one.
func ClassEndpoints(f *policies.Fabric, class *policies.Lossless) []Endpoint {
	var eps []Endpoint
	for _, h := range f.Hosts {
		for _, n := range h.NICs {
			if n.Lossless == class.Name || (n.Lossless == "" && len(f.Lossless) == 1) {
				eps = append(eps, Endpoint{Host: h, NIC: n, Switch: h.Switch})
				break
			}
		}
	}
	slices.SortFunc(eps, func(a, b Endpoint) int { return cmp.Compare(a.Host.Name, b.Host.Name) })
	return eps
}

// PlanPairs builds the round schedule for one class.
//
// Goal: every host (and so every switch a host hangs off) is in at least
// one probe, no host is in two probes of the same round, in the fewest
// rounds, and as many probes as possible cross between switches so the
// traffic goes over the fabric rather than staying on one switch.
//
// Algorithm. Round 1 is a maximum matching built greedily: group hosts by
// switch and repeatedly pair one host from each of the two largest groups;
// when one group is left, pair its remaining hosts with each other. Taking
// from the two largest groups is what achieves the most cross-switch pairs,
// min(n/2, n-m) for n hosts and a largest group of m. With n even every
// host is now covered: one round. With n odd exactly one host is left; a
// second round pairs it with a host (preferring one on another switch),
// and two rounds are the minimum because a round covers at most n-1 hosts.
// One host alone cannot be probed and is reported as unpaired.
func PlanPairs(class string, eps []Endpoint) Schedule {
	s := Schedule{Class: class}
	if len(eps) < 2 {
		s.Unpaired = append(s.Unpaired, eps...)
		return s
	}

	groups := map[string][]Endpoint{}
	var keys []string
	for _, e := range eps {
		k := e.switchKey()
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], e)
	}
	// largest returns the keys of the (up to) two largest non-empty groups,
	// ties broken by key for a deterministic schedule. A linear scan: the
	// schedule only ever needs the top two.
	largest := func() []string {
		better := func(a, b string) bool { // a ranks before b
			if la, lb := len(groups[a]), len(groups[b]); la != lb {
				return la > lb
			}
			return a < b
		}
		var first, second string
		for _, k := range keys {
			if len(groups[k]) == 0 {
				continue
			}
			switch {
			case first == "" || better(k, first):
				first, second = k, first
			case second == "" || better(k, second):
				second = k
			}
		}
		switch {
		case first == "":
			return nil
		case second == "":
			return []string{first}
		}
		return []string{first, second}
	}
	pop := func(k string) Endpoint {
		e := groups[k][0]
		groups[k] = groups[k][1:]
		return e
	}

	var round1 []Pair
	for {
		ks := largest()
		if len(ks) < 2 {
			break
		}
		round1 = append(round1, Pair{Class: class, Round: 1, Server: pop(ks[0]), Client: pop(ks[1])})
	}
	var left []Endpoint
	if ks := largest(); len(ks) == 1 {
		left = groups[ks[0]]
	}
	for len(left) >= 2 {
		round1 = append(round1, Pair{Class: class, Round: 1, Server: left[0], Client: left[1]})
		left = left[2:]
	}
	s.Rounds = append(s.Rounds, round1)

	if len(left) == 1 {
		odd := left[0]
		partner := round1[0].Server
		for _, p := range round1 {
			if c := p.Server; c.switchKey() != odd.switchKey() {
				partner = c
				break
			}
			if c := p.Client; c.switchKey() != odd.switchKey() {
				partner = c
				break
			}
		}
		s.Rounds = append(s.Rounds, []Pair{{Class: class, Round: 2, Server: partner, Client: odd}})
	}
	return s
}
