package gnmi_test

import (
	"testing"

	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// BenchmarkPlan32Ports: one plan (Capabilities once, then Gets) of a
// 32-port arista switch with two classes, already converged, over loopback TLS.
func BenchmarkPlan32Ports(b *testing.B) {
	l := newLab(b, gnmisim.Options{Profile: "arista", Interfaces: gnmisim.DefaultInterfaces("arista", 32)}, dscpClass(), cosClass())
	tg := l.target(b, gnmi.Options{})
	ctx := ctxT(b)
	planApply(ctx, b, tg)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tp, err := tg.Plan(ctx)
		if err != nil || tp.HasChanges() {
			b.Fatalf("plan: %v changes=%v", err, tp.HasChanges())
		}
	}
}
