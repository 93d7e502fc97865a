package verify

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/rocefabric/roce/policies"
)

func endpoints(spec ...string) []Endpoint {
	// spec: "host@switch"
	var eps []Endpoint
	for _, s := range spec {
		var h, sw string
		for i := 0; i < len(s); i++ {
			if s[i] == '@' {
				h, sw = s[:i], s[i+1:]
			}
		}
		if h == "" {
			h = s
		}
		eps = append(eps, Endpoint{Host: &policies.Host{Name: h}, NIC: &policies.NIC{Netdev: "eth0"}, Switch: sw})
	}
	return eps
}

func pairNames(s Schedule) [][]string {
	var out [][]string
	for _, r := range s.Rounds {
		var names []string
		for _, p := range r {
			names = append(names, p.Server.Host.Name+"-"+p.Client.Host.Name)
		}
		out = append(out, names)
	}
	return out
}

func TestPlanPairs(t *testing.T) {
	tests := []struct {
		name     string
		eps      []Endpoint
		want     string
		unpaired int
	}{
		{"none", nil, "[]", 0},
		{"one host", endpoints("a@s1"), "[]", 1},
		{"two same switch", endpoints("a@s1", "b@s1"), "[[a-b]]", 0},
		{"four on two switches cross", endpoints("a@s1", "b@s1", "c@s2", "d@s2"), "[[a-c b-d]]", 0},
		{"three: second round crosses", endpoints("a@s1", "b@s1", "c@s2"), "[[a-c] [c-b]]", 0},
		{"lopsided: cross first, rest local", endpoints("a@s1", "b@s1", "c@s1", "d@s1", "e@s2", "f@s3"), "[[a-e b-f c-d]]", 0},
		{"unknown switches pair freely", endpoints("a", "b", "c"), "[[a-b] [a-c]]", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := PlanPairs("roce", tc.eps)
			if got := fmt.Sprint(pairNames(s)); got != tc.want {
				t.Errorf("schedule = %s, want %s", got, tc.want)
			}
			if len(s.Unpaired) != tc.unpaired {
				t.Errorf("unpaired = %d, want %d", len(s.Unpaired), tc.unpaired)
			}
		})
	}
}

// Property test over seeded random fabrics: no host twice in a round, every
// host and every switch covered, the minimum number of rounds, and the
// maximum possible number of cross-switch pairs in round 1.
func TestPlanPairsProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for iter := 0; iter < 2000; iter++ {
		n := 2 + rng.Intn(40)
		nsw := 1 + rng.Intn(6)
		var spec []string
		for i := 0; i < n; i++ {
			sw := fmt.Sprintf("s%d", rng.Intn(nsw))
			if rng.Intn(10) == 0 {
				sw = "" // host with unknown switch
			}
			spec = append(spec, fmt.Sprintf("h%02d@%s", i, sw))
		}
		eps := endpoints(spec...)
		s := PlanPairs("c", eps)

		wantRounds := 1
		if n%2 == 1 {
			wantRounds = 2
		}
		if len(s.Rounds) != wantRounds {
			t.Fatalf("%v: %d rounds, want %d", spec, len(s.Rounds), wantRounds)
		}
		covered := map[string]bool{}
		swCovered := map[string]bool{}
		for ri, r := range s.Rounds {
			seen := map[string]bool{}
			for _, p := range r {
				if p.Round != ri+1 {
					t.Fatalf("%v: pair %v labelled round %d in round %d", spec, p, p.Round, ri+1)
				}
				for _, e := range []Endpoint{p.Server, p.Client} {
					if seen[e.Host.Name] {
						t.Fatalf("%v: host %s twice in round %d", spec, e.Host.Name, ri+1)
					}
					seen[e.Host.Name] = true
					covered[e.Host.Name] = true
					swCovered[e.Switch] = true
				}
				if p.Server.Host.Name == p.Client.Host.Name {
					t.Fatalf("%v: host paired with itself", spec)
				}
			}
		}
		groups := map[string]int{}
		maxGroup := 0
		for _, e := range eps {
			if !covered[e.Host.Name] || !swCovered[e.Switch] {
				t.Fatalf("%v: host %s / switch %q not covered", spec, e.Host.Name, e.Switch)
			}
			groups[e.switchKey()]++
			maxGroup = max(maxGroup, groups[e.switchKey()])
		}
		cross := 0
		for _, p := range s.Rounds[0] {
			if p.CrossSwitch() {
				cross++
			}
		}
		if want := min(n/2, n-maxGroup); cross != want {
			t.Fatalf("%v: %d cross-switch pairs in round 1, optimum is %d", spec, cross, want)
		}
	}
}

func TestClassEndpoints(t *testing.T) {
	roce := &policies.Lossless{Name: "roce"}
	storage := &policies.Lossless{Name: "storage"}
	f := &policies.Fabric{
		Lossless: []*policies.Lossless{roce, storage},
		Hosts: []*policies.Host{
			{Name: "b", Switch: "s1", NICs: []*policies.NIC{{Netdev: "e0", Lossless: "storage"}, {Netdev: "e1", Lossless: "roce"}}},
			{Name: "a", Switch: "s2", NICs: []*policies.NIC{{Netdev: "e0", Lossless: "roce"}, {Netdev: "e1", Lossless: "roce"}}},
			{Name: "c", NICs: []*policies.NIC{{Netdev: "e0"}}}, // no class: ambiguous with two classes
		},
	}
	eps := ClassEndpoints(f, roce)
	if len(eps) != 2 || eps[0].Host.Name != "a" || eps[0].NIC.Netdev != "e0" || eps[1].NIC.Netdev != "e1" || eps[1].Switch != "s1" {
		t.Errorf("endpoints = %+v", eps)
	}
	f.Lossless = f.Lossless[:1]
	if eps := ClassEndpoints(f, roce); len(eps) != 3 {
		t.Errorf("single-class fabric: %d endpoints, want 3 (NIC without class carries the only class)", len(eps))
	}
}
