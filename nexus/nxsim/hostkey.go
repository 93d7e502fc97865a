package nxsim

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/crypto/ssh"
)

// LoadOrCreateHostKey reads a PEM private key from path, or creates an
// ed25519 key there (mode 0600) when the file does not exist, so a lab
// switch keeps its identity across restarts.
func LoadOrCreateHostKey(path string) (ssh.Signer, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		s, err := ssh.ParsePrivateKey(b)
		if err != nil {
			return nil, fmt.Errorf("host key %s: %w", path, err)
		}
		return s, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("host key %s: %w", path, err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("host key %s: generate: %w", path, err)
	}
	blk, err := ssh.MarshalPrivateKey(priv, "nxsim host key")
	if err != nil {
		return nil, fmt.Errorf("host key %s: encode: %w", path, err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(blk), 0o600); err != nil {
		return nil, fmt.Errorf("host key %s: write: %w", path, err)
	}
	return ssh.NewSignerFromKey(priv)
}
