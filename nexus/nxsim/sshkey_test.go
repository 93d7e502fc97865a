package nxsim

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// TestShowSSHKey: `show ssh key`, over SSH, shows the key the client was
// offered in the handshake — parsed back with x/crypto/ssh — with its type,
// bits and SHA256 fingerprint, and says so for the types the switch has no
// key of (docs/nxos.md#show-ssh-key).
func TestShowSSHKey(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer := func(k any) ssh.Signer {
		s, err := ssh.NewSignerFromKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name    string
		key     ssh.Signer // nil: the simulator's own (ed25519)
		typ     string
		bits    int
		missing []string // "could not retrieve" types, in order
	}{
		{"default ed25519", nil, "ed25519", 256, []string{"rsa", "dsa", "ecdsa"}},
		{"rsa", signer(rsaKey), "rsa", 2048, []string{"dsa", "ecdsa"}},
		{"ecdsa", signer(ecKey), "ecdsa", 384, []string{"rsa", "dsa"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServer(t, Options{HostKey: tc.key})
			var offered ssh.PublicKey
			c, err := ssh.Dial("tcp", srv.Addr(), &ssh.ClientConfig{
				User: "admin", Auth: []ssh.AuthMethod{ssh.Password("admin")}, Timeout: 5 * time.Second,
				HostKeyCallback: func(_ string, _ net.Addr, key ssh.PublicKey) error { offered = key; return nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			s, err := c.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			b, err := s.Output("show ssh key")
			if err != nil {
				t.Fatalf("show ssh key: %v\n%s", err, b)
			}
			out := string(b)
			var shown ssh.PublicKey
			var bits, fingerprint string
			lines := strings.Split(out, "\n")
			for i, line := range lines {
				switch {
				case strings.HasPrefix(line, "ssh-") || strings.HasPrefix(line, "ecdsa-"):
					if shown, _, _, _, err = ssh.ParseAuthorizedKey([]byte(line)); err != nil {
						t.Fatalf("the key line does not parse: %v\n%s", err, out)
					}
				case strings.HasPrefix(line, "bitcount:"):
					bits = strings.TrimPrefix(line, "bitcount:")
				case line == "fingerprint:" && i+1 < len(lines):
					fingerprint = lines[i+1]
				}
			}
			if shown == nil || offered == nil || !bytes.Equal(shown.Marshal(), offered.Marshal()) || !bytes.Equal(shown.Marshal(), srv.Switch().HostKey().Marshal()) {
				t.Fatalf("show ssh key shows %v, the handshake offered %v\n%s", shown, offered, out)
			}
			if fingerprint != ssh.FingerprintSHA256(offered) {
				t.Errorf("fingerprint %q, want %q", fingerprint, ssh.FingerprintSHA256(offered))
			}
			if bits != strconv.Itoa(tc.bits) {
				t.Errorf("bitcount %q, want %d", bits, tc.bits)
			}
			if !strings.HasPrefix(out, sshKeyRule+"\n") || !strings.Contains(out, "\n"+tc.typ+" Keys generated:") {
				t.Errorf("no %q block:\n%s", tc.typ, out)
			}
			rest := out
			for _, m := range tc.missing {
				w := "could not retrieve " + m + " key information\n" + sshKeyRule
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("lacks (in order) %q:\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestAuthorizedKeyFlag: roce-lab nxos --authorized-key FILE lets that key
// log in (so a script can run `ssh ... show ssh key` without a password);
// a file that is not a public key is refused naming the file.
func TestAuthorizedKeyFlag(t *testing.T) {
	dir := t.TempDir()
	client := mustSigner(t)
	pub := filepath.Join(dir, "id.pub")
	if err := os.WriteFile(pub, ssh.MarshalAuthorizedKey(client.PublicKey()), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.pub")
	if err := os.WriteFile(bad, []byte("not a key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.pub")
	if err := os.WriteFile(empty, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, wantErr string }{
		{bad, bad + ": key #1"},
		{empty, empty + ": no public key"},
		{filepath.Join(dir, "missing.pub"), "missing.pub"},
	} {
		if _, err := parseCLI([]string{"--authorized-key", tc.file}, io.Discard); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("--authorized-key %s: err %v, want it to name %q", tc.file, err, tc.wantErr)
		}
	}
	c, err := parseCLI([]string{"--authorized-key", pub, "--password", "secret"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, c.opts)
	cl, err := ssh.Dial("tcp", srv.Addr(), &ssh.ClientConfig{User: "admin", Auth: []ssh.AuthMethod{ssh.PublicKeys(client)},
		HostKeyCallback: ssh.FixedHostKey(srv.Switch().HostKey()), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("login with the authorized key: %v", err)
	}
	cl.Close()
	other := mustSigner(t)
	if cl, err := ssh.Dial("tcp", srv.Addr(), &ssh.ClientConfig{User: "admin", Auth: []ssh.AuthMethod{ssh.PublicKeys(other)},
		HostKeyCallback: ssh.FixedHostKey(srv.Switch().HostKey()), Timeout: 5 * time.Second}); err == nil {
		cl.Close()
		t.Error("a key not in the file logged in")
	}
}

// mustSigner is a new ed25519 client key.
func mustSigner(t testing.TB) ssh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// FuzzReadAuthorizedKeys: whatever a --authorized-key file holds, reading
// it never panics, an error names the file, and success yields a key.
func FuzzReadAuthorizedKeys(f *testing.F) {
	signer := mustSigner(f)
	f.Add(ssh.MarshalAuthorizedKey(signer.PublicKey()))
	f.Add([]byte("# comment\n\n" + string(ssh.MarshalAuthorizedKey(signer.PublicKey())) + "garbage\n"))
	f.Add([]byte("ssh-ed25519 AAAA\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "keys.pub")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		keys, err := readAuthorizedKeys(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if len(keys) == 0 {
			t.Error("no error and no key")
		}
	})
}
