// Package gnmisim is a gNMI target (Capabilities, Get, Set) that models the
// QoS and PFC paths of one platform profile — openconfig, arista, sonic or
// srlinux — over real gRPC with TLS. Set is transactional (all or nothing);
// every Set is checked against the vendor's own YANG for the profile
// (embedded under models/, compiled with goyang with the deviations and
// features of a released image), unknown paths and what the model forbids
// are refused with the status codes of the gNMI specification, and the
// commit-confirmed extension rolls back on a timer.
// Faults (latency, rejected paths, dropped connections) can be injected.
package gnmisim

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/protobuf/proto"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// Options configure one simulated target.
type Options struct {
	Profile string            // "openconfig" | "arista" | "sonic" | "srlinux"
	Users   map[string]string // username -> password; empty = no authentication
	// TLSCert is the server certificate; zero = plaintext gRPC.
	TLSCert tls.Certificate
	// ClientCAs, when set, requires and verifies client certificates.
	ClientCAs  *x509.CertPool
	Interfaces []string // as the platform names them
	Version    string   // software version reported
	Faults     Faults
	Logger     *slog.Logger
	// CommitConfirm supports the commit-confirmed extension (without it a
	// Set carrying one is refused with Unimplemented). It is not
	// advertised in Capabilities: real targets advertise nothing.
	CommitConfirm bool
	// Encodings are the value encodings served (nil: JSON_IETF and JSON);
	// [JSON] is a target without JSON_IETF.
	Encodings []gpb.Encoding
	// NativeOrigin overrides the origin of the sonic and srlinux native
	// trees (see DefaultSONiCOrigin, DefaultSRLinuxOrigin).
	NativeOrigin string
	// Schemas compiles the profile's YANG once for every target given the
	// same value (tens of milliseconds per profile; BenchmarkCompileProfile).
	// Nil: the target compiles its own.
	Schemas *Schemas
}

// Faults injected into the target's behaviour.
type Faults struct {
	// Latency delays every RPC.
	Latency time.Duration
	// RejectPath: any Set with an operation at or under this path (string
	// form, any origin) is refused with Aborted and changes nothing.
	RejectPath string
	// DropAfterSets: after this many applied Sets, every further RPC fails
	// with Unavailable, as if the connection had dropped. 0 = never.
	DropAfterSets int
	// IgnorePath: Set accepts writes at or under this path but silently does
	// not apply them — a target that acknowledges and then disagrees, which
	// the client's re-Get must catch.
	IgnorePath string
	// SkipSchema: Set stores what it is sent without checking it against
	// the models — a target whose schema check is broken. Tests use it to
	// put data the model forbids on a target and compare the simulator's
	// verdict with yanglint's on the same data.
	SkipSchema bool
}

// Target is one simulated device. It is safe for concurrent use.
type Target struct {
	opts  Options
	prof  *profile
	log   *slog.Logger
	ports map[string]bool

	mu      sync.Mutex
	cfg     tree
	state   tree
	sets    []*gpb.SetRequest // every Set received (applied or not), for tests
	applied int
	rpcs    int // RPCs entered (rpcs.go)
	commit  *pendingCommit
	closed  bool
}

// New builds a target with the profile's default configuration.
func New(opts Options) (*Target, error) {
	schemas := opts.Schemas
	if schemas == nil {
		schemas = &Schemas{}
	}
	prof, err := newProfile(opts.Profile, opts.NativeOrigin, schemas)
	if err != nil {
		return nil, err
	}
	if len(opts.Interfaces) == 0 {
		return nil, fmt.Errorf("gnmisim: profile %s: Options.Interfaces is empty; give the interfaces the target has", opts.Profile)
	}
	if opts.Version == "" {
		opts.Version = "sim-1.0"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := &Target{opts: opts, prof: prof, log: log, ports: map[string]bool{}, cfg: tree{}, state: tree{}}
	for _, i := range opts.Interfaces {
		if prof.ports != nil && !prof.ports.MatchString(i) {
			return nil, fmt.Errorf("gnmisim: profile %s: interface %q is not a port name of the platform (want %s)", opts.Profile, i, prof.ports)
		}
		t.ports[i] = true
	}
	cfg, state := prof.seed(opts.Interfaces, opts.Version)
	for _, s := range cfg {
		if err := addSeed(t.cfg, s); err != nil {
			return nil, err
		}
	}
	for _, s := range state {
		if err := addSeed(t.state, s); err != nil {
			return nil, err
		}
	}
	if err := prof.cfg.validate(t.cfg, t.ports); err != nil {
		return nil, fmt.Errorf("gnmisim: profile %s: default config invalid (interface names as the platform spells them?): %w", opts.Profile, err)
	}
	return t, nil
}

func addSeed(t tree, s seedLeaf) error {
	p, err := gpath.Parse(s.path)
	if err != nil {
		return fmt.Errorf("gnmisim: seed: %w", err)
	}
	t[p.Key()] = gpath.Leaf{Path: p, Value: s.value}
	return nil
}

// Profile returns the profile name.
func (t *Target) Profile() string { return t.prof.name }

// Origin returns the origin config is stored under.
func (t *Target) Origin() string { return t.prof.origin }

// Config returns the current config tree as JSON-ready values, keyed by
// origin (one origin per profile).
func (t *Target) Config() map[string]any {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, err := gpath.Build(gpath.Path{}, t.cfg.under(gpath.Path{}))
	if err != nil {
		v = map[string]any{"error": err.Error()}
	}
	return map[string]any{t.prof.origin: v}
}

// ConfigJSON is Config as indented JSON (stable: members sorted).
func (t *Target) ConfigJSON() string {
	b, err := json.MarshalIndent(t.Config(), "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// SetRequests returns copies of every SetRequest received, in order.
func (t *Target) SetRequests() []*gpb.SetRequest {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*gpb.SetRequest, len(t.sets))
	for i, r := range t.sets {
		out[i] = proto.Clone(r).(*gpb.SetRequest)
	}
	return out
}

// CommitPending reports whether a commit-confirmed is waiting for confirm.
func (t *Target) CommitPending() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.commit != nil
}

// SetCounter sets a state leaf (counters for telemetry tests), e.g.
// "/interfaces/interface[name=Ethernet1]/ethernet/state/counters/in-mac-pause-frames".
func (t *Target) SetCounter(path string, value uint64) error {
	p, err := gpath.Parse(path)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.state[p.Key()] = gpath.Leaf{Path: p, Value: fmt.Sprint(value)}
	return nil
}

// SetFaults replaces the injected faults of a running target (the fault
// suite walks a fault through every operation). The count of applied Sets
// that DropAfterSets compares against starts again from zero.
func (t *Target) SetFaults(f Faults) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opts.Faults = f
	t.applied = 0
}
