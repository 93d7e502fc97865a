package nxsim

import (
	"crypto/dsa" //nolint:staticcheck // only to count the bits of a DSA host key someone configured
	"crypto/ecdsa"
	"crypto/rsa"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// sshKeyRule separates the key types in `show ssh key`.
const sshKeyRule = "**************************************"

// showSSHKey prints `show ssh key` (docs/nxos.md#show-ssh-key): for each of
// rsa, dsa and ecdsa the switch's host key of that type — when it was
// generated, the key in OpenSSH form, its size in bits and its SHA256
// fingerprint — or that there is none. The simulator has one host key;
// one of another type (ed25519, the simulator's default) comes first.
func (sw *Switch) showSSHKey() (string, error) {
	key := sw.hostKey.PublicKey()
	own, bits, err := sshKeyTypeBits(key)
	if err != nil {
		return "", fmt.Errorf("ERROR: host key: %w", err)
	}
	sw.mu.Lock()
	generated := sw.booted
	sw.mu.Unlock()
	types := []string{"rsa", "dsa", "ecdsa"}
	if !strings.Contains(" rsa dsa ecdsa ", " "+own+" ") {
		types = append([]string{own}, types...)
	}
	var b strings.Builder
	b.WriteString(sshKeyRule + "\n")
	for _, typ := range types {
		if typ != own {
			fmt.Fprintf(&b, "could not retrieve %s key information\n%s\n", typ, sshKeyRule)
			continue
		}
		fmt.Fprintf(&b, "%s Keys generated:%s\n\n%s\nbitcount:%d\nfingerprint:\n%s\n%s\n",
			typ, generated.Format(time.ANSIC), ssh.MarshalAuthorizedKey(key), bits, ssh.FingerprintSHA256(key), sshKeyRule)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// sshKeyTypeBits is the NX-OS name of key's type (rsa, dsa, ecdsa; other
// types by their SSH name without "ssh-") and its size in bits.
func sshKeyTypeBits(key ssh.PublicKey) (string, int, error) {
	ck, ok := key.(ssh.CryptoPublicKey)
	if !ok {
		return "", 0, fmt.Errorf("%s key has no public key to measure", key.Type())
	}
	switch k := ck.CryptoPublicKey().(type) {
	case *rsa.PublicKey:
		return "rsa", k.N.BitLen(), nil
	case *dsa.PublicKey:
		return "dsa", k.P.BitLen(), nil
	case *ecdsa.PublicKey:
		return "ecdsa", k.Curve.Params().BitSize, nil
	}
	if key.Type() == ssh.KeyAlgoED25519 {
		return "ed25519", 256, nil
	}
	return "", 0, fmt.Errorf("unsupported host key type %s", key.Type())
}
