package host

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/rocefabric/roce/nics/agentproto"
	"github.com/rocefabric/roce/policies"
)

// remoteAgentDir is where the agent is cached on a host, by content digest,
// so hosts running different controller versions never share a binary.
const remoteAgentDir = ".cache/roce"

// Limits of reaching a host, inside the run's own deadline: a host that
// is down is reported after the connect limit, one whose port accepts
// connections but never speaks SSH after the handshake limit — not after
// the whole run's timeout.
const (
	DefaultSSHConnectTimeout   = 10 * time.Second
	DefaultSSHHandshakeTimeout = 20 * time.Second
)

// sshRunner runs the agent on a remote host over one SSH connection, one
// session per call.
type sshRunner struct {
	addr   string
	config *ssh.ClientConfig
	agent  []byte // the local agent binary
	digest string // its sha256, hex
	netns  string
	root   string
	arch   string // the agent binary's machine as uname -m prints it; "" = unknown
	sudo   bool   // the SSH user is not root: run the agent through sudo -n

	auth *agentAuth // nil without ssh-agent

	// connectTimeout and handshakeTimeout: 0 = the defaults above.
	connectTimeout, handshakeTimeout time.Duration

	mu     sync.Mutex
	client *ssh.Client
	ready  bool // the binary is on the host with the right digest
}

func (s *sshRunner) remotePath() string { return remoteAgentDir + "/agent-" + s.digest }

func (s *sshRunner) describe() string { return "ssh " + s.addr + " ~/" + s.remotePath() }

func (s *sshRunner) dial(ctx context.Context) (*ssh.Client, error) {
	if s.client != nil {
		return s.client, nil
	}
	connect, handshake := s.connectTimeout, s.handshakeTimeout
	if connect <= 0 {
		connect = DefaultSSHConnectTimeout
	}
	if handshake <= 0 {
		handshake = DefaultSSHHandshakeTimeout
	}
	d := net.Dialer{Timeout: connect}
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() && ctx.Err() == nil {
			return nil, fmt.Errorf("connect to %s: no TCP connection within %v (is the host up, and is sshd listening on that port?): %w", s.addr, connect, err)
		}
		return nil, fmt.Errorf("connect to %s: %w", s.addr, err)
	}
	dl := time.Now().Add(handshake)
	if cdl, ok := ctx.Deadline(); ok && cdl.Before(dl) {
		dl = cdl
	}
	_ = conn.SetDeadline(dl)
	c, chans, reqs, err := ssh.NewClientConn(conn, s.addr, s.config)
	if err != nil {
		conn.Close()
		if errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() == nil {
			return nil, fmt.Errorf("ssh handshake with %s: no answer within %v (the port accepts connections but no SSH server answers on it): %w", s.addr, handshake, err)
		}
		return nil, fmt.Errorf("ssh handshake with %s: %w", s.addr, err)
	}
	_ = conn.SetDeadline(time.Time{})
	s.client = ssh.NewClient(c, chans, reqs)
	return s.client, nil
}

// exec runs one command in a new session, killing the session when ctx ends.
func (s *sshRunner) exec(ctx context.Context, client *ssh.Client, cmd string, stdin []byte) ([]byte, []byte, error) {
	sess, err := client.NewSession()
	if err != nil {
		return nil, nil, fmt.Errorf("ssh session: %w", err)
	}
	defer sess.Close()
	// Bounded: a compromised host must not exhaust the controller's
	// memory with an endless answer.
	out := &capBuffer{max: agentproto.MaxResponseBytes}
	errb := &capBuffer{max: 1 << 20}
	sess.Stdin, sess.Stdout, sess.Stderr = bytes.NewReader(stdin), out, errb
	done := make(chan error, 1)
	go func() { done <- sess.Run(cmd) }()
	select {
	case err := <-done:
		if err == nil && out.over {
			err = fmt.Errorf("the host's answer is larger than %d bytes", out.max)
		}
		return out.Bytes(), errb.Bytes(), err
	case <-ctx.Done():
		_ = sess.Signal(ssh.SIGKILL)
		sess.Close()
		return out.Bytes(), errb.Bytes(), ctx.Err()
	}
}

// checkCmd succeeds only when the cached agent has exactly our digest.
func (s *sshRunner) checkCmd() string {
	return fmt.Sprintf("cd && echo %s | sha256sum -c --status -", shellQuote(s.digest+"  "+s.remotePath()))
}

// ensureAgent copies the agent when it is missing or different, then checks
// the digest on the host.
func (s *sshRunner) ensureAgent(ctx context.Context, client *ssh.Client) error {
	if s.ready {
		return nil
	}
	if _, _, err := s.exec(ctx, client, s.checkCmd(), nil); err == nil {
		s.ready = true
		return nil
	}
	if s.arch != "" {
		out, _, err := s.exec(ctx, client, "uname -m", nil)
		if m := strings.TrimSpace(string(out)); err == nil && m != "" && m != s.arch {
			return fmt.Errorf("the host is %s but the roce-agent binary is built for %s: build it for the host (GOOS=linux GOARCH=...) and point $%s at it", m, s.arch, AgentEnv)
		}
	}
	tmp := s.remotePath() + ".tmp"
	up := fmt.Sprintf("cd && umask 077 && mkdir -p %s && cat > %s && chmod 0700 %s && mv -f %s %s",
		remoteAgentDir, shellQuote(tmp), shellQuote(tmp), shellQuote(tmp), shellQuote(s.remotePath()))
	if _, stderr, err := s.exec(ctx, client, up, s.agent); err != nil {
		return fmt.Errorf("copy roce-agent to ~/%s: %w%s", s.remotePath(), err, stderrNote(stderr))
	}
	if _, stderr, err := s.exec(ctx, client, s.checkCmd(), nil); err != nil {
		return fmt.Errorf("roce-agent copied to ~/%s but its sha256 does not match %s: %w%s", s.remotePath(), s.digest, err, stderrNote(stderr))
	}
	s.ready = true
	return nil
}

func (s *sshRunner) run(ctx context.Context, stdin []byte) ([]byte, []byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	client, err := s.dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := s.ensureAgent(ctx, client); err != nil {
		return nil, nil, err
	}
	// The digest is checked again right before exec, in the same shell, so
	// a binary swapped since the copy is never run.
	cmd := s.checkCmd() + " && exec "
	if s.sudo {
		// netlink and configfs need root; -n fails instead of prompting.
		cmd += "sudo -n "
	}
	if s.netns != "" {
		cmd += "ip netns exec " + shellQuote(s.netns) + " "
	}
	cmd += "./" + shellQuote(s.remotePath()) + " --root " + shellQuote(s.root)
	out, stderr, err := s.exec(ctx, client, cmd, stdin)
	var exitErr *ssh.ExitError
	if errors.As(err, &exitErr) && exitErr.ExitStatus() == 1 && len(out) == 0 {
		err = fmt.Errorf("%w (digest check failed or the agent could not start)", err)
	}
	return out, stderr, err
}

func (s *sshRunner) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	aerr := s.auth.close()
	if s.client == nil {
		return aerr
	}
	err := s.client.Close()
	s.client = nil
	return errors.Join(err, aerr)
}

// agentAuth talks to the user's ssh-agent. The connection must stay open
// through the handshake (the agent signs then), so it is kept and closed
// with the runner.
type agentAuth struct {
	sock string
	mu   sync.Mutex
	conn net.Conn
}

func (a *agentAuth) signers() ([]ssh.Signer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn == nil {
		c, err := net.Dial("unix", a.sock)
		if err != nil {
			return nil, fmt.Errorf("ssh-agent %s: %w", a.sock, err)
		}
		a.conn = c
	}
	return agent.NewClient(a.conn).Signers()
}

func (a *agentAuth) close() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn == nil {
		return nil
	}
	err := a.conn.Close()
	a.conn = nil
	return err
}

// capBuffer keeps at most max bytes and drains the rest, noting it.
type capBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room < len(p) {
		c.over = true
		if room > 0 {
			c.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// sshConfig builds the client config: host key verified against a pinned
// key or a known_hosts file (never skipped), key / ssh-agent / password
// auth from the host's credentials block.
func sshConfig(fab *policies.Fabric, h *policies.Host, getenv func(string) (string, bool)) (*ssh.ClientConfig, *agentAuth, error) {
	cb, err := hostKeyCallback(fab, h, getenv)
	if err != nil {
		return nil, nil, err
	}
	cfg := &ssh.ClientConfig{HostKeyCallback: cb, User: "root", Timeout: 30 * time.Second}
	var cred *policies.Credentials
	if h.Credentials != "" {
		c, ok := fab.Credentials[h.Credentials]
		if !ok {
			return nil, nil, fmt.Errorf("credentials %q not defined", h.Credentials)
		}
		cred = c
	}
	if cred != nil && cred.Username != "" {
		cfg.User = cred.Username
	}
	var secret policies.Secret
	if cred != nil && (cred.KeyFile != "" || cred.KeyEnv != "" || cred.PasswordFile != "" || cred.PasswordEnv != "") {
		sec, err := fab.ResolveCredentials(cred.Name, getenv)
		if err != nil {
			return nil, nil, err
		}
		secret = sec
	}
	if len(secret.Key) > 0 {
		signer, err := ssh.ParsePrivateKey(secret.Key)
		if err != nil {
			return nil, nil, fmt.Errorf("credentials %s: private key: %w", cred.Name, err)
		}
		cfg.Auth = append(cfg.Auth, ssh.PublicKeys(signer))
	}
	var agentConn *agentAuth
	if sock, ok := getenv("SSH_AUTH_SOCK"); ok && sock != "" {
		agentConn = &agentAuth{sock: sock}
		cfg.Auth = append(cfg.Auth, ssh.PublicKeysCallback(agentConn.signers))
	}
	if secret.Password != "" {
		// Password auth only ever comes from the credentials block.
		cfg.Auth = append(cfg.Auth, ssh.Password(secret.Password))
	}
	if len(cfg.Auth) == 0 {
		return nil, nil, fmt.Errorf("no SSH authentication: set key_file/key_env or password_env/password_file in credentials %q, or run an ssh-agent (SSH_AUTH_SOCK)", h.Credentials)
	}
	return cfg, agentConn, nil
}

func resolvePath(fab *policies.Fabric, p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	if filepath.IsAbs(p) || fab == nil || fab.Dir == "" {
		return p
	}
	return filepath.Join(fab.Dir, p)
}

func hostKeyCallback(fab *policies.Fabric, h *policies.Host, getenv func(string) (string, bool)) (ssh.HostKeyCallback, error) {
	if h.HostKey != "" {
		return pinnedKey(h.HostKey)
	}
	kh := h.KnownHosts
	if kh == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("no host_key or known_hosts set and no home directory for ~/.ssh/known_hosts: %w", err)
		}
		kh = filepath.Join(home, ".ssh", "known_hosts")
	}
	p := resolvePath(fab, kh)
	cb, err := knownhosts.New(p)
	if err != nil {
		return nil, fmt.Errorf("known_hosts %s: %w (add the host with ssh-keyscan, or pin host_key)", p, err)
	}
	return cb, nil
}

// pinnedKey accepts exactly one key: an authorized_keys line or a
// "SHA256:..." fingerprint.
func pinnedKey(pin string) (ssh.HostKeyCallback, error) {
	if strings.HasPrefix(pin, "SHA256:") {
		return func(host string, _ net.Addr, key ssh.PublicKey) error {
			if got := ssh.FingerprintSHA256(key); got != pin {
				return fmt.Errorf("host key mismatch for %s: got %s, pinned %s (possible man-in-the-middle; update host_key only if the host was re-keyed)", host, got, pin)
			}
			return nil
		}, nil
	}
	want, _, _, _, err := ssh.ParseAuthorizedKey([]byte(pin))
	if err != nil {
		return nil, fmt.Errorf("host_key %q: want an authorized_keys line or a SHA256: fingerprint: %w", truncate(pin, 40), err)
	}
	return ssh.FixedHostKey(want), nil
}

// elfMachine returns the uname -m name of an ELF binary's machine, or ""
// when it is not an ELF file or the machine is not one we name.
func elfMachine(b []byte) string {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return ""
	}
	switch f.Machine {
	case elf.EM_X86_64:
		return "x86_64"
	case elf.EM_AARCH64:
		return "aarch64"
	case elf.EM_PPC64:
		if f.ByteOrder == binary.LittleEndian {
			return "ppc64le"
		}
		return "ppc64"
	case elf.EM_S390:
		return "s390x"
	case elf.EM_RISCV:
		return "riscv64"
	}
	return ""
}

// fileDigest returns the sha256 (hex) of b.
func fileDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
