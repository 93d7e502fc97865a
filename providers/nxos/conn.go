package nxos

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/scrapli/scrapligo/driver/network"
	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/platform"
	"golang.org/x/crypto/ssh"

	"github.com/rocefabric/roce/plan"
)

// failedWhenContains are the NX-OS answers that mean a line was refused:
// scrapligo v1's cisco_nxos list plus markers seen on NX-OS that it lacks
// (v2's additions, "Invalid range at" without "%", and "ERROR:").
var failedWhenContains = []string{
	"% Ambiguous command",
	"% Incomplete command",
	"% Invalid input detected",
	"% Unknown command",
	"% Invalid command",
	"% Invalid parameter",
	"% Invalid number at",
	"Invalid range at",
	"ERROR:",
}

// configurationNotContains replaces scrapligo v1's cisco_nxos
// `configuration` exclusion ("config-s" as a plain substring also hides
// `(config-sys-qos)` and `(config-subif)`); these are python scrapli's and
// scrapligo v2's, which exclude only tclsh and configure-session prompts
// (scrapligo v1.4.1 `platform/definitions/cisco_nxos.yaml`; python scrapli's
// and scrapligo v2's definitions).
var configurationNotContains = []string{"config-tcl", "config-s)", "config-s-"}

// dialer is what a conn needs to open an SSH CLI session.
type dialer struct {
	address   string // host[:port]
	user      string
	auth      []ssh.AuthMethod
	trust     trust
	opTimeout time.Duration
	// connectTimeout bounds TCP connect, SSH handshake and login.
	connectTimeout time.Duration
	// sequential keeps scrapligo's one-command-per-exchange login and
	// logout (batch.go).
	sequential bool
}

// conn is one scrapligo cisco_nxos session. Every exchange is recorded.
type conn struct {
	d        *network.Driver
	tr       *sshTransport
	stop     func() bool
	exchange []plan.Exchange
	trips    int // round trips (lines sent)
	// sequential: scrapligo's two round trips per line (batch.go).
	sequential bool
}

// errConnection marks failures of the session itself (dropped, timed out),
// as opposed to the switch refusing a command.
var errConnection = errors.New("connection to the switch failed")

// errSessionLost marks, among connection failures, those after a
// successful login (as opposed to an unreachable switch or a refused
// login, which a retry would not fix or should not repeat).
var errSessionLost = errors.New("session lost after login")

// classified is err marked with sentinel kinds for errors.Is, reading as
// err alone.
type classified struct {
	err   error
	kinds []error
}

func (c classified) Error() string   { return c.err.Error() }
func (c classified) Unwrap() []error { return append([]error{c.err}, c.kinds...) }

func (dl dialer) open(ctx context.Context) (*conn, error) {
	host, port, err := splitHostPort(dl.address)
	if err != nil {
		return nil, err
	}
	addr := joinHostPort(host, port)
	tr := &sshTransport{
		ctx: ctx, addr: addr, user: dl.user, auth: dl.auth,
		hostKey: dl.trust.callback, timeout: dl.connectTimeout,
	}
	if tr.timeout <= 0 {
		tr.timeout = plan.DefaultConnectTimeout
	}
	if dl.trust.algorithms != nil {
		tr.hostKeyAlgorithms = dl.trust.algorithms(addr)
	}
	p, err := platform.NewPlatform("cisco_nxos", host,
		options.WithCustomTransport(tr),
		options.WithPort(port),
		options.WithAuthUsername(dl.user),
		options.WithTimeoutOps(dl.opTimeout),
		options.WithTimeoutSocket(dl.opTimeout),
	)
	if err != nil {
		return nil, fmt.Errorf("scrapligo cisco_nxos platform: %w", err)
	}
	d, err := p.GetNetworkDriver()
	if err != nil {
		return nil, fmt.Errorf("scrapligo cisco_nxos driver: %w", err)
	}
	cfg, ok := d.PrivilegeLevels["configuration"]
	if !ok {
		return nil, errors.New("scrapligo cisco_nxos has no configuration privilege level; is the pinned v1.4.x in use?")
	}
	cfg.NotContains = slices.Clone(configurationNotContains)
	d.UpdatePrivileges()
	d.FailedWhenContains = slices.Clone(failedWhenContains)
	if !dl.sequential {
		d.OnOpen, d.OnClose = onOpenBatched(d.OnOpen), onCloseBatched(d.OnClose)
	}
	if err := d.Open(); err != nil {
		_ = tr.Close()
		if errors.Is(err, errHostKey) {
			return nil, err
		}
		// The caller names the switch and its address; the sentinels only
		// classify (retry or not) and add no words.
		if tr.loggedIn() {
			return nil, classified{err: err, kinds: []error{errConnection, errSessionLost}}
		}
		return nil, classified{err: err, kinds: []error{errConnection}}
	}
	c := &conn{d: d, tr: tr, sequential: dl.sequential}
	// A cancelled context tears the connection down, which fails whatever
	// read is in progress: scrapligo v1 itself takes no context.
	c.stop = context.AfterFunc(ctx, func() { _ = tr.Close() })
	return c, nil
}

func joinHostPort(host string, port int) string {
	if strings.Contains(host, ":") {
		return fmt.Sprintf("[%s]:%d", host, port)
	}
	return fmt.Sprintf("%s:%d", host, port)
}

// close ends the session politely when it is alive, at once otherwise.
func (c *conn) close() {
	c.stop()
	if !c.tr.IsAlive() {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.d.Close()
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = c.tr.Close()
		<-done
	}
}

// command runs one exec-mode command. A refusal by the switch is an error
// naming the command and quoting the answer.
func (c *conn) command(cmd string) (string, error) {
	c.trips++
	r, err := c.sendCommand(cmd)
	if err != nil {
		c.exchange = append(c.exchange, plan.Exchange{Command: cmd, Response: err.Error(), Failed: true})
		return "", fmt.Errorf("%w: %w: %q: %w", errConnection, errSessionLost, cmd, err)
	}
	ex := plan.Exchange{Command: cmd, Response: r.Result, Failed: cliRefused(r.Result)}
	c.exchange = append(c.exchange, ex)
	if ex.Failed {
		return r.Result, fmt.Errorf("the switch refused %q: %s", cmd, firstLines(r.Result))
	}
	return r.Result, nil
}

// configure enters configuration mode and sends lines one by one, stopping
// at the first the switch refuses. It returns how many lines were accepted
// and, when one was refused, an error quoting the answer. Lines go straight
// to the channel (one round trip each) so every answer is recorded even if
// the connection drops half-way.
func (c *conn) configure(lines []string) (int, error) {
	if err := c.enterConfig(); err != nil {
		c.exchange = append(c.exchange, plan.Exchange{Command: "configure terminal", Response: err.Error(), Failed: true})
		return 0, fmt.Errorf("%w: entering configuration mode: %w", errConnection, err)
	}
	c.exchange = append(c.exchange, plan.Exchange{Command: "configure terminal"})
	for i, l := range lines {
		c.trips++
		b, err := c.sendInput(l)
		if err != nil {
			c.exchange = append(c.exchange, plan.Exchange{Command: l, Response: err.Error(), Failed: true})
			return i, fmt.Errorf("%w: sending line %d %q: %w", errConnection, i+1, l, err)
		}
		out := string(b)
		failed := cliRefused(out)
		c.exchange = append(c.exchange, plan.Exchange{Command: l, Response: out, Failed: failed})
		if failed {
			return i, fmt.Errorf("the switch refused line %d of %d: %s: %s", i+1, len(lines), strings.TrimSpace(l), firstLines(out))
		}
	}
	if err := c.leaveConfig(); err != nil {
		return len(lines), fmt.Errorf("%w: leaving configuration mode: %w", errConnection, err)
	}
	c.exchange = append(c.exchange, plan.Exchange{Command: "end"})
	return len(lines), nil
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// cliRefused reports whether an answer says the CLI refused its command: a
// line of it (leading blanks aside) starts with one of failedWhenContains.
// A marker inside a line is configuration text, not a refusal: an ACL
// remark or a description reading "ERROR: ..." is shown by the show
// commands roce reads, and must not make the switch unreadable
// (answer_hostile_test.go).
func cliRefused(answer string) bool {
	for _, l := range strings.Split(answer, "\n") {
		l = strings.TrimLeft(l, " \t\r")
		for _, m := range failedWhenContains {
			if strings.HasPrefix(l, m) {
				return true
			}
		}
	}
	return false
}

// firstLines shortens a device answer for an error message.
func firstLines(s string) string {
	s = strings.TrimSpace(s)
	lines := strings.Split(s, "\n")
	if len(lines) > 4 {
		lines = append(lines[:4], "...")
	}
	return strings.Join(lines, " | ")
}
