package nxsim

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// handshakeTimeout bounds how long a client may take to authenticate.
const handshakeTimeout = 30 * time.Second

// Serve accepts SSH connections on ln until ctx is done or ln is closed.
// Open sessions are closed when ctx is done; Serve returns after they end.
func (s *Switch) Serve(ctx context.Context, ln net.Listener) error {
	// Deferred in this order so that, whatever ends the loop, the sessions
	// are told to stop before Serve waits for them.
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() })
	defer stop()

	cfg := s.serverConfig()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("nxsim %s: accept on %s: %w", s.hostname, ln.Addr(), err)
		}
		wg.Add(1)
		s.mu.Lock()
		s.conns++
		s.mu.Unlock()
		go func() {
			defer wg.Done()
			defer func() {
				s.mu.Lock()
				s.conns--
				s.mu.Unlock()
			}()
			s.handleConn(ctx, c, cfg)
		}()
	}
}

// Connections is how many SSH connections the switch is serving now. A
// client that logs out without waiting (as roce does) has its last turns
// counted by the time its connection is gone, so a test reads
// RoundTrips once this is 0.
func (s *Switch) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// WaitIdle waits until no client is connected (Connections is 0), so the
// counters include everything the last clients sent; ctx bounds the wait.
func (s *Switch) WaitIdle(ctx context.Context) error {
	for s.Connections() > 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("nxsim %s: %d connection(s) still open: %w", s.hostname, s.Connections(), ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

func (s *Switch) serverConfig() *ssh.ServerConfig {
	cfg := &ssh.ServerConfig{
		PasswordCallback: func(md ssh.ConnMetadata, pw []byte) (*ssh.Permissions, error) {
			want, ok := s.users[md.User()]
			if ok && subtle.ConstantTimeCompare([]byte(want), pw) == 1 {
				return nil, nil
			}
			return nil, fmt.Errorf("nxsim %s: password rejected for %q", s.hostname, md.User())
		},
		KeyboardInteractiveCallback: func(md ssh.ConnMetadata, ask ssh.KeyboardInteractiveChallenge) (*ssh.Permissions, error) {
			ans, err := ask("", "", []string{"Password: "}, []bool{false})
			if err != nil || len(ans) != 1 {
				return nil, fmt.Errorf("nxsim %s: keyboard-interactive failed", s.hostname)
			}
			want, ok := s.users[md.User()]
			if ok && subtle.ConstantTimeCompare([]byte(want), []byte(ans[0])) == 1 {
				return nil, nil
			}
			return nil, fmt.Errorf("nxsim %s: password rejected for %q", s.hostname, md.User())
		},
		ServerVersion: "SSH-2.0-OpenSSH_7.2",
	}
	if len(s.authKeys) > 0 {
		cfg.PublicKeyCallback = func(md ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			for _, k := range s.authKeys {
				if bytes.Equal(k.Marshal(), key.Marshal()) {
					return nil, nil
				}
			}
			return nil, fmt.Errorf("nxsim %s: public key rejected for %q", s.hostname, md.User())
		}
	}
	cfg.AddHostKey(s.hostKey)
	return cfg
}

// handleConn runs one SSH connection: its session channels each get a
// CLI session on the shared switch.
func (s *Switch) handleConn(ctx context.Context, c net.Conn, cfg *ssh.ServerConfig) {
	defer c.Close()
	closeOnDone := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer closeOnDone()
	_ = c.SetDeadline(time.Now().Add(handshakeTimeout))
	sc, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		s.log.Debug("ssh handshake failed", "switch", s.hostname, "remote", c.RemoteAddr(), "err", err)
		return
	}
	_ = c.SetDeadline(time.Time{})
	defer sc.Close()
	s.log.Debug("ssh login", "switch", s.hostname, "user", sc.User(), "remote", c.RemoteAddr())
	defer s.log.Debug("ssh connection closed", "switch", s.hostname, "remote", c.RemoteAddr())
	// Sessions end with their connection, so a stalled line is released
	// when the client goes away, and with the server.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_ = sc.Wait()
		cancel()
	}()
	stop := context.AfterFunc(ctx, func() { _ = sc.Close() })
	defer stop()
	go ssh.DiscardRequests(reqs)

	var wg sync.WaitGroup
	defer wg.Wait()
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "only session channels are supported")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.handleSession(ctx, sc, ch, creqs)
		}()
	}
}

// handleSession serves the requests of one session channel: pty-req, env,
// window-change, shell and exec.
func (s *Switch) handleSession(ctx context.Context, sc *ssh.ServerConn, ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	sess := newSession(s, sc, ch, sc.User())
	started := false
	for req := range reqs {
		switch req.Type {
		case "pty-req":
			sess.pty = true
			_ = req.Reply(true, nil)
		case "env", "window-change":
			_ = req.Reply(true, nil)
		case "shell":
			if started {
				_ = req.Reply(false, nil)
				continue
			}
			started = true
			_ = req.Reply(true, nil)
			go func() {
				sess.runShell(ctx)
				_, _ = ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, 0))
				_ = ch.Close()
			}()
		case "exec":
			if started {
				_ = req.Reply(false, nil)
				continue
			}
			started = true
			cmd, ok := parseString(req.Payload)
			_ = req.Reply(ok, nil)
			if !ok {
				return
			}
			go func() {
				code := sess.runExec(ctx, cmd)
				_, _ = ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, code))
				_ = ch.Close()
			}()
		default:
			_ = req.Reply(false, nil)
		}
	}
}

// parseString decodes an SSH string (uint32 length + bytes).
func parseString(p []byte) (string, bool) {
	if len(p) < 4 {
		return "", false
	}
	n := binary.BigEndian.Uint32(p)
	if uint64(n) > uint64(len(p)-4) {
		return "", false
	}
	return string(p[4 : 4+n]), true
}
