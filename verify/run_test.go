package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/nics/perftest"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/telemetry"
)

type fabricSetup struct {
	net      *fakeNet
	hosts    map[string]*fakeHost
	switches map[string]*fakeSwitch
	fabric   Fabric
}

// setup builds the lab fabric with healthy telemetry and clients that all
// return result.
func setup(t *testing.T, result string, hosts ...string) *fabricSetup {
	t.Helper()
	s := &fabricSetup{net: newFakeNet(), hosts: map[string]*fakeHost{}, switches: map[string]*fakeSwitch{}}
	pol := labFabric(hosts...)
	s.fabric = Fabric{Policy: pol, Hosts: map[string]HostAgent{}, Switches: map[string]telemetry.Source{}}
	res := recorded(t, result)
	for _, h := range hosts {
		fh := &fakeHost{name: h, net: s.net, gid: 3, tele: steadyHost(h, map[string]string{"fw.mlx5_0": "16.35.2000"}),
			client: func(perftest.Options, int) (*perftest.Result, error) { r := *res; return &r, nil }}
		s.hosts[h] = fh
		s.fabric.Hosts["host."+h] = fh
	}
	for _, sw := range pol.Switches {
		fs := &fakeSwitch{tele: steadySwitch(sw.Name, sw.Interfaces...)}
		s.switches[sw.Name] = fs
		s.fabric.Switches["switch."+sw.Name] = fs
	}
	return s
}

var fastOpts = Options{ServerStartDelay: time.Millisecond, Now: fixedClock}

func findCheck(r *Report, name, device string) *Check {
	for i := range r.Checks {
		if r.Checks[i].Name == name && r.Checks[i].Device == device {
			return &r.Checks[i]
		}
	}
	return nil
}

func TestRunAllPass(t *testing.T) {
	s := setup(t, "multisize_gbps.txt", "a", "b", "c", "d")
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode() != ExitPass {
		var buf strings.Builder
		RenderText(&buf, rep)
		t.Fatalf("exit %d, want 0:\n%s", rep.ExitCode(), buf.String())
	}
	if len(rep.Probes) != 2 {
		t.Fatalf("%d probes, want 2 (4 hosts, one round)", len(rep.Probes))
	}
	for _, p := range rep.Probes {
		if p.Seconds <= 0 {
			t.Errorf("probe %s has no duration", p.Name())
		}
		if p.ServerSwitch == p.ClientSwitch {
			t.Errorf("probe %s stays on %s; cross-switch pairs exist", p.Name(), p.ServerSwitch)
		}
		// 100 Gb/s, VLAN, path MTU 4096, 64 KiB writes.
		want := 100 * 65536.0 / (65536 + 16*86 + 16)
		if p.Ceiling == nil || math.Abs(p.Ceiling.Gbps-want) > 1e-9 || p.ThresholdGbps != 80 || p.AvgGbps != 92.96 {
			t.Errorf("probe %s: ceiling %+v threshold %v avg %v", p.Name(), p.Ceiling, p.ThresholdGbps, p.AvgGbps)
		}
		if !strings.Contains(p.Message, "92.96 Gb/s of 97.") || !strings.Contains(p.Message, "path MTU 4096") {
			t.Errorf("message %q lacks the ceiling comparison", p.Message)
		}
	}
	if rep.Versions["switch.leaf1"]["os"] != "7.3(8)N1(1)" || rep.Versions["host.a"]["fw.mlx5_0"] != "16.35.2000" {
		t.Errorf("versions = %v", rep.Versions)
	}
	for _, name := range []string{CheckPFCOperational, CheckLosslessDrops, CheckPauseStorm} {
		if c := findCheck(rep, name, "switch.leaf2"); c == nil || c.Status != StatusPass {
			t.Errorf("check %s on switch.leaf2 = %+v", name, c)
		}
	}
	if c := findCheck(rep, CheckSequence, "host.a"); c == nil || c.Status != StatusPass {
		t.Errorf("sequence check on host.a = %+v", c)
	}
}

// Options pinned from the policy reach both sides identically, with the
// server's RoCE address for the client and a distinct port per pair.
func TestRunPinsPerftestOptions(t *testing.T) {
	s := setup(t, "rdma_cm_gbps.txt", "a", "b", "c", "d")
	s.fabric.Policy.Probe.ThresholdGbps, s.fabric.Policy.Probe.ThresholdFraction = 30, 0
	if _, err := Run(context.Background(), s.fabric, fastOpts); err != nil {
		t.Fatal(err)
	}
	var ports []int
	for _, name := range []string{"a", "b", "c", "d"} {
		h := s.hosts[name]
		if len(h.opts) != 1 {
			t.Fatalf("host %s ran %d probes, want 1", name, len(h.opts))
		}
		o := h.opts[0]
		if o.Device != "mlx5_0" || o.IBPort != 1 || o.GIDIndex != 3 || o.SL != 3 || o.TClass != 26<<2|2 ||
			o.Duration != 5*time.Second || o.QPs != 2 || o.Size != 65536 || o.RDMACM || o.Timeout != 30*time.Second {
			t.Errorf("host %s options %+v", name, o)
		}
		if !o.IsServer() && !strings.HasPrefix(o.Server, "10.10.0.") {
			t.Errorf("client %s connects to %q, want the server's RoCE address", name, o.Server)
		}
		ports = append(ports, o.TCPPort)
	}
	slices.Sort(ports)
	if !slices.Equal(ports, []int{18515, 18515, 18516, 18516}) {
		t.Errorf("ports = %v, want one port per pair from 18515", ports)
	}
	// Server first, then client, per port.
	for _, port := range []string{"18515", "18516"} {
		si, ci := -1, -1
		for i, c := range s.net.calls {
			if strings.Contains(c, "server "+port) {
				si = i
			}
			if strings.Contains(c, "client "+port) {
				ci = i
			}
		}
		if si < 0 || ci < 0 || si > ci {
			t.Errorf("port %s: server call %d, client call %d in %q", port, si, ci, s.net.calls)
		}
	}
}

func TestRunRDMACMUsesToS(t *testing.T) {
	s := setup(t, "rdma_cm_gbps.txt", "a", "b")
	s.fabric.Policy.Probe.RDMACM = true
	s.fabric.Policy.Probe.ThresholdGbps, s.fabric.Policy.Probe.ThresholdFraction = 30, 0
	if _, err := Run(context.Background(), s.fabric, fastOpts); err != nil {
		t.Fatal(err)
	}
	o := s.hosts["a"].opts[0]
	if !o.RDMACM || o.ToS != 106 || o.TClass != 0 || o.GIDIndex != -1 {
		t.Errorf("rdma_cm options %+v, want -R -T 106 and no GID pin", o)
	}
}

func TestRunOutcomes(t *testing.T) {
	tests := []struct {
		name   string
		result string
		mutate func(s *fabricSetup)
		exit   int
		status Status
		class  string
		host   string
		msg    string
	}{
		{
			name: "below threshold", result: "rdma_cm_gbps.txt", exit: ExitFailed, status: StatusFail,
			class: perftest.ClassThreshold, host: "host.b", msg: "36.07 Gb/s of 97.",
		},
		{
			name: "server has no RDMA device", result: "multisize_gbps.txt", exit: ExitError, status: StatusError,
			class: perftest.ClassNoDevice, host: "host.a", msg: "no-device on host.a",
			mutate: func(s *fabricSetup) {
				s.hosts["a"].serverErr = perftest.Classify("", " Did not detect devices \n", 1)
			},
		},
		{
			name: "client rtr failure", result: "multisize_gbps.txt", exit: ExitFailed, status: StatusFail,
			class: perftest.ClassRTRRTS, host: "host.b", msg: "rtr-rts on host.b",
			mutate: func(s *fabricSetup) {
				s.hosts["b"].client = func(perftest.Options, int) (*perftest.Result, error) {
					return &perftest.Result{ExitCode: 1}, perftest.Classify("", "Failed to modify QP 59 to RTR\n", 1)
				}
			},
		},
		{
			name: "refused rendezvous is retried", result: "multisize_gbps.txt", exit: ExitPass, status: StatusPass,
			mutate: func(s *fabricSetup) {
				ok := s.hosts["b"].client
				s.hosts["b"].client = func(o perftest.Options, n int) (*perftest.Result, error) {
					if n == 1 {
						return &perftest.Result{ExitCode: 1}, perftest.Classify("", "Couldn't connect to 10.10.0.10:18515\n", 1)
					}
					return ok(o, n)
				}
			},
		},
		{
			name: "server agent fails before perftest runs", result: "multisize_gbps.txt", exit: ExitError, status: StatusError,
			class: "agent", host: "host.a", msg: "agent on host.a: host root missing",
			mutate: func(s *fabricSetup) { s.hosts["a"].serverErr = errors.New("host root missing") },
		},
		{
			name: "server ends cleanly before the client starts: client still runs", result: "multisize_gbps.txt", exit: ExitPass, status: StatusPass,
			msg: "92.96 Gb/s of 97.92 Gb/s ceiling",
			mutate: func(s *fabricSetup) {
				// Like a replayed output: the server side returns at once.
				s.hosts["a"].serverDone = recorded(t, "multisize_gbps.txt")
			},
		},
		{
			name: "no agent for a host", result: "multisize_gbps.txt", exit: ExitError, status: StatusError,
			class: "agent", host: "host.b", msg: "no agent for host.b",
			mutate: func(s *fabricSetup) { delete(s.fabric.Hosts, "host.b") },
		},
		{
			name: "GID cannot be resolved", result: "multisize_gbps.txt", exit: ExitError, status: StatusError,
			class: "gid", host: "host.a", msg: "resolving the GID index of ens1f0 on host.a",
			mutate: func(s *fabricSetup) { s.hosts["a"].gid = -1 },
		},
		{
			name: "link rate unknown with a fractional threshold", result: "multisize_gbps.txt", exit: ExitError, status: StatusError,
			msg: "neither host reported its link rate",
			mutate: func(s *fabricSetup) {
				for _, h := range s.hosts {
					h.tele = func(int) *telemetry.Device {
						p := healthyHostPort("ens1f0")
						p.RateGbps = 0
						return &telemetry.Device{Ports: []telemetry.Port{p}}
					}
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := setup(t, tc.result, "a", "b")
			if tc.mutate != nil {
				tc.mutate(s)
			}
			rep, err := Run(context.Background(), s.fabric, fastOpts)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Probes) != 1 {
				t.Fatalf("%d probes", len(rep.Probes))
			}
			p := rep.Probes[0]
			if rep.ExitCode() != tc.exit || p.Status != tc.status || !strings.Contains(p.Message, tc.msg) {
				t.Errorf("exit %d status %s message %q; want exit %d status %s message ~%q", rep.ExitCode(), p.Status, p.Message, tc.exit, tc.status, tc.msg)
			}
			if tc.class != "" && (p.Failure == nil || p.Failure.Class != tc.class || p.Failure.Host != tc.host || p.Failure.Hint == "") {
				t.Errorf("failure = %+v, want class %s on %s with a hint", p.Failure, tc.class, tc.host)
			}
		})
	}
}

func TestRunCounterChecks(t *testing.T) {
	s := setup(t, "multisize_gbps.txt", "a", "b")
	// leaf1: Ethernet1/2 loses PFC; leaf2 drops on the no-drop queue and
	// pauses without end; host b sees out-of-sequence packets.
	s.switches["leaf1"].tele = func(int) *telemetry.Device {
		d := steadySwitch("leaf1", "Ethernet1/1", "Ethernet1/2")(0)
		d.Ports[1].PFCOperational = false
		d.Ports[1].PFCMode = "auto"
		return d
	}
	s.switches["leaf2"].tele = func(n int) *telemetry.Device {
		d := steadySwitch("leaf2", "Ethernet1/1", "Ethernet1/2")(0)
		d.Ports[0].LosslessDiscards = uint64(n) * 7
		d.Ports[0].RxPause[3] = uint64(n) * 1e9
		return d
	}
	s.hosts["b"].tele = func(n int) *telemetry.Device {
		p := healthyHostPort("ens1f0")
		p.Counters = map[string]uint64{telemetry.CounterOutOfSequence: uint64(n) * 12, telemetry.CounterCNPSent: uint64(n) * 5}
		return &telemetry.Device{Ports: []telemetry.Port{p}}
	}
	s.hosts["a"].tele = nil // agent telemetry fails
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name, device string
		status       Status
		msg          string
	}{
		{CheckPFCOperational, "switch.leaf1", StatusFail, "Ethernet1/2 (PFC not operational, mode auto)"},
		{CheckLosslessDrops, "switch.leaf2", StatusFail, "Ethernet1/1 7 lossless discards"},
		{CheckPauseStorm, "switch.leaf2", StatusFail, "pause frames/s on priority 3"},
		{CheckSequence, "host.b", StatusFail, "roce.out_of_sequence +12"},
		{CheckSequence, "host.b", StatusFail, "ECN/DCQCN active: ens1f0 roce.cnp_sent +5"},
		{CheckTelemetry, "host.a", StatusError, "agent unreachable"},
		{CheckPFCOperational, "switch.leaf2", StatusPass, "PFC operational for priority 3 on 2 port(s)"},
	}
	for _, w := range want {
		c := findCheck(rep, w.name, w.device)
		if c == nil || c.Status != w.status || !strings.Contains(c.Message, w.msg) {
			t.Errorf("check %s %s = %+v, want %s ~%q", w.name, w.device, c, w.status, w.msg)
		}
	}
	if rep.ExitCode() != ExitFailed {
		t.Errorf("exit %d, want %d", rep.ExitCode(), ExitFailed)
	}
}

func TestRunOddHostsAndTargets(t *testing.T) {
	s := setup(t, "multisize_gbps.txt", "a", "b", "c")
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Probes) != 2 || rep.Probes[1].Round != 2 {
		t.Fatalf("probes = %+v, want 2 over 2 rounds", rep.Probes)
	}
	cov := findCheck(rep, CheckCoverage, "")
	if cov == nil || !strings.Contains(cov.Message, "2 pair(s) in 2 round(s) cover 3 host(s) and 2 switch(es) (leaf1, leaf2)") {
		t.Errorf("coverage = %+v", cov)
	}

	s = setup(t, "multisize_gbps.txt", "a", "b", "c")
	opts := fastOpts
	opts.Targets = []string{"host.a", "switch.leaf1"}
	rep, err = Run(context.Background(), s.fabric, opts)
	if err != nil {
		t.Fatal(err)
	}
	cov = findCheck(rep, CheckCoverage, "")
	if len(rep.Probes) != 0 || cov == nil || cov.Status != StatusSkip || !strings.Contains(cov.Message, "only one selected host (host.a)") {
		t.Errorf("targets: probes %d coverage %+v", len(rep.Probes), cov)
	}
	if findCheck(rep, CheckPFCOperational, "switch.leaf2") != nil {
		t.Error("switch.leaf2 was not selected but was checked")
	}
	if c := findCheck(rep, CheckPFCOperational, "switch.leaf1"); c == nil || c.Status != StatusPass {
		t.Errorf("selected switch.leaf1 state check = %+v", c)
	}
	// The unpaired host still gets its PFC state checked on its class NIC.
	if c := findCheck(rep, CheckPFCOperational, "host.a"); c == nil || c.Status != StatusPass || c.Round != 0 || !strings.Contains(c.Message, "1 port(s)") {
		t.Errorf("unpaired host.a state check = %+v", c)
	}
	if rep.Versions["host.a"]["fw.mlx5_0"] != "16.35.2000" {
		t.Errorf("versions of the unpaired host not recorded: %v", rep.Versions)
	}
}

func TestRunErrors(t *testing.T) {
	if _, err := Run(context.Background(), Fabric{}, Options{}); err == nil {
		t.Error("Run without policy succeeded")
	}
	s := setup(t, "multisize_gbps.txt", "a", "b")
	s.fabric.Policy.Lossless = nil
	if _, err := Run(context.Background(), s.fabric, Options{}); err == nil || !strings.Contains(err.Error(), "no lossless class") {
		t.Errorf("err = %v", err)
	}
	s = setup(t, "multisize_gbps.txt", "a", "b")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, s.fabric, fastOpts); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("cancelled run err = %v", err)
	}
}

// The real perftest through LocalAgent on this machine (no RDMA device):
// every probe is an error naming the missing device, exit 1.
func TestRunLocalAgentRealPerftestNoDevice(t *testing.T) {
	requireRealPerftest(t)
	pol := labFabric("a", "b")
	pol.Probe.Timeout = 20 * time.Second
	f := Fabric{Policy: pol, Hosts: map[string]HostAgent{"host.a": &LocalAgent{Name: "a"}, "host.b": &LocalAgent{Name: "b"}}}
	rep, err := Run(context.Background(), f, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Probes[0]
	if p.Status != StatusError || p.Failure == nil || p.Failure.Class != perftest.ClassNoDevice || !strings.Contains(p.Failure.Hint, "no RDMA device") {
		t.Errorf("probe = %+v", p)
	}
	if rep.ExitCode() != ExitError {
		t.Errorf("exit %d, want %d", rep.ExitCode(), ExitError)
	}
}

// The substitute probe command (replay.sh) through LocalAgent: parsing
// and threshold logic on a recorded output, with a fixed threshold
// because the local agent has no link-rate telemetry.
func TestRunLocalAgentSubstituteCommand(t *testing.T) {
	pol := labFabric("a", "b")
	pol.Probe.ThresholdGbps, pol.Probe.ThresholdFraction = 90, 0
	f := Fabric{Policy: pol, Hosts: map[string]HostAgent{"host.a": &LocalAgent{Name: "a"}, "host.b": &LocalAgent{Name: "b"}}}
	opts := fastOpts
	opts.Command = []string{"sh", "../nics/perftest/testdata/replay.sh", "../nics/perftest/testdata/multisize_gbps.txt"}
	rep, err := Run(context.Background(), f, opts)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Probes[0]
	if p.Status != StatusPass || p.AvgGbps != 92.96 || len(p.Rows) != 4 {
		t.Errorf("probe = %+v", p)
	}
	if p.ClientArgv[0] != "sh" || !slices.Contains(p.ClientArgv, "--report_gbits") || p.ClientArgv[len(p.ClientArgv)-1] != "10.10.0.10" {
		t.Errorf("client argv = %q", p.ClientArgv)
	}
	// No telemetry on the local agent: reported, not hidden.
	if c := findCheck(rep, CheckTelemetry, "host.a"); c == nil || c.Status != StatusError {
		t.Errorf("telemetry check = %+v", c)
	}
}

// nicHost is an agent that takes the NIC and resolves the GID itself, like
// roce-agent; it reports the argv it really ran.
type nicHost struct {
	*fakeHost
	nics []string
}

func (h *nicHost) ProbeNIC(ctx context.Context, nic *policies.NIC, o perftest.Options) (*perftest.Result, error) {
	h.mu.Lock()
	h.nics = append(h.nics, nic.Netdev+"/"+nic.Address)
	h.mu.Unlock()
	if o.GIDIndex != -1 {
		return nil, fmt.Errorf("verify resolved the GID (%d) although the agent takes the NIC", o.GIDIndex)
	}
	o.GIDIndex = 5
	res, err := h.Probe(ctx, o)
	if res != nil {
		r := *res
		r.Argv = perftest.Argv(o)
		res = &r
	}
	return res, err
}

func TestRunNICProberAgent(t *testing.T) {
	s := setup(t, "multisize_gbps.txt", "a", "b")
	a, b := &nicHost{fakeHost: s.hosts["a"]}, &nicHost{fakeHost: s.hosts["b"]}
	s.fabric.Hosts["host.a"], s.fabric.Hosts["host.b"] = a, b
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Probes[0]
	if p.Status != StatusPass {
		t.Fatalf("probe = %+v", p)
	}
	if len(a.nics) != 1 || a.nics[0] != "ens1f0/10.10.0.10/24" || len(b.nics) != 1 {
		t.Errorf("NICs passed to the agents: %v %v", a.nics, b.nics)
	}
	if !slices.Contains(p.ClientArgv, "-x") || p.ClientArgv[slices.Index(p.ClientArgv, "-x")+1] != "5" {
		t.Errorf("client argv %q should be what the agent ran (GID 5)", p.ClientArgv)
	}
}

// What an agent did around a run (a leftover perftest server stopped on
// the port) reaches the probe's notes, named by host, and the text report.
func TestRunReportsAgentNotes(t *testing.T) {
	s := setup(t, "multisize_gbps.txt", "a", "b")
	note := "stopped a leftover ib_write_bw server (pid 4242) that was listening on TCP port 18515"
	for _, h := range s.hosts {
		res := recorded(t, "multisize_gbps.txt")
		res.Notes = []string{note}
		h.serverDone = res
	}
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Probes) != 1 {
		t.Fatalf("%d probes", len(rep.Probes))
	}
	p := rep.Probes[0]
	if want := []string{p.Server + ": " + note}; !slices.Equal(p.Notes, want) {
		t.Errorf("notes %q, want %q", p.Notes, want)
	}
	var b strings.Builder
	if err := RenderText(&b, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "note: "+p.Server+": "+note) {
		t.Errorf("text report lacks the note:\n%s", b.String())
	}
	for _, f := range []string{FormatMarkdown, FormatJUnit, FormatJSON} {
		var out strings.Builder
		if err := Render(&out, rep, f); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "leftover ib_write_bw server (pid 4242)") {
			t.Errorf("%s report lacks the note:\n%s", f, out.String())
		}
	}
}
