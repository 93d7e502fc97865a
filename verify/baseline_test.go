package verify

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/internal/jsonschema"
	"github.com/rocefabric/roce/telemetry"
)

func TestBaselineRoundTripAndCompare(t *testing.T) {
	s := setup(t, "multisize_gbps.txt", "a", "b", "c", "d")
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := WriteBaseline(path, NewBaseline(rep)); err != nil {
		t.Fatal(err)
	}
	base, err := ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(base.Results) != 2 || base.Versions["switch.leaf1"]["os"] != "7.3(8)N1(1)" || base.Tool != "ib_write_bw" {
		t.Fatalf("baseline = %+v", base)
	}

	tests := []struct {
		name    string
		result  string
		mutate  func(s *fabricSetup)
		tol     float64
		perf    Status
		perfMsg string
		vers    Status
		versMsg string
	}{
		{name: "unchanged", result: "multisize_gbps.txt", perf: StatusPass, perfMsg: "92.96 Gb/s vs baseline 92.96 Gb/s", vers: StatusPass},
		{
			// 36.07 vs 92.96 is 61.2% below.
			name: "slower than tolerance", result: "rdma_cm_gbps.txt", perf: StatusFail,
			perfMsg: "36.07 Gb/s is 61.2% below baseline 92.96 Gb/s (tolerance 10%)", vers: StatusPass,
		},
		{
			name: "slower but within a wide tolerance", result: "rdma_cm_gbps.txt", tol: 70, perf: StatusPass, vers: StatusPass,
			mutate: func(s *fabricSetup) {
				s.fabric.Policy.Probe.ThresholdGbps, s.fabric.Policy.Probe.ThresholdFraction = 1, 0
			},
		},
		{
			name: "switch OS and NIC firmware upgraded", result: "multisize_gbps.txt", perf: StatusPass, vers: StatusFail,
			versMsg: "host.c fw.mlx5_0 changed from 16.35.2000 to 16.36.1010; switch.leaf2 os changed from 7.3(8)N1(1) to 9.3(12)",
			mutate: func(s *fabricSetup) {
				s.hosts["c"].tele = steadyHost("c", map[string]string{"fw.mlx5_0": "16.36.1010"})
				old := s.switches["leaf2"].tele
				s.switches["leaf2"].tele = func(n int) *telemetry.Device {
					d := old(n)
					d.Versions = map[string]string{"os": "9.3(12)"}
					return d
				}
			},
		},
		{
			name: "device gone", result: "multisize_gbps.txt", perf: StatusPass, vers: StatusFail,
			versMsg: "switch.leaf1: in the baseline but not reported now",
			mutate:  func(s *fabricSetup) { s.switches["leaf1"].tele = func(int) *telemetry.Device { return nil } },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := setup(t, tc.result, "a", "b", "c", "d")
			if tc.mutate != nil {
				tc.mutate(s)
			}
			opts := fastOpts
			opts.Baseline, opts.TolerancePercent = base, tc.tol
			rep, err := Run(context.Background(), s.fabric, opts)
			if err != nil {
				t.Fatal(err)
			}
			var perf []Check
			var vers *Check
			for i, c := range rep.Checks {
				switch c.Name {
				case CheckBaseline:
					perf = append(perf, c)
				case CheckVersions:
					vers = &rep.Checks[i]
				}
			}
			if len(perf) != 2 {
				t.Fatalf("%d baseline checks, want one per pair", len(perf))
			}
			for _, c := range perf {
				if c.Status != tc.perf || !strings.Contains(c.Message, tc.perfMsg) {
					t.Errorf("baseline check %+v, want %s ~%q", c, tc.perf, tc.perfMsg)
				}
			}
			if vers == nil || vers.Status != tc.vers || !strings.Contains(vers.Message, tc.versMsg) {
				t.Errorf("versions check %+v, want %s ~%q", vers, tc.vers, tc.versMsg)
			}
		})
	}
}

func TestCompareSwappedRolesAndMissing(t *testing.T) {
	base := &Baseline{FormatVersion: 1, Results: []BaselineResult{{Class: "roce", Server: "host.b", Client: "host.a", AvgGbps: 50}}}
	rep := &Report{Probes: []Probe{
		{Class: "roce", Server: "host.a", Client: "host.b", Status: StatusPass, AvgGbps: 44},
		{Class: "roce", Server: "host.c", Client: "host.d", Status: StatusPass, AvgGbps: 90},
		{Class: "roce", Server: "host.b", Client: "host.a", Status: StatusError},
	}}
	cs := Compare(rep, base, 10)
	if cs[0].Status != StatusFail || !strings.Contains(cs[0].Message, "12.0% below baseline 50.00 Gb/s") {
		t.Errorf("swapped roles: %+v", cs[0])
	}
	if cs[1].Status != StatusSkip || cs[2].Status != StatusSkip || !strings.Contains(cs[2].Message, "no bandwidth") {
		t.Errorf("missing / errored: %+v %+v", cs[1], cs[2])
	}
	if cs[3].Name != CheckVersions || cs[3].Status != StatusPass {
		t.Errorf("versions: %+v", cs[3])
	}
}

func TestDecodeBaselineErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`nonsense`, "not a roce-verify baseline"},
		{`{"format_version": 3, "results": []}`, "format_version 3"},
		{`{"format_version": 2, "recorded": "2026-11-22T03:00:00Z", "results": []}`, `not "recorded"`},
		{`{"format_version": 1, "recorded_at": "2026-11-22T03:00:00Z", "results": []}`, `not "recorded_at"`},
		{`{"format_version": 1, "results": [{"class": "roce", "server": "host.a"}]}`, "result 1 is incomplete"},
		{`{"format_version": 1, "surprise": true}`, "unknown field"},
	}
	for _, tc := range tests {
		_, err := DecodeBaseline("b.json", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "b.json") {
			t.Errorf("DecodeBaseline(%s) = %v, want ~%q naming the file", tc.in, err, tc.want)
		}
	}
	if _, err := ReadBaseline(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

func FuzzDecodeBaseline(f *testing.F) {
	b, err := os.ReadFile("testdata/baseline.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"format_version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		base, err := DecodeBaseline("fuzz", data)
		if err != nil {
			return
		}
		// Whatever decodes must compare without panicking.
		Compare(&Report{Probes: []Probe{{Class: "roce", Server: "host.a", Client: "host.b", Status: StatusPass, AvgGbps: 1}}}, base, 10)
	})
}

// A baseline recorded by an older roce-verify (format_version 1, its time
// named "recorded") still reads; a new one is written as format_version 2
// with "recorded_at", and reads back the same.
func TestBaselineFormatVersions(t *testing.T) {
	old, err := ReadBaseline(filepath.Join("testdata", "baseline.json"))
	if err != nil {
		t.Fatalf("a format_version 1 baseline no longer reads: %v", err)
	}
	want := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	if !old.Recorded.Equal(want) || len(old.Results) == 0 {
		t.Errorf("format_version 1: recorded %v (want %v), %d results", old.Recorded, want, len(old.Results))
	}
	path := filepath.Join(t.TempDir(), "b.json")
	if err := WriteBaseline(path, old); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if raw["format_version"] != float64(BaselineFormatVersion) || raw["recorded_at"] != "2026-11-22T03:00:00Z" || raw["recorded"] != nil {
		t.Errorf("written baseline:\n%s", b)
	}
	// The file written is what docs/verify-baseline.schema.json says,
	// every documented field included.
	schema, err := jsonschema.Load("../docs/verify-baseline.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	withEmulated := *old
	withEmulated.Results = append(append([]BaselineResult(nil), old.Results...), BaselineResult{Class: "roce", Server: "host.x", Client: "host.y", AvgGbps: 97.9, Emulated: true})
	doc, err := json.Marshal(&withEmulated)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range [][]byte{b, doc} {
		if errs := schema.Validate(d, "#"); len(errs) > 0 {
			t.Errorf("baseline does not match docs/verify-baseline.schema.json:\n%s\n%s", strings.Join(errs, "\n"), d)
		}
	}
	for _, p := range schema.Documented("baseline", "result") {
		if !schema.Seen(p) {
			t.Errorf("the schema documents %s, which no baseline has", p)
		}
	}
	again, err := ReadBaseline(path)
	if err != nil || !again.Recorded.Equal(want) || len(again.Results) != len(old.Results) {
		t.Errorf("reading it back: %+v, %v", again, err)
	}
}
