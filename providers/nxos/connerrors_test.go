package nxos

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/policies"
)

// A connection error names the switch and its address once each and ends
// with what to do next (issue 18): the exact text, with the test's own
// address, file and key substituted for ADDR, PORT, FILE and FP.
func TestConnectErrorText(t *testing.T) {
	const (
		compare = "then check it on the switch's console (not over the network): `show ssh key` prints the switch's public key, which must be the one on its line in FILE; where it also prints a SHA256: fingerprint, that must be "
		anchor  = " (docs/tutorial.md#4-your-first-real-switch)"
	)
	wrong := otherKey(t) // a key that is not the simulator's
	cases := []struct {
		name  string
		trust func(sw *policies.Switch, srv *nxsim.Server) string // returns FILE
		setup func(r *rig)
		want  string
	}{
		{
			name:  "wrong password",
			setup: func(r *rig) { r.target.env.Getenv = func(string) (string, bool) { return "not-the-password", true } },
			want:  `switch.sw1: connect to ADDR: SSH handshake: ssh: unable to authenticate, attempted methods [none password keyboard-interactive], no supported methods remain; the switch refused the login: check credentials "lab" (user "netops", the password in $NXOS_PW) against the switch's local or AAA accounts`,
		},
		{
			name: "unknown host key",
			trust: func(sw *policies.Switch, srv *nxsim.Server) string {
				sw.KnownHosts = writeKnownHosts(t, "192.0.2.1:22", srv.Switch().HostKey())
				return sw.KnownHosts
			},
			want: "switch.sw1: connect to ADDR: SSH handshake: ssh host key verification failed: its ssh-ed25519 key FP is not in FILE; add it before connecting: ssh-keyscan -p PORT 127.0.0.1 >> FILE, " + compare + "FP" + anchor,
		},
		{
			name: "missing known_hosts file",
			trust: func(sw *policies.Switch, _ *nxsim.Server) string {
				sw.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
				return sw.KnownHosts
			},
			want: "switch.sw1: known_hosts file FILE does not exist; record the switch's host key in it: ssh-keyscan -p PORT 127.0.0.1 >> FILE, " + compare + "the fingerprint `ssh-keygen -lf FILE` prints" + anchor,
		},
		{
			name: "changed host key",
			trust: func(sw *policies.Switch, srv *nxsim.Server) string {
				sw.KnownHosts = writeKnownHosts(t, srv.Addr(), wrong)
				return sw.KnownHosts
			},
			want: "switch.sw1: connect to ADDR: SSH handshake: ssh host key verification failed: the switch presented ssh-ed25519 key FP, but FILE line 1 expects OTHER; the switch was re-keyed or someone is impersonating it. Check on the switch's console (not over the network) with `show ssh key`, then fix that line" + anchor,
		},
		{
			name:  "refused connection",
			setup: func(r *rig) { _ = r.srv.Close() },
			want:  "switch.sw1: connect to ADDR: TCP connect: connection refused; nothing accepts SSH there: check the switch's address and port in the policy (SSH's default is 22) and that SSH is enabled on the switch",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var file string
			var trust func(sw *policies.Switch, srv *nxsim.Server)
			if tc.trust != nil {
				trust = func(sw *policies.Switch, srv *nxsim.Server) { file = tc.trust(sw, srv) }
			}
			r := newRig(t, rigOpts{kind: "nexus5000", trust: trust})
			addr := r.srv.Addr()
			fp := ssh.FingerprintSHA256(r.srv.Switch().HostKey())
			if tc.setup != nil {
				tc.setup(r)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := r.target.Plan(ctx)
			if err == nil {
				t.Fatal("Plan succeeded")
			}
			want := strings.NewReplacer("ADDR", addr, "PORT", addr[strings.LastIndex(addr, ":")+1:], "FILE", file, "FP", fp, "OTHER", ssh.FingerprintSHA256(wrong)).Replace(tc.want)
			if err.Error() != want {
				t.Errorf("error:\n got %s\nwant %s", err, want)
			}
			if n := strings.Count(err.Error(), addr); n > 1 && !strings.Contains(tc.want, "ssh-keyscan") {
				t.Errorf("the address appears %d times", n)
			}
			if n := strings.Count(err.Error(), "switch.sw1"); n != 1 {
				t.Errorf("the switch is named %d times", n)
			}
		})
	}
}
