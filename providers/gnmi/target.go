// Package gnmi is the provider for gNMI switches: it reads the subtrees the
// tool owns with Get, diffs them leaf by leaf against a profile's rendering
// (providers/gnmi/profiles), and applies the difference as one SetRequest per
// device — with commit-confirmed when the target supports it — then re-reads
// to prove the result.
package gnmi

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/gnmi/proto/gnmi_ext"
	"google.golang.org/grpc"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi/profiles"
)

// Commit-confirmed modes. The gNMI commit-confirmed extension
// (openconfig/reference rpc/gnmi/gnmi-commit-confirmed.md) defines no
// capability signal and real targets (EOS, SR Linux, sonic-gnmi) advertise
// none in their CapabilityResponse, so support is known only from the
// policy: "on" for a target whose release supports it.
const (
	// CommitAuto (default): used only when the CapabilityResponse carries a
	// Commit extension; today no target does, so auto means off.
	CommitAuto = "auto"
	CommitOff  = "off" // never
	// CommitOn: always; a target without support refuses the Set (nothing
	// is changed) and the apply fails naming the setting.
	CommitOn = "on"
)

// DefaultCommitRollback is how long a target waits for the confirm before
// rolling back on its own.
const DefaultCommitRollback = 5 * time.Minute

// Options are a target's settings below the policy: the switch's
// gnmi { } block (policies.GNMISettings) overrides each field it sets.
// New fills them from the environment, a process-wide fallback for
// switches whose policy leaves a setting out: ROCE_GNMI_COMMIT_CONFIRM,
// ROCE_GNMI_COMMIT_ROLLBACK (a Go duration), ROCE_GNMI_ARISTA_BIT_ORDER,
// ROCE_GNMI_SONIC_ORIGIN, ROCE_GNMI_SRLINUX_ORIGIN.
type Options struct {
	Settings       profiles.Settings
	CommitConfirm  string
	CommitRollback time.Duration
	// Encoding overrides the encoding chosen from Capabilities:
	// EncodingJSONIETF or EncodingJSON ("" = JSON_IETF if advertised, else
	// JSON).
	Encoding string
	// AllowMissingModels turns the refusal of a target whose Capabilities
	// do not list a model the profile needs into a warning (policy
	// require_models = false).
	AllowMissingModels bool
}

// Encoding overrides (the gnmi { } block's encoding).
const (
	EncodingJSONIETF = "json_ietf"
	EncodingJSON     = "json"
)

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
	commitOK bool     // the CapabilityResponse carries a Commit extension
	warnings []string // from connecting (model checks)
}

// Environment fallbacks for settings the policy's gnmi { } block leaves out.
const (
	EnvAristaBitOrder = "ROCE_GNMI_ARISTA_BIT_ORDER"
	EnvSONiCOrigin    = "ROCE_GNMI_SONIC_ORIGIN"
	EnvSRLinuxOrigin  = "ROCE_GNMI_SRLINUX_ORIGIN"
	EnvCommitConfirm  = "ROCE_GNMI_COMMIT_CONFIRM"
	EnvCommitRollback = "ROCE_GNMI_COMMIT_ROLLBACK"
)

// New is the plan.SwitchFactory for platform "gnmi": the policy's gnmi { }
// block, over the environment fallbacks, over the defaults.
func New(env plan.Env, sw *policies.Switch) (plan.Target, error) {
	if sw == nil {
		return nil, fmt.Errorf("gnmi: nil switch")
	}
	get := func(k string) (string, bool) {
		if env.Getenv == nil {
			return "", false
		}
		return env.Getenv(k)
	}
	bad := func(k, v string, err error) error {
		return fmt.Errorf("switch.%s: environment %s=%q: %v; fix or unset it, or set the value in the switch's gnmi { } block", sw.Name, k, v, err)
	}
	var o Options
	// A fallback is checked only where it can apply, so a value meant for
	// another profile does not break this switch.
	applies := func(profile string) bool { return sw.Profile == profile || sw.Profile == "auto" }
	if v, ok := get(EnvAristaBitOrder); ok && v != "" {
		if err := profiles.CheckBitOrder(v); err != nil && applies(policies.ProfileArista) {
			return nil, bad(EnvAristaBitOrder, v, err)
		}
		o.Settings.AristaNoDropBitOrder = v
	}
	if v, ok := get(EnvSONiCOrigin); ok && v != "" {
		if err := profiles.CheckOrigin(policies.ProfileSONiC, v); err != nil && applies(policies.ProfileSONiC) {
			return nil, bad(EnvSONiCOrigin, v, err)
		}
		o.Settings.SONiCOrigin = v
	}
	if v, ok := get(EnvSRLinuxOrigin); ok {
		if err := profiles.CheckOrigin(policies.ProfileSRLinux, v); err != nil && applies(policies.ProfileSRLinux) {
			return nil, bad(EnvSRLinuxOrigin, v, err)
		}
		o.Settings.SRLinuxOrigin = v
	}
	if v, ok := get(EnvCommitConfirm); ok && v != "" {
		if err := checkCommitMode(v); err != nil {
			return nil, bad(EnvCommitConfirm, v, err)
		}
		o.CommitConfirm = v
	}
	if v, ok := get(EnvCommitRollback); ok && v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, bad(EnvCommitRollback, v, fmt.Errorf("want a positive duration such as 2m"))
		}
		o.CommitRollback = d
	}
	return NewWithOptions(env, sw, o)
}

func checkCommitMode(m string) error {
	switch m {
	case CommitAuto, CommitOn, CommitOff:
		return nil
	}
	return fmt.Errorf("commit-confirmed mode %q: want auto, on or off", m)
}

// withPolicy overlays the switch's gnmi { } block on o and checks the
// values, so a Switch built in code is held to the policy's rules.
func withPolicy(sw *policies.Switch, o Options) (Options, error) {
	g := sw.GNMI
	if g == nil {
		return o, nil
	}
	bad := func(attr string, v any, err error) (Options, error) {
		return o, fmt.Errorf("switch.%s: gnmi { %s = %q }: %v", sw.Name, attr, fmt.Sprint(v), err)
	}
	if g.AristaNoDropBitOrder != "" {
		if err := profiles.CheckBitOrder(g.AristaNoDropBitOrder); err != nil {
			return bad("arista_no_drop_bit_order", g.AristaNoDropBitOrder, err)
		}
		if sw.Profile != policies.ProfileArista && sw.Profile != "auto" {
			return bad("arista_no_drop_bit_order", g.AristaNoDropBitOrder, fmt.Errorf("applies to profile arista only, and this switch uses %s", sw.Profile))
		}
		o.Settings.AristaNoDropBitOrder = g.AristaNoDropBitOrder
	}
	if g.Origin != nil {
		switch sw.Profile {
		case policies.ProfileSONiC:
			o.Settings.SONiCOrigin = *g.Origin
		case policies.ProfileSRLinux:
			o.Settings.SRLinuxOrigin = *g.Origin
		case "auto":
			// The profile is known only after Capabilities: the origin is
			// for whichever native profile is found.
			o.Settings.SONiCOrigin, o.Settings.SRLinuxOrigin = *g.Origin, *g.Origin
		}
		if sw.Profile != "auto" {
			if err := profiles.CheckOrigin(sw.Profile, *g.Origin); err != nil {
				return bad("origin", *g.Origin, err)
			}
		}
	}
	if g.CommitConfirm != "" {
		if err := checkCommitMode(g.CommitConfirm); err != nil {
			return bad("commit_confirm", g.CommitConfirm, err)
		}
		o.CommitConfirm = g.CommitConfirm
	}
	if g.CommitRollback != 0 {
		if g.CommitRollback < policies.MinGNMICommitRollback {
			return bad("commit_rollback", g.CommitRollback, fmt.Errorf("want at least %s", policies.MinGNMICommitRollback))
		}
		o.CommitRollback = g.CommitRollback
	}
	if g.Encoding != "" {
		if err := checkEncoding(g.Encoding); err != nil {
			return bad("encoding", g.Encoding, err)
		}
		o.Encoding = g.Encoding
	}
	if g.RequireModels != nil {
		o.AllowMissingModels = !*g.RequireModels
	}
	return o, nil
}

func checkEncoding(e string) error {
	if e != EncodingJSONIETF && e != EncodingJSON {
		return fmt.Errorf("encoding %q: want %s or %s", e, EncodingJSONIETF, EncodingJSON)
	}
	return nil
}

// NewWithOptions builds a target from o, overridden by the switch's
// gnmi { } block where it sets a value.
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
	o, err := withPolicy(sw, o)
	if err != nil {
		return nil, err
	}
	if o.CommitConfirm == "" {
		o.CommitConfirm = CommitAuto
	}
	if err := checkCommitMode(o.CommitConfirm); err != nil {
		return nil, fmt.Errorf("switch.%s: %w", sw.Name, err)
	}
	if o.CommitRollback <= 0 {
		o.CommitRollback = DefaultCommitRollback
	}
	if o.Encoding != "" {
		if err := checkEncoding(o.Encoding); err != nil {
			return nil, fmt.Errorf("switch.%s: %w", sw.Name, err)
		}
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
	// The first RPC establishes the connection (TCP, TLS, HTTP/2): it is
	// bounded by the connect timeout, so a dead target is reported in
	// seconds, naming the stage.
	connectTimeout := t.env.ConnectTimeout
	if connectTimeout <= 0 {
		connectTimeout = plan.DefaultConnectTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	caps, err := t.client.Capabilities(cctx, &gpb.CapabilityRequest{})
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("%s: connect to %s (gNMI Capabilities, the first RPC): no answer within %s", t.Address(), t.sw.Address, connectTimeout)
		}
		return fmt.Errorf("%s: gNMI Capabilities from %s: %w", t.Address(), t.sw.Address, err)
	}
	enc, err := chooseEncoding(caps.GetSupportedEncodings(), t.opts.Encoding)
	if err != nil {
		return fmt.Errorf("%s: %w", t.Address(), err)
	}
	var models []string
	var advertised []profiles.Model
	for _, m := range caps.GetSupportedModels() {
		models = append(models, m.GetName())
		advertised = append(advertised, profiles.Model{Name: m.GetName(), Organization: m.GetOrganization(), Version: m.GetVersion()})
	}
	name := t.sw.Profile
	if name == "auto" {
		name = profiles.Detect(models)
	}
	prof, err := profiles.New(name, t.opts.Settings)
	if err != nil {
		return fmt.Errorf("%s: %w", t.Address(), err)
	}
	warnings, err := t.checkModels(prof, advertised)
	if err != nil {
		return err
	}
	commitOK := false
	for _, e := range caps.GetExtension() {
		if e.GetCommit() != nil {
			commitOK = true
		}
	}
	t.caps, t.encoding, t.prof, t.commitOK, t.warnings = caps, enc, prof, commitOK, warnings
	return nil
}

// checkModels holds the models the target's Capabilities list against the
// ones the profile needs: a missing model refuses the target (a warning
// with require_models = false), an older version is a warning.
func (t *target) checkModels(prof profiles.Profile, advertised []profiles.Model) ([]string, error) {
	c := profiles.CheckModels(prof, advertised)
	var warnings []string
	if len(c.Missing) > 0 {
		var need []string
		for _, m := range c.Missing {
			need = append(need, fmt.Sprintf("%s (%s, pinned version %s)", m.Name, m.Organization, m.Version))
		}
		msg := fmt.Sprintf("the target's Capabilities do not list %s, which profile %s writes; a Set would be refused", strings.Join(need, ", "), prof.Name())
		if !t.opts.AllowMissingModels {
			return nil, fmt.Errorf("%s: %s. Check the profile and the switch's software release; if the target has the model but does not advertise it, set require_models = false in the switch's gnmi { } block", t.Address(), msg)
		}
		warnings = append(warnings, msg+" (require_models = false: planned anyway)")
	}
	for _, o := range c.Older {
		warnings = append(warnings, fmt.Sprintf("profile %s: the target advertises %s; an older model may refuse or ignore a leaf roce writes", prof.Name(), o))
	}
	return warnings, nil
}

// chooseEncoding picks the policy's override, else JSON_IETF, else JSON
// from what the target advertises.
func chooseEncoding(encs []gpb.Encoding, override string) (gpb.Encoding, error) {
	switch override {
	case EncodingJSONIETF:
		return gpb.Encoding_JSON_IETF, nil
	case EncodingJSON:
		return gpb.Encoding_JSON, nil
	}
	for _, want := range []gpb.Encoding{gpb.Encoding_JSON_IETF, gpb.Encoding_JSON} {
		for _, e := range encs {
			if e == want {
				return e, nil
			}
		}
	}
	return 0, fmt.Errorf("the target advertises neither JSON_IETF nor JSON encoding (it advertises %v); if it accepts one anyway, set encoding = %q (or %q) in the switch's gnmi { } block", encs, EncodingJSONIETF, EncodingJSON)
}

// useCommit: the policy's on/off wins; auto follows what the target's
// Capabilities really advertise.
func (t *target) useCommit() bool {
	switch t.opts.CommitConfirm {
	case CommitOn:
		return true
	case CommitOff:
		return false
	}
	return t.commitOK
}

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
