package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/internal/cli"
	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/telemetry"
	"github.com/rocefabric/roce/verify"
)

const policyHCL = `
lossless "roce" {
  udp_port = 4791
  dscp     = [26]
  priority = 3
}

credentials "sw" {
  username     = "admin"
  password_env = "ROCE_TEST_UNUSED_PASSWORD"
}

switch "leaf1" {
  platform    = "nexus5000"
  address     = "127.0.0.1:2201"
  credentials = "sw"
  interfaces  = ["Ethernet1/1-2"]
  insecure_skip_verify = true
}

switch "leaf2" {
  platform    = "nexus5000"
  address     = "127.0.0.1:2202"
  credentials = "sw"
  interfaces  = ["Ethernet1/1-2"]
  insecure_skip_verify = true
}

probe {
  duration       = "1s"
  threshold_gbps = %THRESHOLD%
  timeout        = "20s"
}

host "a" {
  local  = true
  switch = "leaf1"
  nic "ens1f0" {
    rdma_device = "mlx5_0"
    address     = "10.10.0.11/24"
    roce_mode   = "v2"
    gid_index   = 3
  }
}

host "b" {
  local  = true
  switch = "leaf2"
  nic "ens1f0" {
    rdma_device = "mlx5_0"
    address     = "10.10.0.12/24"
    roce_mode   = "v2"
    gid_index   = 3
  }
}
`

func writePolicy(t *testing.T, threshold string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(strings.ReplaceAll(policyHCL, "%THRESHOLD%", threshold)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fakeHostTarget is a host provider target with telemetry only (probes run
// locally with -local-probes).
type fakeHostTarget struct {
	name string
	fw   string
}

func (f *fakeHostTarget) Address() string { return "host." + f.name }
func (f *fakeHostTarget) Plan(context.Context) (*plan.TargetPlan, error) {
	return nil, errors.New("not used")
}
func (f *fakeHostTarget) Close() error { return nil }
func (f *fakeHostTarget) Apply(context.Context, *plan.TargetPlan) (*plan.ApplyResult, error) {
	return nil, errors.New("not used")
}
func (f *fakeHostTarget) Telemetry(context.Context) (*telemetry.Device, error) {
	return &telemetry.Device{Address: f.Address(), Kind: "host", Versions: map[string]string{"fw.mlx5_0": f.fw},
		Ports: []telemetry.Port{{Name: "ens1f0", PFCOperational: true, PFCPriorities: 1 << 3, RateGbps: 100, MTU: 9000}}}, nil
}

// fakeSwitchTarget reports healthy PFC on the switch's interfaces.
type fakeSwitchTarget struct {
	fakeHostTarget
	sw *policies.Switch
}

func (f *fakeSwitchTarget) Address() string { return "switch." + f.sw.Name }
func (f *fakeSwitchTarget) Telemetry(context.Context) (*telemetry.Device, error) {
	d := &telemetry.Device{Address: f.Address(), Kind: f.sw.Platform, Versions: map[string]string{"os": "7.3(8)N1(1)"}}
	for _, i := range f.sw.Interfaces {
		d.Ports = append(d.Ports, telemetry.Port{Name: i, PFCMode: "on", PFCOperational: true, PFCPriorities: 1 << 3})
	}
	return d, nil
}

func testRegistry(fw string) *plan.Registry {
	return &plan.Registry{
		Host: func(env plan.Env, h *policies.Host) (plan.Target, error) {
			return &fakeHostTarget{name: h.Name, fw: fw}, nil
		},
		Switches: map[string]plan.SwitchFactory{
			policies.PlatformNexus5000: func(env plan.Env, sw *policies.Switch) (plan.Target, error) {
				return &fakeSwitchTarget{sw: sw}, nil
			},
		},
	}
}

func replay(file string) string {
	return "sh ../../nics/perftest/testdata/replay.sh ../../nics/perftest/testdata/" + file
}

func TestCLIExitCodesAndFormats(t *testing.T) {
	tests := []struct {
		name      string
		threshold string
		args      []string
		reg       *plan.Registry
		exit      int
		stdout    []string
		stderr    string
	}{
		{
			name: "substitute passes", threshold: "90", reg: testRegistry("16.35.2000"),
			args: []string{"-local-probes", "-allow-this-machine", "-probe-command", replay("multisize_gbps.txt")},
			exit: verify.ExitPass, stdout: []string{"roce-verify: PASS (exit 0)", "92.96 Gb/s of 98.01 Gb/s ceiling"},
		},
		{
			name: "substitute below threshold", threshold: "90", reg: testRegistry("16.35.2000"),
			args: []string{"-local-probes", "-allow-this-machine", "-probe-command", replay("rdma_cm_gbps.txt")},
			exit: verify.ExitFailed, stdout: []string{"roce-verify: FAIL (exit 3)", "below threshold 90.00 Gb/s"},
		},
		{
			name: "markdown", threshold: "90", reg: testRegistry("16.35.2000"),
			args: []string{"-local-probes", "-allow-this-machine", "-format", "markdown", "-probe-command", replay("multisize_gbps.txt")},
			exit: verify.ExitPass, stdout: []string{"## roce-verify: PASS", "| PASS | roce | 1 | host.a | host.b | 92.96 |"},
		},
		{
			name: "junit", threshold: "90", reg: testRegistry("16.35.2000"),
			args: []string{"-local-probes", "-allow-this-machine", "-format", "junit", "-probe-command", replay("multisize_gbps.txt")},
			exit: verify.ExitPass, stdout: []string{`<testsuites name="roce-verify"`, `classname="roce.probe.roce"`},
		},
		{
			name: "bad format", threshold: "90", reg: testRegistry(""), args: []string{"-format", "yaml"},
			exit: 1, stderr: `-format "yaml"`,
		},
		{
			name: "bad tolerance", threshold: "90", reg: testRegistry(""), args: []string{"-tolerance", "120"},
			exit: 1, stderr: "-tolerance 120",
		},
		{
			name: "missing baseline", threshold: "90", reg: testRegistry(""), args: []string{"-baseline", "/nonexistent/b.json"},
			exit: 1, stderr: "/nonexistent/b.json",
		},
		{
			name: "bad policy", threshold: "-1", reg: testRegistry(""), args: nil,
			exit: 1, stderr: "threshold_gbps must be above 0",
		},
		{
			name: "help documents exit codes", threshold: "90", reg: testRegistry(""), args: []string{"-help"},
			exit: 0, stderr: "3  verification failed",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writePolicy(t, tc.threshold)
			var out, errb bytes.Buffer
			code := run(context.Background(), append(tc.args, dir), &out, &errb, tc.reg)
			if code != tc.exit {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.exit, out.String(), errb.String())
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			if !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errb.String())
			}
		})
	}
}

// Record a baseline, then a firmware upgrade and a slower result: the
// second run fails naming the device and both numbers.
func TestCLIBaselineFlow(t *testing.T) {
	dir := writePolicy(t, "30")
	base := filepath.Join(t.TempDir(), "baseline.json")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"-local-probes", "-allow-this-machine", "-probe-command", replay("multisize_gbps.txt"), "-record-baseline", base, dir}, &out, &errb, testRegistry("16.35.2000"))
	if code != 0 || !strings.Contains(errb.String(), "recorded baseline") {
		t.Fatalf("record: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	b, err := verify.ReadBaseline(base)
	if err != nil || len(b.Results) != 1 || b.Versions["host.a"]["fw.mlx5_0"] != "16.35.2000" {
		t.Fatalf("baseline %+v, %v", b, err)
	}

	out.Reset()
	errb.Reset()
	report := filepath.Join(t.TempDir(), "report.json")
	code = run(context.Background(), []string{"-local-probes", "-allow-this-machine", "-probe-command", replay("rdma_cm_gbps.txt"), "-baseline", base,
		"-format", "json", "-out", report, dir}, &out, &errb, testRegistry("16.36.1010"))
	if code != verify.ExitFailed {
		t.Fatalf("compare: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{
		"36.07 Gb/s is 61.2% below baseline 92.96 Gb/s",
		"host.a fw.mlx5_0 changed from 16.35.2000 to 16.36.1010",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, out.String())
		}
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep verify.Report
	if err := json.Unmarshal(data, &rep); err != nil || rep.FormatVersion != verify.ReportFormatVersion || rep.Summary.ExitCode != 3 {
		t.Errorf("JSON report: %v %+v", err, rep.Summary)
	}
}

// The real perftest on this machine (no RDMA device): the report says so,
// names the host and exits 1.
func TestCLIRealPerftestNoDevice(t *testing.T) {
	testenv.Tool(t, "ib_write_bw", "make deps-test installs Debian's perftest")
	if ents, err := os.ReadDir("/sys/class/infiniband"); err == nil && len(ents) > 0 {
		t.Skip("machine has RDMA devices")
	}
	dir := writePolicy(t, "30")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"-local-probes", "-allow-this-machine", dir}, &out, &errb, testRegistry("1"))
	if code != verify.ExitError {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"no-device on host.", "Did not detect devices", "hint: no RDMA device is visible on this host"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestMissingRDMADevice(t *testing.T) {
	tests := []struct {
		msg  string
		want bool
	}{
		{"host.h1: roce-agent probe: failed: GID lookup on mlx5_0/1: open /r/sys/class/infiniband/mlx5_0/ports/1/gids: no such file or directory", true},
		{"host.h1: run roce-agent (ssh://x) for probe: dial tcp: connection refused", false},
		{"open /sys/class/infiniband/mlx5_0/ports/1/gids/3: permission denied", false},
	}
	for _, tc := range tests {
		if got := missingRDMADevice(errors.New(tc.msg)); got != tc.want {
			t.Errorf("missingRDMADevice(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
}

// -h describes the shared flags as verify uses them, not as plan/apply do.
func TestHelpDescribesVerifyFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &out, &errb, testRegistry("")); code != 0 {
		t.Fatalf("exit %d", code)
	}
	help := errb.String()
	if strings.Contains(help, "read or apply") {
		t.Errorf("help still describes plan/apply flags:\n%s", help)
	}
	for _, want := range []string{"how many probes and counter reads to run at once", "overriding probe { timeout }"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
}

// -local-probes runs programs on this machine: refused without
// -allow-this-machine, in CI and outside it, before anything runs.
func TestLocalProbesNeedConsent(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			dir := writePolicy(t, "30")
			ran := filepath.Join(t.TempDir(), "ran")
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"-local-probes", "-probe-command", "touch " + ran, dir}, &out, &errb, testRegistry("1"))
			if code != cli.ExitError {
				t.Fatalf("exit %d, want %d\n%s", code, cli.ExitError, errb.String())
			}
			if !strings.Contains(errb.String(), "refused without -allow-this-machine") {
				t.Errorf("stderr does not explain the refusal:\n%s", errb.String())
			}
			if ci == "true" && !strings.Contains(errb.String(), "CI runner") {
				t.Errorf("in CI the refusal should say where the flag belongs:\n%s", errb.String())
			}
			if _, err := os.Stat(ran); err == nil {
				t.Error("the probe command ran despite the refusal")
			}
		})
	}
}

// Through the agents, -probe-command must name a perftest tool: anything
// else is refused before any probe.
func TestProbeCommandThroughAgentsIsATool(t *testing.T) {
	dir := writePolicy(t, "30")
	for _, tc := range []struct {
		cmd  string
		want string
	}{
		{"sh -c id", `probe executable "sh" is not a perftest tool`},
		{"./ib_write_bw", "is a relative path"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"-probe-command", tc.cmd, dir}, &out, &errb, testRegistry("1"))
		if code != cli.ExitError || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("-probe-command %q: exit %d, want 1 with %q:\n%s", tc.cmd, code, tc.want, errb.String())
		}
	}
}

// -connect-timeout reaches the providers roce-verify builds (a dead switch
// is reported after it, not after -timeout), as in roce-plan and
// roce-apply; -timeout stays the per-command limit (a probe runs that long).
func TestConnectTimeoutReachesProviders(t *testing.T) {
	var got []plan.Env
	reg := testRegistry("16.35.2000")
	inner := reg.Switches[policies.PlatformNexus5000]
	reg.Switches[policies.PlatformNexus5000] = func(env plan.Env, sw *policies.Switch) (plan.Target, error) {
		got = append(got, env)
		return inner(env, sw)
	}
	dir := writePolicy(t, "90")
	var out, errb bytes.Buffer
	args := []string{"-connect-timeout", "7s", "-timeout", "3m", "-local-probes", "-allow-this-machine", "-probe-command", replay("multisize_gbps.txt"), dir}
	if code := run(context.Background(), args, &out, &errb, reg); code != verify.ExitPass {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if len(got) == 0 {
		t.Fatal("no switch target was built")
	}
	for _, env := range got {
		if env.ConnectTimeout != 7*time.Second || env.Timeout != 3*time.Minute {
			t.Errorf("provider env: connect timeout %v, command timeout %v; want 7s and 3m", env.ConnectTimeout, env.Timeout)
		}
	}
}
