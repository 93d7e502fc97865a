package nxsim

import (
	"github.com/rocefabric/roce/internal/testenv"

	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// TestOpenSSHClient drives the simulator with the system's OpenSSH client,
// as a user would by hand: one exec command, then an interactive session
// on a forced terminal.
func TestOpenSSHClient(t *testing.T) {
	bin := testenv.Tool(t, "ssh", "apt-get install openssh-client")
	dir := t.TempDir()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, Options{AuthorizedKeys: []ssh.PublicKey{sshPub}})
	host, port := hostOf(srv.Addr()), portOf(srv.Addr())
	kh := filepath.Join(dir, "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize(srv.Addr())}, srv.Switch().HostKey())
	if err := os.WriteFile(kh, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// run invokes ssh with extra flags, then the destination and the
	// remote command (none for an interactive session).
	run := func(stdin, flag, command string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		args := []string{flag, "-F", "/dev/null", "-p", port, "-i", keyFile, "-o", "IdentitiesOnly=yes",
			"-o", "UserKnownHostsFile=" + kh, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes",
			"-o", "ConnectTimeout=10", "admin@" + host}
		if command != "" {
			args = append(args, command)
		}
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Stdin = strings.NewReader(stdin)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	out, err := run("", "-T", "show vdc current-vdc")
	if err == nil || !strings.Contains(out, "% Invalid command at '^' marker.") {
		t.Errorf("exec of a 7000-only command on a 5000: err=%v out=%q", err, out)
	}
	out, err = run("", "-T", "show checkpoint summary")
	if err != nil || !strings.Contains(out, "User Checkpoint Summary") {
		t.Errorf("exec: err=%v out=%q", err, out)
	}
	out, err = run("configure terminal\nsystem qos\nend\nexit\n", "-tt", "")
	if err != nil || !strings.Contains(out, "sw1(config-sys-qos)# ") {
		t.Errorf("interactive: err=%v out=%q", err, out)
	}
}
