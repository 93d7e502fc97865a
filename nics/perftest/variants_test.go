package perftest

import (
	"math"
	"strings"
	"testing"
)

// perftest's own warning texts (perftest 4.5, as printed by ib_write_bw),
// interleaved with a result table (testdata/multisize_gbps.txt, written in
// perftest's layout: testdata/README.md) the way a terminal or `2>&1` shows
// them, must not cut the table short or be read as rows.
func TestParseWarningsInterleaved(t *testing.T) {
	table := readTestdata(t, "multisize_gbps.txt")
	warnings := []string{
		"Conflicting CPU frequency values detected: 1200.000000 != 3400.000000. CPU Frequency is not max.",
		" WARNING: CPU is not PCIe relaxed ordering compliant.",
		" WARNING: You should disable PCIe RO with `--disable_pcie_relaxed` for both server and client.",
		"Warning: Large message requested and CQ moderation enabled",
		"Warning: It can lead to inaccurate results",
		"",
	}
	var b strings.Builder
	for _, l := range strings.Split(table, "\n") {
		b.WriteString(l + "\n")
		if f := strings.Fields(l); len(f) >= 5 && f[0] != "#bytes" && strings.Trim(f[0], "0123456789") == "" {
			for _, w := range warnings {
				b.WriteString(w + "\n")
			}
		}
	}
	for name, text := range map[string]string{"interleaved": b.String(), "crlf": strings.ReplaceAll(b.String(), "\n", "\r\n")} {
		t.Run(name, func(t *testing.T) {
			r, err := Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Rows) != 4 || math.Abs(r.AvgGbps-92.96) > 1e-9 || r.Rows[0].Bytes != 2 || r.Rows[3].Bytes != 1048576 {
				t.Fatalf("rows %+v avg %v; want the 4 sizes of the table, avg 92.96", r.Rows, r.AvgGbps)
			}
		})
	}
	// A line that is neither a row nor a known warning still ends the
	// table: the text after it is not read as results.
	cut := strings.Replace(table, " 65536 ", "garbage\n 65536 ", 1)
	if r, err := Parse(cut); err != nil || len(r.Rows) != 2 {
		t.Fatalf("table not ended at an unknown line: %+v %v", r, err)
	}
}

// The dual-port layout has per-port columns after the first five
// (perftest's header " #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec]
// MsgRate[Mpps] BW Port1[Gb/sec] MsgRate Port1[Mpps] BW Port2[Gb/sec]
// MsgRate Port2[Mpps]"); the totals are the first five.
func TestParseDualPortLayout(t *testing.T) {
	out := " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]   BW Port1[Gb/sec]   MsgRate Port1[Mpps]   BW Port2[Gb/sec]   MsgRate Port2[Mpps]\n" +
		" 65536      5000             180.10             179.95               0.343200        89.97              0.171600              89.98              0.171600\n"
	r, err := Parse(out)
	if err != nil || len(r.Rows) != 1 || r.AvgGbps != 179.95 || r.PeakGbps != 180.10 {
		t.Fatalf("%+v %v", r, err)
	}
}

// A run that ended with the retry counter exceeded says so, with the cause
// to look for; the texts are perftest's (" Failed status %d: wr_id %d
// syndrom 0x%x", status 12 = IBV_WC_RETRY_EXC_ERR, 13 = RNR).
func TestClassifyRetryExceeded(t *testing.T) {
	for _, tc := range []struct{ stderr, hint string }{
		{"Completion with error at client\n Failed status 12: wr_id 0 syndrom 0x81\nscnt=128, ccnt=0\n", "PFC"},
		{"ibv_wc_status: transport retry counter exceeded\n", "PFC"},
		{" Failed status 13: wr_id 0 syndrom 0x0\n", "receiver was not ready"},
	} {
		f := Classify(readTestdata(t, "rdma_cm_gbps.txt"), tc.stderr, 1)
		if f == nil || f.Class != ClassRetryExceeded || !strings.Contains(f.Hint, tc.hint) {
			t.Errorf("%q: %+v, want %s with a hint about %s", tc.stderr, f, ClassRetryExceeded, tc.hint)
		}
	}
	// "Couldn't connect" keeps its own diagnosis.
	if f := Classify("", "Couldn't connect to 10.0.0.2:18515\nUnable to open file descriptor for socket connection Unable to init the socket connection\n", 1); f == nil || f.Class != ClassConnect {
		t.Errorf("connect failure: %+v", f)
	}
}
