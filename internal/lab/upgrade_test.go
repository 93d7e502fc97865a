package lab

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/verify"
)

// TestControlSocketUpgrades: a running lab takes upgrades over its control
// socket (owner-only), applies them to the simulator or the lab host, and
// answers refusals with the reason; the socket goes with the lab.
func TestControlSocketUpgrades(t *testing.T) {
	ctx, dir, l, stop := labWithControl(t)
	sock := filepath.Join(dir, StateDir, ControlSocket)
	if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("control socket %s: %v, mode %v; want owner-only", sock, err, st.Mode())
	}

	rep, err := RequestUpgrade(ctx, dir, UpgradeRequest{Target: "switch.n7k-1", Version: "5.1(5)"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.From != "5.1(3)" || rep.To != "5.1(5)" || l.Sims["n7k-1"].Switch().Version() != "5.1(5)" {
		t.Errorf("switch upgrade: %+v, simulator at %s", rep, l.Sims["n7k-1"].Switch().Version())
	}

	rep, err = RequestUpgrade(ctx, dir, UpgradeRequest{Target: "host.h1", Version: "16.36.1010"})
	if err != nil {
		t.Fatal(err)
	}
	fw, err := os.ReadFile(filepath.Join(dir, StateDir, "hosts", "h1", "sys", "class", "infiniband", "mlx5_0", "fw_ver"))
	if err != nil || strings.TrimSpace(string(fw)) != "16.36.1010" || rep.From != "16.35.2000" {
		t.Errorf("host upgrade: %+v, fw_ver %q (%v)", rep, fw, err)
	}

	for _, tc := range []struct {
		req  UpgradeRequest
		want string
	}{
		{UpgradeRequest{Target: "switch.eos-1", Version: "4.37.0F"}, "gNMI target"},
		{UpgradeRequest{Target: "switch.n7k-1", Version: "7.1(4)N1(1)"}, "is not a nexus7000 release"},
		{UpgradeRequest{Target: "switch.n7k-1", Driver: true}, "needs the release"},
		{UpgradeRequest{Target: "host.h9", Version: "1"}, "no host"},
		{UpgradeRequest{Target: "host.h1"}, "firmware version, or 'driver'"},
		{UpgradeRequest{Target: "host.h1", Driver: true, Unsaved: true}, "-unsaved is for switches"},
		{UpgradeRequest{Target: "n7k-1", Version: "5.1(5)"}, "want switch.NAME or host.NAME"},
	} {
		if _, err := RequestUpgrade(ctx, dir, tc.req); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error naming %q", tc.req, err, tc.want)
		}
	}

	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("the control socket outlives the lab: %v", err)
	}
	if _, err := RequestUpgrade(ctx, dir, UpgradeRequest{Target: "switch.n7k-1", Version: "6.2(14)"}); err == nil || !strings.Contains(err.Error(), "is it up?") {
		t.Errorf("upgrade with no lab listening: %v", err)
	}
}

// labWithControl starts a copy of examples/lab with simulated hosts and
// its control socket; the lab closes when the test ends, stop closes the
// socket earlier.
func labWithControl(t *testing.T) (ctx context.Context, dir string, l *Lab, stop func() error) {
	t.Helper()
	dir = copyLab(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l, err := Up(ctx, dir, Options{Hosts: false})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	stop, err = l.ServeControl(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, dir, l, stop
}

// TestWriteBackground: lab.json's background_load lands in the host tree
// where the emulated RDMA path reads it; none writes nothing; a value that
// is not a share of the link is refused with the field named.
func TestWriteBackground(t *testing.T) {
	for _, tc := range []struct {
		load    float64
		want    string // file content; "" = no file
		wantErr string
	}{
		{0, "", ""},
		{0.9, "0.9\n", ""},
		{1, "1\n", ""},
		{1.5, "", "background_load 1.5 is not a share"},
		{-0.1, "", "background_load -0.1 is not a share"},
	} {
		root := t.TempDir()
		err := writeBackground(root, HostSim{BackgroundLoad: tc.load})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%g: %v, want %q", tc.load, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(root, verify.LabBackgroundFile))
		if tc.want == "" {
			if !os.IsNotExist(err) {
				t.Errorf("%g: wrote %q, want no file", tc.load, b)
			}
			continue
		}
		if string(b) != tc.want {
			t.Errorf("%g: wrote %q (%v), want %q", tc.load, b, err, tc.want)
		}
	}
}
