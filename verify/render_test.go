package verify

import (
	"github.com/rocefabric/roce/internal/testenv"

	"github.com/rocefabric/roce/internal/jsonschema"

	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics/perftest"
	"github.com/rocefabric/roce/telemetry"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenReport runs a five-host fabric with one of every outcome: a pass,
// an RTR failure, a host without an RDMA device, PFC down on a switch port,
// a firmware change against a baseline, and a pair with no baseline.
func goldenReport(t *testing.T) *Report {
	t.Helper()
	s := setup(t, "multisize_gbps.txt", "a", "b", "c", "d", "e")
	s.hosts["d"].client = func(perftest.Options, int) (*perftest.Result, error) {
		return &perftest.Result{ExitCode: 1}, perftest.Classify("", "Failed to modify QP 59 to RTR\n Unable to Connect the HCA's through the link\n", 1)
	}
	s.hosts["e"].client = func(perftest.Options, int) (*perftest.Result, error) {
		return &perftest.Result{ExitCode: 1}, perftest.Classify("", " Did not detect devices \n If device exists, check if driver is up\n", 1)
	}
	s.hosts["a"].tele = steadyHost("a", map[string]string{"fw.mlx5_0": "16.36.1010"})
	s.switches["leaf2"].tele = func(int) *telemetry.Device {
		d := steadySwitch("leaf2", "Ethernet1/1", "Ethernet1/2")(0)
		d.Ports[1].PFCOperational, d.Ports[1].PFCMode = false, "off"
		return d
	}
	opts := fastOpts
	opts.Baseline = &Baseline{FormatVersion: 1, Results: []BaselineResult{{Class: "roce", Server: "host.a", Client: "host.b", AvgGbps: 93.5}},
		Versions: map[string]map[string]string{
			"host.a": {"fw.mlx5_0": "16.35.2000"}, "host.b": {"fw.mlx5_0": "16.35.2000"}, "host.c": {"fw.mlx5_0": "16.35.2000"},
			"host.d": {"fw.mlx5_0": "16.35.2000"}, "host.e": {"fw.mlx5_0": "16.35.2000"},
			"switch.leaf1": {"os": "7.3(8)N1(1)"}, "switch.leaf2": {"os": "7.3(8)N1(1)"},
		}}
	rep, err := Run(context.Background(), s.fabric, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Wall-clock durations are the only non-deterministic values.
	for i := range rep.Probes {
		rep.Probes[i].Seconds = 6.25
	}
	return rep
}

func TestRenderGolden(t *testing.T) {
	rep := goldenReport(t)
	if rep.ExitCode() != ExitFailed {
		t.Fatalf("golden scenario exit %d, want %d", rep.ExitCode(), ExitFailed)
	}
	for _, f := range []struct{ format, file string }{
		{FormatText, "report.txt"}, {FormatJSON, "report.json"}, {FormatJUnit, "report.xml"}, {FormatMarkdown, "report.md"},
	} {
		t.Run(f.format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Render(&buf, rep, f.format); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", f.file)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s output differs from %s; got:\n%s", f.format, golden, buf.String())
			}
		})
	}
	if err := Render(&bytes.Buffer{}, rep, "yaml"); err == nil || !strings.Contains(err.Error(), "unknown report format") {
		t.Errorf("unknown format: %v", err)
	}
}

// The JUnit report validates against the Jenkins/Surefire-style XSD in
// testdata (with xmllint when installed) and its counts agree with the
// report; the structural part runs everywhere.
func TestJUnitValid(t *testing.T) {
	rep := goldenReport(t)
	var buf bytes.Buffer
	if err := RenderJUnit(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit is not XML: %v", err)
	}
	if len(doc.Suites) != 2 || doc.Suites[0].Tests != len(rep.Probes) || doc.Suites[1].Tests != len(rep.Checks) {
		t.Fatalf("suites %+v: want one testcase per probe (%d) and per check (%d)", doc.Suites, len(rep.Probes), len(rep.Checks))
	}
	s := rep.Summary
	if doc.Tests != s.Pass+s.Fail+s.Error+s.Skip || doc.Failures != s.Fail || doc.Errors != s.Error {
		t.Errorf("testsuites counts tests=%d failures=%d errors=%d, summary %+v", doc.Tests, doc.Failures, doc.Errors, s)
	}
	for _, suite := range doc.Suites {
		for _, c := range suite.Cases {
			n := 0
			for _, m := range []*junitMessage{c.Failure, c.Error, c.Skipped} {
				if m != nil {
					n++
				}
			}
			if n > 1 || c.Name == "" || c.Classname == "" {
				t.Errorf("testcase %+v: needs name, classname and at most one outcome", c)
			}
		}
	}

	xmllint := testenv.Tool(t, "xmllint", "apt-get install libxml2-utils; the structural checks above passed")
	path := filepath.Join(t.TempDir(), "report.xml")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit.xsd", path).CombinedOutput()
	if err != nil {
		t.Fatalf("xmllint --schema: %v\n%s", err, out)
	}
}

// reportSchema is the JSON report's schema, docs/verify-report.schema.json.
func reportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	schema, err := jsonschema.Load("../docs/verify-report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// Every failure class a probe can carry is one the schema allows.
func TestSchemaKnowsEveryFailureClass(t *testing.T) {
	schema := reportSchema(t)
	for _, class := range append(perftest.Classes(), "agent", "gid", "emulation-refused") {
		rep := goldenReport(t)
		rep.Probes[0].Status, rep.Probes[0].Failure = StatusError, &Reason{Class: class, Hint: "h", Detail: "d"}
		var buf bytes.Buffer
		if err := RenderJSON(&buf, rep); err != nil {
			t.Fatal(err)
		}
		if errs := schema.Validate(buf.Bytes(), "#"); len(errs) > 0 {
			t.Errorf("class %q: the report does not match the schema:\n%s", class, strings.Join(errs, "\n"))
		}
	}
}

// The JSON report validates against the schema documented in docs/verify.md.
func TestJSONMatchesSchema(t *testing.T) {
	rep := goldenReport(t)
	var buf bytes.Buffer
	if err := RenderJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	schema := reportSchema(t)
	if errs := schema.Validate(buf.Bytes(), "#"); len(errs) > 0 {
		t.Fatalf("JSON report does not match the schema:\n%s", strings.Join(errs, "\n"))
	}
	// The validator itself must reject what the schema forbids.
	bad := map[string]any{}
	if err := json.Unmarshal(buf.Bytes(), &bad); err != nil {
		t.Fatal(err)
	}
	bad["format_version"] = "one"
	delete(bad, "summary")
	bad["probes"].([]any)[0].(map[string]any)["status"] = "meh"
	badJSON, err := json.Marshal(bad)
	if err != nil {
		t.Fatal(err)
	}
	errs := schema.Validate(badJSON, "#")
	for _, want := range []string{"$.format_version", "missing required \"summary\"", "$.probes[0].status"} {
		if !strings.Contains(strings.Join(errs, "\n"), want) {
			t.Errorf("validator missed %q in %q", want, errs)
		}
	}
}
