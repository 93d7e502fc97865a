package nics

import (
	"errors"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// veth reports its peer's ifindex as a driver statistic: a real check that
// the ioctl layout (GSSET_INFO, GSTRINGS, GSTATS) is right.
func TestEthtoolStatsOnVeth(t *testing.T) {
	ns := newNetns(t)
	out, err := exec.Command("ip", "-n", ns, "-o", "link", "show", "v1").Output()
	if err != nil {
		t.Fatal(err)
	}
	peer, err := strconv.Atoi(strings.TrimSuffix(strings.Fields(string(out))[0], ":"))
	if err != nil {
		t.Fatalf("ifindex of v1 from %q: %v", out, err)
	}
	inNetns(t, ns, func() {
		st, err := EthtoolStats("v0")
		if errors.Is(err, unix.EOPNOTSUPP) {
			t.Skipf("veth has no ethtool statistics in this kernel: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := st["peer_ifindex"]; !ok || got != uint64(peer) {
			t.Errorf("peer_ifindex = %d (present %v), want %d; stats %v", got, ok, peer, st)
		}
		if _, err := EthtoolStats("nope0"); err == nil {
			t.Error("stats for a missing netdev")
		}
	})
}

func TestPausePerPriority(t *testing.T) {
	cases := []struct {
		name   string
		stats  map[string]uint64
		rx, tx []uint64
		ok     bool
	}{
		{"mlx5 names", map[string]uint64{"rx_prio3_pause": 7, "tx_prio3_pause": 9, "rx_prio3_pause_duration": 100, "rx_global_pause": 1, "rx_prio9_pause": 5},
			[]uint64{0, 0, 0, 7, 0, 0, 0, 0}, []uint64{0, 0, 0, 9, 0, 0, 0, 0}, true},
		{"no pause counters", map[string]uint64{"peer_ifindex": 3, "rx_prio3_bytes": 10}, nil, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rx, tx, ok := PausePerPriority(tc.stats)
			if ok != tc.ok || !reflect.DeepEqual(rx, tc.rx) || !reflect.DeepEqual(tx, tc.tx) {
				t.Errorf("got %v %v %v", rx, tx, ok)
			}
		})
	}
}
