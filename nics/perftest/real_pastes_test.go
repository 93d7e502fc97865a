package perftest

import (
	"fmt"
	"strings"
	"testing"
)

// Real perftest output posted in public issues (issue #15): each file or
// line is the text as posted; testdata/README.md names the URL and date.
// The tests assert what a person reads off the paste — the bandwidth of
// each row in Gb/s, and whether the run failed and why.

// gbps renders a bandwidth as the tests compare it: Gb/s to six decimals
// (MB/sec columns are MiB/s, so 1.67 MB/sec is 0.014009 Gb/s).
func gbps(v float64) string { return fmt.Sprintf("%.6f", v) }

func TestRealPastes(t *testing.T) {
	type row struct {
		bytes      int
		iters      uint64
		peak, avg  string // Gb/s, six decimals
		msgRateStr string // Mpps as printed
	}
	tests := []struct {
		file string
		rc   int
		rows []row
		// parseErr, when set, is what Parse must say (no usable table).
		parseErr string
		// class/detail: the diagnosis; "" = the run is a success.
		class, detail string
	}{
		{
			// linux-rdma/perftest#273: an RDMA_Write Post List run
			// in duration mode, [Gb/sec] header, the MsgRate column
			// after two tabs, the peak not measured (0.00).
			file: "issue273_write_bw_postlist_duration_gbps.txt",
			rows: []row{{8, 224958464, "0.000000", "0.480000", "7.498617"}},
		},
		{
			// nminoru/pib#4: ib_atomic_bw on the pib software
			// device; perftest's "Device not recognized to implement
			// inline feature. Disabling it" notice before the banner
			// is not a failure; MB/sec columns.
			file: "pib_atomic_bw_inline_notice.txt",
			rows: []row{{8, 1000, "0.014261", "0.014009", "0.219031"}},
		},
		{
			// nminoru/pib#3: the ib_read_bw -a server printed its
			// header, then the key exchange failed. No row is a
			// bandwidth; the diagnosis is the rendezvous.
			file:     "fail_pib_read_bw_remote_address.txt",
			rc:       1,
			parseErr: "has a result header but no result rows",
			class:    ClassConnect,
			detail:   "Couldn't read remote address",
		},
		{
			// poorpool/multi-ud-incast README: the CPU-frequency
			// warning between the header and the row (already in
			// TestParse; here for the classification).
			file: "ud_send_bw_duration_cpu_warning.txt",
			rows: []row{{4096, 17338400, "0.000000", "94.691614", "2.889760"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			text := readTestdata(t, tc.file)
			r, err := Parse(text)
			switch {
			case tc.parseErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.parseErr) {
					t.Fatalf("Parse error = %v, want one containing %q", err, tc.parseErr)
				}
			case err != nil:
				t.Fatalf("Parse: %v", err)
			default:
				if len(r.Rows) != len(tc.rows) {
					t.Fatalf("rows = %+v, want %d", r.Rows, len(tc.rows))
				}
				for i, w := range tc.rows {
					g := r.Rows[i]
					got := row{g.Bytes, g.Iterations, gbps(g.PeakGbps), gbps(g.AvgGbps), fmt.Sprintf("%.6f", g.MsgRateMpps)}
					if got != w {
						t.Errorf("row %d = %+v, want %+v", i, got, w)
					}
				}
			}
			f := Classify(text, "", tc.rc)
			if tc.class == "" {
				if f != nil {
					t.Fatalf("Classify = %v, want a success", f)
				}
				return
			}
			if f == nil || f.Class != tc.class || !strings.Contains(f.Detail, tc.detail) || f.Hint == "" {
				t.Fatalf("Classify = %+v, want class %s with detail ~%q and a hint", f, tc.class, tc.detail)
			}
		})
	}
}

// TestRealPasteRows parses single result rows quoted verbatim from public
// pastes whose whole post the stored copy does not hold (testdata/README.md,
// "Rows quoted from public pastes"), each under the header line of the same
// post: the six-decimal form perftest prints for bandwidths under 0.1, the
// tab-separated MsgRate column, and the MB/sec (MiB/s) conversion.
func TestRealPasteRows(t *testing.T) {
	const (
		hdrG = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
		hdrM = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
	)
	tests := []struct {
		source, header, line string
		bytes                int
		peak, avg            string // Gb/s, six decimals
	}{
		// linux-rdma/perftest#132 (ib_write_bw -a --report_gbits).
		{"perftest#132", hdrG, " 2          5000           0.042350            0.042185            2.636533", 2, "0.042350", "0.042185"},
		{"perftest#132", hdrG, " 4          5000           0.084507            0.084457            2.639276", 4, "0.084507", "0.084457"},
		{"perftest#132", hdrG, " 8          5000             0.17               0.17   \t\t   2.641399", 8, "0.170000", "0.170000"},
		// linux-rdma/perftest#342 (over rdma_cm, peak not measured).
		{"perftest#342", hdrG, " 65536      403504           0.00               42.31                0.080701", 65536, "0.000000", "42.310000"},
		// openucx/ucx#8851 (ib_read_bw -a, MB/sec).
		{"ucx#8851", hdrM, " 2          1000             4.86               4.67               2.450225", 2, "0.040769", "0.039175"},
		{"ucx#8851", hdrM, " 8          1000             19.51              19.50              2.556366", 8, "0.163662", "0.163578"},
	}
	for _, tc := range tests {
		t.Run(tc.source+"/"+strings.Fields(tc.line)[0], func(t *testing.T) {
			r, err := Parse(tc.header + "\n" + tc.line + "\n")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(r.Rows) != 1 {
				t.Fatalf("rows = %+v, want 1", r.Rows)
			}
			g := r.Rows[0]
			if g.Bytes != tc.bytes || gbps(g.PeakGbps) != tc.peak || gbps(g.AvgGbps) != tc.avg {
				t.Errorf("row = %d bytes, peak %s, avg %s Gb/s; want %d, %s, %s", g.Bytes, gbps(g.PeakGbps), gbps(g.AvgGbps), tc.bytes, tc.peak, tc.avg)
			}
		})
	}
}
