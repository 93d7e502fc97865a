package nxos

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/rocefabric/roce/policies"
)

// errHostKey marks every host-key refusal, so callers can tell it from a
// network failure (a refusal is never retried).
var errHostKey = errors.New("ssh host key verification failed")

// trust is how a switch's SSH host key is checked.
type trust struct {
	callback ssh.HostKeyCallback
	// algorithms lists the host key algorithms to ask for at an address
	// (nil = the client's defaults), so a switch that has several host keys
	// presents the one we know rather than failing the check.
	algorithms func(hostport string) []string
	// warning is set when nothing is verified.
	warning string
}

// hostKeyCheck builds the host-key check for a switch, in this order: the
// key pinned in the policy (host_key), the policy's known_hosts file,
// skipping verification when the policy says insecure_skip_verify, and
// otherwise the user's ~/.ssh/known_hosts.
func hostKeyCheck(f *policies.Fabric, sw *policies.Switch, home string) (trust, error) {
	switch {
	case sw.HostKey != "":
		return pinnedKey(sw.Name, sw.HostKey)
	case sw.KnownHosts != "":
		p := resolvePath(f, sw.KnownHosts)
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return trust{}, fmt.Errorf("switch.%s: known_hosts file %s does not exist; record the switch's host key in it: %s, then %s",
				sw.Name, p, keyscanCommand(sw.Address, p), compareKeyHint(p, ""))
		}
		return knownHostsFile(sw.Name, p)
	case sw.InsecureSkipVerify:
		return trust{
			callback: ssh.InsecureIgnoreHostKey(), //nolint:gosec // explicit in the policy, and warned about
			warning:  "SSH host key NOT verified (insecure_skip_verify = true in the policy): anyone on the path can impersonate this switch",
		}, nil
	}
	if home != "" {
		p := filepath.Join(home, ".ssh", "known_hosts")
		if _, err := os.Stat(p); err == nil {
			return knownHostsFile(sw.Name, p)
		}
	}
	return trust{}, fmt.Errorf("switch.%s: no way to verify its SSH host key: set host_key (\"ssh-ed25519 AAAA...\" or \"SHA256:...\"), known_hosts, or, for a lab only, insecure_skip_verify = true", sw.Name)
}

// algorithmsFor maps a key type to the signature algorithms that verify
// it (an RSA key signs with rsa-sha2-* today).
func algorithmsFor(keyType string) []string {
	if keyType == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{keyType}
}

// hostAddr is a net.Addr for a host:port string.
type hostAddr string

func (h hostAddr) Network() string { return "tcp" }
func (h hostAddr) String() string  { return string(h) }

func resolvePath(f *policies.Fabric, p string) string {
	if f != nil && f.Dir != "" && !filepath.IsAbs(p) {
		return filepath.Join(f.Dir, p)
	}
	return p
}

// pinnedKey accepts exactly one key: given in authorized_keys form
// ("ssh-ed25519 AAAA... comment") or as its SHA256 fingerprint.
func pinnedKey(name, pin string) (trust, error) {
	pin = strings.TrimSpace(pin)
	var want func(ssh.PublicKey) bool
	var algos []string
	wantFP := pin
	if strings.HasPrefix(pin, "SHA256:") {
		want = func(k ssh.PublicKey) bool { return ssh.FingerprintSHA256(k) == pin }
	} else {
		pk, _, _, _, err := ssh.ParseAuthorizedKey([]byte(pin))
		if err != nil {
			return trust{}, fmt.Errorf("switch.%s: host_key %q is neither \"TYPE BASE64\" (authorized_keys form) nor a SHA256:... fingerprint: %w", name, pin, err)
		}
		wantFP = ssh.FingerprintSHA256(pk)
		want = func(k ssh.PublicKey) bool { return bytes.Equal(k.Marshal(), pk.Marshal()) }
		algos = algorithmsFor(pk.Type())
	}
	return trust{
		callback: func(host string, _ net.Addr, k ssh.PublicKey) error {
			if want(k) {
				return nil
			}
			return fmt.Errorf("%w: the switch presented %s key %s, but the policy pins %s; if the switch was re-keyed on purpose, update host_key in the policy",
				errHostKey, k.Type(), ssh.FingerprintSHA256(k), wantFP)
		},
		algorithms: func(string) []string { return algos },
	}, nil
}

// knownHostsFile checks against an OpenSSH known_hosts file.
func knownHostsFile(name, path string) (trust, error) {
	kh, err := knownhosts.New(path)
	if err != nil {
		return trust{}, fmt.Errorf("switch.%s: known_hosts %s: %w", name, path, err)
	}
	cb := func(host string, remote net.Addr, k ssh.PublicKey) error {
		err := kh(host, remote, k)
		if err == nil {
			return nil
		}
		var ke *knownhosts.KeyError
		if errors.As(err, &ke) {
			if len(ke.Want) == 0 {
				return fmt.Errorf("%w: its %s key %s is not in %s; add it before connecting: %s, then %s",
					errHostKey, k.Type(), ssh.FingerprintSHA256(k), path, keyscanCommand(host, path), compareKeyHint(path, ssh.FingerprintSHA256(k)))
			}
			w := ke.Want[0]
			return fmt.Errorf("%w: the switch presented %s key %s, but %s line %d expects %s; the switch was re-keyed or someone is impersonating it. Check on the switch's console (not over the network) with `show ssh key`, then fix that line (docs/tutorial.md#4-your-first-real-switch)",
				errHostKey, k.Type(), ssh.FingerprintSHA256(k), w.Filename, w.Line, ssh.FingerprintSHA256(w.Key))
		}
		return fmt.Errorf("%w: %v", errHostKey, err)
	}
	return trust{callback: cb, algorithms: func(hostport string) []string { return knownAlgorithms(kh, hostport) }}, nil
}

// knownAlgorithms lists the algorithms of the keys known_hosts holds for
// an address: x/crypto's knownhosts reports them in the KeyError of a
// lookup with a key it cannot know (a fresh one).
func knownAlgorithms(kh ssh.HostKeyCallback, hostport string) []string {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil
	}
	probe, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil
	}
	var ke *knownhosts.KeyError
	if err := kh(hostport, hostAddr(hostport), probe); !errors.As(err, &ke) {
		return nil
	}
	var out []string
	for _, k := range ke.Want {
		for _, a := range algorithmsFor(k.Key.Type()) {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// compareKeyHint says how to check a key ssh-keyscan recorded in path
// against the switch itself, as docs/tutorial.md does: over the console,
// not the network being checked. fp is the key the switch presented, if
// one was seen.
func compareKeyHint(path, fp string) string {
	want := "the fingerprint `ssh-keygen -lf " + path + "` prints"
	if fp != "" {
		want = fp
	}
	return "check it on the switch's console (not over the network): `show ssh key` prints the switch's public key, which must be the one on its line in " + path +
		"; where it also prints a SHA256: fingerprint, that must be " + want + " (docs/tutorial.md#4-your-first-real-switch)"
}

// keyscanCommand is the command that records a switch's host key in a
// known_hosts file: `ssh-keyscan -p PORT HOST >> FILE` (no -p for port 22).
func keyscanCommand(hostport, path string) string {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, "22"
	}
	host = strings.Trim(host, "[]")
	if port == "22" {
		return fmt.Sprintf("ssh-keyscan %s >> %s", host, path)
	}
	return fmt.Sprintf("ssh-keyscan -p %s %s >> %s", port, host, path)
}
