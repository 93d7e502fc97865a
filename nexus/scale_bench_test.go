package nexus

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// scaleConfigs is the fleet size of the CPU targets for rendering and
// diffing 10,000 switch configs: at most 2 s of CPU (issue 9), then at
// most 0.5 s (issue 19; docs/performance.md has the measurements).
const scaleConfigs = 10000

// scaleCase is one switch of the simulated fleet: its parsed running config
// and the intent the policy gives it.
type scaleCase struct {
	cur *Config
	in  Intent
}

// scaleFleet builds n realistic cases by cycling through every start state
// in testdata/start (both platforms) and every lossless mode the platform
// accepts, each with its own parsed copy of the config so no case shares
// state with another. Parsing is not part of the measurement.
func scaleFleet(b testing.TB, n int) []scaleCase {
	b.Helper()
	type seed struct {
		text string
		in   Intent
	}
	var seeds []seed
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		ents, err := os.ReadDir(filepath.Join("testdata", "start", kind))
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range ents {
			start := strings.TrimSuffix(e.Name(), ".txt")
			raw, err := os.ReadFile(filepath.Join("testdata", "start", kind, e.Name()))
			if err != nil {
				b.Fatal(err)
			}
			for _, mode := range []string{"udp_port", "ethertype", "cos", "dscp", "all"} {
				in := intentFor(b, kind, mode, start)
				cur, err := Parse(string(raw))
				if err != nil {
					b.Fatalf("%s/%s: %v", kind, start, err)
				}
				// Keep only combinations the platform can express.
				if _, err := Render(in, cur); err != nil {
					continue
				}
				seeds = append(seeds, seed{string(raw), in})
			}
		}
	}
	if len(seeds) == 0 {
		b.Fatal("no start state renders")
	}
	out := make([]scaleCase, n)
	for i := range out {
		s := seeds[i%len(seeds)]
		cur, err := Parse(s.text)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = scaleCase{cur: cur, in: s.in}
	}
	return out
}

// cpuTime is this process's user+system CPU time so far.
func cpuTime(b testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRenderDiff10k renders the desired config and diffs it against the
// running one for 10,000 switches per iteration, and reports the process CPU
// time of one iteration (cpu-s/10k; target ≤ 0.5). It runs single-threaded, so
// CPU time and wall time are close; GC work on other threads is included.
func BenchmarkRenderDiff10k(b *testing.B) {
	fleet := scaleFleet(b, scaleConfigs)
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime(b)
	cmds := 0
	for b.Loop() {
		cmds = 0
		for _, c := range fleet {
			des, err := Render(c.in, c.cur)
			if err != nil {
				b.Fatal(err)
			}
			_, script, err := Diff(c.cur, des, c.in.Platform)
			if err != nil {
				b.Fatal(err)
			}
			cmds += len(script)
		}
	}
	cpu := cpuTime(b) - c0
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/10k")
	b.ReportMetric(float64(cmds), "cmds/10k")
}

// BenchmarkParseRenderDiff10k adds parsing the running configs to the
// measurement: the whole per-switch CPU work of a plan.
func BenchmarkParseRenderDiff10k(b *testing.B) {
	fleet := scaleFleet(b, len(scaleStartTexts(b)))
	texts := scaleStartTexts(b)
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime(b)
	for b.Loop() {
		for i := range scaleConfigs {
			k := i % len(fleet)
			cur, err := Parse(texts[k])
			if err != nil {
				b.Fatal(err)
			}
			des, err := Render(fleet[k].in, cur)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := Diff(cur, des, fleet[k].in.Platform); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu := cpuTime(b) - c0
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/10k")
}

// scaleStartTexts returns the running-config text of each seed of
// scaleFleet, in the same order (the first cycle of the fleet).
func scaleStartTexts(b testing.TB) []string {
	b.Helper()
	var out []string
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		ents, err := os.ReadDir(filepath.Join("testdata", "start", kind))
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range ents {
			raw, err := os.ReadFile(filepath.Join("testdata", "start", kind, e.Name()))
			if err != nil {
				b.Fatal(err)
			}
			start := strings.TrimSuffix(e.Name(), ".txt")
			for _, mode := range []string{"udp_port", "ethertype", "cos", "dscp", "all"} {
				in := intentFor(b, kind, mode, start)
				cur, err := Parse(string(raw))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Render(in, cur); err != nil {
					continue
				}
				out = append(out, string(raw))
			}
		}
	}
	return out
}

// TestScaleFleetRenders keeps the fleet builder honest: every case renders
// and diffs, and the mix covers both platforms.
func TestScaleFleetRenders(t *testing.T) {
	fleet := scaleFleet(t, 50)
	kinds := map[string]int{}
	for _, c := range fleet {
		des, err := Render(c.in, c.cur)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := Diff(c.cur, des, c.in.Platform); err != nil {
			t.Fatal(err)
		}
		kinds[c.in.Platform.Kind]++
	}
	if len(kinds) < 2 {
		t.Fatalf("fleet covers %v, want both platforms", kinds)
	}
}
