package nxsim

import (
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
	c, err := dialSSH(t, srv, "admin", "admin")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sh := openShell(t, c)
	sh.waitFor(t, "sw1# ")
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
	c, err := dialSSH(t, srv, "admin", "admin")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sh := openShell(t, c)
	sh.waitFor(t, "sw1# ")
	io.WriteString(sh.in, "configure terminal\rno-such-command 1\rsystem qos\rend\r")
	screen := waitPrompts(t, sh, 5)
	refused := strings.Index(screen, "% Invalid command")
	after := strings.Index(screen, "sw1(config-sys-qos)# end")
	if refused < 0 || after < refused {
		t.Errorf("want the refusal, then the next pasted lines run (system qos, end):\n%q", screen)
	}
}
