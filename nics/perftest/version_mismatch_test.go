package perftest

import (
	"math"
	"strings"
	"testing"
)

// perftest's texts for the two sides disagreeing, from linux-rdma/perftest
// @ 00b55b66 (testdata/README.md):
//
//   - src/perftest_communication.c, check_version_compatibility (since
//     commit 583a467, 2020-03-09): when the other side's perftest is older
//     than 5.70 it prints "Current implementation is not compatible with
//     versions older than 5.70" to stderr and exits 1 — a failure, before
//     any result table.
//   - src/perftest_parameters.c, compare_mlx5dv and compare_ibv_device:
//     " OOO_RECV_WRS mismatch, disabling enhanced reorder" and " out_reads
//     is greater than remote max_qp_rd_atom, using remote max_qp_rd_atom"
//     go to stdout while the two sides exchange parameters, before the
//     result table, and the run goes on.
//
// perftest has no warning for a version mismatch that lets the run go on;
// these format strings are not a captured run.
const (
	versionTooOld    = "Current implementation is not compatible with versions older than 5.70"
	oooMismatch      = " OOO_RECV_WRS mismatch, disabling enhanced reorder"
	outReadsMismatch = " out_reads is greater than remote max_qp_rd_atom, using remote max_qp_rd_atom"
)

// The parameter-mismatch notices printed before the table do not stop the
// table from being read (LF or CRLF endings), nor make a failure.
func TestParseParameterMismatchNotices(t *testing.T) {
	table := readTestdata(t, "multisize_gbps.txt")
	at := strings.Index(table, "------")
	if at < 0 {
		t.Fatal("multisize_gbps.txt has no dashed line before its header")
	}
	withNotices := table[:at] + oooMismatch + "\n" + outReadsMismatch + "\n" + table[at:]
	for name, text := range map[string]string{"stdout": withNotices, "crlf": strings.ReplaceAll(withNotices, "\n", "\r\n")} {
		t.Run(name, func(t *testing.T) {
			r, err := Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Rows) != 4 || math.Abs(r.AvgGbps-92.96) > 1e-9 || math.Abs(r.PeakGbps-93.01) > 1e-9 {
				t.Fatalf("rows %+v avg %v peak %v; want the 4 sizes of the table, avg 92.96, peak 93.01", r.Rows, r.AvgGbps, r.PeakGbps)
			}
			if f := Classify(text, "", 0); f != nil {
				t.Fatalf("a notice of a successful run classified as a failure: %v", f)
			}
		})
	}
}

// A run refused because the other side's perftest is too old has no
// result to parse, and the failure roce reports quotes perftest's line, so
// the person reading it sees that the two hosts' perftest versions differ.
func TestClassifyVersionTooOld(t *testing.T) {
	banner := strings.SplitN(readTestdata(t, "multisize_gbps.txt"), " #bytes", 2)[0]
	if _, err := Parse(banner); err == nil {
		t.Fatal("a run that stopped before its table parsed")
	}
	f := Classify(banner, versionTooOld+"\n", 1)
	if f == nil {
		t.Fatal("the version refusal was not classified as a failure")
	}
	if !strings.Contains(f.Detail, versionTooOld) {
		t.Errorf("failure %+v does not quote perftest's line %q", f, versionTooOld)
	}
	if f.Class != ClassVersion || !strings.Contains(f.Hint, "same perftest release on both hosts") {
		t.Errorf("failure %+v: want class %q and a hint to install the same perftest on both hosts", f, ClassVersion)
	}
}
