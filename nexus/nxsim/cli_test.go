package nxsim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRunCLI starts `roce-lab nxos` as a user would, logs in with the
// printed address and host key, and stops it by cancelling.
func TestRunCLI(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "startup.cfg")
	if err := os.WriteFile(cfg, []byte("class-map type qos match-all VOICE\n  match cos 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "hostkey.pem")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- RunCLI(ctx, []string{"--platform", "nexus7000", "--listen", "127.0.0.1:0", "--config", cfg,
			"--hostname", "lab7k", "--password", "pw", "--host-key-file", keyFile,
			"--modules", "1:0:N7K-SUP2,2:32:N7K-F312FQ-25,3:48:N7K-M148GT-11"}, &out, &errOut)
	}()
	re := regexp.MustCompile(`listening on (\S+)\nhost key ssh-ed25519 (SHA256:\S+)`)
	var m []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && m == nil; time.Sleep(10 * time.Millisecond) {
		m = re.FindStringSubmatch(out.String())
	}
	if m == nil {
		t.Fatalf("no address printed; stdout %q stderr %q", out.String(), errOut.String())
	}
	signer, err := LoadOrCreateHostKey(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if fp := ssh.FingerprintSHA256(signer.PublicKey()); fp != m[2] {
		t.Errorf("printed fingerprint %s, key file has %s", m[2], fp)
	}
	c, err := ssh.Dial("tcp", m[1], &ssh.ClientConfig{User: "admin", Auth: []ssh.AuthMethod{ssh.Password("pw")},
		HostKeyCallback: ssh.FixedHostKey(signer.PublicKey()), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := c.NewSession()
	got, err := s.Output("show running-config ; show module")
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"match cos 5", "N7K-F312FQ-25", "version 6.2(14)"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("RunCLI: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("RunCLI did not stop after cancel")
	}
}

func TestRunCLIErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--platform", "nexus9000"},
		{"--config", "/nonexistent/startup.cfg"},
		{"--modules", "x:y"},
		{"stray"},
	} {
		var out, errOut bytes.Buffer
		if err := RunCLI(context.Background(), append(args, "--listen", "127.0.0.1:0"), &out, &errOut); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// The banner tells a newcomer the built-in password, and never echoes one
// the user chose.
func TestRunCLIBannerPassword(t *testing.T) {
	banner := func(t *testing.T, args ...string) string {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var out, errOut syncBuffer
		done := make(chan error, 1)
		go func() { done <- RunCLI(ctx, append([]string{"--listen", "127.0.0.1:0"}, args...), &out, &errOut) }()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if strings.Contains(out.String(), "log in with") {
				break
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("RunCLI: %v (stderr %q)", err, errOut.String())
		}
		return out.String()
	}
	t.Setenv("NXSIM_PASSWORD", "")
	os.Unsetenv("NXSIM_PASSWORD")
	if b := banner(t); !strings.Contains(b, `password "admin"`) {
		t.Errorf("default password not shown:\n%s", b)
	}
	if b := banner(t, "--password", "s3cret-flag"); strings.Contains(b, "s3cret-flag") || strings.Contains(b, `"admin"`) {
		t.Errorf("banner with --password:\n%s", b)
	}
	t.Setenv("NXSIM_PASSWORD", "s3cret-env")
	if b := banner(t); strings.Contains(b, "s3cret-env") || strings.Contains(b, `"admin"`) {
		t.Errorf("banner with $NXSIM_PASSWORD:\n%s", b)
	}
}
