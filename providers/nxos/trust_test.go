package nxos

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/policies"
)

func otherKey(t testing.TB) ssh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func writeKnownHosts(t testing.TB, addr string, k ssh.PublicKey) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize(addr)}, k)
	if err := os.WriteFile(p, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHostKeyTrust covers each way a policy trusts a switch, and that a
// wrong key is refused before anything is sent.
func TestHostKeyTrust(t *testing.T) {
	wrong := otherKey(t)
	cases := []struct {
		name    string
		trust   func(sw *policies.Switch, srv *nxsim.Server)
		wantErr string // "" = connects
		warning bool
	}{
		{name: "pinned key", trust: func(sw *policies.Switch, srv *nxsim.Server) {
			sw.HostKey = string(ssh.MarshalAuthorizedKey(srv.Switch().HostKey()))
		}},
		{name: "pinned fingerprint", trust: func(sw *policies.Switch, srv *nxsim.Server) {
			sw.HostKey = ssh.FingerprintSHA256(srv.Switch().HostKey())
		}},
		{name: "wrong pinned key", wantErr: "but the policy pins " + ssh.FingerprintSHA256(wrong), trust: func(sw *policies.Switch, _ *nxsim.Server) {
			sw.HostKey = string(ssh.MarshalAuthorizedKey(wrong))
		}},
		{name: "wrong pinned fingerprint", wantErr: "update host_key", trust: func(sw *policies.Switch, _ *nxsim.Server) {
			sw.HostKey = ssh.FingerprintSHA256(wrong)
		}},
		{name: "known_hosts", trust: func(sw *policies.Switch, srv *nxsim.Server) {
			sw.KnownHosts = writeKnownHosts(t, srv.Addr(), srv.Switch().HostKey())
		}},
		{name: "known_hosts mismatch", wantErr: "line 1 expects " + ssh.FingerprintSHA256(wrong), trust: func(sw *policies.Switch, srv *nxsim.Server) {
			sw.KnownHosts = writeKnownHosts(t, srv.Addr(), wrong)
		}},
		{name: "known_hosts without the switch", wantErr: "is not in", trust: func(sw *policies.Switch, _ *nxsim.Server) {
			sw.KnownHosts = writeKnownHosts(t, "192.0.2.1:22", wrong)
		}},
		{name: "insecure when explicit", warning: true, trust: func(sw *policies.Switch, _ *nxsim.Server) {
			sw.InsecureSkipVerify = true
		}},
		{name: "nothing configured", wantErr: "no way to verify its SSH host key", trust: func(*policies.Switch, *nxsim.Server) {}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{kind: "nexus5000", trust: tc.trust})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			tp, err := r.target.Plan(ctx)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Plan: %v", err)
				}
				// The plan also carries the UNCONFIRMED-facts warnings; only
				// the host-key one is about trust.
				if hasWarning := strings.Contains(strings.Join(tp.Warnings, "\n"), "SSH host key NOT verified"); hasWarning != tc.warning {
					t.Errorf("warnings %q, want host-key warning=%v", tp.Warnings, tc.warning)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
			}
			if strings.Contains(tc.name, "wrong") || strings.Contains(tc.name, "known_hosts ") {
				if !errors.Is(err, errHostKey) {
					t.Errorf("error is not a host-key refusal: %v", err)
				}
			}
			// Apply refuses the same way, with nothing sent.
			res, aerr := r.target.Apply(ctx, tp)
			if aerr == nil || len(res.Transcript) != 0 {
				t.Errorf("apply with an untrusted key: err %v, transcript %v", aerr, res.Transcript)
			}
		})
	}
}

// TestKnownAlgorithms: the algorithms asked for follow the key types
// known_hosts holds for the address, so a switch with several host keys
// presents the one we know.
func TestKnownAlgorithms(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rsaPub, err := ssh.NewPublicKey(&rsaKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	path := writeKnownHosts(t, "192.0.2.7:22", rsaPub)
	tr, err := knownHostsFile("sw9", path)
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]string{
		"192.0.2.7:22":   "rsa-sha2-512 rsa-sha2-256 ssh-rsa",
		"192.0.2.8:22":   "",
		"192.0.2.7:2222": "",
	} {
		if got := strings.Join(tr.algorithms(addr), " "); got != want {
			t.Errorf("%s: algorithms %q, want %q", addr, got, want)
		}
	}
	pin, err := pinnedKey("sw9", string(ssh.MarshalAuthorizedKey(rsaPub)))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pin.algorithms("any:22"), " "); got != "rsa-sha2-512 rsa-sha2-256 ssh-rsa" {
		t.Errorf("pinned RSA key: algorithms %q", got)
	}
}
