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
	"fmt"
	"io"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/perftest"
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
)

// Error codes.
const (
	ErrCodeVersion   = "unsupported-version"
	ErrCodeMalformed = "malformed-request"
	ErrCodeUnknownOp = "unknown-op"
	ErrCodeStale     = "stale"
	ErrCodeFailed    = "failed"
	ErrCodeRefused   = "refused"
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

// Error is a failed call.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Response is the agent's answer.
type Response struct {
	Version  int               `json:"version"`
	Op       string            `json:"op,omitempty"`
	OK       bool              `json:"ok"`
	Error    *Error            `json:"error,omitempty"`
	Read     *nics.ReadResult  `json:"read,omitempty"`
	Apply    *nics.ApplyReport `json:"apply,omitempty"`
	Counters *telemetry.Device `json:"counters,omitempty"`
	Probe    *ProbeResult      `json:"probe,omitempty"`
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

// DecodeRequest parses one request strictly: unknown fields, trailing data
// and oversized input are errors, so a typo never silently means "default".
// The version is checked before anything else is interpreted.
func DecodeRequest(r io.Reader) (*Request, *Error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxRequestBytes+1))
	if err != nil {
		return nil, &Error{Code: ErrCodeMalformed, Message: "reading request: " + err.Error()}
	}
	if len(b) > MaxRequestBytes {
		return nil, &Error{Code: ErrCodeMalformed, Message: fmt.Sprintf("request larger than %d bytes", MaxRequestBytes)}
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
	case OpCounters:
	case OpProbe:
		if req.Probe == nil {
			return nil, &Error{Code: ErrCodeMalformed, Message: `op "probe" needs "probe"`}
		}
	case "":
		return nil, &Error{Code: ErrCodeMalformed, Message: `request has no "op"`}
	default:
		return nil, &Error{Code: ErrCodeUnknownOp, Message: fmt.Sprintf("unknown op %q (want read, apply, probe or counters)", req.Op)}
	}
	if req.FailAfterStep < 0 {
		return nil, &Error{Code: ErrCodeMalformed, Message: "fail_after_step must be >= 0"}
	}
	return &req, nil
}
