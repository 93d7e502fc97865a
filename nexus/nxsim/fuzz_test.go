package nxsim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/nexus"
)

// FuzzSession types random lines into a simulated session: it must never
// panic or hang, and the running config must always parse back.
func FuzzSession(f *testing.F) {
	for _, seed := range []string{
		"configure terminal\nsystem qos\nservice-policy type qos input X\nend",
		"conf t\nclass-map type qos match-all A\nmatch cos 1-3\nexit\nexit",
		"checkpoint a\nrollback running-config checkpoint a atomic\nno checkpoint a",
		"show running-config interface e1/1-4, 1/7\nshow queuing interface",
		"conf t\ninterface Ethernet1/1\npriority-flow-control mode on\nend\nshow interface priority-flow-control",
		"co\nsh\nshow running-config interface ethernet9/99-1\n\x00\xff",
		"conf t\nqos copy policy-map type network-qos default-nq-7e-policy prefix R-\ndo show run ipqos",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, script string, n7k bool) {
		opts := Options{Platform: "nexus5000", Hostname: "fz"}
		if n7k {
			opts.Platform = "nexus7000"
		}
		sw, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		s := newSession(sw, nil, nil, "admin")
		var screen strings.Builder
		s.out = &screen
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		for _, l := range strings.Split(script, "\n") {
			if _, err := s.handle(ctx, l); err != nil {
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("session hung on %q", script)
		}
		if _, err := nexus.Parse(sw.RunningConfig()); err != nil {
			t.Fatalf("running config does not parse back after %q: %v\n%s", script, err, sw.RunningConfig())
		}
	})
}
