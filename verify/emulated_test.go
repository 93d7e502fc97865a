package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/perftest"
	"github.com/rocefabric/roce/telemetry"
)

// labSetup is setup() with every host a lab host: local, with a seeded lab
// tree as root. The agents fail the test if a probe reaches them.
func labSetup(t *testing.T, hosts ...string) *fabricSetup {
	t.Helper()
	s := setup(t, "multisize_gbps.txt", hosts...)
	dir := t.TempDir()
	for _, h := range s.fabric.Policy.Hosts {
		h.Local = true
		h.Root = filepath.Join(dir, h.Name)
		spec := nics.LabSpec{EmulatedLinks: true, NICs: []nics.LabNIC{{Netdev: "ens1f0", RDMADevice: "mlx5_0"}}}
		if err := nics.SeedLab(h.Root, spec); err != nil {
			t.Fatal(err)
		}
		s.hosts[h.Name].client = func(perftest.Options, int) (*perftest.Result, error) {
			t.Errorf("host.%s: an emulated probe reached the agent", h.Name)
			return nil, perftest.Classify("", "Did not detect devices\n", 1)
		}
	}
	return s
}

func readCounter(t *testing.T, root, name string) uint64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "sys/class/infiniband/mlx5_0/ports/1", name))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func reportText(r *Report) string {
	var b strings.Builder
	_ = RenderText(&b, r)
	return b.String()
}

// TestEmulatedLosslessPath: lab hosts on a path where every hop pauses the
// class get the RoCE ceiling, labelled emulated, and no sequence errors.
func TestEmulatedLosslessPath(t *testing.T) {
	s := labSetup(t, "a", "b")
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode() != ExitPass || len(rep.Probes) != 1 {
		t.Fatalf("exit %d, %d probes, want a pass:\n%s", rep.ExitCode(), len(rep.Probes), reportText(rep))
	}
	p := rep.Probes[0]
	if p.Emulated == nil || p.Emulated.Label != EmulatedLabel || !rep.Emulated {
		t.Fatalf("probe not labelled emulated: %+v", p)
	}
	if p.Ceiling == nil || p.AvgGbps != p.Ceiling.Gbps {
		t.Errorf("lossless emulated path: %.3f Gb/s, want the ceiling %+v", p.AvgGbps, p.Ceiling)
	}
	if len(p.Emulated.Hops) != 4 {
		t.Errorf("hops %+v, want client NIC, leaf1, leaf2, server NIC", p.Emulated.Hops)
	}
	if len(p.Causes) != 0 {
		t.Errorf("a passing probe has causes: %+v", p.Causes)
	}
}

// TestEmulatedHopWithoutNoDrop: a switch whose ports do not pause the
// class's priority collapses the probe to tens of Mb/s, the counters show
// it on the lab hosts, and the diagnosis names the switch first.
func TestEmulatedHopWithoutNoDrop(t *testing.T) {
	s := labSetup(t, "a", "b")
	s.switches["leaf2"].tele = func(int) *telemetry.Device {
		d := steadySwitch("leaf2", "Ethernet1/1", "Ethernet1/2")(0)
		for i := range d.Ports {
			d.Ports[i].PFCPriorities = 1 << 4 // the class is on 3
		}
		return d
	}
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode() != ExitFailed || len(rep.Probes) != 1 {
		t.Fatalf("exit %d, want a verification failure:\n%s", rep.ExitCode(), reportText(rep))
	}
	p := rep.Probes[0]
	if p.Status != StatusFail || p.AvgGbps <= 0 || p.AvgGbps > 0.1 {
		t.Errorf("probe %s at %.4f Gb/s, want a failure at tens of Mb/s", p.Status, p.AvgGbps)
	}
	if !strings.Contains(p.Message, " Mb/s of ") {
		t.Errorf("message %q: a collapse below 1 Gb/s reads in Mb/s", p.Message)
	}
	if len(p.Causes) == 0 || p.Causes[0].Kind != CauseNoPause || p.Causes[0].Device != "switch.leaf2" {
		t.Fatalf("causes %+v, want no-pause on switch.leaf2 first", p.Causes)
	}
	server, client := s.fabric.Policy.Hosts[0], s.fabric.Policy.Hosts[1]
	if p.Server != "host."+server.Name {
		server, client = client, server
	}
	if readCounter(t, server.Root, "hw_counters/out_of_sequence") == 0 {
		t.Error("the receiving lab host's out_of_sequence counter did not move")
	}
	if readCounter(t, client.Root, "hw_counters/local_ack_timeout_err") == 0 || readCounter(t, client.Root, "hw_counters/packet_seq_err") == 0 {
		t.Error("the sending lab host's ACK timeout / sequence-error counters did not move")
	}
}

// TestEmulatedNICMapping: a NIC with DSCP trust but no APP entry for the
// class's DSCP sends RoCE on another priority: the probe collapses and the
// diagnosis names the NIC.
func TestEmulatedNICMapping(t *testing.T) {
	s := labSetup(t, "a", "b")
	for _, h := range s.fabric.Policy.Hosts {
		h.NICs[0].Trust = "dscp"
	}
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Probes[0]
	if p.Status != StatusFail {
		t.Fatalf("probe %s, want fail:\n%s", p.Status, reportText(rep))
	}
	found := false
	for _, c := range p.Causes {
		if c.Kind == CauseNICMapping && strings.Contains(c.Detail, "DSCP 26") {
			found = true
		}
	}
	if !found {
		t.Errorf("causes %+v, want a nic-mapping cause naming DSCP 26", p.Causes)
	}
}

// TestEmulationRefusedOnNonLabHosts: with emulation on, a host that is not
// a lab host is refused (an error naming why), never emulated; in auto
// mode such hosts run the agents' perftest.
func TestEmulationRefusedOnNonLabHosts(t *testing.T) {
	s := setup(t, "multisize_gbps.txt", "a", "b")
	opts := fastOpts
	opts.Emulation = EmulationOn
	rep, err := Run(context.Background(), s.fabric, opts)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Probes[0]
	if p.Status != StatusError || p.Failure == nil || p.Failure.Class != ClassEmulationRefused || !strings.Contains(p.Failure.Detail, "not a lab host") {
		t.Fatalf("probe %+v, want an emulation-refused error", p)
	}
	if p.AvgGbps != 0 {
		t.Errorf("a refused probe reports %.2f Gb/s", p.AvgGbps)
	}
	if len(s.net.calls) != 0 {
		t.Errorf("a refused probe called the agents: %v", s.net.calls)
	}

	s = setup(t, "multisize_gbps.txt", "a", "b")
	rep, err = Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Probes[0].Emulated != nil || rep.Emulated || len(s.net.calls) == 0 {
		t.Errorf("auto mode emulated a non-lab host (calls %v)", s.net.calls)
	}

	// A probe command substitutes perftest on lab hosts too: auto mode
	// runs it through the agents instead of emulating.
	s = labSetup(t, "a", "b")
	for _, h := range s.hosts {
		h.client = func(perftest.Options, int) (*perftest.Result, error) { return recorded(t, "multisize_gbps.txt"), nil }
	}
	sub := fastOpts
	sub.Command = []string{"sh", "replay.sh"}
	rep, err = Run(context.Background(), s.fabric, sub)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Probes[0].Emulated != nil || len(s.net.calls) == 0 {
		t.Errorf("a probe command on lab hosts was emulated instead of run (calls %v)", s.net.calls)
	}

	// A root with the lab marker is still not a lab host unless it is local.
	s = labSetup(t, "a", "b")
	s.fabric.Policy.Hosts[0].Local = false
	rep, err = Run(context.Background(), s.fabric, opts)
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Probes[0].Failure; f == nil || f.Class != ClassEmulationRefused {
		t.Errorf("remote host with a lab-looking root: %+v, want refused", rep.Probes[0])
	}
}

// TestEmulatedLabelInEveryFormat: text, JSON, JUnit and Markdown all say
// "emulated", and the diagnosis shows in each.
func TestEmulatedLabelInEveryFormat(t *testing.T) {
	s := labSetup(t, "a", "b")
	s.switches["leaf1"].tele = func(int) *telemetry.Device {
		d := steadySwitch("leaf1", "Ethernet1/1", "Ethernet1/2")(0)
		d.Ports[0].PFCOperational, d.Ports[0].PFCMode = false, "off"
		return d
	}
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{FormatText, FormatJSON, FormatJUnit, FormatMarkdown} {
		var b bytes.Buffer
		if err := Render(&b, rep, f); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(strings.ToLower(out), EmulatedLabel) {
			t.Errorf("%s report does not say %q:\n%s", f, EmulatedLabel, out)
		}
		if !strings.Contains(out, "no-pause") || !strings.Contains(out, "switch.leaf1") {
			t.Errorf("%s report does not carry the cause (no-pause on switch.leaf1):\n%s", f, out)
		}
	}
	var b bytes.Buffer
	if err := RenderJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Emulated bool `json:"emulated"`
		Probes   []struct {
			Emulated *struct {
				Label string `json:"label"`
			} `json:"emulated"`
		} `json:"probes"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.Emulated || len(doc.Probes) != 1 || doc.Probes[0].Emulated == nil || doc.Probes[0].Emulated.Label != EmulatedLabel {
		t.Errorf("JSON does not mark the probe emulated: %s", b.String())
	}
	var junit bytes.Buffer
	if err := RenderJUnit(&junit, rep); err != nil {
		t.Fatal(err)
	}
	xmllint := testenv.Tool(t, "xmllint", "apt-get install libxml2-utils")
	path := filepath.Join(t.TempDir(), "emulated.xml")
	if err := os.WriteFile(path, junit.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit.xsd", path).CombinedOutput(); err != nil {
		t.Errorf("emulated JUnit report: xmllint --schema: %v\n%s", err, out)
	}
	if errs := reportSchema(t).Validate(b.Bytes(), "#"); len(errs) > 0 {
		t.Errorf("emulated JSON report does not match the schema:\n%s", strings.Join(errs, "\n"))
	}
}

// TestEmulatedBaselineComparesOnlyEmulated: a baseline recorded on the lab's
// emulated device marks its results, and a measured run is not compared
// with them (nor the other way round).
func TestEmulatedBaselineComparesOnlyEmulated(t *testing.T) {
	s := labSetup(t, "a", "b")
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBaseline(rep)
	if len(b.Results) != 1 || !b.Results[0].Emulated {
		t.Fatalf("baseline %+v, want one emulated result", b.Results)
	}
	emulated := findCheckIn(Compare(rep, b, 10), CheckBaseline)
	if emulated == nil || emulated.Status != StatusPass {
		t.Errorf("emulated vs emulated baseline: %+v, want a pass", emulated)
	}
	measured := *rep
	measured.Probes = append([]Probe(nil), rep.Probes...)
	measured.Probes[0].Emulated = nil
	c := findCheckIn(Compare(&measured, b, 10), CheckBaseline)
	if c == nil || c.Status != StatusSkip || !strings.Contains(c.Message, "emulated") {
		t.Errorf("measured run vs emulated baseline: %+v, want skipped, saying why", c)
	}
}

func findCheckIn(cs []Check, name string) *Check {
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}
