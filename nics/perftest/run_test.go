package perftest

import (
	"github.com/rocefabric/roce/internal/testenv"

	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// requireRealPerftest skips when Debian's perftest is missing (`make
// deps-test` installs it) or when this machine does have RDMA devices (the
// tests below exercise the no-device path).
func requireRealPerftest(t *testing.T) {
	t.Helper()
	testenv.Tool(t, ToolWriteBW, "make deps-test installs Debian's perftest")
	if ents, err := os.ReadDir("/sys/class/infiniband"); err == nil && len(ents) > 0 {
		t.Skip("this machine has RDMA devices; the no-device path cannot be exercised")
	}
}

func TestRunRealNoDevice(t *testing.T) {
	requireRealPerftest(t)
	tests := []struct {
		name string
		o    Options
	}{
		{"server", Options{GIDIndex: -1, TCPPort: 18515 + 40, Duration: 2 * time.Second, Timeout: 20 * time.Second}},
		{"server named device rdma_cm", Options{Device: "mlx5_0", RDMACM: true, ToS: 106, GIDIndex: -1, Timeout: 20 * time.Second}},
		// A client to a port nobody listens on: without a device perftest
		// stops before connecting, and says so.
		{"client to closed port", Options{GIDIndex: -1, TCPPort: 9, Server: "127.0.0.1", Timeout: 20 * time.Second}},
		{"ib_send_bw", Options{Tool: ToolSendBW, GIDIndex: -1, Timeout: 20 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(context.Background(), tc.o)
			var f *Failure
			if !errors.As(err, &f) {
				t.Fatalf("Run error = %v (%T), want *Failure", err, err)
			}
			if f.Class != ClassNoDevice || !strings.Contains(f.Hint, "RDMA") {
				t.Errorf("failure = %+v, want no-device with a hint", f)
			}
			if res == nil || res.ExitCode != 1 || !strings.Contains(res.Stderr, "Did not detect devices") {
				t.Errorf("result = %+v, want exit 1 and perftest's stderr", res)
			}
			if res != nil && res.Argv[0] != Argv(tc.o)[0] {
				t.Errorf("argv = %q", res.Argv)
			}
		})
	}
}

func TestRunReplayedOutputs(t *testing.T) {
	tests := []struct {
		stdout, stderr string
		rc             int
		class          string
		avg            float64
	}{
		{"rdma_cm_gbps.txt", "", 0, "", 36.07},
		{"duration_peak_zero.txt", "", 0, "", 0.48},
		{"multisize_gbps.txt", "", 0, "", 92.96},
		{"fail_rtr.stdout", "fail_rtr.stderr", 1, ClassRTRRTS, 0},
		{"", "fail_gid_type.stderr", 1, ClassGIDType, 0},
		{"", "fail_connect.stderr", 1, ClassConnect, 0},
		{"", "fail_no_device.stderr", 1, ClassNoDevice, 0},
		{"fail_rtr.stdout", "", 0, ClassUnknown, 0}, // exit 0 without a table
	}
	for _, tc := range tests {
		t.Run(tc.stdout+tc.stderr, func(t *testing.T) {
			o := Options{Command: fakeCommand(t, tc.stdout, tc.stderr, tc.rc, 0), GIDIndex: 3, SL: 3, Timeout: 20 * time.Second}
			res, err := Run(context.Background(), o)
			if tc.class == "" {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if res.AvgGbps != tc.avg || res.ExitCode != 0 || len(res.Argv) == 0 {
					t.Errorf("result = %+v, want avg %v", res, tc.avg)
				}
				return
			}
			var f *Failure
			if !errors.As(err, &f) || f.Class != tc.class {
				t.Fatalf("Run error = %v, want class %s", err, tc.class)
			}
			if res == nil || res.ExitCode != tc.rc {
				t.Errorf("result = %+v, want exit %d", res, tc.rc)
			}
		})
	}
}

func TestRunMissingExecutable(t *testing.T) {
	_, err := Run(context.Background(), Options{Command: []string{"/nonexistent/ib_write_bw"}, GIDIndex: -1})
	var f *Failure
	if !errors.As(err, &f) || !strings.Contains(f.Hint, "apt-get install perftest") {
		t.Fatalf("err = %v, want a Failure telling how to install perftest", err)
	}
}

func TestRunInvalidOptions(t *testing.T) {
	if _, err := Run(context.Background(), Options{SL: 9}); err == nil {
		t.Fatal("Run accepted SL 9")
	}
}

// A server whose client never comes is killed at the timeout together with
// everything it started (own process group): nothing is left running.
func TestRunTimeoutKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	script := `sleep 60 & echo $! > "$PIDFILE"; echo "* Waiting for client to connect... *"; wait`
	o := Options{
		Command:  []string{"env", "PIDFILE=" + pidFile, "sh", "-c", script, "sh"},
		GIDIndex: -1,
		Timeout:  time.Second,
	}
	res, err := Run(context.Background(), o)
	var f *Failure
	if !errors.As(err, &f) || f.Class != ClassTimeout {
		t.Fatalf("Run error = %v, want timeout", err)
	}
	if !strings.Contains(f.Hint, "server") || !strings.Contains(f.Detail, "Waiting for client") {
		t.Errorf("failure = %+v, want server hint and last output", f)
	}
	if res == nil {
		t.Fatal("nil result on timeout")
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("child pid: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 {
		t.Fatalf("bad pid %q", b)
	}
	// The kill is synchronous, but the zombie may need reaping by init;
	// poll the process state rather than sleeping a fixed time.
	for i := 0; i < 50; i++ {
		if !alive(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("child %d of the timed-out probe is still running", pid)
}

func TestRunCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Options{Command: fakeCommand(t, "rdma_cm_gbps.txt", "", 0, 5*time.Second), GIDIndex: -1})
	var f *Failure
	if !errors.As(err, &f) || f.Class != ClassTimeout || !strings.Contains(f.Detail, "cancelled") {
		t.Fatalf("err = %v, want cancelled timeout failure", err)
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
