package scale

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestMixFor(t *testing.T) {
	m := MixFor(1000, 10000)
	if m.Switches() != 1000 || m[KindHost] != 10000 {
		t.Fatalf("mix %v", m)
	}
	if m[KindNexus5000] != 400 || m[KindNexus7000] != 200 || m[KindArista]+m[KindSONiC]+m[KindSRLinux] != 400 {
		t.Errorf("mix %v, want 400/200/400", m)
	}
	small := MixFor(5, 0)
	for _, k := range switchKinds {
		if small[k] != 1 {
			t.Errorf("MixFor(5): %s = %d, want 1 of each kind", k, small[k])
		}
	}
}

// TestSmoke runs the whole harness at a tiny size: every phase runs through
// the real providers, the second plan must be empty (Run fails otherwise),
// and the report prints. No timing is asserted.
func TestSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := RaiseFileLimit(); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, Config{Switches: 10, Hosts: 20, Parallelism: 8, Latency: time.Millisecond, Canary: 1, TempRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Phases) != 4 {
		t.Fatalf("phases %+v", rep.Phases)
	}
	if rep.Changes == 0 || rep.Phases[1].Targets != 30 {
		t.Errorf("first plan: %d changes over %d targets", rep.Changes, rep.Phases[1].Targets)
	}
	if rep.Commands[KindNexus5000] == 0 || rep.Commands[KindArista] == 0 {
		t.Errorf("commands per kind %v: want NX-OS commands and gNMI ops", rep.Commands)
	}
	if rep.Sets[KindArista] == 0 || rep.Sets[KindSRLinux] == 0 {
		t.Errorf("SetRequests served %v: want the gNMI simulators to have applied Sets", rep.Sets)
	}
	if rep.Lines["apply"][KindNexus5000] == 0 || rep.Lines["plan"][KindNexus7000] == 0 {
		t.Errorf("NX-OS commands counted %v: want the simulators' counts per phase", rep.Lines)
	}
	for _, k := range []string{KindNexus5000, KindNexus7000, KindArista, KindHost} {
		for _, ph := range []string{"plan", "apply", "replan"} {
			if rep.TripsPer(ph, k) <= 0 {
				t.Errorf("%s %s: no round trips counted (%v)", k, ph, rep.Trips)
			}
		}
	}
	if rep.Phases[1].Ideal <= 0 || rep.Phases[2].RoundTrips <= rep.Phases[1].RoundTrips {
		t.Errorf("ideals from counted round trips: plan %+v, apply %+v; want a positive ideal and more round trips to apply than to plan", rep.Phases[1], rep.Phases[2])
	}
	cal, err := Calibrate(ctx, time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range append(append([]string{}, switchKinds...), KindHost) {
		if _, ok := cal.RoundTrips[k]["apply"]; !ok {
			t.Errorf("calibration has no apply round trips for %s: %v", k, cal.RoundTrips)
		}
	}
	rep.FillIdeals(cal)
	var b bytes.Buffer
	rep.Print(&b)
	for _, want := range []string{"plan", "apply", "second plan (empty)", "round trips per target", "counted by the simulators", "cpu/target", "peak RSS"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestRunNeedsASwitch(t *testing.T) {
	if _, err := Run(context.Background(), Config{Switches: 0, Hosts: 5}); err == nil {
		t.Error("a fabric without switches was accepted")
	}
}

func TestPrintComparison(t *testing.T) {
	mk := func(plan, apply int, wall time.Duration) *Report {
		r := &Report{Config: Config{Parallelism: 64, Latency: 20 * time.Millisecond}, Mix: Mix{KindNexus5000: 2, KindHost: 4},
			Trips: map[string]map[string]int{"plan": {KindNexus5000: 2 * plan, KindHost: 4}, "apply": {KindNexus5000: 2 * apply, KindHost: 4}, "replan": {KindNexus5000: 2 * plan, KindHost: 4}}}
		for _, n := range []string{"plan", "apply", "second plan (empty)"} {
			r.Phases = append(r.Phases, Phase{Name: n, Targets: 6, Usage: Usage{Wall: wall, User: 60 * time.Millisecond}})
		}
		r.FillCountedIdeals()
		return r
	}
	var b bytes.Buffer
	PrintComparison(&b, mk(16, 138, time.Second), mk(3, 100, 500*time.Millisecond))
	for _, want := range []string{
		"nexus5000        16.0 ->   3.0  138.0 -> 100.0",
		"host              1.0 ->   1.0",
		"1s -> 500ms",
		"10.00ms -> 10.00ms",
		"320ms -> 60ms", // ideal: 1 round x 16 / 3 round trips x 20 ms
		"3.12 -> 8.33",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, b.String())
		}
	}
}
