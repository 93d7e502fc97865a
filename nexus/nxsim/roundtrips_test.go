package nxsim

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestRoundTripsCountTurnsNotLines: a line sent after waiting for the
// prompt is one turn; lines pasted together are one turn however many
// there are, and the CLI runs them in order, echoing each one after the
// previous answer, as a terminal shows pasted input.
func TestRoundTripsCountTurnsNotLines(t *testing.T) {
	srv := startServer(t, Options{})
	sh := shellAtPrompt(t, srv)
	sw := srv.Switch()
	r0, l0 := sw.RoundTrips(), sw.LinesHandled()

	io.WriteString(sh.in, "show module\r")
	sh.waitFor(t, "show module\r\n")
	waitPrompts(t, sh, 2)
	if got := sw.RoundTrips() - r0; got != 1 {
		t.Errorf("one line after the prompt: %d round trips, want 1", got)
	}

	r1 := sw.RoundTrips()
	io.WriteString(sh.in, "configure terminal\rsystem qos\rend\rshow running-config ipqos\rshow module\r")
	screen := waitPrompts(t, sh, 7)
	if got := sw.RoundTrips() - r1; got != 1 {
		t.Errorf("five pasted lines: %d round trips, want 1", got)
	}
	if got := sw.LinesHandled() - l0; got != 6 {
		t.Errorf("lines handled %d, want 6 (each pasted line answered)", got)
	}
	want := "sw1# configure terminal\r\nEnter configuration commands, one per line. End with CNTL/Z.\r\nsw1(config)# system qos\r\nsw1(config-sys-qos)# end\r\nsw1# show running-config ipqos\r\n"
	if !strings.Contains(screen, want) {
		t.Errorf("pasted lines not echoed in order after each prompt; want %q in:\n%q", want, screen)
	}
}

// TestScrapligoCommandIsTwoTurns: scrapligo sends a command, waits for
// its echo, then sends the return: two round trips per command.
func TestScrapligoCommandIsTwoTurns(t *testing.T) {
	srv := startServer(t, Options{})
	d := openScrapli(t, srv)
	defer d.Close()
	sw := srv.Switch()
	r0 := sw.RoundTrips()
	if _, err := d.SendCommand("show module"); err != nil {
		t.Fatal(err)
	}
	if got := sw.RoundTrips() - r0; got != 2 {
		t.Errorf("scrapligo SendCommand: %d round trips, want 2 (command, then return after the echo)", got)
	}
}

// waitPrompts waits until the screen shows n exec or config prompts.
func waitPrompts(t *testing.T, sh *shell, n int) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if screen := sh.out.String(); strings.Count(screen, "# ") >= n {
			return screen
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("screen never showed %d prompts:\n%s", n, sh.out.String())
	return ""
}

// TestPastedLinesGoOnAfterARefusedOne: like typed lines, pasted lines after
// a refused one still run (docs/nxos.md, "Commands written together").
func TestPastedLinesGoOnAfterARefusedOne(t *testing.T) {
	srv := startServer(t, Options{})
	sh := shellAtPrompt(t, srv)
	io.WriteString(sh.in, "configure terminal\rno-such-command 1\rsystem qos\rend\r")
	screen := waitPrompts(t, sh, 5)
	refused := strings.Index(screen, "% Invalid command")
	after := strings.Index(screen, "sw1(config-sys-qos)# end")
	if refused < 0 || after < refused {
		t.Errorf("want the refusal, then the next pasted lines run (system qos, end):\n%q", screen)
	}
}

// TestPastedBodyOfARefusedModeLineLandsInTheModeBefore: the hazard a
// pipelined push must avoid (docs/nxos.md#pipelined). A refused
// mode-entering line leaves the session where it was, so the pasted lines
// meant for its mode run there: here `interface Ethernet1/2` is refused
// and the `priority-flow-control mode off` meant for it changes
// Ethernet1/1, while the lines after it go on.
func TestPastedBodyOfARefusedModeLineLandsInTheModeBefore(t *testing.T) {
	srv := startServer(t, Options{Faults: Faults{RejectCommand: "interface Ethernet1/2"}})
	sh := shellAtPrompt(t, srv)
	r0 := srv.Switch().RoundTrips()
	io.WriteString(sh.in, "configure terminal\rinterface Ethernet1/1\rpriority-flow-control mode on\rinterface Ethernet1/2\rpriority-flow-control mode off\rend\r")
	screen := waitPrompts(t, sh, 6)
	if got := srv.Switch().RoundTrips() - r0; got != 1 {
		t.Errorf("six pasted lines: %d round trips, want 1", got)
	}
	want := "sw1(config-if)# interface Ethernet1/2\r\n"
	refused := strings.Index(screen, want)
	if refused < 0 || !strings.Contains(screen[refused:], "% Invalid command") ||
		!strings.Contains(screen[refused:], "sw1(config-if)# priority-flow-control mode off\r\n") ||
		!strings.Contains(screen[refused:], "sw1(config-if)# end\r\n") {
		t.Fatalf("want the refusal, then the body and end still run in config-if:\n%q", screen)
	}
	running := srv.Switch().RunningConfig()
	e1 := section(running, "interface Ethernet1/1")
	if !strings.Contains(e1, "priority-flow-control mode off") {
		t.Errorf("the body of the refused interface line did not land on Ethernet1/1:\n%s", e1)
	}
	if e2 := section(running, "interface Ethernet1/2"); strings.Contains(e2, "priority-flow-control") {
		t.Errorf("Ethernet1/2 changed although its interface line was refused:\n%s", e2)
	}
}

// section is the block of running that starts with header (its indented
// lines), or "".
func section(running, header string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(running, "\n") {
		switch {
		case l == header:
			in = true
		case in && strings.HasPrefix(l, " "):
		default:
			in = false
		}
		if in {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// shellAtPrompt logs in as admin and waits for the exec prompt.
func shellAtPrompt(t *testing.T, srv *Server) *shell {
	t.Helper()
	c, err := dialSSH(t, srv, "admin", "admin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	sh := openShell(t, c)
	sh.waitFor(t, "sw1# ")
	return sh
}

// WaitIdle returns once the last client is gone, and says how many are
// still connected when ctx ends first.
func TestWaitIdle(t *testing.T) {
	srv := startServer(t, Options{})
	c, err := dialSSH(t, srv, "admin", "admin")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := srv.Switch().WaitIdle(ctx); err == nil || !strings.Contains(err.Error(), "1 connection(s) still open") {
		t.Fatalf("WaitIdle with a client connected: %v", err)
	}
	c.Close()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	if err := srv.Switch().WaitIdle(ctx2); err != nil {
		t.Fatal(err)
	}
}
