// Command roce-apply pushes a reviewed plan to the fabric: one transaction
// per device, canaries first, then batches, rolling back any target that
// fails.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rocefabric/roce/internal/cli"
	"github.com/rocefabric/roce/plan"
)

const usage = `Usage:
  roce-apply [flags] PLANFILE     apply a plan saved by roce-plan -out (exactly that plan)
  roce-apply [flags] [DIR]        plan the policy in DIR (default .), show it, ask, then apply

Every target is re-read first; a target whose state moved since the plan was
made is refused ("stale plan: re-run roce-plan"), and so is a plan file that
was modified after roce-plan wrote it. Each target is applied as one
transaction (NX-OS checkpoint/rollback, one gNMI SetRequest, host snapshot
and restore) and verified by reading it back. The policy's rollout block sets
canaries and batch sizes; the first failed target stops the rollout unless
-continue-on-error. Only one roce-apply may run per policy directory at a
time (lock file DIR/.roce/apply.lock, or -lock-file on shared storage so
pipelines on different runners exclude each other; -lock-timeout to wait).

Exit codes: 0 every target applied or unchanged; 1 anything else (the
summary names the targets applied, rolled back and untouched).
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("roce-apply", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c cli.Common
	c.Register(fs)
	autoApprove := fs.Bool("auto-approve", false, "apply without asking (for pipelines)")
	continueOnError := fs.Bool("continue-on-error", false, "keep rolling out after a target fails")
	lockTimeout := fs.Duration("lock-timeout", 0, "how long to wait for another roce-apply on the same policy to finish")
	lockFile := fs.String("lock-file", "", "apply lock `FILE` (default DIR/.roce/apply.lock); put it on storage every pipeline shares so runners on different machines exclude each other")
	dirFlag := fs.String("dir", "", "policy directory when applying a plan file (default: the one the plan was made from)")
	asJSON := fs.Bool("json", false, "print the apply report as JSON")
	fs.Usage = cli.Usage(fs, usage)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cli.ExitOK
		}
		return cli.ExitError
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "roce-apply: expected one plan file or policy directory, got %v\n", fs.Args())
		return cli.ExitError
	}
	log, err := c.Logger(stderr)
	if err != nil {
		fmt.Fprintln(stderr, "roce-apply:", err)
		return cli.ExitError
	}
	arg := "."
	if fs.NArg() == 1 {
		arg = fs.Arg(0)
	}
	var saved *plan.Plan
	dir := arg
	if st, err := os.Stat(arg); err != nil {
		fmt.Fprintf(stderr, "roce-apply: %v\n", err)
		return cli.ExitError
	} else if !st.IsDir() {
		saved, err = plan.ReadPlanFile(arg)
		if err != nil {
			fmt.Fprintln(stderr, "roce-apply:", err)
			return cli.ExitError
		}
		dir = saved.PolicyDir
		if *dirFlag != "" {
			dir = *dirFlag
		}
	}

	fab, src, err := c.LoadFabric(dir, stderr)
	if err != nil {
		return cli.ExitError
	}
	if saved != nil && saved.PolicyDigest != src.Digest() {
		fmt.Fprintf(stderr, "roce-apply: the policy in %s changed since this plan was made; re-run roce-plan and review the new plan\n", dir)
		return cli.ExitError
	}
	lockPath := *lockFile
	if lockPath == "" {
		lockPath = plan.DefaultLockPath(dir)
	}
	lock, err := plan.AcquireLockNotify(ctx, lockPath, *lockTimeout, lockHolder(),
		func(msg string) { fmt.Fprintln(stderr, "roce-apply:", msg) })
	if err != nil {
		fmt.Fprintln(stderr, "roce-apply:", err)
		return cli.ExitError
	}
	defer lock.Release()

	eng := c.Engine(fab, log)
	var selection []string = c.Targets
	if saved != nil && len(selection) == 0 {
		for _, tp := range saved.Targets {
			selection = append(selection, tp.Address)
		}
	}
	targets, err := eng.Targets(fab, selection)
	if err != nil {
		fmt.Fprintln(stderr, "roce-apply:", err)
		return cli.ExitError
	}
	defer plan.CloseAll(targets)

	p := saved
	if p == nil {
		p = cli.PlanTargets(ctx, eng, targets, stderr)
		p.PolicyDir, p.PolicyDigest = dir, src.Digest()
		if err := plan.RenderText(stdout, p, plan.TextOptions{Color: c.Color(stdout)}); err != nil {
			fmt.Fprintln(stderr, "roce-apply:", err)
			return cli.ExitError
		}
		counts := plan.CountPlan(p)
		if counts.TargetsFailed > 0 {
			fmt.Fprintln(stderr, "roce-apply: some targets could not be planned (above); fix them or limit the run with -target")
			return cli.ExitError
		}
		if counts.TargetsChanged == 0 {
			return cli.ExitOK
		}
		if !*autoApprove && !confirm(stdin, stdout) {
			fmt.Fprintln(stdout, "Apply cancelled; nothing was changed.")
			return cli.ExitError
		}
	} else {
		p = restrict(p, targets)
	}

	ro := plan.RolloutFrom(fab.Rollout)
	ro.ContinueOnError = *continueOnError
	if flagSet(fs, "parallelism") || ro.Parallelism == 0 {
		ro.Parallelism = c.Parallelism // an explicit flag beats the policy's rollout block
	}
	toApply := 0
	for _, ph := range plan.Phases(p, ro) {
		toApply += len(ph.Targets)
	}
	report := &plan.ApplyReport{Started: time.Now()}
	prog := plan.NewProgress(stderr, "Applying", toApply, cli.IsTerminal(stderr))
	eng.OnProgress = func() { prog.Done(1) }
	results, err := eng.Apply(ctx, p, targets, ro)
	prog.Finish()
	if err != nil {
		fmt.Fprintln(stderr, "roce-apply:", err)
		return cli.ExitError
	}
	report.Results, report.Finished = results, time.Now()
	if *asJSON {
		err = plan.RenderApplyJSON(stdout, report)
	} else {
		err = plan.RenderApplyText(stdout, report, c.Color(stdout))
	}
	if err != nil {
		fmt.Fprintln(stderr, "roce-apply:", err)
		return cli.ExitError
	}
	for _, r := range results {
		if !plan.Succeeded(r.Status) {
			return cli.ExitError
		}
	}
	return cli.ExitOK
}

// restrict keeps the saved plan's targets that the selection built, so
// -target on a plan file applies part of it.
func restrict(p *plan.Plan, targets []plan.BoundTarget) *plan.Plan {
	keep := map[string]bool{}
	for _, t := range targets {
		keep[t.Address] = true
	}
	q := *p
	q.Targets = nil
	for _, tp := range p.Targets {
		if keep[tp.Address] {
			q.Targets = append(q.Targets, tp)
		}
	}
	return &q
}

// flagSet reports whether the user gave the flag on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func confirm(stdin io.Reader, stdout io.Writer) bool {
	fmt.Fprint(stdout, "\nDo you want to apply these changes? Only 'yes' will be accepted: ")
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	return strings.TrimSpace(line) == "yes"
}

func lockHolder() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("roce-apply pid %d on %s (%s)", os.Getpid(), host, strings.Join(os.Args, " "))
}
