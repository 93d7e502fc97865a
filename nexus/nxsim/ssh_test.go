package nxsim

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// dialSSH opens a plain x/crypto/ssh client that pins the switch's key.
func dialSSH(t *testing.T, srv *Server, user, password string) (*ssh.Client, error) {
	t.Helper()
	return ssh.Dial("tcp", srv.Addr(), &ssh.ClientConfig{
		User:            user,
		Auth:            []ssh.AuthMethod{ssh.Password(password)},
		HostKeyCallback: ssh.FixedHostKey(srv.Switch().HostKey()),
		Timeout:         5 * time.Second,
	})
}

func TestExecChannel(t *testing.T) {
	srv := startServer(t, Options{})
	c, err := dialSSH(t, srv, "admin", "admin")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct {
		cmd, want string
		fail      bool
	}{
		{cmd: "show checkpoint summary", want: "User Checkpoint Summary\n"},
		{cmd: "configure terminal ; class-map type qos match-all ROCE-e ; match cos 2 ; end ; show running-config ipqos", want: "class-map type qos match-all ROCE-e\n  match cos 2\n"},
		{cmd: "show nothing", want: "% Invalid command at '^' marker.", fail: true},
	} {
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.Output(tc.cmd)
		var ee *ssh.ExitError
		if tc.fail != errors.As(err, &ee) || (!tc.fail && err != nil) {
			t.Errorf("%q: err = %v, want failure %v", tc.cmd, err, tc.fail)
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("%q: output %q lacks %q", tc.cmd, out, tc.want)
		}
		s.Close()
	}
	if got := srv.Switch().RunningConfig(); got != "hostname sw1\nclass-map type qos match-all ROCE-e\n  match cos 2\n" {
		t.Errorf("running config after exec = %q", got)
	}
}

func TestAuthentication(t *testing.T) {
	srv := startServer(t, Options{Users: map[string]string{"ops": "s3cret"}})
	for _, tc := range []struct {
		user, pw string
		ok       bool
	}{
		{"ops", "s3cret", true},
		{"ops", "wrong", false},
		{"admin", "admin", false},
	} {
		c, err := dialSSH(t, srv, tc.user, tc.pw)
		if (err == nil) != tc.ok {
			t.Errorf("%s/%s: err = %v, want ok=%v", tc.user, tc.pw, err, tc.ok)
		}
		if c != nil {
			c.Close()
		}
	}
}

func TestWrongHostKeyRefusedByClient(t *testing.T) {
	srv := startServer(t, Options{})
	other := startServer(t, Options{})
	_, err := ssh.Dial("tcp", srv.Addr(), &ssh.ClientConfig{
		User: "admin", Auth: []ssh.AuthMethod{ssh.Password("admin")},
		HostKeyCallback: ssh.FixedHostKey(other.Switch().HostKey()), Timeout: 5 * time.Second,
	})
	if err == nil {
		t.Fatal("a client pinning another switch's key connected")
	}
}

// shell is an interactive session over a pty, read until a prompt.
type shell struct {
	in  io.WriteCloser
	out *lockedBuffer
	s   *ssh.Session
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func openShell(t *testing.T, c *ssh.Client) *shell {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm", 40, 200, ssh.TerminalModes{ssh.ECHO: 1}); err != nil {
		t.Fatal(err)
	}
	in, _ := s.StdinPipe()
	out := &lockedBuffer{}
	s.Stdout = out
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &shell{in: in, out: out, s: s}
}

// waitFor polls the screen until it contains want, or fails after 5 s.
func (sh *shell) waitFor(t *testing.T, want string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if s := sh.out.String(); strings.Contains(s, want) {
			return s
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("screen never showed %q:\n%s", want, sh.out.String())
	return ""
}

func TestShellLineEditing(t *testing.T) {
	srv := startServer(t, Options{})
	c, err := dialSSH(t, srv, "admin", "admin")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sh := openShell(t, c)
	sh.waitFor(t, "sw1# ")
	// CR line ends (OpenSSH), a typo fixed with DEL, an arrow key ignored,
	// ^Z back to exec mode.
	io.WriteString(sh.in, "conf t\r")
	sh.waitFor(t, "sw1(config)# ")
	io.WriteString(sh.in, "system qoz\x7fs\x1b[A\r")
	sh.waitFor(t, "sw1(config-sys-qos)# ")
	io.WriteString(sh.in, "\x1a")
	screen := sh.waitFor(t, "^Z\r\nsw1# ")
	if !strings.Contains(screen, "system qoz\b \bs") {
		t.Errorf("backspace not echoed as erase:\n%q", screen)
	}
	io.WriteString(sh.in, "exit\r\n")
	if err := sh.s.Wait(); err != nil {
		var em *ssh.ExitMissingError
		if !errors.As(err, &em) {
			t.Errorf("exit: %v", err)
		}
	}
}

func TestFaults(t *testing.T) {
	t.Run("reject", func(t *testing.T) {
		srv := startServer(t, Options{Faults: Faults{RejectCommand: "match cos 4"}})
		d := openScrapli(t, srv)
		mr, err := d.SendConfigs([]string{"class-map type qos match-all ROCE-r", "match cos 4"})
		if err != nil {
			t.Fatal(err)
		}
		if mr.Failed == nil || !strings.Contains(mr.Responses[1].Result, "% Invalid command at '^' marker.") {
			t.Errorf("rejected line answered %q", mr.Responses[1].Result)
		}
		if got := srv.Switch().RunningConfig(); got != "hostname sw1\nclass-map type qos match-all ROCE-r\n" {
			t.Errorf("rejected line applied: %q", got)
		}
	})
	t.Run("drop", func(t *testing.T) {
		srv := startServer(t, Options{Faults: Faults{DropAfterConfigLines: 2}})
		c, err := dialSSH(t, srv, "admin", "admin")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		sh := openShell(t, c)
		io.WriteString(sh.in, "configure terminal\nclass-map type qos match-all ROCE-d\nmatch cos 1\nmatch cos 2\n")
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("connection not dropped after 2 configuration lines")
		}
		if got := srv.Switch().RunningConfig(); got != "hostname sw1\nclass-map type qos match-all ROCE-d\n  match cos 1\n" {
			t.Errorf("after drop: %q (want exactly the 2 lines applied)", got)
		}
		// The count runs on across sessions; SetFaults restarts it.
		srv.Switch().SetFaults(Faults{})
		d := openScrapli(t, srv)
		if _, err := d.SendConfigs([]string{"class-map type qos match-all ROCE-e"}); err != nil {
			t.Errorf("after SetFaults: %v", err)
		}
	})
	t.Run("stall", func(t *testing.T) {
		srv := startServer(t, Options{Faults: Faults{StallCommand: "show version"}})
		c, err := dialSSH(t, srv, "admin", "admin")
		if err != nil {
			t.Fatal(err)
		}
		sh := openShell(t, c)
		sh.waitFor(t, "sw1# ")
		io.WriteString(sh.in, "show version\n")
		sh.waitFor(t, "show version\r\n")
		io.WriteString(sh.in, "show checkpoint summary\n")
		time.Sleep(50 * time.Millisecond)
		if strings.Contains(sh.out.String(), "User Checkpoint Summary") {
			t.Error("the session answered after a stalled command")
		}
		c.Close() // the stalled session must end with its connection
	})
	t.Run("latency", func(t *testing.T) {
		srv := startServer(t, Options{Faults: Faults{Latency: time.Millisecond}})
		d := openScrapli(t, srv)
		r, err := d.SendCommand("show checkpoint summary")
		if err != nil || !strings.Contains(r.Result, "User Checkpoint Summary") {
			t.Errorf("with latency: %v %q", err, r.Result)
		}
	})
}

func TestConcurrentSessionsShareConfig(t *testing.T) {
	srv := startServer(t, Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := range 4 {
		d := openScrapli(t, srv) // opened here: t.Fatal only on the test goroutine
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "ROCE-c" + string(rune('a'+i))
			if _, err := d.SendConfigs([]string{"class-map type qos match-all " + name, "match cos 1"}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	cfg := srv.Switch().RunningConfig()
	for i := range 4 {
		if !strings.Contains(cfg, "ROCE-c"+string(rune('a'+i))+"\n  match cos 1\n") {
			t.Errorf("class-map %d missing:\n%s", i, cfg)
		}
	}
}

// TestServeReturnsWhenListenerClosed: closing the listener (not the
// context) ends Serve, open sessions included.
func TestServeReturnsWhenListenerClosed(t *testing.T) {
	sw := newTestSwitch(t, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sw.Serve(context.Background(), ln) }()
	c, err := ssh.Dial("tcp", ln.Addr().String(), &ssh.ClientConfig{User: "admin", Auth: []ssh.AuthMethod{ssh.Password("admin")},
		HostKeyCallback: ssh.FixedHostKey(sw.HostKey()), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	openShell(t, c).waitFor(t, "sw1# ")
	ln.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its listener closed")
	}
}
