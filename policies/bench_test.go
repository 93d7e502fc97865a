package policies

import (
	"path/filepath"
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
