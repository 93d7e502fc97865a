package host

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/rocefabric/roce/policies"
)

// An ssh-agent holding the key is enough; the credentials block only names
// the user.
func TestSSHAgentAuth(t *testing.T) {
	fab, h := labHost(t)
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := ssh.NewSignerFromKey(priv)
	srv := newTestSSHServer(t, signer.PublicKey())
	kr := agent.NewKeyring()
	if err := kr.Add(agent.AddedKey{PrivateKey: priv}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
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
			go func() { defer wg.Done(); _ = agent.ServeAgent(kr, c); c.Close() }()
		}
	}()
	h.Local, h.Address, h.Credentials = false, srv.addr, "ops"
	h.HostKey = ssh.FingerprintSHA256(srv.hostKey.PublicKey())
	fab.Credentials["ops"] = &policies.Credentials{Name: "ops", Username: "root"}
	tg, err := New(testEnv(fab, map[string]string{"SSH_AUTH_SOCK": sock}), h)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if _, err := tg.Plan(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A key the server does not accept fails the handshake; nothing runs.
func TestSSHWrongClientKey(t *testing.T) {
	fab, h, srv, _ := sshHost(t)
	otherPEM, _ := clientKey(t)
	tg, err := New(testEnv(fab, map[string]string{"LAB_KEY": otherPEM}), h)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	_, err = tg.Plan(context.Background())
	if err == nil || !strings.Contains(err.Error(), "handshake") {
		t.Fatalf("err %v", err)
	}
	if srv.execs.Load() != 0 {
		t.Error("commands ran without authentication")
	}
}
