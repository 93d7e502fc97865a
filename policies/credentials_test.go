package policies

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveCredentials(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("pw", "s3cret\n")
	write("empty", "")
	write("id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n")
	f := &Fabric{Dir: dir, Credentials: map[string]*Credentials{
		"env":      {Name: "env", Username: "admin", PasswordEnv: "SW_PW"},
		"file":     {Name: "file", Username: "admin", PasswordFile: "pw"},
		"abs":      {Name: "abs", Username: "admin", PasswordFile: filepath.Join(dir, "pw")},
		"key":      {Name: "key", Username: "roce", KeyFile: "id_ed25519"},
		"keyenv":   {Name: "keyenv", Username: "roce", KeyEnv: "SSH_KEY"},
		"both":     {Name: "both", Username: "roce", PasswordEnv: "SW_PW", KeyFile: "id_ed25519"},
		"unset":    {Name: "unset", Username: "admin", PasswordEnv: "NOT_SET"},
		"missing":  {Name: "missing", Username: "admin", PasswordFile: "nope"},
		"emptyf":   {Name: "emptyf", Username: "admin", PasswordFile: "empty"},
		"nothing":  {Name: "nothing", Username: "admin"},
		"dirfile":  {Name: "dirfile", Username: "admin", KeyFile: "."},
		"emptykey": {Name: "emptykey", Username: "admin", KeyEnv: "EMPTY"},
	}}
	env := map[string]string{"SW_PW": "from-env", "SSH_KEY": "PEM", "EMPTY": ""}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }

	tests := []struct {
		name     string
		wantPW   string
		wantKey  string
		wantErr  string
		wantUser string
	}{
		{name: "env", wantPW: "from-env", wantUser: "admin"},
		{name: "file", wantPW: "s3cret", wantUser: "admin"},
		{name: "abs", wantPW: "s3cret", wantUser: "admin"},
		{name: "key", wantKey: "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n", wantUser: "roce"},
		{name: "keyenv", wantKey: "PEM", wantUser: "roce"},
		{name: "both", wantPW: "from-env", wantKey: "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n", wantUser: "roce"},
		{name: "unset", wantErr: `credentials "unset": environment variable NOT_SET (password_env) is not set`},
		{name: "missing", wantErr: `credentials "missing": reading password_file`},
		{name: "emptyf", wantErr: `credentials "emptyf": password_file`},
		{name: "nothing", wantErr: `credentials "nothing": no password or key configured`},
		{name: "dirfile", wantErr: "is not a regular file"},
		{name: "emptykey", wantErr: "EMPTY (key_env) is not set"},
		{name: "ghost", wantErr: `credentials "ghost": no such credentials block`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := f.ResolveCredentials(tc.name, getenv)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "from-env") {
					t.Errorf("error leaks a secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Username != tc.wantUser || s.Password != tc.wantPW || string(s.Key) != tc.wantKey {
				t.Errorf("got user %q password %q key %q", s.Username, s.Password, s.Key)
			}
			if str := s.String(); strings.Contains(str, "s3cret") || strings.Contains(str, "from-env") {
				t.Errorf("Secret.String leaks: %s", str)
			}
		})
	}
}
