package nxos

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/rocefabric/roce/policies"
)

// errHostKey marks every host-key refusal, so callers can tell it from a
// network failure (a refusal is never retried).
var errHostKey = errors.New("ssh host key verification failed")

// hostKeyCheck builds the host-key callback for a switch, in this order:
// the key pinned in the policy (host_key), the policy's known_hosts file,
// skipping verification when the policy says insecure_skip_verify, and
// otherwise the user's ~/.ssh/known_hosts. warning is set when nothing is
// verified.
func hostKeyCheck(f *policies.Fabric, sw *policies.Switch, home string) (cb ssh.HostKeyCallback, warning string, err error) {
	switch {
	case sw.HostKey != "":
		cb, err := pinnedKey(sw.Name, sw.HostKey)
		return cb, "", err
	case sw.KnownHosts != "":
		return knownHostsFile(sw.Name, resolvePath(f, sw.KnownHosts))
	case sw.InsecureSkipVerify:
		return ssh.InsecureIgnoreHostKey(), //nolint:gosec // explicit in the policy, and warned about
			"SSH host key NOT verified (insecure_skip_verify = true in the policy): anyone on the path can impersonate this switch",
			nil
	}
	if home != "" {
		p := filepath.Join(home, ".ssh", "known_hosts")
		if _, err := os.Stat(p); err == nil {
			return knownHostsFile(sw.Name, p)
		}
	}
	return nil, "", fmt.Errorf("switch.%s: no way to verify its SSH host key: set host_key (\"ssh-ed25519 AAAA...\" or \"SHA256:...\"), known_hosts, or, for a lab only, insecure_skip_verify = true", sw.Name)
}

func resolvePath(f *policies.Fabric, p string) string {
	if f != nil && f.Dir != "" && !filepath.IsAbs(p) {
		return filepath.Join(f.Dir, p)
	}
	return p
}

// pinnedKey accepts exactly one key: given in authorized_keys form
// ("ssh-ed25519 AAAA... comment") or as its SHA256 fingerprint.
func pinnedKey(name, pin string) (ssh.HostKeyCallback, error) {
	pin = strings.TrimSpace(pin)
	var want func(ssh.PublicKey) bool
	wantFP := pin
	if strings.HasPrefix(pin, "SHA256:") {
		want = func(k ssh.PublicKey) bool { return ssh.FingerprintSHA256(k) == pin }
	} else {
		pk, _, _, _, err := ssh.ParseAuthorizedKey([]byte(pin))
		if err != nil {
			return nil, fmt.Errorf("switch.%s: host_key %q is neither \"TYPE BASE64\" (authorized_keys form) nor a SHA256:... fingerprint: %w", name, pin, err)
		}
		wantFP = ssh.FingerprintSHA256(pk)
		want = func(k ssh.PublicKey) bool { return bytes.Equal(k.Marshal(), pk.Marshal()) }
	}
	return func(host string, _ net.Addr, k ssh.PublicKey) error {
		if want(k) {
			return nil
		}
		return fmt.Errorf("%w: switch.%s at %s presented %s key %s, but the policy pins %s; if the switch was re-keyed on purpose, update host_key in the policy",
			errHostKey, name, host, k.Type(), ssh.FingerprintSHA256(k), wantFP)
	}, nil
}

// knownHostsFile checks against an OpenSSH known_hosts file.
func knownHostsFile(name, path string) (ssh.HostKeyCallback, string, error) {
	kh, err := knownhosts.New(path)
	if err != nil {
		return nil, "", fmt.Errorf("switch.%s: known_hosts %s: %w", name, path, err)
	}
	return func(host string, remote net.Addr, k ssh.PublicKey) error {
		err := kh(host, remote, k)
		if err == nil {
			return nil
		}
		var ke *knownhosts.KeyError
		if errors.As(err, &ke) {
			if len(ke.Want) == 0 {
				return fmt.Errorf("%w: switch.%s at %s (%s key %s) is not in %s; add it (ssh-keyscan, or copy the fingerprint from the switch console) before connecting",
					errHostKey, name, host, k.Type(), ssh.FingerprintSHA256(k), path)
			}
			w := ke.Want[0]
			return fmt.Errorf("%w: switch.%s at %s presented %s key %s, but %s line %d expects %s; the switch was re-keyed or someone is impersonating it. Check, then fix the known_hosts line",
				errHostKey, name, host, k.Type(), ssh.FingerprintSHA256(k), w.Filename, w.Line, ssh.FingerprintSHA256(w.Key))
		}
		return fmt.Errorf("%w: switch.%s: %v", errHostKey, name, err)
	}, "", nil
}
