package host

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

func sshHost(t *testing.T, mpi ...string) (*policies.Fabric, *policies.Host, *testSSHServer, plan.Env) {
	t.Helper()
	fab, h := labHost(t, mpi...)
	keyPEM, pub := clientKey(t)
	srv := newTestSSHServer(t, pub)
	h.Local = false
	h.Address = srv.addr
	h.HostKey = strings.TrimSpace(string(ssh.MarshalAuthorizedKey(srv.hostKey.PublicKey())))
	h.Credentials = "lab"
	fab.Credentials["lab"] = &policies.Credentials{Name: "lab", Username: "root", KeyEnv: "LAB_KEY"}
	return fab, h, srv, testEnv(fab, map[string]string{"LAB_KEY": keyPEM})
}

func agentDigest(t *testing.T) string {
	b, err := os.ReadFile(agentBin)
	if err != nil {
		t.Fatal(err)
	}
	return fileDigest(b)
}

func TestSSHCopiesAgentPlansAndApplies(t *testing.T) {
	fab, h, srv, env := sshHost(t, "nccl")
	_ = fab
	tg, err := New(env, h)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx := context.Background()
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cached := filepath.Join(srv.home, ".cache/roce/agent-"+agentDigest(t))
	b, err := os.ReadFile(cached)
	if err != nil {
		t.Fatalf("agent not copied to the content-addressed path: %v", err)
	}
	if fileDigest(b) != agentDigest(t) {
		t.Fatal("copied agent differs from the local one")
	}
	if !tp.HasChanges() || !strings.HasPrefix(tp.Endpoint, "ssh://root@127.0.0.1:") {
		t.Fatalf("plan over SSH: %+v", tp)
	}
	res, err := tg.Apply(ctx, tp)
	if err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply over SSH: %v %+v", err, res)
	}
	tp2, err := tg.Plan(ctx)
	if err != nil || tp2.HasChanges() {
		t.Fatalf("second plan over SSH: %v %v", err, addrs(tp2))
	}
	// The binary was copied once; every run checked the digest first.
	srv.mu.Lock()
	defer srv.mu.Unlock()
	copies, runs := 0, 0
	for _, c := range srv.cmds {
		if strings.Contains(c, "cat >") {
			copies++
		}
		if strings.Contains(c, "--root") {
			runs++
			if !strings.Contains(c, "sha256sum -c") {
				t.Errorf("agent run without a digest check: %s", c)
			}
		}
	}
	if copies != 1 || runs != 3 {
		t.Errorf("copies %d runs %d, want 1 and 3: %q", copies, runs, srv.cmds)
	}
}

func TestSSHReplacesDifferentBinaryAndRefusesSwappedOne(t *testing.T) {
	_, h, srv, env := sshHost(t)
	cached := filepath.Join(srv.home, ".cache/roce/agent-"+agentDigest(t))
	if err := os.MkdirAll(filepath.Dir(cached), 0o700); err != nil {
		t.Fatal(err)
	}
	// A different file already sits at the path: it is replaced.
	if err := os.WriteFile(cached, []byte("#!/bin/sh\necho '{\"version\":1,\"ok\":true}'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	tg, err := New(env, h)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ctx := context.Background()
	if _, err := tg.Plan(ctx); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(cached); fileDigest(b) != agentDigest(t) {
		t.Fatal("different binary not replaced")
	}
	// Swapped after the copy: the digest check before exec refuses it and
	// the impostor never runs.
	marker := filepath.Join(srv.home, "impostor-ran")
	if err := os.WriteFile(cached, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Plan(ctx); err == nil {
		t.Fatal("plan ran with a swapped agent binary")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the swapped binary was executed")
	}
}

func TestSSHHostKeyMismatchRefused(t *testing.T) {
	cases := []struct {
		name string
		set  func(t *testing.T, h *policies.Host)
		want string
	}{
		{"pinned key", func(t *testing.T, h *policies.Host) {
			_, other := clientKey(t)
			h.HostKey = strings.TrimSpace(string(ssh.MarshalAuthorizedKey(other)))
		}, "host key"},
		{"pinned fingerprint", func(t *testing.T, h *policies.Host) {
			_, other := clientKey(t)
			h.HostKey = ssh.FingerprintSHA256(other)
		}, "mismatch"},
		{"known_hosts", func(t *testing.T, h *policies.Host) {
			_, other := clientKey(t)
			kh := filepath.Join(t.TempDir(), "known_hosts")
			line := "[127.0.0.1]:" + strings.Split(h.Address, ":")[1] + " " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(other))) + "\n"
			if err := os.WriteFile(kh, []byte(line), 0o600); err != nil {
				t.Fatal(err)
			}
			h.HostKey, h.KnownHosts = "", kh
		}, "key mismatch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, h, srv, env := sshHost(t)
			tc.set(t, h)
			tg, err := New(env, h)
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			_, err = tg.Plan(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want it to mention %q", err, tc.want)
			}
			if srv.execs.Load() != 0 {
				t.Errorf("%d commands ran on a host with the wrong key", srv.execs.Load())
			}
		})
	}
}

func TestSSHKnownHostsAccepted(t *testing.T) {
	_, h, srv, env := sshHost(t)
	kh := filepath.Join(t.TempDir(), "known_hosts")
	line := "[127.0.0.1]:" + strings.Split(h.Address, ":")[1] + " " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(srv.hostKey.PublicKey()))) + "\n"
	if err := os.WriteFile(kh, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	h.HostKey, h.KnownHosts = "", kh
	tg, err := New(env, h)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if _, err := tg.Plan(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestSSHNoAuthConfigured(t *testing.T) {
	_, h, _, _ := sshHost(t)
	fab := &policies.Fabric{Credentials: map[string]*policies.Credentials{"lab": {Name: "lab", Username: "root"}}}
	_, err := New(testEnv(fab, nil), h)
	if err == nil || !strings.Contains(err.Error(), "no SSH authentication") {
		t.Errorf("err %v", err)
	}
}

func TestSSHRefusesAgentForAnotherArchitecture(t *testing.T) {
	_, h, srv, env := sshHost(t)
	tg, err := New(env, h)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	r := tg.(*Target).client.r.(*sshRunner)
	r.arch = "sparc64" // as if the binary were built for another machine
	_, err = tg.Plan(context.Background())
	if err == nil || !strings.Contains(err.Error(), "built for sparc64") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(srv.home, ".cache/roce")); err == nil {
		t.Error("the binary was copied anyway")
	}
}

func TestElfMachineOfTheBuiltAgent(t *testing.T) {
	b, err := os.ReadFile(agentBin)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	if want == "" {
		t.Skipf("no uname -m name mapped for %s in this test", runtime.GOARCH)
	}
	if got := elfMachine(b); got != want {
		t.Errorf("elfMachine = %q, want %q", got, want)
	}
	if elfMachine([]byte("#!/bin/sh\n")) != "" {
		t.Error("a script has an ELF machine")
	}
}

// A non-root SSH user runs the agent through sudo -n (netlink and configfs
// need root), after the digest check.
func TestSSHNonRootUserUsesSudo(t *testing.T) {
	fab, h, srv, env := sshHost(t)
	fab.Credentials["lab"].Username = "ops"
	tg, err := New(env, h)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	_, planErr := tg.Plan(context.Background())
	srv.mu.Lock()
	defer srv.mu.Unlock()
	last := srv.cmds[len(srv.cmds)-1]
	if !strings.Contains(last, "sha256sum -c") || !strings.Contains(last, "&& exec sudo -n ") {
		t.Errorf("agent command %q: want the digest check then sudo -n", last)
	}
	if _, err := exec.LookPath("sudo"); err != nil && planErr == nil {
		t.Error("plan succeeded without sudo installed")
	}
}
