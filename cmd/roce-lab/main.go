// Command roce-lab runs simulated fabrics on this machine: the lab fabric
// described by examples/lab (Nexus 5000 and 7000 simulators, gNMI targets,
// hosts in network namespaces), or a single simulated switch to try by hand.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rocefabric/roce/internal/lab"
	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

const usage = `Usage:
  roce-lab up [-d] [DIR]     start the lab fabric described by DIR (default examples/lab)
  roce-lab down [DIR]        stop it and remove its namespaces
  roce-lab status [DIR]      show whether a lab runs and where
  roce-lab upgrade [-lab DIR] switch.NAME RELEASE
                             upgrade a running NX-OS simulator (e.g. '5.1(5)'): new
                             version strings and the defaults that release brings
  roce-lab upgrade [-lab DIR] host.NAME FIRMWARE|driver
                             a NIC firmware update (or driver reload) on a lab host:
                             its DCB and rdma_cm settings go back to the defaults
  roce-lab nxos [flags]      one NX-OS simulator (try it with plain ssh); -h for flags
  roce-lab gnmi [flags]      one gNMI target; -h for flags

"up" writes DIR/.lab/lab.vars (addresses, namespaces), .lab/known_hosts,
.lab/password and .lab/pki; the lab policy reads them when you pass
-var-file DIR/.lab/lab.vars to roce-plan, roce-apply and roce-verify.
Hosts are network namespaces when run as root; otherwise they are simulated
hosts whose links, DCB and RDMA device are all emulated (and labelled so).
Everything listens on 127.0.0.1 only.
`

const childEnv = "ROCE_LAB_CHILD"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return 1
		}
		return 0
	}
	var err error
	switch args[0] {
	case "up":
		err = up(ctx, args[1:], stdout, stderr)
	case "down":
		err = down(args[1:], stdout)
	case "status":
		err = status(args[1:], stdout)
	case "upgrade":
		err = upgrade(ctx, args[1:], stdout, stderr)
	case "nxos":
		err = nxsim.RunCLI(ctx, args[1:], stdout, stderr)
	case "gnmi":
		err = gnmisim.RunCLI(ctx, args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "roce-lab: unknown command %q\n\n%s", args[0], usage)
		return 1
	}
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "roce-lab:", err)
			return 1
		}
	}
	return 0
}

func dirOf(fs *flag.FlagSet) string {
	if fs.NArg() > 0 {
		return fs.Arg(0)
	}
	return filepath.Join("examples", "lab")
}

func up(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("roce-lab up", flag.ContinueOnError)
	fs.SetOutput(stderr)
	detach := fs.Bool("d", false, "start in the background and return once the lab is ready")
	logLevel := fs.String("log-level", "warn", "simulator log level: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := dirOf(fs)
	if st, err := lab.ReadState(dir); err == nil && processAlive(st.PID) {
		return fmt.Errorf("a lab already runs from %s (pid %d); stop it with: roce-lab down %s", dir, st.PID, dir)
	}
	if *detach && os.Getenv(childEnv) == "" {
		return upBackground(ctx, dir, *logLevel, stdout)
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("-log-level %q: use debug, info, warn or error", *logLevel)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	l, err := lab.Up(ctx, dir, lab.Options{Logger: log, Hosts: lab.IsRoot()})
	if err != nil {
		return err
	}
	defer l.Close()
	stopControl, err := l.ServeControl(ctx)
	if err != nil {
		return err
	}
	defer stopControl()
	l.Describe(stdout)
	if os.Getenv(childEnv) == "" {
		fmt.Fprintln(stdout, "Press Ctrl-C to stop.")
	}
	<-ctx.Done()
	return nil
}

// upBackground starts this program again as the lab process, detached, and
// returns once it reports ready (or failed).
func upBackground(ctx context.Context, dir, logLevel string, stdout io.Writer) error {
	if err := os.MkdirAll(filepath.Join(dir, lab.StateDir), 0o700); err != nil {
		return err
	}
	logPath := filepath.Join(dir, lab.StateDir, "lab.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(dir, lab.StateDir, "state.json"))
	cmd := exec.Command(self, "up", "-log-level", logLevel, dir)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the lab process: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	for {
		if st, err := lab.ReadState(dir); err == nil && st.Ready && st.PID == cmd.Process.Pid {
			b, _ := os.ReadFile(logPath)
			stdout.Write(b)
			fmt.Fprintf(stdout, "Lab running in the background (pid %d, log %s). Stop it with: roce-lab down %s\n", st.PID, logPath, dir)
			return nil
		}
		select {
		case err := <-exited:
			b, _ := os.ReadFile(logPath)
			return fmt.Errorf("the lab process exited before it was ready (%v):\n%s", err, b)
		case <-deadline:
			_ = cmd.Process.Kill()
			return fmt.Errorf("the lab did not become ready within 60s; see %s", logPath)
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func down(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("roce-lab down", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := dirOf(fs)
	st, err := lab.ReadState(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stdout, "No lab runs from %s.\n", dir)
			return nil
		}
		return err
	}
	if processAlive(st.PID) {
		_ = syscall.Kill(st.PID, syscall.SIGTERM)
		for i := 0; i < 100 && processAlive(st.PID); i++ {
			time.Sleep(50 * time.Millisecond)
		}
		if processAlive(st.PID) {
			_ = syscall.Kill(st.PID, syscall.SIGKILL)
		}
	}
	// The lab process cleans up after itself; this catches a lab that was
	// killed before it could.
	if err := lab.DeleteNamespaces(st); err != nil {
		return fmt.Errorf("removing the lab's namespaces: %w", err)
	}
	_ = os.Remove(filepath.Join(dir, lab.StateDir, "state.json"))
	_ = os.Remove(filepath.Join(dir, lab.StateDir, "lab.vars"))
	_ = os.Remove(filepath.Join(dir, lab.StateDir, lab.ControlSocket)) // left by a lab that was killed
	if err := os.RemoveAll(filepath.Join(dir, lab.StateDir, "hosts")); err != nil {
		return fmt.Errorf("removing the lab's host trees: %w", err)
	}
	fmt.Fprintf(stdout, "Lab %s stopped.\n", st.ID)
	return nil
}

func status(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("roce-lab status", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := dirOf(fs)
	st, err := lab.ReadState(dir)
	if err != nil || !processAlive(st.PID) {
		fmt.Fprintf(stdout, "No lab runs from %s.\n", dir)
		return nil
	}
	fmt.Fprintf(stdout, "Lab %s runs (pid %d): %d switches, hosts: %s\n", st.ID, st.PID, len(st.Switches), st.Hosts)
	return nil
}

func processAlive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil
}

// upgrade asks the running lab to upgrade one simulator (internal/lab's
// control socket) and prints what changed.
func upgrade(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("roce-lab upgrade", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("lab", filepath.Join("examples", "lab"), "the directory `DIR` the lab was started from (roce-lab up DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("upgrade wants a target and a version: roce-lab upgrade switch.NAME RELEASE, or host.NAME FIRMWARE|driver")
	}
	req := lab.UpgradeRequest{Target: fs.Arg(0), Version: fs.Arg(1)}
	if strings.HasPrefix(req.Target, "host.") && req.Version == "driver" {
		req.Version, req.Driver = "", true
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	rep, err := lab.RequestUpgrade(ctx, *dir, req)
	if err != nil {
		return err
	}
	switch {
	case req.Driver:
		fmt.Fprintf(stdout, "%s: driver reloaded\n", rep.Target)
	default:
		fmt.Fprintf(stdout, "%s upgraded from %s to %s\n", rep.Target, orUnknown(rep.From), rep.To)
	}
	for _, c := range rep.Changes {
		fmt.Fprintf(stdout, "  - %s\n", c)
	}
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}
