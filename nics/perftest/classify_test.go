package perftest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	if name == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestClassify(t *testing.T) {
	tests := []struct {
		stdout, stderr string
		rc             int
		class          string // "" = no failure
		hint, detail   string
	}{
		{"", "fail_no_device.stderr", 1, ClassNoDevice, "rdma link show", "Did not detect devices"},
		{"fail_rtr.stdout", "fail_rtr.stderr", 1, ClassRTRRTS, "GID", "Failed to modify QP 59 to RTR"},
		{"", "fail_rts.stderr", 1, ClassRTRRTS, "GID", "to RTS"},
		{"", "fail_connect.stderr", 1, ClassConnect, "GID-index or VLAN mismatch", "Couldn't read remote address"},
		{"", "fail_closed_port.stderr", 1, ClassConnect, "TCP rendezvous port", "Couldn't connect to 10.0.0.1:18515"},
		{"", "fail_gid_type.stderr", 1, ClassGIDType, "RoCE version", "Incompatibility issue with GID types"},
		{"rdma_cm_gbps.txt", "fail_threshold.stderr", 1, ClassThreshold, "-w", "below bw limit"},
		{"rdma_cm_gbps.txt", "", 0, "", "", ""},
		{"ud_send_bw_duration_cpu_warning.txt", "", 0, "", "", ""}, // warnings are not failures
		// Real pastes (sources in testdata/README.md).
		{"", "fail_status12_send_bw.stderr", 1, ClassRetryExceeded, "PFC is on for the class's priority", "Failed status 12: wr_id 0 syndrom 0x81"},
		{"", "fail_status4_local_protection.stderr", 1, ClassUnknown, "not packet loss on the network", "Failed status 4: wr_id 0 syndrom 0x51"},
		{"", "fail_connect_refused.stderr", 1, ClassConnect, "TCP rendezvous port", "Couldn't connect to 192.168.125.211:18515"},
	}
	for _, tc := range tests {
		name := tc.stderr
		if name == "" {
			name = tc.stdout
		}
		t.Run(name, func(t *testing.T) {
			f := Classify(readTestdata(t, tc.stdout), readTestdata(t, tc.stderr), tc.rc)
			if tc.class == "" {
				if f != nil {
					t.Fatalf("Classify = %v, want nil", f)
				}
				return
			}
			if f == nil {
				t.Fatalf("Classify = nil, want %s", tc.class)
			}
			if f.Class != tc.class || !strings.Contains(f.Hint, tc.hint) || !strings.Contains(f.Detail, tc.detail) {
				t.Errorf("Classify = %+v, want class %s, hint ~%q, detail ~%q", f, tc.class, tc.hint, tc.detail)
			}
			if !strings.Contains(f.Error(), tc.class) {
				t.Errorf("Error() %q does not name the class", f.Error())
			}
		})
	}
}

// perftest since commit c7f9e40 (2025-08-31) names the work completion
// status in words: " Failed status-%s (%d): wr_id %d syndrom 0x%x" with
// ibv_wc_status_str (src/perftest_resources.h). Both spellings classify
// alike.
func TestClassifyDescriptiveStatus(t *testing.T) {
	for _, tc := range []struct{ line, class, hint string }{
		{" Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81", ClassRetryExceeded, "status 12"},
		{" Failed status-RNR retry counter exceeded (13): wr_id 0 syndrom 0x0", ClassRetryExceeded, "status 13"},
		{" Failed status-local protection error (4): wr_id 0 syndrom 0x51", ClassUnknown, "status 4"},
	} {
		f := Classify("", " Completion with error at client\n"+tc.line+"\n scnt=128, ccnt=0\n", 1)
		if f == nil || f.Class != tc.class || !strings.Contains(f.Hint, tc.hint) {
			t.Errorf("%q classified as %+v, want %s with a hint naming %q", tc.line, f, tc.class, tc.hint)
		}
	}
}

// The rendezvous read failure in each spelling perftest has printed
// (src/perftest_communication.c): alone, it still names the connection.
func TestClassifyRendezvousReadSpellings(t *testing.T) {
	for _, line := range []string{
		" Unable to read from socket/rdma_cm",
		" Unable to read to socket/rdam_cm",
		" Unable to read to socket/rdma_cm",
	} {
		if f := Classify("", line+"\n", 1); f == nil || f.Class != ClassConnect || !strings.Contains(f.Detail, strings.TrimSpace(line)) {
			t.Errorf("%q classified as %+v, want %s", line, f, ClassConnect)
		}
	}
}

func TestClassifyUnknownAndWarnings(t *testing.T) {
	f := Classify("", "something odd\nreally odd\n", 7)
	if f == nil || f.Class != ClassUnknown || !strings.Contains(f.Detail, "exit code 7: something odd / really odd") {
		t.Errorf("unknown failure = %+v", f)
	}
	if f := Classify("", "", 1); f == nil || !strings.Contains(f.Detail, "no output") {
		t.Errorf("silent failure = %+v", f)
	}
	// The memlock warning is harmless when the run succeeded...
	warn := "libibverbs: Warning: RLIMIT_MEMLOCK is 8388608 bytes.\n"
	if f := Classify(readTestdata(t, "rdma_cm_gbps.txt"), warn, 0); f != nil {
		t.Errorf("memlock warning on success classified as %+v", f)
	}
	// ...and the explanation when it did not.
	if f := Classify("", warn+"Couldn't allocate MR\n", 1); f == nil || !strings.Contains(f.Hint, "memlock") {
		t.Errorf("memlock failure = %+v", f)
	}
}

func FuzzClassify(f *testing.F) {
	for _, n := range []string{"fail_no_device.stderr", "fail_rtr.stderr", "fail_connect.stderr", "fail_gid_type.stderr", "fail_threshold.stderr"} {
		f.Add("", readTestdata(f, n), 1)
	}
	f.Add(readTestdata(f, "rdma_cm_gbps.txt"), "", 0)
	f.Fuzz(func(t *testing.T, stdout, stderr string, rc int) {
		c := Classify(stdout, stderr, rc)
		if rc != 0 && c == nil {
			t.Fatal("non-zero exit classified as success")
		}
		if c != nil && (c.Class == "" || c.Hint == "") {
			t.Fatalf("failure without class or hint: %+v", c)
		}
	})
}
