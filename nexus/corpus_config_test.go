package nexus

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpusConfigs are the configurations under testdata/corpus/config
// (sources and licences in testdata/corpus/README.md).
func corpusConfigs(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "config", "*.cfg"))
	if err != nil || len(files) < 20 {
		t.Fatalf("corpus: %d configs (%v), want at least 20", len(files), err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(b)
	}
	return out
}

// Every corpus config parses; a plan against it changes only roce's
// objects (its prefix, system qos, the managed ports), foreign objects stay
// byte-identical after the plan is applied, and a second plan is empty.
func TestCorpusConfigsPlanTwice(t *testing.T) {
	cfgs := corpusConfigs(t)
	names := make([]string, 0, len(cfgs))
	for n := range cfgs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, mode := range []string{"udp_port", "cos", "dscp"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				cur, err := Parse(cfgs[name])
				if err != nil {
					t.Fatalf("parse: %v", err)
				}
				again, err := Parse(cur.String())
				if err != nil || again.String() != cur.String() {
					t.Fatalf("the parsed config does not print back to itself (%v)", err)
				}
				in := intentFor(t, "nexus5000", mode, "")
				des, err := Render(in, cur)
				if err != nil {
					t.Fatalf("render: %v", err)
				}
				_, script, err := Diff(cur, des, in.Platform)
				if err != nil {
					t.Fatalf("diff: %v", err)
				}
				if len(script) == 0 {
					t.Fatal("no commands for a fresh intent")
				}
				applied := cur.Clone()
				if err := ApplyCommands(applied, in.Platform, in.Modules, script); err != nil {
					t.Fatalf("apply: %v\n%s", err, strings.Join(script, "\n"))
				}
				managed := map[string]bool{"system qos": true}
				for _, i := range in.Interfaces {
					managed["interface "+i] = true
				}
				for _, o := range cur.Objects {
					if managed[o.Key()] || ownedBy(o.Name, DefaultPrefix) {
						continue
					}
					got := applied.Find(o.Key())
					if got == nil || got.String() != o.String() {
						t.Errorf("foreign %s changed:\nbefore:\n%s\nafter:\n%v", o.Key(), o, got)
					}
				}
				re, err := Render(in, applied)
				if err != nil {
					t.Fatalf("second render: %v", err)
				}
				if _, second, err := Diff(applied, re, in.Platform); err != nil || len(second) != 0 {
					t.Fatalf("second plan not empty (%v):\n%s", err, strings.Join(second, "\n"))
				}
			})
		}
	}
}

// Check judges corpus configs as a Nexus 5000 would load them: the Cisco
// and genieparser captures load cleanly; the Batfish grammar files, written
// for Nexus 9000 syntax, have exactly the lines a 5000 refuses.
func TestCorpusConfigsCheck5000(t *testing.T) {
	cfgs := corpusConfigs(t)
	p := testPlatform(t, "nexus5000")
	want := map[string][]int{
		"batfish-nxos_class_map.cfg":            {36, 37, 47, 49, 51}, // cos on a network-qos class-map, match protocol, qos-group 0/6/7
		"batfish-nxos_interface_properties.cfg": {54},                 // type qos output
		"batfish-nxos_policy_map.cfg":           {26, 28, 47},         // no pause, no congestion-control random-detect, queuing class c-in-q1 (a 7000/9000 system class)
	}
	for name, text := range cfgs {
		c, err := Check(text, p, nil)
		if c == nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var got []int
		for _, e := range unjoin(err) {
			got = append(got, e.(*LineError).Line)
		}
		if strings.Trim(strings.Join(strings.Fields(fmt.Sprint(got)), ","), "[]") != strings.Trim(strings.Join(strings.Fields(fmt.Sprint(want[name])), ","), "[]") {
			t.Errorf("%s: refused lines %v, want %v (%v)", name, got, want[name], err)
		}
	}
}
