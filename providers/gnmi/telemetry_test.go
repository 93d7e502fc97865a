package gnmi_test

import (
	"fmt"
	"testing"

	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
	"github.com/rocefabric/roce/telemetry"
)

func TestTelemetry(t *testing.T) {
	cases := []struct {
		profile  string
		counters map[string]uint64
		wantRx   uint64
		wantTx   uint64
		perPrio  bool
		wantBits uint8
	}{
		{"arista", map[string]uint64{
			"/interfaces/interface[name=Ethernet1]/ethernet/state/counters/in-mac-pause-frames":  7,
			"/interfaces/interface[name=Ethernet1]/ethernet/state/counters/out-mac-pause-frames": 9,
		}, 7, 9, false, 0x08},
		{"sonic", map[string]uint64{
			"/COUNTERS_DB/localhost/COUNTERS/Ethernet0/SAI_PORT_STAT_PFC_3_RX_PKTS": 5,
			"/COUNTERS_DB/localhost/COUNTERS/Ethernet0/SAI_PORT_STAT_PFC_3_TX_PKTS": 2,
			"/COUNTERS_DB/localhost/COUNTERS/Ethernet0/SAI_PORT_STAT_PFC_4_RX_PKTS": 1,
		}, 6, 2, true, 0x08},
		{"srlinux", map[string]uint64{
			"/interface[name=ethernet-1/1]/ethernet/statistics/in-mac-pause-frames": 4,
		}, 4, 0, false, 0x08},
	}
	for _, tc := range cases {
		t.Run(tc.profile, func(t *testing.T) {
			l := newLab(t, gnmisim.Options{Profile: tc.profile, Version: "9.9"}, cosClass())
			for p, v := range tc.counters {
				if err := l.sim.SetCounter(p, v); err != nil {
					t.Fatal(err)
				}
			}
			tg := l.target(t, gnmi.Options{})
			ctx := ctxT(t)
			planApply(ctx, t, tg)
			dev, err := tg.(telemetry.Source).Telemetry(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if dev.Versions["os"] != "9.9" || len(dev.Ports) != 2 {
				t.Fatalf("device = %+v", dev)
			}
			p := dev.Ports[0]
			if p.RxPauseTotal != tc.wantRx || p.TxPauseTotal != tc.wantTx || p.PFCPriorities != tc.wantBits || !p.PFCOperational {
				t.Errorf("port %s = %+v", p.Name, p)
			}
			if tc.perPrio && (len(p.RxPause) != 8 || p.RxPause[3] != 5 || p.RxPause[4] != 1) {
				t.Errorf("per-priority rx = %v", p.RxPause)
			}
			if got := fmt.Sprint(dev.Ports[1].RxPauseTotal); got != "0" {
				t.Errorf("second port rx = %s", got)
			}
		})
	}
}
