package host

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// BenchmarkInProcessAgent measures one agent call of a plan (read) and of
// an apply on an emulated lab host, the calls the scale benchmark makes
// 10,000 times per phase: wall time per call and the process's CPU time
// per call (user + system, so file syscalls on the emulated tree count).
func BenchmarkInProcessAgent(b *testing.B) {
	seed := func(b *testing.B) (plan.Target, *CallCounter) {
		b.Helper()
		root := b.TempDir()
		if err := nics.SeedLab(root, nics.LabSpec{EmulatedLinks: true, NICs: []nics.LabNIC{{Netdev: "sc0", RDMADevice: "mlx5_0"}}}); err != nil {
			b.Fatal(err)
		}
		c := &policies.Lossless{Name: "roce", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 4}
		h := &policies.Host{Name: "s1", Local: true, Root: root, MPI: []string{"nccl"},
			NICs: []*policies.NIC{{Netdev: "sc0", RDMADevice: "mlx5_0", VLAN: 100, Address: "10.20.0.1/16", RoCEMode: "v2", MTU: 9000}}}
		var calls CallCounter
		tg, err := NewInProcessCounted(&calls)(plan.Env{Fabric: &policies.Fabric{Lossless: []*policies.Lossless{c}, Hosts: []*policies.Host{h}}}, h)
		if err != nil {
			b.Fatal(err)
		}
		return tg, &calls
	}
	ctx := context.Background()
	b.Run("plan", func(b *testing.B) {
		tg, calls := seed(b)
		cpu0 := cpuTime()
		b.ResetTimer()
		for range b.N {
			if _, err := tg.Plan(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		report(b, cpuTime()-cpu0, calls.Calls())
	})
	b.Run("apply", func(b *testing.B) {
		var cpu time.Duration
		var n int64
		for range b.N {
			b.StopTimer()
			tg, calls := seed(b)
			tp, err := tg.Plan(ctx)
			if err != nil {
				b.Fatal(err)
			}
			before := calls.Calls()
			cpu0 := cpuTime()
			b.StartTimer()
			res, err := tg.Apply(ctx, tp)
			b.StopTimer()
			cpu += cpuTime() - cpu0
			n += calls.Calls() - before
			if err != nil || res.Status != plan.StatusApplied {
				b.Fatalf("apply: %v %v", res, err)
			}
		}
		report(b, cpu, n)
	})
}

func report(b *testing.B, cpu time.Duration, calls int64) {
	b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
	if calls > 0 {
		b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(calls), "cpu-ms/call")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
