package policies

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// BenchmarkLoadFleet loads examples/fleet: 50 switches and 1,000 hosts
// generated with for_each.
func BenchmarkLoadFleet(b *testing.B) {
	dir := filepath.Join("..", "examples", "fleet")
	b.ReportAllocs()
	for b.Loop() {
		f, _, diags := Load(dir, LoadOptions{Getenv: noEnv})
		if diags.HasErrors() {
			b.Fatal(describeDiags(diags))
		}
		if len(f.Hosts) != 1000 || len(f.Switches) != 50 {
			b.Fatalf("fleet has %d hosts and %d switches, want 1000 and 50", len(f.Hosts), len(f.Switches))
		}
	}
}

// BenchmarkLoad1MLocals validates a policy with 1,000,000 local values,
// each referring to the one before (a chain as long as the policy): the
// locals are resolved in dependency order, so the work is linear, where
// evaluating them round by round was quadratic (8,000 locals took 6 s, so
// 1,000,000 would take about a day). About half the CPU and most of the
// memory is the parse (compare BenchmarkParse1MLocals), the rest mostly
// evaluating the chain through cty. docs/performance.md ("Policy load")
// has the numbers.
func BenchmarkLoad1MLocals(b *testing.B) {
	benchLocals(b, 1_000_000)
}

// BenchmarkLoad100kLocals is the same at a tenth of the size: the two
// together show the growth is linear.
func BenchmarkLoad100kLocals(b *testing.B) {
	benchLocals(b, 100_000)
}

// BenchmarkParse1MLocals is the floor under BenchmarkLoad1MLocals: what
// Load does to the same file before evaluating anything (read it, check
// its nesting, parse it: in pieces, in parallel, see parse_split.go).
func BenchmarkParse1MLocals(b *testing.B) {
	benchParseLocals(b, 1_000_000)
}

// BenchmarkParse100kLocals is the floor under BenchmarkLoad100kLocals.
func BenchmarkParse100kLocals(b *testing.B) {
	benchParseLocals(b, 100_000)
}

// localsPolicy writes localsSource(n) to a new directory and returns the
// file.
func localsPolicy(b *testing.B, n int) string {
	path := filepath.Join(b.TempDir(), "main.hcl")
	if err := os.WriteFile(path, []byte(localsSource(n)), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// localsSource is a policy with n locals in a chain, whose last one sets
// the class's CoS to 4.
func localsSource(n int) string {
	var src strings.Builder
	src.WriteString("locals {\n  l0 = 0\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&src, "  l%d = local.l%d + 1\n", i, i-1)
	}
	src.WriteString("}\n")
	fmt.Fprintf(&src, "lossless \"roce\" {\n  cos = local.l%d - %d + 4\n}\n", n-1, n-1)
	src.WriteString(tailAll)
	return src.String()
}

func benchLocals(b *testing.B, n int) {
	dir := filepath.Dir(localsPolicy(b, n))
	b.ReportAllocs()
	c0 := cpuTime(b)
	for b.Loop() {
		f, _, diags := Load(dir, LoadOptions{Getenv: noEnv})
		if diags.HasErrors() {
			b.Fatal(describeDiags(diags))
		}
		if got := f.Lossless[0].Match.CoS; len(got) != 1 || got[0] != 4 {
			b.Fatalf("cos = %v, want [4]", got)
		}
	}
	reportUsage(b, c0)
}

func benchParseLocals(b *testing.B, n int) {
	path := localsPolicy(b, n)
	b.ReportAllocs()
	c0 := cpuTime(b)
	for b.Loop() {
		src, err := readLimited(path, maxPolicyFileBytes)
		if err != nil {
			b.Fatal(err)
		}
		if d := checkNesting(src, path); d != nil {
			b.Fatal(d)
		}
		f, diags := parseHCL(src, path)
		if diags.HasErrors() {
			b.Fatal(describeDiags(diags))
		}
		if blocks := f.Body.(*hclsyntax.Body).Blocks; len(blocks) == 0 || len(blocks[0].Body.Attributes) != n {
			b.Fatalf("parsed %d blocks, want the locals block with %d attributes first", len(blocks), n)
		}
	}
	reportUsage(b, c0)
}

// reportUsage adds the process CPU time per iteration since c0 (GC work on
// other threads included; on a busy machine ns/op is mostly waiting) and
// the process's peak resident memory so far (meaningful when the
// benchmark runs alone).
func reportUsage(b *testing.B, c0 time.Duration) {
	b.ReportMetric((cpuTime(b)-c0).Seconds()/float64(b.N), "cpu-s/op")
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(ru.Maxrss)/1024, "maxrss-MB") // KiB on Linux
}

// cpuTime is this process's user+system CPU time so far.
func cpuTime(b testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
