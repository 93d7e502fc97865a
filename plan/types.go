// Package plan holds the plan as data — targets × changes — and the engine
// that produces and executes it. Renderers only read a Plan; providers only
// produce TargetPlans and apply them. Nothing here formats for a device or
// talks to one directly: targets come from a Registry the caller fills.
package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// FormatVersion is the version of the JSON plan, saved-plan and apply
// report formats (docs/plan-json.md). Bump it on any incompatible change.
// Version 1 wrote it as the string "1"; saved plans of version 1 are still
// read.
const FormatVersion = 2

// Version is a format_version: written as a JSON integer, read from an
// integer or (format 1) a string of digits.
type Version int

// UnmarshalJSON accepts 2 and "1".
func (v *Version) UnmarshalJSON(b []byte) error {
	s := string(b)
	if unq, err := strconv.Unquote(s); err == nil {
		s = unq
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("format_version %s is not a number", b)
	}
	*v = Version(n)
	return nil
}

// Action is what a change does to one resource.
type Action string

const (
	ActionCreate Action = "create"
	ActionUpdate Action = "update"
	ActionDelete Action = "delete"
)

// Disruption says what traffic will feel when a change is applied.
type Disruption string

const (
	// DisruptionNone: hitless (ACL / class-map edits, files, sysctls).
	DisruptionNone Disruption = "none"
	// DisruptionBrief: a short traffic disruption (system qos service-policy
	// change, queue re-programming).
	DisruptionBrief Disruption = "brief"
	// DisruptionLink: the link renegotiates or bounces (PFC / flowcontrol
	// mode on a port, mlx5 pfc_en change, MTU change).
	DisruptionLink Disruption = "link"
)

// Rank orders disruption classes so the worst of a set can be reported.
func (d Disruption) Rank() int {
	switch d {
	case DisruptionLink:
		return 2
	case DisruptionBrief:
		return 1
	}
	return 0
}

// Op is one gNMI Set operation exactly as it will be sent.
type Op struct {
	Op     string          `json:"op"` // "delete" | "replace" | "update"
	Origin string          `json:"origin,omitempty"`
	Path   string          `json:"path"`
	Value  json.RawMessage `json:"value,omitempty"` // JSON_IETF; absent for delete
}

// Change is one resource's change on one target.
type Change struct {
	// Address names the resource inside the target, e.g.
	// "policy-map type network-qos ROCE-NQ" or "nic.ens1f0.pfc".
	Address string     `json:"address"`
	Action  Action     `json:"action"`
	Before  string     `json:"before,omitempty"` // current rendering ("" for create)
	After   string     `json:"after,omitempty"`  // desired rendering ("" for delete)
	Disrupt Disruption `json:"disruption"`
	// Commands are the CLI lines for this change (NX-OS), in order.
	Commands []string `json:"commands,omitempty"`
	// Ops are the gNMI operations for this change.
	Ops []Op `json:"ops,omitempty"`
	// Drift is set when the object is ours and already existed but no longer
	// matches what we rendered — typically a firmware upgrade changed a
	// default. Note explains it in plain words.
	Drift bool   `json:"drift,omitempty"`
	Note  string `json:"note,omitempty"`
}

// TargetPlan is everything planned for one target.
type TargetPlan struct {
	Address  string `json:"address"` // "switch.NAME" | "host.NAME"
	Kind     string `json:"kind"`    // "nexus5000" | "nexus7000" | "gnmi/arista" | "host" ...
	Endpoint string `json:"endpoint,omitempty"`
	// Offline: planned against a saved capture; roce-apply refuses it.
	Offline bool `json:"offline,omitempty"`
	// Fingerprint is a digest of the state read; apply refuses the target if
	// a fresh read gives another fingerprint (stale plan).
	Fingerprint string   `json:"fingerprint,omitempty"`
	Changes     []Change `json:"changes"`
	// Commands is the whole ordered CLI script apply sends (NX-OS).
	Commands []string `json:"commands,omitempty"`
	// Ops is the whole ordered gNMI SetRequest (deletes, replaces, updates).
	Ops []Op `json:"ops,omitempty"`
	// Payload is provider-specific apply input (e.g. a host's desired state).
	Payload json.RawMessage `json:"payload,omitempty"`
	// Facts read from the target: OS version, firmware, modules.
	Facts    map[string]string `json:"facts,omitempty"`
	Warnings []string          `json:"warnings,omitempty"`
	// Error is set when the target could not be read or planned; the rest
	// of the plan is still shown.
	Error string `json:"error,omitempty"`
	// ErrorKind says what Error is (one of the ErrorKind constants); set
	// with Error. Plans written before it existed have none: read them as
	// ErrorKindRead.
	ErrorKind string `json:"error_kind,omitempty"`
	// ThisMachine is set when the target is the machine roce itself runs on
	// (a local host outside any namespace, or in roce's own namespace):
	// applying it changes this machine, so roce-apply asks for an explicit
	// opt-in. Interfaces lists the interfaces the plan would change there,
	// and CutOff the changes that could cut this machine off (MTU or
	// address on the interface carrying its default route or SSH session).
	ThisMachine *ThisMachine `json:"this_machine,omitempty"`
}

// ThisMachine describes a target that is the machine roce runs on.
type ThisMachine struct {
	Interfaces []string `json:"interfaces"`
	CutOff     []string `json:"cut_off,omitempty"`
}

// HasChanges reports whether applying the target would change anything.
func (t *TargetPlan) HasChanges() bool { return len(t.Changes) > 0 }

// Plan is one planning run over a fabric.
type Plan struct {
	FormatVersion Version       `json:"format_version"`
	CreatedAt     time.Time     `json:"created_at"`
	PolicyDir     string        `json:"policy_dir"`
	PolicyDigest  string        `json:"policy_digest"` // sha256 of the policy files read
	Targets       []*TargetPlan `json:"targets"`
	// Excluded are targets left out of a partial plan (roce-plan -out
	// -allow-partial) because they could not be read or planned. A
	// lossless class must be consistent on both ends of every link, so
	// roce-apply names them before it applies the rest.
	Excluded []Excluded `json:"excluded,omitempty"`
	// Inputs records what the plan was made from besides the policy
	// directory, so roce-apply can name what differs. Absent in plans
	// written before it existed (roce-apply then compares PolicyDigest).
	Inputs *Inputs `json:"inputs,omitempty"`

	// PolicyDirRelative is, in a saved plan, the policy directory relative
	// to the plan file's directory (slash-separated) when both are under
	// one tree (docs/plan-json.md#saved-plan-file); roce-apply looks there
	// first, so a plan applied from another checkout finds its policy.
	PolicyDirRelative string `json:"policy_dir_relative,omitempty"`
}

// Inputs are the files and variables a plan was made from. Values of
// variables are never recorded (they may be secret): only -var names and
// a digest over the values.
type Inputs struct {
	// PolicyFiles maps each policy file's base name to the SHA-256 (hex)
	// of its bytes.
	PolicyFiles map[string]string `json:"policy_files"`
	// VarFiles are the -var-file flags, in order.
	VarFiles []VarFile `json:"var_files,omitempty"`
	// Vars are the names set with -var, in order; never their values.
	Vars []string `json:"vars,omitempty"`
	// VarsDigest is "sha256:" and the hex SHA-256 over the var files'
	// contents and the -var values, in order.
	VarsDigest string `json:"vars_digest"`
}

// VarFile is one -var-file flag: the path as given and resolved to an
// absolute path when the plan was made, and in a saved plan relative to
// the plan file's directory (slash-separated) when both are under one tree.
type VarFile struct {
	Path     string `json:"path"`
	Resolved string `json:"resolved"`
	Relative string `json:"relative,omitempty"`
}

// Problem is one error that stopped a run before it had a plan or a
// report: what, and where when that is a place in a file (a policy or
// variable file's line). -json prints them (docs/plan-json.md#when-a-run-stops-early).
type Problem struct {
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

// String is "file:line: message", "file: message" or the message.
func (p Problem) String() string {
	switch {
	case p.File != "" && p.Line > 0:
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	case p.File != "":
		return p.File + ": " + p.Message
	}
	return p.Message
}

// Failure kinds: the "kind" of the document -json prints when a run stops
// before it has a plan (roce-plan) or a report (roce-verify).
const (
	FailureKindPlan   = "roce-plan-error"
	FailureKindVerify = "roce-verify-error"
)

// Excluded is a target a partial plan leaves out, and why.
type Excluded struct {
	Address string `json:"address"`
	Error   string `json:"error"`
	// ErrorKind is the left-out target's TargetPlan.ErrorKind (empty in
	// plans saved before it existed: read as ErrorKindRead).
	ErrorKind string `json:"error_kind,omitempty"`
}

// Exchange is one command and the device's answer, for transcripts.
type Exchange struct {
	Command  string `json:"command"`
	Response string `json:"response,omitempty"`
	Failed   bool   `json:"failed,omitempty"`
}

// Apply outcomes.
const (
	StatusApplied    = "applied"     // changes pushed and verified
	StatusUnchanged  = "unchanged"   // nothing to do
	StatusRolledBack = "rolled-back" // failed, and the target is back to its pre-apply state
	StatusFailed     = "failed"      // failed and could not be proven restored
	StatusStale      = "stale"       // fingerprint moved since the plan; nothing sent
	StatusRefused    = "refused"     // not applicable (offline capture, validation)
	StatusUntouched  = "untouched"   // rollout stopped before reaching it
)

// ApplyResult is what one target's apply did.
type ApplyResult struct {
	Address string `json:"address"`
	Status  string `json:"status"`
	Error   string `json:"error,omitempty"`
	// Warnings are what the operator must know about a target that was
	// applied (or left unchanged) all the same: e.g. a change not saved
	// to the switch's startup configuration, and the command to save it.
	Warnings   []string      `json:"warnings,omitempty"`
	Transcript []Exchange    `json:"transcript,omitempty"`
	Duration   time.Duration `json:"duration_ns"`
}

// What kept a target out of the plan (TargetPlan.ErrorKind).
const (
	// ErrorKindRead: the target could not be read — connect, login, a
	// command or RPC, or its answer. The default for any error.
	ErrorKindRead = "read"
	// ErrorKindRender: the target was read, but the policy does not fit
	// it (a render conflict: a queue share that does not fit beside the
	// classes the switch keeps, a class the platform cannot express, a
	// session in the wrong VDC). Providers mark these with RenderConflict.
	ErrorKindRender = "render"
	// ErrorKindInternal: a provider panicked — a bug in roce.
	ErrorKindInternal = "internal"
	// ErrorKindCancelled: the run ended (interrupt, overall deadline)
	// before the target was read.
	ErrorKindCancelled = "cancelled"
)

// RenderError marks an error as a render conflict: the device was read,
// and the policy cannot be rendered for it. Providers wrap such errors
// with RenderConflict; the engine then labels the target "does not fit"
// instead of "could not be read".
type RenderError struct{ Err error }

func (e *RenderError) Error() string { return e.Err.Error() }
func (e *RenderError) Unwrap() error { return e.Err }

// RenderConflict wraps err as a *RenderError (nil stays nil).
func RenderConflict(err error) error {
	if err == nil {
		return nil
	}
	return &RenderError{Err: err}
}

// internalError is a provider panic, recovered by the engine.
type internalError struct{ msg string }

func (e *internalError) Error() string { return e.msg }

// ErrorKindOf classifies an error returned by Target.Plan.
func ErrorKindOf(err error) string {
	var re *RenderError
	var ie *internalError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ie):
		return ErrorKindInternal
	case errors.As(err, &re):
		return ErrorKindRender
	}
	return ErrorKindRead
}

// ErrStale is returned (wrapped) by Target.Apply when the target's state
// moved since the plan was made.
var ErrStale = errors.New("stale plan: the target changed since the plan was made; re-run roce-plan")

// Target is one switch or host as the engine sees it. Implementations live in
// providers/ and are created by a Registry.
type Target interface {
	// Address is "switch.NAME" or "host.NAME".
	Address() string
	// Plan reads the live (or captured) state and returns what must change.
	Plan(ctx context.Context) (*TargetPlan, error)
	// Apply re-reads the target, refuses with ErrStale when its fingerprint
	// differs from tp.Fingerprint, then applies tp as one transaction and
	// verifies the result, rolling back on any failure. The result is never
	// nil, even with an error.
	Apply(ctx context.Context, tp *TargetPlan) (*ApplyResult, error)
	// Close releases connections.
	Close() error
}
