package verify

import (
	"fmt"
	"testing"
)

// BenchmarkPlanPairs schedules a 1,000-host class spread over 40 leaves.
func BenchmarkPlanPairs(b *testing.B) {
	var spec []string
	for i := 0; i < 1000; i++ {
		spec = append(spec, fmt.Sprintf("h%04d@leaf%02d", i, i%40))
	}
	eps := endpoints(spec...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if s := PlanPairs("roce", eps); len(s.Rounds) != 1 {
			b.Fatal("unexpected schedule")
		}
	}
}
