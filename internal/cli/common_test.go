package cli

import (
	"bytes"
	"flag"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns the terminal side of a new pseudo-terminal, so the
// terminal branch of the colour decision is tested on a real terminal.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("naming the pseudo-terminal: %v", err)
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { slave.Close() })
	return slave
}

// Colour and progress bars only on a terminal that takes them: NO_COLOR,
// TERM=dumb (or no TERM), -no-color and a non-terminal each turn colour off;
// TERM=dumb and a non-terminal also turn the progress bar into plain lines.
func TestColorAndTerminalDecisions(t *testing.T) {
	tty := openPTY(t)
	file, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, tc := range []struct {
		name      string
		w         io.Writer
		env       map[string]string
		noColor   bool
		wantColor bool
		wantTerm  bool
	}{
		{"terminal", tty, map[string]string{"TERM": "xterm-256color"}, false, true, true},
		{"NO_COLOR", tty, map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, false, false, true},
		{"NO_COLOR empty is unset", tty, map[string]string{"TERM": "xterm", "NO_COLOR": ""}, false, true, true},
		{"TERM=dumb", tty, map[string]string{"TERM": "dumb"}, false, false, false},
		{"no TERM", tty, map[string]string{}, false, false, false},
		{"-no-color", tty, map[string]string{"TERM": "xterm"}, true, false, true},
		{"file", file, map[string]string{"TERM": "xterm"}, false, false, false},
		{"pipe-like buffer", &bytes.Buffer{}, map[string]string{"TERM": "xterm"}, false, false, false},
	} {
		getenv := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
		c := Common{NoColor: tc.noColor}
		if got := c.color(tc.w, getenv); got != tc.wantColor {
			t.Errorf("%s: colour %v, want %v", tc.name, got, tc.wantColor)
		}
		if got := isTerminal(tc.w, getenv); got != tc.wantTerm {
			t.Errorf("%s: terminal %v, want %v", tc.name, got, tc.wantTerm)
		}
	}
}

// -version, registered with the common flags, prints one line naming the
// program (not the subcommand) and ends the program with exit 0.
func TestVersionFlag(t *testing.T) {
	for _, name := range []string{"roce-plan", "roce-plan validate", "roce-verify"} {
		var out bytes.Buffer
		exited := -1
		c := Common{versionOut: &out, versionExit: func(code int) { exited = code }}
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		c.Register(fs)
		if err := fs.Parse([]string{"-version"}); err != nil {
			t.Fatal(err)
		}
		program, _, _ := strings.Cut(name, " ")
		if exited != ExitOK || !strings.HasPrefix(out.String(), program+" ") || strings.Count(out.String(), "\n") != 1 {
			t.Errorf("%s -version: exit %d, output %q", name, exited, out.String())
		}
	}
}
