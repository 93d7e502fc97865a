// Package agentproto is the versioned JSON protocol between the controller
// (providers/host, fleet runners) and roce-agent: one Request on the
// agent's stdin, one Response on its stdout (docs/agent-protocol.md).
//
// Compatibility: Version is bumped on any incompatible change. The agent
// answers a request of another version with ErrCodeVersion and does
// nothing else, so an old agent on a host is detected, never misused.
package agentproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/perftest"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/telemetry"
)

// Version is the protocol version this build speaks.
const Version = 1

// MaxRequestBytes bounds a request so a runaway writer can't exhaust the
// agent's memory.
const MaxRequestBytes = 8 << 20

// Operations.
const (
	OpRead     = "read"
	OpApply    = "apply"
	OpProbe    = "probe"
	OpCounters = "counters"
	// OpRecover finishes the host's unfinished transaction (an apply that
	// was killed): confirm it when complete, else restore the snapshot.
	OpRecover = "recover"
)

// Error codes.
const (
	ErrCodeVersion   = "unsupported-version"
	ErrCodeMalformed = "malformed-request"
	ErrCodeUnknownOp = "unknown-op"
	ErrCodeStale     = "stale"
	ErrCodeFailed    = "failed"
	ErrCodeRefused   = "refused"
	// ErrCodeInterrupted: the host has an unfinished transaction; apply
	// changes nothing until recover.
	ErrCodeInterrupted = "interrupted"
	// ErrCodeBusy: another agent is applying or recovering on the host.
	ErrCodeBusy = "busy"
)

// Per-request limits besides MaxRequestBytes and the shape limits.
const (
	MaxNICs      = 64
	MaxFiles     = 16
	MaxFileItems = 256 // entries or lines of one file
)

// Request is one agent call.
type Request struct {
	Version int    `json:"version"`
	Op      string `json:"op"`
	// Desired is the host state to read against (read) or to apply (apply).
	Desired *nics.HostState `json:"desired,omitempty"`
	// Fingerprint (apply) is the plan's; the agent refuses with
	// ErrCodeStale when the host moved.
	Fingerprint string `json:"fingerprint,omitempty"`
	// FailAfterStep (apply) injects a failure after step N to prove the
	// restore path. Accepted only on lab hosts (root with the lab marker).
	FailAfterStep int `json:"fail_after_step,omitempty"`
	// NICs (counters) are the ports to report.
	NICs []nics.NICRef `json:"nics,omitempty"`
	// Probe (probe) is one side of a perftest run.
	Probe *ProbeRequest `json:"probe,omitempty"`
}

// ProbeRequest is one side of a perftest run. When Options.GIDIndex is -1,
// RDMACM is off and GIDAddress is set, the agent resolves the GID index
// from sysfs by GIDNetdev, GIDAddress and RoCEMode.
type ProbeRequest struct {
	Options    perftest.Options `json:"options"`
	NIC        nics.NICRef      `json:"nic"`
	GIDNetdev  string           `json:"gid_netdev,omitempty"` // netdev carrying GIDAddress (VLAN device when tagged)
	GIDAddress string           `json:"gid_address,omitempty"`
	RoCEMode   string           `json:"roce_mode,omitempty"` // "v1" | "v2" (default v2)
}

// ErrCode classifies an error of an apply or recover for the response.
func ErrCode(err error) string {
	switch {
	case errors.Is(err, plan.ErrStale):
		return ErrCodeStale
	case errors.Is(err, nics.ErrInterrupted):
		return ErrCodeInterrupted
	case errors.Is(err, nics.ErrBusy):
		return ErrCodeBusy
	case errors.Is(err, nics.ErrNotManaged), errors.Is(err, nics.ErrSymlink):
		return ErrCodeRefused
	}
	return ErrCodeFailed
}

// Error is a failed call.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Response is the agent's answer.
type Response struct {
	Version  int                 `json:"version"`
	Op       string              `json:"op,omitempty"`
	OK       bool                `json:"ok"`
	Error    *Error              `json:"error,omitempty"`
	Read     *nics.ReadResult    `json:"read,omitempty"`
	Apply    *nics.ApplyReport   `json:"apply,omitempty"`
	Counters *telemetry.Device   `json:"counters,omitempty"`
	Probe    *ProbeResult        `json:"probe,omitempty"`
	Recover  *nics.RecoverReport `json:"recover,omitempty"`
	// Transaction is the host's unfinished transaction, reported by every
	// op that reads the host (read, apply, recover): a plan must not diff
	// a half-applied host as if nothing happened.
	Transaction *nics.TxnSummary `json:"transaction,omitempty"`
}

// ProbeResult is a perftest outcome: the parsed result (also on failure,
// when perftest printed something) and the failure class.
type ProbeResult struct {
	Result   *perftest.Result  `json:"result,omitempty"`
	Failure  *perftest.Failure `json:"failure,omitempty"`
	GIDIndex int               `json:"gid_index"`
	// Leftovers (server side) are the processes found listening on the
	// rendezvous port before perftest started: perftest servers of an
	// earlier crashed run are stopped, anything else is left alone. Each
	// is also a line in Result.Notes.
	Leftovers []perftest.Leftover `json:"leftovers,omitempty"`
}

// DecodeRequest parses one request strictly: unknown fields, duplicate
// keys, keys that differ from the protocol's only in case, trailing data,
// invalid UTF-8 and oversized input (MaxRequestBytes, MaxDepth,
// MaxArrayLen, MaxStringLen, MaxNICs, MaxFiles, MaxFileItems) are errors,
// so a typo never silently means "default" and no two readers of a
// request can see different requests. The version is checked right after
// the shape, before anything else is interpreted.
func DecodeRequest(r io.Reader) (*Request, *Error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxRequestBytes+1))
	if err != nil {
		return nil, &Error{Code: ErrCodeMalformed, Message: "reading request: " + err.Error()}
	}
	if len(b) > MaxRequestBytes {
		return nil, &Error{Code: ErrCodeMalformed, Message: fmt.Sprintf("request larger than %d bytes", MaxRequestBytes)}
	}
	// A request that passes the typed check passes the shape check too
	// (it is the same walk with the keys checked as well): one walk. One
	// that fails it is checked in the order below, so an older or newer
	// request's keys are refused for its version, not as unknown.
	typed := strictCheck(b, reflect.TypeOf(Request{}))
	if typed != nil {
		if err := strictCheck(b, nil); err != nil {
			return nil, &Error{Code: ErrCodeMalformed, Message: "request: " + err.Error()}
		}
	}
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, &Error{Code: ErrCodeMalformed, Message: "request is not a JSON object: " + err.Error()}
	}
	if head.Version == nil {
		return nil, &Error{Code: ErrCodeMalformed, Message: fmt.Sprintf(`request has no "version"; this agent speaks version %d`, Version)}
	}
	if *head.Version != Version {
		return nil, &Error{Code: ErrCodeVersion, Message: fmt.Sprintf("request version %d, this agent speaks version %d: install the roce-agent that matches the controller", *head.Version, Version)}
	}
	if typed != nil {
		return nil, &Error{Code: ErrCodeMalformed, Message: "request: " + typed.Error()}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var req Request
	if err := dec.Decode(&req); err != nil {
		return nil, &Error{Code: ErrCodeMalformed, Message: "request: " + err.Error()}
	}
	if dec.More() {
		return nil, &Error{Code: ErrCodeMalformed, Message: "request: trailing data after the JSON object"}
	}
	switch req.Op {
	case OpRead, OpApply:
		if req.Desired == nil {
			return nil, &Error{Code: ErrCodeMalformed, Message: fmt.Sprintf("op %q needs \"desired\"", req.Op)}
		}
	case OpCounters, OpRecover:
	case OpProbe:
		if req.Probe == nil {
			return nil, &Error{Code: ErrCodeMalformed, Message: `op "probe" needs "probe"`}
		}
	case "":
		return nil, &Error{Code: ErrCodeMalformed, Message: `request has no "op"`}
	default:
		return nil, &Error{Code: ErrCodeUnknownOp, Message: fmt.Sprintf("unknown op %q (want read, apply, recover, probe or counters)", req.Op)}
	}
	if req.FailAfterStep < 0 {
		return nil, &Error{Code: ErrCodeMalformed, Message: "fail_after_step must be >= 0"}
	}
	if err := checkLimits(&req); err != nil {
		return nil, &Error{Code: ErrCodeMalformed, Message: "request: " + err.Error()}
	}
	return &req, nil
}

// MaxResponseBytes bounds a response the controller reads: the agent runs
// on a host that may be compromised, and its answer must not exhaust the
// controller's memory.
const MaxResponseBytes = 64 << 20

// DecodeResponse parses an agent's response: at most MaxResponseBytes,
// one JSON object, no duplicate or case-variant keys (so the controller
// reads what the agent meant, not the last of two "ok" keys), bounded
// shape. Unknown fields are tolerated (a newer agent may say more).
func DecodeResponse(b []byte) (*Response, error) {
	if len(b) > MaxResponseBytes {
		return nil, fmt.Errorf("response larger than %d bytes", MaxResponseBytes)
	}
	if err := strictCheckLimits(b, nil, responseLimits); err != nil {
		return nil, err
	}
	var resp Response
	if err := json.Unmarshal(b, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// checkLimits bounds what one request may name.
func checkLimits(req *Request) error {
	if len(req.NICs) > MaxNICs {
		return fmt.Errorf("%d nics, at most %d", len(req.NICs), MaxNICs)
	}
	d := req.Desired
	if d == nil {
		return nil
	}
	if len(d.NICs) > MaxNICs || len(d.RDMACM) > MaxNICs {
		return fmt.Errorf("desired names %d nics and %d rdma_cm ports, at most %d each", len(d.NICs), len(d.RDMACM), MaxNICs)
	}
	if len(d.Files) > MaxFiles {
		return fmt.Errorf("desired names %d files, at most %d", len(d.Files), MaxFiles)
	}
	for _, f := range d.Files {
		if len(f.Entries) > MaxFileItems || len(f.Lines) > MaxFileItems {
			return fmt.Errorf("file %q: more than %d entries or lines", f.Path, MaxFileItems)
		}
	}
	return nil
}
