package policies

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
// locals are resolved in dependency order, so the work is linear (about
// 40 s of CPU, a third of it HCL's lexer, and 4.5 GB of memory), where
// evaluating them round by round was quadratic (8,000 locals took 6 s, so
// 1,000,000 would take about a day).
func BenchmarkLoad1MLocals(b *testing.B) {
	benchLocals(b, 1_000_000)
}

// BenchmarkLoad100kLocals is the same at a tenth of the size: the two
// together show the growth is linear.
func BenchmarkLoad100kLocals(b *testing.B) {
	benchLocals(b, 100_000)
}

func benchLocals(b *testing.B, n int) {
	dir := b.TempDir()
	var src strings.Builder
	src.WriteString("locals {\n  l0 = 0\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&src, "  l%d = local.l%d + 1\n", i, i-1)
	}
	src.WriteString("}\n")
	fmt.Fprintf(&src, "lossless \"roce\" {\n  cos = local.l%d - %d + 4\n}\n", n-1, n-1)
	src.WriteString(tailAll)
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		f, _, diags := Load(dir, LoadOptions{Getenv: noEnv})
		if diags.HasErrors() {
			b.Fatal(describeDiags(diags))
		}
		if got := f.Lossless[0].Match.CoS; len(got) != 1 || got[0] != 4 {
			b.Fatalf("cos = %v, want [4]", got)
		}
	}
}
