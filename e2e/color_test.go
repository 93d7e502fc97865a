package e2e

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// newPTY opens a pseudo-terminal: the controlling side to read, the
// terminal side to hand to a program as its stdout and stderr.
func newPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		t.Skipf("naming the pseudo-terminal: %v", err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	return master, tty
}

// onTerminal runs a binary with stdout and stderr on a terminal and env
// added, and returns what the terminal showed.
func onTerminal(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	master, tty := newPTY(t)
	defer master.Close()
	cmd := exec.Command(filepath.Join(binDir, name), args...)
	cmd.Stdout, cmd.Stderr = tty, tty
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child holds it now; EOF (EIO) on master once it exits
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&out, master); close(done) }()
	_ = cmd.Wait()
	<-done
	return out.String()
}

// Colour appears on a terminal, and never with NO_COLOR, TERM=dumb or
// -no-color (the diagnostics of a policy with warnings are coloured).
func TestColorRespectsNoColorAndDumbTerminals(t *testing.T) {
	lab := filepath.Join(repoRoot(), "examples", "lab")
	for _, tc := range []struct {
		name      string
		env       []string
		args      []string
		wantColor bool
	}{
		{"terminal", []string{"TERM=xterm-256color", "NO_COLOR="}, nil, true},
		{"NO_COLOR", []string{"TERM=xterm-256color", "NO_COLOR=1"}, nil, false},
		{"TERM=dumb", []string{"TERM=dumb", "NO_COLOR="}, nil, false},
		{"-no-color", []string{"TERM=xterm-256color", "NO_COLOR="}, []string{"-no-color"}, false},
	} {
		out := onTerminal(t, tc.env, "roce-plan", append(append([]string{"validate"}, tc.args...), lab)...)
		if !strings.Contains(out, "Warning") {
			t.Fatalf("%s: no diagnostics to colour:\n%s", tc.name, out)
		}
		if got := strings.Contains(out, "\x1b["); got != tc.wantColor {
			t.Errorf("%s: colour %v, want %v:\n%q", tc.name, got, tc.wantColor, out)
		}
	}
}

// A plan on a terminal draws a progress bar and colours the diff; on a
// TERM=dumb terminal it does neither, and since the plan and the progress
// share that one terminal, each target is listed once, by the plan (no
// progress line repeats it); NO_COLOR leaves the bar but drops the colour.
func TestPlanOnDumbTerminalHasNoEscapes(t *testing.T) {
	l := startLab(t)
	args := []string{"-var-file", l.VarFile(), "-target", "switch.srl-1", "-target", "switch.n5k-1", l.Dir}
	out := onTerminal(t, []string{"TERM=xterm-256color", "NO_COLOR="}, "roce-plan", args...)
	if !strings.Contains(out, "\r\x1b[K") || !strings.Contains(out, "\x1b[3") {
		t.Errorf("on a terminal: want a progress bar and a coloured diff:\n%q", out)
	}
	out = onTerminal(t, []string{"TERM=dumb", "NO_COLOR="}, "roce-plan", args...)
	if strings.Contains(out, "\x1b[") || !strings.Contains(out, "switch.srl-1 (gnmi/srlinux") || strings.Contains(out, "roce-plan: switch.srl-1: read") {
		t.Errorf("TERM=dumb: want no escape sequence and each target once, in the plan:\n%q", out)
	}
	out = onTerminal(t, []string{"TERM=xterm-256color", "NO_COLOR=1"}, "roce-plan", args...)
	if strings.Contains(out, "\x1b[3") || !strings.Contains(out, "switch.n5k-1") {
		t.Errorf("NO_COLOR: want no colour:\n%q", out)
	}
}
