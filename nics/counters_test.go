package nics

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefabric/roce/telemetry"
)

// The mlx5 names stay in nics: Counters reports them under telemetry's
// neutral names, which is all verify reads.
func TestCountersMapsDriverNamesToNeutralOnes(t *testing.T) {
	root := t.TempDir()
	if err := SeedLab(root, LabSpec{EmulatedLinks: true, NICs: []LabNIC{{Netdev: "sc0", RDMADevice: "mlx5_0"}}}); err != nil {
		t.Fatal(err)
	}
	port := filepath.Join(root, "sys/class/infiniband/mlx5_0/ports/1")
	for f, v := range map[string]string{"hw_counters/out_of_sequence": "12\n", "hw_counters/packet_seq_err": "3\n",
		"hw_counters/np_cnp_sent": "5\n", "hw_counters/rp_cnp_handled": "6\n", "counters/port_rcv_errors": "2\n"} {
		if err := os.WriteFile(filepath.Join(port, f), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sys, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	d, err := sys.Counters(context.Background(), []NICRef{{Netdev: "sc0"}})
	if err != nil {
		t.Fatal(err)
	}
	c := d.Ports[0].Counters
	for neutral, want := range map[string]uint64{telemetry.CounterOutOfSequence: 12, telemetry.CounterPSNErrors: 3,
		telemetry.CounterCNPSent: 5, telemetry.CounterCNPHandled: 6, telemetry.CounterRxErrors: 2} {
		if got, ok := c[neutral]; !ok || got != want {
			t.Errorf("%s = %d (present %v), want %d; counters %v", neutral, got, ok, want, c)
		}
	}
}

func TestNeutralEthtoolNames(t *testing.T) {
	stats := map[string]uint64{"rx_prio3_discards": 4, "rx_prio9_discards": 7, "tx_pause_storm_error_events": 1,
		"tx_pause_storm_warning_events ": 2, "rx_prio3_pause": 8, "peer_ifindex": 3}
	c := map[string]uint64{}
	neutralEthtool(stats, c)
	want := map[string]uint64{
		telemetry.CounterRxDiscardsPrio(3): 4, "rx_prio3_discards": 4,
		telemetry.CounterPauseStormErrors: 1, "tx_pause_storm_error_events": 1,
		telemetry.CounterPauseStormWarnings: 2, "tx_pause_storm_warning_events": 2,
	}
	if len(c) != len(want) {
		t.Errorf("got %v, want %v", c, want)
	}
	for k, v := range want {
		if c[k] != v {
			t.Errorf("%s = %d, want %d (all: %v)", k, c[k], v, c)
		}
	}
}
