package policies

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxSecretFileBytes bounds password and key files: a secret is small, and
// a mistaken path (a log, a device) must not be read whole.
const maxSecretFileBytes = 64 << 10

// ResolveCredentials returns the secret of the credentials block called
// name: the password from password_env or password_file, the private key
// from key_env or key_file. Relative file paths resolve against f.Dir. The
// error names the credentials block and what is missing; it never contains
// the secret.
func (f *Fabric) ResolveCredentials(name string, getenv func(string) (string, bool)) (Secret, error) {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	c, ok := f.Credentials[name]
	if !ok {
		return Secret{}, fmt.Errorf("credentials %q: no such credentials block in the policy", name)
	}
	s := Secret{Username: c.Username}
	switch {
	case c.PasswordEnv != "":
		v, ok := getenv(c.PasswordEnv)
		if !ok || v == "" {
			return Secret{}, fmt.Errorf("credentials %q: environment variable %s (password_env) is not set; export it before running", name, c.PasswordEnv)
		}
		s.Password = v
	case c.PasswordFile != "":
		b, err := f.readSecretFile(c.PasswordFile)
		if err != nil {
			return Secret{}, fmt.Errorf("credentials %q: reading password_file: %w", name, err)
		}
		// Files written by editors or echo end with a newline that is not
		// part of the password.
		s.Password = strings.TrimRight(string(b), "\r\n")
		if s.Password == "" {
			return Secret{}, fmt.Errorf("credentials %q: password_file %s is empty", name, f.secretPath(c.PasswordFile))
		}
	}
	switch {
	case c.KeyEnv != "":
		v, ok := getenv(c.KeyEnv)
		if !ok || v == "" {
			return Secret{}, fmt.Errorf("credentials %q: environment variable %s (key_env) is not set; export the PEM private key in it", name, c.KeyEnv)
		}
		s.Key = []byte(v)
	case c.KeyFile != "":
		b, err := f.readSecretFile(c.KeyFile)
		if err != nil {
			return Secret{}, fmt.Errorf("credentials %q: reading key_file: %w", name, err)
		}
		if len(b) == 0 {
			return Secret{}, fmt.Errorf("credentials %q: key_file %s is empty", name, f.secretPath(c.KeyFile))
		}
		s.Key = b
	}
	if s.Password == "" && len(s.Key) == 0 {
		return Secret{}, fmt.Errorf("credentials %q: no password or key configured; set password_env, password_file, key_env or key_file", name)
	}
	return s, nil
}

func (f *Fabric) secretPath(p string) string {
	if filepath.IsAbs(p) || f.Dir == "" {
		return p
	}
	return filepath.Join(f.Dir, p)
}

func (f *Fabric) readSecretFile(p string) ([]byte, error) {
	p = f.secretPath(p)
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	if fi.Size() > maxSecretFileBytes {
		return nil, fmt.Errorf("%s is %d bytes, too large for a secret (limit %d)", p, fi.Size(), maxSecretFileBytes)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return b, nil
}
