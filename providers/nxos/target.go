// Package nxos is the provider for Cisco Nexus 5000 and 7000 switches over
// SSH: it reads the QoS configuration with scrapligo's cisco_nxos driver,
// plans the change with the nexus package, and applies it as one
// checkpoint/rollback transaction (docs/apply-safety.md).
package nxos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/platforms"
	"github.com/rocefabric/roce/policies"
)

// defaultOpTimeout bounds one CLI operation. Nexus 7000s with command
// authorization have been seen to answer after 15-16 s, so it is generous.
const defaultOpTimeout = 60 * time.Second

// Target is one NX-OS switch.
type Target struct {
	env       plan.Env
	sw        *policies.Switch
	platform  nexus.Platform
	ifaces    []string // managed interfaces, canonical
	log       *slog.Logger
	opTimeout time.Duration
	home      string // for ~/.ssh/known_hosts when the policy names no trust
	// backoff is the wait before each reconnection attempt after the
	// connection dropped during apply.
	backoff []time.Duration
	now     func() time.Time
	// sequential reads one command per exchange instead of in one batch
	// (batch.go).
	sequential bool
}

var _ plan.Target = (*Target)(nil)

// New is the plan.SwitchFactory for platforms nexus5000 and nexus7000.
func New(env plan.Env, sw *policies.Switch) (plan.Target, error) {
	return newTarget(env, sw)
}

func newTarget(env plan.Env, sw *policies.Switch) (*Target, error) {
	p, err := nexus.PlatformFor(sw.Platform, platforms.Default())
	if err != nil {
		return nil, fmt.Errorf("switch.%s: %w", sw.Name, err)
	}
	if sw.Address == "" && sw.Capture == "" {
		return nil, fmt.Errorf("switch.%s: neither address nor capture is set", sw.Name)
	}
	t := &Target{
		env: env, sw: sw, platform: p, log: env.Logger, opTimeout: env.Timeout, now: time.Now,
		backoff: []time.Duration{200 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second},
	}
	if t.log == nil {
		t.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if t.opTimeout <= 0 {
		t.opTimeout = defaultOpTimeout
	}
	t.home, _ = os.UserHomeDir()
	for _, n := range sw.Interfaces {
		c, ok := nexus.CanonicalInterface(n)
		if !ok {
			return nil, fmt.Errorf("switch.%s: interface %q is not an NX-OS interface name (want e.g. Ethernet1/1)", sw.Name, n)
		}
		t.ifaces = append(t.ifaces, c)
	}
	return t, nil
}

// Address is "switch.NAME".
func (t *Target) Address() string { return "switch." + t.sw.Name }

// Close releases nothing: every operation opens and closes its own session.
func (t *Target) Close() error { return nil }

func (t *Target) endpoint() string {
	if t.sw.Capture != "" {
		return "capture:" + resolvePath(t.env.Fabric, t.sw.Capture)
	}
	return t.sw.Address
}

// dialer resolves credentials and host-key trust for a live connection.
func (t *Target) dialer() (dialer, string, error) {
	if t.env.Fabric == nil {
		return dialer{}, "", fmt.Errorf("%s: no policy loaded to take credentials %q from", t.Address(), t.sw.Credentials)
	}
	sec, err := t.env.Fabric.ResolveCredentials(t.sw.Credentials, t.env.Getenv)
	if err != nil {
		return dialer{}, "", fmt.Errorf("%s: %w", t.Address(), err)
	}
	var auth []ssh.AuthMethod
	if len(sec.Key) > 0 {
		signer, err := ssh.ParsePrivateKey(sec.Key)
		if err != nil {
			return dialer{}, "", fmt.Errorf("%s: credentials %q: private key: %w", t.Address(), t.sw.Credentials, err)
		}
		auth = append(auth, ssh.PublicKeys(signer))
	}
	if sec.Password != "" {
		pw := sec.Password
		auth = append(auth, ssh.Password(pw), ssh.KeyboardInteractive(
			func(_, _ string, qs []string, _ []bool) ([]string, error) {
				a := make([]string, len(qs))
				for i := range a {
					a[i] = pw
				}
				return a, nil
			}))
	}
	tr, err := hostKeyCheck(t.env.Fabric, t.sw, t.home)
	if err != nil {
		return dialer{}, "", err
	}
	if tr.warning != "" {
		// Validation and the plan (TargetPlan.Warnings) already show it
		// to the user; a WARN log line here was a third copy.
		t.log.Debug(tr.warning, "target", t.Address())
	}
	return dialer{address: t.sw.Address, user: sec.Username, auth: auth, trust: tr, opTimeout: t.opTimeout, connectTimeout: t.env.ConnectTimeout, sequential: t.sequential}, tr.warning, nil
}

// Plan reads the switch (or its capture) and returns what must change.
func (t *Target) Plan(ctx context.Context) (*plan.TargetPlan, error) {
	tp := &plan.TargetPlan{Address: t.Address(), Kind: t.sw.Platform, Endpoint: t.endpoint(), Offline: t.sw.Capture != "", Changes: []plan.Change{}}
	var st *state
	if t.sw.Capture != "" {
		s, err := t.readCaptured()
		if err != nil {
			return tp, err
		}
		st = s
	} else {
		dl, warning, err := t.dialer()
		if err != nil {
			return tp, err
		}
		if warning != "" {
			tp.Warnings = append(tp.Warnings, warning)
		}
		c, err := dl.open(ctx)
		if err != nil {
			return tp, fmt.Errorf("%s: connect to %s: %w", t.Address(), t.sw.Address, withNextStep(t.env.Fabric, t.sw, err))
		}
		defer c.close()
		if st, err = t.readLive(c); err != nil {
			return tp, fmt.Errorf("%s: %w", t.Address(), err)
		}
	}
	tp.Facts = st.facts()
	tp.Fingerprint = st.fingerprint
	// What the rendering rests on that no public source confirms (and what
	// it leaves out because of that), once per plan, next to the commands.
	tp.Warnings = append(tp.Warnings, nexus.Unconfirmed(t.intent(st))...)
	changes, cmds, desired, err := t.diff(st)
	if err != nil {
		return tp, err
	}
	tp.Warnings = append(tp.Warnings, nexus.ClassOrderWarnings(t.intent(st), desired)...)
	if err := t.checkVDC(st, cmds); err != nil {
		return tp, plan.RenderConflict(err)
	}
	tp.Changes, tp.Commands = changes, cmds
	if tp.Changes == nil {
		tp.Changes = []plan.Change{}
	}
	if t.sw.Capture == "" {
		tp.Payload = t.payload()
	}
	if objs := t.unsavedObjects(st, changes); len(objs) > 0 {
		tp.Warnings = append(tp.Warnings, unsavedWarning(objs))
	}
	return tp, nil
}

// intent is what this switch must carry.
func (t *Target) intent(st *state) nexus.Intent {
	return nexus.Intent{
		Platform:   t.platform,
		Classes:    t.env.Fabric.LosslessFor(t.sw),
		Interfaces: t.ifaces,
		FCoE:       t.sw.FCoE,
		Modules:    st.modules,
		// 7000: the port MTU roce sets (docs/nxos.md#port-mtu).
		JumboMTULine:      st.jumbo,
		DefaultSwitchport: st.defaultL2,
	}
}

// diff renders the desired config from what was read and diffs it.
func (t *Target) diff(st *state) ([]plan.Change, []string, *nexus.Config, error) {
	desired, err := nexus.Render(t.intent(st), st.cfg)
	if err != nil {
		return nil, nil, nil, plan.RenderConflict(fmt.Errorf("%s: render the desired QoS config: %w", t.Address(), err))
	}
	changes, cmds, err := nexus.Diff(st.cfg, desired, t.platform)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: diff current and desired config: %w", t.Address(), err)
	}
	// A command the switch's release does not have would be refused
	// half-way through the push: refuse the plan, naming it
	// (docs/nxos.md#version-rules).
	if err := nexus.CheckPushRelease(cmds, t.platform, st.version.OS); err != nil {
		return nil, nil, nil, plan.RenderConflict(fmt.Errorf("%s: a command for this switch is not in its NX-OS %s (commands numbered in push order): %w", t.Address(), st.version.OS, err))
	}
	return changes, cmds, desired, nil
}

// checkVDC refuses network-qos changes from a session outside the default
// VDC of a 7000 (network-qos is system-wide and set in the default VDC,
// Cisco's Nexus 7000 QoS and VDC guides), and a session in another VDC than the policy names.
func (t *Target) checkVDC(st *state, cmds []string) error {
	if !t.platform.Is7000() || st.vdcID == 0 {
		return nil
	}
	if t.sw.VDC != "" && !strings.EqualFold(t.sw.VDC, st.vdcName) && !(st.vdcID == 1 && strings.EqualFold(t.sw.VDC, "default")) {
		return fmt.Errorf("%s: the SSH session landed in VDC %q (id %d), but the policy says vdc = %q; log in with a user whose VDC is %q or fix the policy", t.Address(), st.vdcName, st.vdcID, t.sw.VDC, t.sw.VDC)
	}
	if st.vdcID == 1 {
		return nil
	}
	for _, c := range cmds {
		if strings.Contains(c, "network-qos") {
			return fmt.Errorf("%s: the SSH session is in VDC %q (id %d), not the default VDC, and network-qos can be changed only from the default VDC (it is system-wide); point address at the default VDC's management interface, or use an account that lands in the default VDC", t.Address(), st.vdcName, st.vdcID)
		}
	}
	return nil
}

// readLive reads version, modules, VDC and the managed configuration.
func (t *Target) readLive(c *conn) (*state, error) {
	if !t.sequential {
		return t.readBatched(c, nil)
	}
	st := &state{}
	out, err := c.command("show version")
	if err != nil {
		return nil, fmt.Errorf("read show version: %w", err)
	}
	if err := t.takeVersion(st, out, "show version"); err != nil {
		return nil, err
	}
	if out, err = c.command("show module"); err != nil {
		return nil, fmt.Errorf("read show module: %w", err)
	}
	if st.modules, err = nexus.ParseShowModule(out); err != nil {
		return nil, fmt.Errorf("parse show module: %w", err)
	}
	if t.platform.Is7000() {
		if out, err = c.command("show vdc current-vdc"); err != nil {
			return nil, fmt.Errorf("read the current VDC: %w", err)
		}
		if st.vdcID, st.vdcName, err = parseCurrentVDC(out); err != nil {
			return nil, err
		}
		if out, err = c.command(jumboCommand); err != nil {
			return nil, fmt.Errorf("read %s: %w", jumboCommand, err)
		}
		if err := st.takeJumbo(out); err != nil {
			return nil, err
		}
	}
	var saved []string
	for _, cmd := range t.configCommands("show startup-config") {
		out, err := c.command(cmd)
		if err != nil && errors.Is(err, errConnection) {
			return nil, fmt.Errorf("read %s: %w", cmd, err)
		}
		saved = append(saved, out) // refused: the saved state is unknown (takeStartup)
	}
	live, err := t.readConfig(c, st)
	if err != nil {
		return nil, err
	}
	live.takeStartup(saved)
	return live, nil
}

// readConfig reads the managed configuration into a copy of st (version,
// modules and VDC are kept): after a change only the configuration moves.
func (t *Target) readConfig(c *conn, facts *state) (*state, error) {
	if !t.sequential {
		return t.readBatched(c, facts)
	}
	st := &state{version: facts.version, kind: facts.kind, modules: facts.modules, vdcID: facts.vdcID, vdcName: facts.vdcName, jumbo: facts.jumbo, defaultL2: facts.defaultL2}
	var text strings.Builder
	for _, cmd := range t.configCommands("show running-config") {
		out, err := c.command(cmd)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", cmd, err)
		}
		text.WriteString(nexus.NormaliseRunning(out))
	}
	if err := st.finish(text.String(), t.sw.Address); err != nil {
		return nil, err
	}
	return st, nil
}

// takeVersion parses show version and checks the platform is the one the
// policy names.
func (t *Target) takeVersion(st *state, out, source string) error {
	v, err := nexus.ParseShowVersion(out)
	if err != nil {
		return fmt.Errorf("parse %s: %w", source, err)
	}
	st.version = v
	kind, err := nexus.KindFromVersion(v)
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	if kind != t.sw.Platform {
		return fmt.Errorf("%s reports a %s (%s), but the policy says platform = %q; fix the policy", source, v.Platform, kind, t.sw.Platform)
	}
	st.kind = kind
	return nil
}

// readCaptured reads a saved capture the way readLive reads a switch, so
// an offline plan matches the live one.
func (t *Target) readCaptured() (*state, error) {
	path := resolvePath(t.env.Fabric, t.sw.Capture)
	cp, err := readCapture(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Address(), err)
	}
	st := &state{}
	if err := t.takeVersion(st, cp.version, path+" (show version)"); err != nil {
		return nil, fmt.Errorf("%s: %w", t.Address(), err)
	}
	if st.modules, err = nexus.ParseShowModule(cp.module); err != nil {
		return nil, fmt.Errorf("%s: parse %s (show module): %w", t.Address(), path, err)
	}
	full, err := nexus.Parse(cp.running)
	if err != nil {
		return nil, fmt.Errorf("%s: parse %s (show running-config): %w", t.Address(), path, err)
	}
	if t.platform.Is7000() {
		if err := st.keepJumbo(cp.running, path+" (show running-config)"); err != nil {
			return nil, fmt.Errorf("%s: %w", t.Address(), err)
		}
	}
	var text strings.Builder
	for _, sec := range sections {
		text.WriteString(nexus.NormaliseRunning(full.Section(sec)))
	}
	if len(t.ifaces) > 0 {
		text.WriteString(nexus.NormaliseRunning(full.InterfaceConfig(t.ifaces...)))
	}
	if err := st.finish(text.String(), path); err != nil {
		return nil, fmt.Errorf("%s: %w", t.Address(), err)
	}
	return st, nil
}

// errOffline is returned by Apply for a capture-backed target.
var errOffline = errors.New("planned against a saved capture, not a live switch; roce-apply needs the switch's address")
