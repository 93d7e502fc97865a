package nxos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/scrapli/scrapligo/transport"
	"golang.org/x/crypto/ssh"
)

// errNoAnswer marks an address that did not answer a TCP connect in time.
var errNoAnswer = errors.New("no answer")

// sshTransport is a scrapligo transport over golang.org/x/crypto/ssh, like
// scrapligo's "standard" transport, with what that one lacks: the dial
// follows a context, the host key is checked by our own callback (a pinned
// key or fingerprint, or a known_hosts file, with errors that say what to
// do), and the connection can be torn down from another goroutine to
// unblock a read (scrapligo's Transport.Close waits for the read lock).
type sshTransport struct {
	ctx     context.Context
	addr    string // host:port
	user    string
	auth    []ssh.AuthMethod
	hostKey ssh.HostKeyCallback
	// hostKeyAlgorithms restricts the key types asked for (nil = defaults).
	hostKeyAlgorithms []string
	timeout           time.Duration // dial + handshake

	mu       sync.Mutex
	loggedin bool // Open got as far as a shell once
	conn     net.Conn
	client   *ssh.Client
	session  *ssh.Session
	stdin    io.WriteCloser
	stdout   io.Reader
}

var _ transport.Implementation = (*sshTransport)(nil)

// Open dials, authenticates, verifies the host key and starts a shell on a
// pseudo-terminal, as an interactive NX-OS login does.
func (t *sshTransport) Open(a *transport.Args) error {
	ctx, cancel := context.WithTimeout(t.ctx, t.timeout)
	defer cancel()
	d := net.Dialer{}
	conn, err := d.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		if (ctx.Err() != nil || isTimeout(err)) && t.ctx.Err() == nil {
			return fmt.Errorf("TCP connect: %w within %s", errNoAnswer, t.timeout)
		}
		return fmt.Errorf("TCP connect: %w", dialCause(err))
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	cc, chans, reqs, err := ssh.NewClientConn(conn, t.addr, &ssh.ClientConfig{
		User:              t.user,
		Auth:              t.auth,
		HostKeyCallback:   t.hostKey,
		HostKeyAlgorithms: t.hostKeyAlgorithms,
		Timeout:           t.timeout,
	})
	if err != nil {
		_ = conn.Close()
		if (ctx.Err() != nil || isTimeout(err)) && t.ctx.Err() == nil && !errors.Is(err, errHostKey) {
			// Accepted TCP, then silence: a hung SSH daemon or something
			// that is not SSH on this port.
			return fmt.Errorf("SSH handshake: no answer within %s (the port accepts connections but does not speak SSH)", t.timeout)
		}
		if ctx.Err() != nil && !errors.Is(err, errHostKey) {
			return fmt.Errorf("SSH handshake: %w (%v)", ctx.Err(), handshakeCause(err))
		}
		return fmt.Errorf("SSH handshake: %w", handshakeCause(err))
	}
	_ = conn.SetDeadline(time.Time{})
	client := ssh.NewClient(cc, chans, reqs)
	sess, err := client.NewSession()
	if err != nil {
		_ = client.Close()
		return fmt.Errorf("SSH session: %w", err)
	}
	stdin, err1 := sess.StdinPipe()
	stdout, err2 := sess.StdoutPipe()
	if err := errors.Join(err1, err2); err != nil {
		_ = client.Close()
		return fmt.Errorf("SSH session pipes: %w", err)
	}
	modes := ssh.TerminalModes{ssh.ECHO: 1, ssh.TTY_OP_ISPEED: 115200, ssh.TTY_OP_OSPEED: 115200}
	if err := sess.RequestPty("xterm", a.TermHeight, a.TermWidth, modes); err != nil {
		_ = client.Close()
		return fmt.Errorf("SSH pty: %w", err)
	}
	if err := sess.Shell(); err != nil {
		_ = client.Close()
		return fmt.Errorf("SSH shell: %w", err)
	}
	t.mu.Lock()
	t.conn, t.client, t.session, t.stdin, t.stdout = conn, client, sess, stdin, stdout
	t.loggedin = true
	t.mu.Unlock()
	return nil
}

// The callers of open name the switch and its address once ("switch.NAME:
// connect to ADDR: ..."); the causes below drop the copies of the address
// the standard library and x/crypto/ssh put in their errors.

// dialCause is a dial error without the "dial tcp ADDR: connect:" the
// net package puts around it ("connection refused", "no route to host").
func dialCause(err error) error {
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}

// handshakeCause is an SSH handshake error without x/crypto's "ssh:
// handshake failed:" wrapper, which says nothing the caller does not.
func handshakeCause(err error) error {
	if u := errors.Unwrap(err); u != nil && strings.HasPrefix(err.Error(), "ssh: handshake failed: ") {
		return u
	}
	return err
}

// isTimeout reports whether err is a network deadline expiring (the
// connection's deadline is the connect timeout's, and may fire a moment
// before the context notices).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// loggedIn reports whether Open got as far as a shell (the login worked),
// even if the connection has gone since.
func (t *sshTransport) loggedIn() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.loggedin
}

// Close ends the session and the connection; safe to call more than once
// and from any goroutine.
func (t *sshTransport) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client == nil {
		return nil
	}
	_ = t.session.Close()
	err := t.client.Close()
	_ = t.conn.Close()
	t.client = nil
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// IsAlive reports whether Open succeeded and Close was not called.
func (t *sshTransport) IsAlive() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.client != nil
}

// Read reads up to n bytes of terminal output.
func (t *sshTransport) Read(n int) ([]byte, error) {
	t.mu.Lock()
	r := t.stdout
	t.mu.Unlock()
	if r == nil {
		return nil, io.EOF
	}
	b := make([]byte, n)
	n, err := r.Read(b)
	if err != nil {
		return nil, err
	}
	return b[:n], nil
}

// Write sends input.
func (t *sshTransport) Write(b []byte) error {
	t.mu.Lock()
	w := t.stdin
	t.mu.Unlock()
	if w == nil {
		return io.ErrClosedPipe
	}
	_, err := w.Write(b)
	return err
}

// splitHostPort splits an address with the SSH default port 22.
func splitHostPort(addr string) (string, int, error) {
	host, portS, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, 22, nil //nolint:nilerr // no port: SSH default
	}
	port, err := strconv.Atoi(portS)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("address %q: bad port %q", addr, portS)
	}
	return host, port, nil
}
