package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocefabric/roce/internal/jsonschema"
	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/verify"
)

// No public capture of a Nexus 7000 `show queuing interface` exists, so
// the lab's n7k-1 prints none roce reads (docs/nxos.md#queuing-7000) and
// roce-verify's lossless-drops check reads the managed ports' port-wide
// discards from `show interface` instead: with the fabric applied it
// passes, saying the counters are port-wide; once a port keeps dropping
// (the simulator counts more input discards on Ethernet3/1 at every read)
// it warns, naming the port, the count and the next step, and the run
// still exits 0. The JSON report says so, not only the text.
func TestVerify7000LosslessDropsPortWide(t *testing.T) {
	l := startLab(t)
	schema, err := jsonschema.Load(filepath.Join(repoRoot(), "docs", "verify-report.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r := roce(t, l, "", "roce-apply", "-auto-approve", l.Dir); r.code != 0 {
		t.Fatalf("apply of the fabric\n%s", r)
	}

	// run verifies the fabric and returns the report and n7k-1's
	// lossless-drops checks (one per round).
	run := func(t *testing.T) (verify.Report, []verify.Check) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "report.json")
		r := roce(t, l, "", "roce-verify", "-format", "json", "-out", out, l.Dir)
		if r.code != verify.ExitPass {
			t.Fatalf("roce-verify: want exit 0\n%s", r)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if errs := schema.Validate(b, "#"); len(errs) > 0 {
			t.Fatalf("the JSON report is not the documented one:\n%s", strings.Join(errs, "\n"))
		}
		var rep verify.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		var cs []verify.Check
		for _, c := range rep.Checks {
			if c.Name == verify.CheckLosslessDrops && c.Device == "switch.n7k-1" {
				cs = append(cs, c)
			}
		}
		if len(cs) == 0 {
			t.Fatalf("no lossless-drops check for switch.n7k-1 in\n%s", b)
		}
		return rep, cs
	}

	t.Run("no discards: pass from port-wide counters", func(t *testing.T) {
		rep, cs := run(t)
		t.Logf("%d check(s), the first: %s %s", len(cs), cs[0].Status, cs[0].Message)
		for _, c := range cs {
			if c.Status != verify.StatusPass || !strings.Contains(c.Message, "the counters are port-wide (input + output, every class)") ||
				!strings.Contains(c.Message, "nxsim: no public capture of a Nexus 7000") {
				t.Errorf("%s: %s %q, want a pass saying the counters are port-wide and why", c.ID(), c.Status, c.Message)
			}
		}
		if rep.Summary.Warn != 0 {
			t.Errorf("summary %+v, want no warning", rep.Summary)
		}
	})

	t.Run("a port keeps dropping: warn naming it", func(t *testing.T) {
		sim := l.Sims["n7k-1"].Switch()
		sim.SetFaults(nxsim.Faults{DiscardsPerRead: map[string]uint64{"Ethernet3/1": 5}})
		defer sim.SetFaults(nxsim.Faults{})
		rep, cs := run(t)
		t.Logf("%d check(s), the first: %s %s", len(cs), cs[0].Status, cs[0].Message)
		rose := regexp.MustCompile(`rose: Ethernet3/1 \+[1-9][0-9]*;`)
		for _, c := range cs {
			if c.Status != verify.StatusWarn || !rose.MatchString(c.Message) ||
				!strings.Contains(c.Message, "`show policy-map interface Ethernet3/1 type queuing`") ||
				!strings.Contains(c.Message, "docs/verify.md#lossless-drops") || strings.Contains(c.Message, "Ethernet3/2") {
				t.Errorf("%s: %s %q, want a warning naming Ethernet3/1 alone, its count and the next step", c.ID(), c.Status, c.Message)
			}
		}
		if rep.Summary.Warn < len(cs) || rep.Summary.Status != verify.StatusPass || rep.Summary.ExitCode != verify.ExitPass {
			t.Errorf("summary %+v, want status pass, exit 0 and %d warning(s) counted", rep.Summary, len(cs))
		}
	})
}
