package perftest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// killGrace is how long Run waits for output pipes to close after killing
// the process group (a child that inherited them would otherwise hold Wait).
const killGrace = 2 * time.Second

// Run executes one side of a probe in its own process group, kills the whole
// group when ctx ends or the timeout passes, and returns the parsed result.
// On failure the error is a *Failure and the Result (when non-nil) still
// carries argv, exit code and output for the report.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout(o)
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	argv := Argv(o)
	cmd := exec.CommandContext(runCtx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Own process group: a wrapper script (probe { command }) and whatever
	// it starts die together, so no perftest server is left listening.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = killGrace

	res := &Result{Argv: argv}
	err := cmd.Run()
	// Reap anything the tool left in its group even after a normal exit.
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	res.ExitCode = exitCode(cmd, err)

	switch {
	case runCtx.Err() != nil:
		side := "client"
		if o.IsServer() {
			side = "server (waiting for its client)"
		}
		why := "timed out after " + timeout.String()
		if ctx.Err() != nil {
			why = "cancelled: " + ctx.Err().Error()
		}
		f := &Failure{
			Class: ClassTimeout,
			Hint:  "the " + side + " did not finish: check that the other side started, that the TCP port is reachable, and raise probe { timeout } for long runs",
			Detail: fmt.Sprintf("%s %s; last output: %s",
				strings.Join(argv, " "), why, lastLines(res.Stderr, res.Stdout, 2)),
		}
		// A timeout that hides a recognised cause reports the cause.
		if c := Classify(res.Stdout, res.Stderr, 1); c != nil && c.Class != ClassUnknown {
			c.Detail += "; then " + why
			return res, c
		}
		return res, f
	case err != nil && cmd.Process == nil:
		// Never started: not installed, not executable, wrong path.
		return res, &Failure{
			Class:  ClassUnknown,
			Hint:   "install perftest (Debian/Ubuntu: apt-get install perftest) or point probe { command } at your build",
			Detail: fmt.Sprintf("cannot start %s: %v", argv[0], err),
		}
	case err != nil && res.ExitCode < 0:
		return res, fmt.Errorf("perftest: running %s: %w", argv[0], err)
	}

	if f := Classify(res.Stdout, res.Stderr, res.ExitCode); f != nil {
		return res, f
	}
	parsed, perr := Parse(res.Stdout)
	if perr != nil {
		return res, &Failure{
			Class:  ClassUnknown,
			Hint:   "perftest exited 0 without a result table: check probe { command } runs a perftest bandwidth tool",
			Detail: perr.Error(),
		}
	}
	parsed.Stderr, parsed.ExitCode, parsed.Argv = res.Stderr, res.ExitCode, argv
	return parsed, nil
}

func exitCode(cmd *exec.Cmd, err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if cmd.ProcessState != nil {
		return cmd.ProcessState.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
