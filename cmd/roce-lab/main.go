// Command roce-lab runs simulated fabrics on this machine: the lab fabric
// described by examples/lab (Nexus 5000 and 7000 simulators, gNMI targets,
// hosts in network namespaces), or a single simulated switch to try by hand.
package main

import (
	"context"
	"encoding/json"
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

	"github.com/rocefabric/roce/internal/buildinfo"
	"github.com/rocefabric/roce/internal/lab"
	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

const usage = `Usage:
  roce-lab up [-d] [DIR]     start the lab fabric described by DIR (default examples/lab)
  roce-lab down [DIR]        stop it and remove its namespaces
  roce-lab status [-json] [DIR]
                             every simulated device: address, platform, version, state
  roce-lab upgrade [-lab DIR] [-unsaved] switch.NAME RELEASE
                             upgrade a running NX-OS simulator (e.g. '5.1(5)'): new
                             version strings and the defaults that release brings
  roce-lab upgrade [-lab DIR] host.NAME FIRMWARE|driver
                             a NIC firmware update (or driver reload) on a lab host:
                             DCB and rdma_cm go back to the defaults; the udev rules
                             roce-apply installed restore the DCB and rdma_cm settings
  roce-lab nxos [flags]      one NX-OS simulator (try it with plain ssh); -h for flags
  roce-lab gnmi [flags]      one gNMI target; -h for flags
  roce-lab -version          print the version of roce-lab and exit

"up" writes DIR/.lab/lab.vars (addresses, namespaces), .lab/known_hosts,
.lab/password and .lab/pki; the lab policy reads them when you pass
-var-file DIR/.lab/lab.vars to roce-plan, roce-apply and roce-verify.
Hosts are network namespaces when run as root; otherwise they are simulated
hosts whose links, DCB and RDMA device are all emulated (and labelled so).
Everything listens on 127.0.0.1 only.

Examples:
  roce-lab up -d examples/lab
  roce-lab status examples/lab
  roce-plan -var-file examples/lab/.lab/lab.vars examples/lab
  roce-lab upgrade switch.n7k-1 '5.1(5)'
  roce-lab down examples/lab

"roce-lab COMMAND -h" shows each command's flags and examples.
Exit codes: 0 success; 1 error (docs/exit-codes.md#exit-codes).
`

// Per-command help: what it does and examples; the flags follow.
var commandHelp = map[string]string{
	"up": `Usage: roce-lab up [-d] [-log-level LEVEL] [DIR]

Starts the lab fabric described by the policy in DIR (default examples/lab):
an NX-OS simulator per Nexus switch, a gNMI target per gNMI switch, a host per
lab host (a network namespace as root, fully emulated otherwise). Writes
DIR/.lab/lab.vars, the file roce-plan, roce-apply and roce-verify take with
-var-file. Without -d it runs in the foreground until Ctrl-C.

Examples:
  roce-lab up -d examples/lab          # in the background; returns when ready
  roce-lab up examples/lab             # in the foreground; Ctrl-C stops it
`,
	"down": `Usage: roce-lab down [DIR]

Stops the lab running from DIR (default examples/lab), removes its network
namespaces and its host trees. Saying so when no lab runs is not an error.

Examples:
  roce-lab down examples/lab
`,
	"status": `Usage: roce-lab status [-json] [DIR]

Lists every simulated device of the lab running from DIR (default
examples/lab): its target name (as -target takes it), platform, address,
version (NX-OS release, gNMI software version, NIC firmware — after
roce-lab upgrade, the new one) and state. -json prints the same as a JSON
document (docs/lab-status.md#json). Prints "No lab runs from DIR." when none does.

Examples:
  roce-lab status examples/lab
  roce-lab status -json examples/lab | jq -r '.devices[] | "\(.target) \(.version)"'
`,
	"upgrade": `Usage: roce-lab upgrade [-lab DIR] [-unsaved] switch.NAME RELEASE
       roce-lab upgrade [-lab DIR] host.NAME FIRMWARE|driver

Replays an upgrade on the running lab (docs/lab-upgrades.md#upgrades-in-the-lab): an NX-OS
release on a simulated Nexus switch (the running configuration is saved
first, unless -unsaved; the reload boots the saved one; new version strings
and the defaults that release changes), or a NIC firmware update or driver
reload on a lab host (its DCB and rdma_cm settings go back to the defaults
unless roce persisted them).

Examples:
  roce-lab upgrade switch.n7k-1 '5.1(5)'
  roce-lab upgrade -unsaved switch.n5k-1 '7.3(8)N1(1)'
  roce-lab upgrade host.h1 16.36.1010
  roce-lab upgrade -lab /tmp/mylab host.h2 driver
`,
	"nxos": `roce-lab nxos serves one simulated Nexus switch over SSH until Ctrl-C.

Examples:
  roce-lab nxos --platform nexus5000 --listen 127.0.0.1:2222
  roce-lab nxos --platform nexus7000 --modules 1:48:N7K-F248XP-25 --listen 127.0.0.1:2223
  ssh -p 2222 admin@127.0.0.1      # password "admin" unless you set --password

`,
	"gnmi": `roce-lab gnmi serves one simulated gNMI target until Ctrl-C.

Examples:
  roce-lab gnmi --profile arista --listen 127.0.0.1:6030 --tls-dir /tmp/gnmi-pki
  roce-lab gnmi --profile sonic --plaintext --user admin --password admin

`,
}

// helpFor returns the flag set's usage function for command name: its
// help text, then its flags.
func helpFor(fs *flag.FlagSet, name string) func() {
	return func() {
		fmt.Fprint(fs.Output(), commandHelp[name])
		if hasFlags(fs) {
			fmt.Fprintln(fs.Output(), "\nFlags:")
			fs.PrintDefaults()
		}
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// wantsHelp reports whether args ask for help before any positional one.
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help", "--h":
			return true
		case "--":
			return false
		}
	}
	return false
}

const childEnv = "ROCE_LAB_CHILD"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 2 && commandHelp[args[1]] != "" { // roce-lab help down
			return run(ctx, []string{args[1], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return 1
		}
		return 0
	}
	if args[0] == "-version" || args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(stdout, buildinfo.Read().String("roce-lab"))
		return 0
	}
	var err error
	switch args[0] {
	case "up":
		err = up(ctx, args[1:], stdout, stderr)
	case "down":
		err = down(args[1:], stdout, stderr)
	case "status":
		err = status(ctx, args[1:], stdout, stderr)
	case "upgrade":
		err = upgrade(ctx, args[1:], stdout, stderr)
	case "nxos", "gnmi":
		if v, ok := simVersionFlag(args[1:]); ok {
			if v != "" {
				fmt.Fprintf(stderr, "roce-lab %s: -version prints roce-lab's build version and takes no value; the simulated OS version is -os-version %s\n", args[0], v)
				return 1
			}
			fmt.Fprintln(stdout, buildinfo.Read().String("roce-lab"))
			return 0
		}
		// The simulators' own flag sets print their flags; the examples
		// come first.
		if wantsHelp(args[1:]) {
			fmt.Fprint(stderr, commandHelp[args[0]])
		}
		if args[0] == "nxos" {
			err = nxsim.RunCLI(ctx, args[1:], stdout, stderr)
		} else {
			err = gnmisim.RunCLI(ctx, args[1:], stdout, stderr)
		}
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

// simVersionFlag finds -version among a simulator's flags: it prints the
// build version, as on every roce binary (the simulated OS version is
// -os-version). A value after it ("-version 5.1(3)", the flag's old
// meaning) is returned so the caller can point at -os-version.
func simVersionFlag(args []string) (value string, found bool) {
	for i, a := range args {
		if a == "--" {
			return "", false
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "version" {
			continue
		}
		if hasVal {
			return val, true
		}
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			return args[i+1], true
		}
		return "", true
	}
	return "", false
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
	fs.Usage = helpFor(fs, "up")
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

func down(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("roce-lab down", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = helpFor(fs, "down")
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

func status(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("roce-lab status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the status as JSON (docs/lab-status.md#json)")
	fs.Usage = helpFor(fs, "status")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := dirOf(fs)
	st, err := lab.ReadState(dir)
	if err != nil || !processAlive(st.PID) {
		if *asJSON {
			return fmt.Errorf("no lab runs from %s; start one with: roce-lab up -d %s", dir, dir)
		}
		fmt.Fprintf(stdout, "No lab runs from %s.\n", dir)
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	full, err := lab.RequestStatus(ctx, dir)
	if err != nil {
		return fmt.Errorf("the lab from %s runs (pid %d) but did not answer: %w", dir, st.PID, err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(full)
	}
	return full.WriteText(stdout)
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
	unsaved := fs.Bool("unsaved", false, "switches: do not copy running-config startup-config before the install, so the reload loses what was not saved")
	fs.Usage = helpFor(fs, "upgrade")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("upgrade wants a target and a version: roce-lab upgrade switch.NAME RELEASE, or host.NAME FIRMWARE|driver")
	}
	req := lab.UpgradeRequest{Target: fs.Arg(0), Version: fs.Arg(1), Unsaved: *unsaved}
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
