package nics

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func seededLab(t *testing.T) (string, *System) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "h1")
	if err := SeedLab(root, LabSpec{EmulatedLinks: true, NICs: []LabNIC{{Netdev: "eth0", RDMADevice: "mlx5_0", FWVer: "16.35.2000"}}}); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, s
}

func readLab(t *testing.T, root, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestLabNICReset: a firmware update (driver reload) puts DCB back to the
// firmware defaults, rdma_cm's ToS to 0 and reports the new firmware; a
// driver reload alone keeps the firmware version.
func TestLabNICReset(t *testing.T) {
	root, s := seededLab(t)
	ctx := context.Background()
	if err := s.DCB.SetPFC(ctx, "eth0", IEEEPFC{Cap: 8, Enabled: 1 << 4}); err != nil {
		t.Fatal(err)
	}
	if err := s.DCB.AddApps(ctx, "eth0", []DCBApp{{Selector: AppSelDSCP, Protocol: 26, Priority: 4}}); err != nil {
		t.Fatal(err)
	}
	tos := "sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(tos)), []byte("104\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if apps, err := LabDCBApps(root, "eth0"); err != nil || len(apps) != 1 {
		t.Fatalf("LabDCBApps before: %v, %v", apps, err)
	}

	changes, err := LabNICReset(root, "16.36.1010")
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 3 {
		t.Errorf("changes %q, want firmware, rdma_cm and DCB", changes)
	}
	rep, _, err := s.DCB.Get(ctx, "eth0")
	if err != nil {
		t.Fatal(err)
	}
	if rep.PFC.Enabled != 0 || len(rep.Apps) != 0 {
		t.Errorf("after the reset: PFC 0x%02x, apps %v; want no PFC and no APP entries", rep.PFC.Enabled, rep.Apps)
	}
	if apps, err := LabDCBApps(root, "eth0"); err != nil || len(apps) != 0 {
		t.Errorf("LabDCBApps after: %v, %v", apps, err)
	}
	if got := readLab(t, root, tos); got != "0" {
		t.Errorf("default_roce_tos %q, want 0", got)
	}
	if got := readLab(t, root, "sys/class/infiniband/mlx5_0/fw_ver"); got != "16.36.1010" {
		t.Errorf("fw_ver %q", got)
	}

	if _, err := LabNICReset(root, ""); err != nil {
		t.Fatal(err)
	}
	if got := readLab(t, root, "sys/class/infiniband/mlx5_0/fw_ver"); got != "16.36.1010" {
		t.Errorf("a driver reload changed fw_ver to %q", got)
	}
}

// TestLabUpgradeRefusesRealRoots: nothing here touches a tree without the
// lab marker, nor "/".
func TestLabUpgradeRefusesRealRoots(t *testing.T) {
	plain := t.TempDir()
	for _, root := range []string{"/", "", plain} {
		if _, err := LabNICReset(root, "1.0"); err == nil {
			t.Errorf("LabNICReset(%q) accepted a non-lab root", root)
		}
		if err := LabAddCounters(root, "mlx5_0", 1, map[string]uint64{"hw_counters/out_of_sequence": 1}); err == nil {
			t.Errorf("LabAddCounters(%q) accepted a non-lab root", root)
		}
		if _, err := LabDCBApps(root, "eth0"); err == nil {
			t.Errorf("LabDCBApps(%q) accepted a non-lab root", root)
		}
	}
}

func TestLabAddCounters(t *testing.T) {
	root, _ := seededLab(t)
	for i := 0; i < 2; i++ {
		if err := LabAddCounters(root, "mlx5_0", 1, map[string]uint64{"hw_counters/out_of_sequence": 5, "hw_counters/local_ack_timeout_err": 2}); err != nil {
			t.Fatal(err)
		}
	}
	if got := readLab(t, root, "sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence"); got != "10" {
		t.Errorf("out_of_sequence %q, want 10", got)
	}
	if got := readLab(t, root, "sys/class/infiniband/mlx5_0/ports/1/hw_counters/local_ack_timeout_err"); got != "4" {
		t.Errorf("local_ack_timeout_err %q, want 4", got)
	}
	for _, bad := range []string{"../../../../etc/passwd", "/etc/passwd", "gids/0", "hw_counters/../../x"} {
		if err := LabAddCounters(root, "mlx5_0", 1, map[string]uint64{bad: 1}); err == nil {
			t.Errorf("counter name %q accepted", bad)
		}
	}
	if err := LabAddCounters(root, "../../../..", 1, map[string]uint64{"hw_counters/out_of_sequence": 1}); err == nil {
		t.Error("a device name with a path was accepted")
	}
	if err := LabAddCounters(root, "mlx5_9", 1, map[string]uint64{"hw_counters/out_of_sequence": 1}); err == nil {
		t.Error("a device the lab host does not have was accepted")
	}
}
