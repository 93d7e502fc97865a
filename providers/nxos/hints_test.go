package nxos

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

func TestKeyscanCommand(t *testing.T) {
	tests := []struct{ hostport, path, want string }{
		{"10.0.0.11:22", "known_hosts", "ssh-keyscan 10.0.0.11 >> known_hosts"},
		{"127.0.0.1:2222", "/etc/roce/kh", "ssh-keyscan -p 2222 127.0.0.1 >> /etc/roce/kh"},
		{"[2001:db8::1]:830", "kh", "ssh-keyscan -p 830 2001:db8::1 >> kh"},
		{"leaf1", "kh", "ssh-keyscan leaf1 >> kh"},
	}
	for _, tt := range tests {
		if got := keyscanCommand(tt.hostport, tt.path); got != tt.want {
			t.Errorf("keyscanCommand(%q, %q) = %q, want %q", tt.hostport, tt.path, got, tt.want)
		}
	}
}

// Against the simulator: a refused login and an unknown host key each end
// with the step that fixes them, and the wrong password is never shown.
func TestConnectErrorsSayWhatToDo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := nxsim.Listen(ctx, "127.0.0.1:0", nxsim.Options{Hostname: "sw1", Platform: "nexus5000", Users: map[string]string{"netops": "pw-123"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	kh := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(kh, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		password string
		trust    func(sw *policies.Switch)
		want     []string
	}{
		{"wrong password", "not-the-password", func(sw *policies.Switch) { sw.InsecureSkipVerify = true },
			[]string{"the switch refused the login", `check credentials "lab" (user "netops", the password in $NXOS_PW)`}},
		{"host key not in known_hosts", "pw-123", func(sw *policies.Switch) { sw.KnownHosts = kh },
			[]string{"is not in " + kh, "ssh-keyscan -p " + srv.Addr()[strings.LastIndex(srv.Addr(), ":")+1:] + " 127.0.0.1 >> " + kh}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sw := &policies.Switch{Name: "sw1", Platform: "nexus5000", Address: srv.Addr(), Credentials: "lab", Interfaces: []string{"Ethernet1/1"}}
			tt.trust(sw)
			fab := &policies.Fabric{Dir: t.TempDir(), Switches: []*policies.Switch{sw},
				Credentials: map[string]*policies.Credentials{"lab": {Name: "lab", Username: "netops", PasswordEnv: "NXOS_PW"}}}
			env := plan.Env{Fabric: fab, Timeout: 10 * time.Second,
				Getenv: func(k string) (string, bool) { return tt.password, k == "NXOS_PW" }}
			tg, err := newTarget(env, sw)
			if err != nil {
				t.Fatal(err)
			}
			tg.home = ""
			pctx, pcancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer pcancel()
			_, err = tg.Plan(pctx)
			if err == nil {
				t.Fatal("Plan succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if strings.Contains(err.Error(), "not-the-password") || strings.Contains(err.Error(), "pw-123") {
				t.Errorf("error shows a password:\n%v", err)
			}
		})
	}
}
