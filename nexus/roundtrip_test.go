package nexus

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/platforms"
	"github.com/rocefabric/roce/policies"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// lossless modes under test; priority 4 keeps clear of the FCoE CoS 3.
func modeClasses() map[string][]*policies.Lossless {
	return map[string][]*policies.Lossless{
		"ethertype": {{Name: "rocev1", Match: policies.Match{Kind: policies.MatchEthertype, Ethertype: 0x8915}, Priority: 4, MTU: 9216}},
		"udp_port":  {{Name: "rocev2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791}, Priority: 4, MTU: 9216}},
		"all":       {{Name: "everything", Match: policies.Match{Kind: policies.MatchAll}}},
		"cos":       {{Name: "rdma", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{4}}, Priority: 4, MTU: 9216, BandwidthPercent: 40}},
		"dscp":      {{Name: "rocev2dscp", Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}, Priority: 4, MTU: 4200}},
	}
}

var testModules7000 = []Module{
	{Slot: 1, Ports: 0, Type: "Supervisor Module-2", Model: "N7K-SUP2E", Status: "active *", Series: "sup"},
	{Slot: 2, Ports: 48, Type: "1/10 Gbps Ethernet Module", Model: "N7K-F248XP-25E", Status: "ok", Series: "F"},
	{Slot: 3, Ports: 48, Type: "10/100/1000 Mbps Ethernet Module", Model: "N7K-M148GT-11L", Status: "ok", Series: "M"},
}

func testPlatform(t testing.TB, kind string) Platform {
	t.Helper()
	p, err := PlatformFor(kind, platforms.Default())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func loadStart(t testing.TB, kind, start string) *Config {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "start", kind, start+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(string(b))
	if err != nil {
		t.Fatalf("%s/%s: %v", kind, start, err)
	}
	return c
}

func intentFor(t testing.TB, kind, mode, start string) Intent {
	// An all-traffic class turns PFC off on the ports, which FCoE needs, so
	// that intent keeps FCoE off (Render refuses it with FCoE on).
	in := Intent{Platform: testPlatform(t, kind), Classes: modeClasses()[mode], FCoE: start == "fcoe-defaults" && mode != "all"}
	if kind == "nexus7000" {
		in.Interfaces = []string{"Ethernet2/1", "Ethernet2/2"}
		in.Modules = testModules7000
	} else {
		in.Interfaces = []string{"Ethernet1/1", "Ethernet1/2"}
	}
	return in
}

// renderDiff renders in against cur and diffs the result, failing the test
// on either error; it returns the desired config, the changes and the script.
func renderDiff(t testing.TB, in Intent, cur *Config) (*Config, []plan.Change, []string) {
	t.Helper()
	des, err := Render(in, cur)
	if err != nil {
		t.Fatal(err)
	}
	changes, script, err := Diff(cur, des, in.Platform)
	if err != nil {
		t.Fatal(err)
	}
	return des, changes, script
}

func startsFor(t *testing.T, kind string) []string {
	ents, err := os.ReadDir(filepath.Join("testdata", "start", kind))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".txt"))
	}
	return out
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v (run go test ./nexus -run %s -update)", err, t.Name())
		return
	}
	if string(want) != got {
		t.Errorf("%s differs from golden:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestRoundTrip is the package's main property: for every platform × mode
// × starting state, the rendered script applied to the model leaves nothing
// to do, a second render is a no-op, and foreign objects are byte-identical.
func TestRoundTrip(t *testing.T) {
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		for _, start := range startsFor(t, kind) {
			for mode := range modeClasses() {
				t.Run(kind+"/"+mode+"/"+start, func(t *testing.T) {
					in := intentFor(t, kind, mode, start)
					cur := loadStart(t, kind, start)
					before := cur.String()
					des, err := Render(in, cur)
					if err != nil {
						t.Fatalf("render: %v", err)
					}
					if cur.String() != before {
						t.Fatal("Render modified the current config")
					}
					changes, script, err := Diff(cur, des, in.Platform)
					if err != nil {
						t.Fatalf("diff: %v", err)
					}
					checkGolden(t, kind+"-"+mode+"-"+start+".txt", strings.Join(script, "\n")+"\n")
					if len(script) == 0 || len(changes) == 0 {
						t.Fatal("a fresh intent produced no commands")
					}
					applied := cur.Clone()
					if err := ApplyCommands(applied, in.Platform, in.Modules, script); err != nil {
						t.Fatalf("apply: %v\nscript:\n%s", err, strings.Join(script, "\n"))
					}
					if _, again, err := Diff(applied, des, in.Platform); err != nil || len(again) != 0 {
						t.Fatalf("diff after apply is not empty (err %v):\n%s", err, strings.Join(again, "\n"))
					}
					re, err := Render(in, applied)
					if err != nil {
						t.Fatalf("re-render: %v", err)
					}
					if _, again, err := Diff(applied, re, in.Platform); err != nil || len(again) != 0 {
						t.Fatalf("second render is not a no-op (err %v):\n%s", err, strings.Join(again, "\n"))
					}
					managed := map[string]bool{}
					for _, i := range in.Interfaces {
						managed["interface "+i] = true
					}
					for _, o := range cur.Objects {
						if o.Kind == KindSystemQoS || managed[o.Key()] || ownedBy(o.Name, DefaultPrefix) {
							continue
						}
						got := applied.Find(o.Key())
						if o.Kind == KindRaw {
							continue // checked by Diff's raw check
						}
						if got == nil || got.String() != o.String() {
							t.Errorf("foreign %s changed:\nbefore:\n%s\nafter:\n%v", o.Key(), o, got)
						}
					}
					reparsed, err := Parse(applied.String())
					if err != nil || reparsed.String() != applied.String() {
						t.Fatalf("applied config does not re-parse to itself: %v", err)
					}
				})
			}
		}
	}
}
