package host

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/ssh"
)

// testSSHServer is an in-process SSH server on 127.0.0.1 that runs exec
// requests with sh -c in a private HOME. It stops when the test ends.
type testSSHServer struct {
	addr    string
	hostKey ssh.Signer
	home    string
	execs   atomic.Int32
	mu      sync.Mutex
	cmds    []string
}

func newTestSSHServer(t *testing.T, clientKey ssh.PublicKey) *testSSHServer {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	hk, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	s := &testSSHServer{hostKey: hk, home: t.TempDir()}
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if string(k.Marshal()) == string(clientKey.Marshal()) {
			return nil, nil
		}
		return nil, errDenied
	}}
	cfg.AddHostKey(hk)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.serve(c, cfg)
			}()
		}
	}()
	return s
}

type deniedErr struct{}

func (deniedErr) Error() string { return "denied" }

var errDenied = deniedErr{}

func (s *testSSHServer) serve(c net.Conn, cfg *ssh.ServerConfig) {
	defer c.Close()
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "session only")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		go s.session(ch, creqs)
	}
}

func (s *testSSHServer) session(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	for r := range reqs {
		if r.Type != "exec" || len(r.Payload) < 4 {
			_ = r.Reply(false, nil)
			continue
		}
		n := binary.BigEndian.Uint32(r.Payload)
		if int(n) > len(r.Payload)-4 {
			_ = r.Reply(false, nil)
			continue
		}
		cmdline := string(r.Payload[4 : 4+n])
		_ = r.Reply(true, nil)
		s.execs.Add(1)
		s.mu.Lock()
		s.cmds = append(s.cmds, cmdline)
		s.mu.Unlock()
		cmd := exec.Command("sh", "-c", cmdline)
		cmd.Env = append(os.Environ(), "HOME="+s.home)
		cmd.Dir = s.home
		stdin, _ := cmd.StdinPipe()
		cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
		status := uint32(0)
		if err := cmd.Start(); err != nil {
			status = 127
		} else {
			go func() { _, _ = io.Copy(stdin, ch); stdin.Close() }()
			if err := cmd.Wait(); err != nil {
				status = 1
				if ee, ok := err.(*exec.ExitError); ok {
					status = uint32(ee.ExitCode())
				}
			}
		}
		b := make([]byte, 4)
		binary.BigEndian.PutUint32(b, status)
		_, _ = ch.SendRequest("exit-status", false, b)
		return
	}
}

// clientKey returns a fresh ed25519 key as PEM and its public key.
func clientKey(t *testing.T) (string, ssh.PublicKey) {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	blk, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := ssh.NewSignerFromKey(priv)
	return string(pem.EncodeToMemory(blk)), signer.PublicKey()
}
