package nxos

import (
	"context"
	"testing"
	"time"

	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
)

// BenchmarkApply applies the 5000 lossless script to one simulated switch
// that adds 2 ms before every answer, and reports the round trips an apply
// takes (counted by the simulator: the client's turns, lines written
// together counting once) and the CLI lines it exchanges (its transcript:
// reads, checkpoint handling and the push's lines).
func BenchmarkApply(b *testing.B) {
	r := newRig(b, rigOpts{kind: "nexus5000", start: "fcoe-defaults"})
	ctx := context.Background()
	exec := func(cmd string) {
		c := openConn(b, ctx, r)
		defer c.close()
		if _, err := c.command(cmd); err != nil {
			b.Fatal(err)
		}
	}
	exec("checkpoint bench-start")
	r.srv.Switch().SetFaults(nxsim.Faults{Latency: 2 * time.Millisecond})
	trips, lines := 0, 0
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		exec("rollback running-config checkpoint bench-start atomic")
		tp := r.plan(b)
		before := r.roundTrips(b)
		b.StartTimer()
		res, err := r.target.Apply(ctx, tp)
		if err != nil || res.Status != plan.StatusApplied {
			b.Fatalf("apply: %s %v", res.Status, err)
		}
		b.StopTimer()
		trips += r.roundTrips(b) - before
		lines += len(res.Transcript)
		b.StartTimer()
	}
	b.ReportMetric(float64(trips)/float64(b.N), "roundtrips/op")
	b.ReportMetric(float64(lines)/float64(b.N), "lines/op")
}
