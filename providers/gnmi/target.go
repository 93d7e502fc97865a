// Package gnmi is the provider for gNMI switches: it reads the subtrees the
// tool owns with Get, diffs them leaf by leaf against a profile's rendering
// (providers/gnmi/profiles), and applies the difference as one SetRequest per
// device — with commit-confirmed when the target supports it — then re-reads
// to prove the result.
package gnmi

import (
	"context"
	"fmt"
	"sync"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/gnmi/proto/gnmi_ext"
	"google.golang.org/grpc"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi/profiles"
)

// Commit-confirmed modes.
const (
	CommitAuto = "auto" // use it when the target advertises it (default)
	CommitOff  = "off"  // never
	CommitOn   = "on"   // require it; refuse targets that do not advertise it
)

// DefaultCommitRollback is how long a target waits for the confirm before
// rolling back on its own.
const DefaultCommitRollback = 5 * time.Minute

// Options tune a target beyond the policy. New fills them from the
// environment: ROCE_GNMI_COMMIT_CONFIRM, ROCE_GNMI_COMMIT_ROLLBACK (a Go
// duration), ROCE_GNMI_ARISTA_BIT_ORDER, ROCE_GNMI_SONIC_ORIGIN,
// ROCE_GNMI_SRLINUX_ORIGIN.
type Options struct {
	Settings       profiles.Settings
	CommitConfirm  string
	CommitRollback time.Duration
}

// target is one gNMI switch.
type target struct {
	env     plan.Env
	sw      *policies.Switch
	opts    Options
	classes []*policies.Lossless

	mu       sync.Mutex
	conn     *grpc.ClientConn
	client   gpb.GNMIClient
	caps     *gpb.CapabilityResponse
	prof     profiles.Profile
	encoding gpb.Encoding
	commitOK bool     // target advertises commit-confirmed
	warnings []string // from connecting (model checks)
}

// New is the plan.SwitchFactory for platform "gnmi".
func New(env plan.Env, sw *policies.Switch) (plan.Target, error) {
	get := func(k string) string {
		if env.Getenv == nil {
			return ""
		}
		v, _ := env.Getenv(k)
		return v
	}
	o := Options{
		Settings: profiles.Settings{
			AristaNoDropBitOrder: get("ROCE_GNMI_ARISTA_BIT_ORDER"),
			SONiCOrigin:          get("ROCE_GNMI_SONIC_ORIGIN"),
			SRLinuxOrigin:        get("ROCE_GNMI_SRLINUX_ORIGIN"),
		},
		CommitConfirm: get("ROCE_GNMI_COMMIT_CONFIRM"),
	}
	if s := get("ROCE_GNMI_COMMIT_ROLLBACK"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("switch.%s: ROCE_GNMI_COMMIT_ROLLBACK=%q: want a positive duration such as 2m", sw.Name, s)
		}
		o.CommitRollback = d
	}
	return NewWithOptions(env, sw, o)
}

// NewWithOptions builds a target with explicit options.
func NewWithOptions(env plan.Env, sw *policies.Switch, o Options) (plan.Target, error) {
	if sw == nil {
		return nil, fmt.Errorf("gnmi: nil switch")
	}
	if sw.Platform != policies.PlatformGNMI {
		return nil, fmt.Errorf("switch.%s: platform %q is not gnmi", sw.Name, sw.Platform)
	}
	if sw.Address == "" && sw.Capture != "" {
		return nil, fmt.Errorf("switch.%s: saved captures are not supported for gNMI switches; give the address (host:port) of the target", sw.Name)
	}
	if sw.Address == "" {
		return nil, fmt.Errorf("switch.%s: gNMI needs an address (host:port)", sw.Name)
	}
	switch o.CommitConfirm {
	case "":
		o.CommitConfirm = CommitAuto
	case CommitAuto, CommitOff, CommitOn:
	default:
		return nil, fmt.Errorf("switch.%s: commit-confirm mode %q: want auto, on or off", sw.Name, o.CommitConfirm)
	}
	if o.CommitRollback <= 0 {
		o.CommitRollback = DefaultCommitRollback
	}
	if sw.Profile != "auto" {
		if _, err := profiles.New(sw.Profile, o.Settings); err != nil {
			return nil, fmt.Errorf("switch.%s: %w", sw.Name, err)
		}
	}
	t := &target{env: env, sw: sw, opts: o}
	cs, err := classesFor(env.Fabric, sw)
	if err != nil {
		return nil, err
	}
	t.classes = cs
	return t, nil
}

// classesFor returns the classes the switch carries (all when it names none).
func classesFor(f *policies.Fabric, sw *policies.Switch) ([]*policies.Lossless, error) {
	if f == nil {
		return nil, nil
	}
	if len(sw.Lossless) == 0 {
		return f.Lossless, nil
	}
	by := map[string]*policies.Lossless{}
	for _, c := range f.Lossless {
		by[c.Name] = c
	}
	var out []*policies.Lossless
	for _, n := range sw.Lossless {
		c, ok := by[n]
		if !ok {
			return nil, fmt.Errorf("switch.%s: lossless class %q is not defined in the policy", sw.Name, n)
		}
		out = append(out, c)
	}
	return out, nil
}

func (t *target) Address() string { return "switch." + t.sw.Name }

func (t *target) opCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if t.env.Timeout > 0 {
		return context.WithTimeout(ctx, t.env.Timeout)
	}
	return context.WithCancel(ctx)
}

// connect dials once, asks Capabilities, picks the encoding and profile.
func (t *target) connect(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.caps != nil {
		return nil
	}
	var secret policies.Secret
	dir := ""
	if t.env.Fabric != nil {
		dir = t.env.Fabric.Dir
	}
	if t.sw.Credentials != "" {
		if t.env.Fabric == nil {
			return fmt.Errorf("%s: credentials %q named but no policy given", t.Address(), t.sw.Credentials)
		}
		s, err := t.env.Fabric.ResolveCredentials(t.sw.Credentials, t.env.Getenv)
		if err != nil {
			return fmt.Errorf("%s: %w", t.Address(), err)
		}
		secret = s
	}
	if t.conn == nil {
		conn, client, err := dial(t.sw, dir, secret)
		if err != nil {
			return err
		}
		t.conn, t.client = conn, client
	}
	cctx, cancel := t.opCtx(ctx)
	defer cancel()
	caps, err := t.client.Capabilities(cctx, &gpb.CapabilityRequest{})
	if err != nil {
		return fmt.Errorf("%s: gNMI Capabilities from %s: %w", t.Address(), t.sw.Address, err)
	}
	enc, err := chooseEncoding(caps.GetSupportedEncodings())
	if err != nil {
		return fmt.Errorf("%s: %w", t.Address(), err)
	}
	var models []string
	for _, m := range caps.GetSupportedModels() {
		models = append(models, m.GetName())
	}
	name := t.sw.Profile
	if name == "auto" {
		name = profiles.Detect(models)
	}
	prof, err := profiles.New(name, t.opts.Settings)
	if err != nil {
		return fmt.Errorf("%s: %w", t.Address(), err)
	}
	var warnings []string
	if miss := profiles.MissingModels(prof, models); len(miss) > 0 {
		warnings = append(warnings, fmt.Sprintf("profile %s expects models %v that the target does not advertise; Set may be refused", name, miss))
	}
	commitOK := false
	for _, e := range caps.GetExtension() {
		if e.GetCommit() != nil {
			commitOK = true
		}
	}
	if t.opts.CommitConfirm == CommitOn && !commitOK {
		return fmt.Errorf("%s: commit-confirmed is required but the target does not advertise it", t.Address())
	}
	t.caps, t.encoding, t.prof, t.commitOK, t.warnings = caps, enc, prof, commitOK, warnings
	return nil
}

// chooseEncoding prefers JSON_IETF, then JSON.
func chooseEncoding(encs []gpb.Encoding) (gpb.Encoding, error) {
	for _, want := range []gpb.Encoding{gpb.Encoding_JSON_IETF, gpb.Encoding_JSON} {
		for _, e := range encs {
			if e == want {
				return e, nil
			}
		}
	}
	return 0, fmt.Errorf("target supports neither JSON_IETF nor JSON encoding (advertises %v)", encs)
}

func (t *target) useCommit() bool { return t.commitOK && t.opts.CommitConfirm != CommitOff }

func (t *target) kind() string {
	if t.prof != nil {
		return "gnmi/" + t.prof.Name()
	}
	return "gnmi/" + t.sw.Profile
}

func (t *target) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn == nil {
		return nil
	}
	err := t.conn.Close()
	t.conn, t.client, t.caps = nil, nil, nil
	return err
}

// commitExt builds the commit-confirmed extension.
func commitExt(id string, action any) *gnmi_ext.Extension {
	c := &gnmi_ext.Commit{Id: id}
	switch a := action.(type) {
	case *gnmi_ext.Commit_Commit:
		c.Action = a
	case *gnmi_ext.Commit_Confirm:
		c.Action = a
	case *gnmi_ext.Commit_Cancel:
		c.Action = a
	}
	return &gnmi_ext.Extension{Ext: &gnmi_ext.Extension_Commit{Commit: c}}
}
