package e2e

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/rocefabric/roce/internal/lab"
)

// typeOnSwitch logs into a lab switch over SSH and types lines at its
// prompt, the way an operator (or a firmware upgrade's new defaults) changes
// a switch behind the tool's back.
func typeOnSwitch(t *testing.T, l *lab.Lab, name string, lines ...string) string {
	t.Helper()
	sw := l.Sims[name].Switch()
	cfg := &ssh.ClientConfig{
		User:            "admin",
		Auth:            []ssh.AuthMethod{ssh.Password(l.Password)},
		HostKeyCallback: ssh.FixedHostKey(sw.HostKey()),
		Timeout:         10 * time.Second,
	}
	c, err := ssh.Dial("tcp", l.Switches[name], cfg)
	if err != nil {
		t.Fatalf("ssh to %s: %v", name, err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out bytes.Buffer
	s.Stdout = &out
	s.Stdin = strings.NewReader(strings.Join(append(lines, "exit"), "\n") + "\n")
	if err := s.RequestPty("vt100", 80, 200, ssh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("session on %s did not end; output so far:\n%s", name, out.String())
	}
	return out.String()
}

// After someone (or an upgrade) changes an object the tool owns, roce-plan
// reports it as drift in plain words and applying restores it.
func TestDriftOnOurObjectsIsReported(t *testing.T) {
	l := startLab(t)
	sc := []string{"-target", "switch.n5k-1"} // one switch is enough here
	if r := roce(t, l, "", "roce-apply", append(sc, "-auto-approve", l.Dir)...); r.code != 0 {
		t.Fatalf("apply\n%s", r)
	}
	out := typeOnSwitch(t, l, "n5k-1",
		"configure terminal",
		"policy-map type network-qos ROCE-NQ",
		"class type network-qos ROCE-rocev2",
		"no pause no-drop pfc-cos 4",
		"end")
	if strings.Contains(out, "% Invalid") {
		t.Fatalf("the switch refused the edit:\n%s", out)
	}
	r := roce(t, l, "", "roce-plan", append(sc, "-detailed-exitcode", l.Dir)...)
	t.Logf("plan after the edit:\n%s", r.stdout)
	if r.code != 2 {
		t.Fatalf("plan after the change: want exit 2\n%s", r)
	}
	low := strings.ToLower(r.stdout)
	if !strings.Contains(low, "drift") || !strings.Contains(r.stdout, "pause no-drop") {
		t.Fatalf("the plan does not explain the drift in plain words:\n%s", r.stdout)
	}
	r = roce(t, l, "", "roce-plan", append(sc, "-json", l.Dir)...)
	if !strings.Contains(r.stdout, `"drift": true`) {
		t.Fatalf("JSON plan does not flag drift:\n%s", r.stdout)
	}
	if r := roce(t, l, "", "roce-apply", append(sc, "-auto-approve", l.Dir)...); r.code != 0 {
		t.Fatalf("apply restoring the drifted object\n%s", r)
	}
	if r := roce(t, l, "", "roce-plan", append(sc, "-detailed-exitcode", l.Dir)...); r.code != 0 {
		t.Fatalf("after restoring, the plan must be empty\n%s", r)
	}
}
