package nics

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// labStateDir holds the lab's emulated kernel state (DCB per netdev, VLAN
// devices). It lives under the lab root, never on a real host.
const labStateDir = "var/lib/roce-lab"

func labFile(root, kind, name string) string {
	return filepath.Join(root, labStateDir, kind, name+".json")
}

// loadLab reads an emulated object; ok is false when it does not exist.
func loadLab(root, kind, name string, v any) (bool, error) {
	p := labFile(root, kind, name)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lab state %s: %w", p, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("lab state %s is corrupt: %w (delete it or re-run roce-lab)", p, err)
	}
	return true, nil
}

func saveLab(root, kind, name string, v any) error {
	p := labFile(root, kind, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("lab state %s: %w", p, err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("lab state %s: %w", p, err)
	}
	b = append(b, '\n')
	if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, b) {
		return nil // unchanged: no write
	}
	// Emulated kernel state is no more durable than the kernel's own: no
	// fsync (the rename still makes the change atomic for a kill).
	return replaceFile(p, b, 0o644, false)
}

func removeLab(root, kind, name string) error {
	p := labFile(root, kind, name)
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("lab state %s: %w", p, err)
	}
	return nil
}
