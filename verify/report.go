package verify

import (
	"time"

	"github.com/rocefabric/roce/nics/perftest"
)

// ReportFormatVersion is bumped on any incompatible change to the JSON
// report (docs/verify.md documents it, docs/verify-report.schema.json is
// its schema). 2: the run times are named started_at and finished_at, as
// in every roce JSON document.
const ReportFormatVersion = 2

// Status of one probe or check.
type Status string

const (
	StatusPass  Status = "pass"
	StatusFail  Status = "fail"  // the fabric is wrong: threshold, counters, misconfiguration
	StatusError Status = "error" // could not measure: no RDMA device, agent unreachable, timeout
	StatusSkip  Status = "skip"  // not applicable or not possible (one host in a class)
	// StatusWarn: a counter that may mean trouble but does not prove it
	// (port-wide discards where the lossless class's own could not be
	// read); it does not change the exit code.
	StatusWarn Status = "warn"
)

// Exit codes of roce-verify (documented in docs/verify.md and -help).
const (
	ExitPass   = 0 // every probe and check passed (skips and warnings allowed)
	ExitError  = 1 // could not run or could not measure
	ExitFailed = 3 // verification failed: at least one probe or check failed
)

// Report is the outcome of one run; every renderer reads only this value.
type Report struct {
	FormatVersion int       `json:"format_version"`
	Started       time.Time `json:"started_at"`
	Finished      time.Time `json:"finished_at"`
	Tool          string    `json:"tool"`
	Probes        []Probe   `json:"probes"`
	Checks        []Check   `json:"checks"`
	// Versions are the device versions seen after the run ("switch.X" →
	// {"os": ...}, "host.Y" → {"fw.mlx5_0": ...}); a baseline records them.
	Versions map[string]map[string]string `json:"versions,omitempty"`
	// Emulated: at least one probe ran on the lab's emulated RDMA device.
	Emulated bool    `json:"emulated,omitempty"`
	Summary  Summary `json:"summary"`
}

// Summary counts statuses over probes and checks.
type Summary struct {
	Pass     int    `json:"pass"`
	Fail     int    `json:"fail"`
	Error    int    `json:"error"`
	Skip     int    `json:"skip"`
	Warn     int    `json:"warn,omitempty"`
	Status   Status `json:"status"`
	ExitCode int    `json:"exit_code"`
}

// Probe is one pair's bandwidth test.
type Probe struct {
	Class     string `json:"class"`
	Round     int    `json:"round"`
	Server    string `json:"server"` // "host.NAME"
	Client    string `json:"client"`
	ServerNIC string `json:"server_nic"`
	ClientNIC string `json:"client_nic"`
	// Switches the two hosts hang off ("" when unknown).
	ServerSwitch string   `json:"server_switch,omitempty"`
	ClientSwitch string   `json:"client_switch,omitempty"`
	TCPPort      int      `json:"tcp_port"`
	ServerArgv   []string `json:"server_argv"`
	ClientArgv   []string `json:"client_argv"`

	Status  Status  `json:"status"`
	Message string  `json:"message"`
	Failure *Reason `json:"failure,omitempty"`

	AvgGbps       float64        `json:"avg_gbps"`
	PeakGbps      float64        `json:"peak_gbps"`
	Rows          []perftest.Row `json:"rows,omitempty"`
	ThresholdGbps float64        `json:"threshold_gbps"`
	LinkGbps      float64        `json:"link_gbps,omitempty"`
	Ceiling       *Ceiling       `json:"ceiling,omitempty"`
	Seconds       float64        `json:"seconds"`
	// Notes say what the agents did around the run, prefixed by the host
	// ("host.a: stopped a leftover ib_write_bw server (pid 4242) ...").
	Notes []string `json:"notes,omitempty"`
	// Emulated is set when the probe ran on the lab's emulated RDMA
	// device: its numbers come from the lab path model, not hardware.
	Emulated *EmulatedRun `json:"emulated,omitempty"`
	// Causes are the likely causes of a failed probe, most likely first
	// (Diagnose), from what the run read.
	Causes []Cause `json:"causes,omitempty"`
}

// Name identifies the probe in reports and baselines.
func (p Probe) Name() string { return p.Class + ": " + p.Server + " <- " + p.Client }

// Reason is a classified failure (perftest.Failure, or verify's own).
type Reason struct {
	Class string `json:"class"`
	Hint  string `json:"hint"`
	// Host is the side that failed ("host.NAME"), when known.
	Host   string `json:"host,omitempty"`
	Detail string `json:"detail"`
}

// Check is one counter, state, coverage, baseline or version check.
type Check struct {
	Name    string `json:"name"`             // "pfc-operational", "lossless-drops", "pause-storm", ...
	Device  string `json:"device,omitempty"` // "switch.NAME" | "host.NAME"; "" for fabric-wide checks
	Class   string `json:"class,omitempty"`
	Round   int    `json:"round,omitempty"`
	Status  Status `json:"status"`
	Message string `json:"message"`
}

// ID is the check's unique name in JUnit and text output.
func (c Check) ID() string {
	id := c.Name
	if c.Class != "" {
		id += " [" + c.Class + "]"
	}
	if c.Device != "" {
		id += " " + c.Device
	}
	if c.Round > 0 {
		id += " round " + itoa(c.Round)
	}
	return id
}

// summarize fills Summary from the probes and checks: a failure outranks an
// error (the fabric is provably wrong), an error outranks a pass.
func (r *Report) summarize() {
	s := Summary{}
	count := func(st Status) {
		switch st {
		case StatusPass:
			s.Pass++
		case StatusFail:
			s.Fail++
		case StatusError:
			s.Error++
		case StatusSkip:
			s.Skip++
		case StatusWarn:
			s.Warn++
		}
	}
	for _, p := range r.Probes {
		count(p.Status)
	}
	for _, c := range r.Checks {
		count(c.Status)
	}
	switch {
	case s.Fail > 0:
		s.Status, s.ExitCode = StatusFail, ExitFailed
	case s.Error > 0:
		s.Status, s.ExitCode = StatusError, ExitError
	default:
		s.Status, s.ExitCode = StatusPass, ExitPass
	}
	r.Summary = s
}

// ExitCode is the process exit code for this report.
func (r *Report) ExitCode() int { return r.Summary.ExitCode }
