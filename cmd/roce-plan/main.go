// Command roce-plan reads the live fabric, renders what the policy wants
// per platform, and prints a reviewable plan (text, JSON or Markdown),
// optionally saving it for roce-apply.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/rocefabric/roce/internal/cli"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

const usage = `Usage:
  roce-plan [flags] [DIR]            plan the fabric described by the policy in DIR (default .)
  roce-plan validate [flags] [DIR]   check the policy only; no device is contacted
  roce-plan fmt [-check] [DIR]       rewrite *.hcl files in canonical form (-check: list, change nothing)

roce-plan reads every switch and host the policy names (concurrently), renders
the lossless configuration each platform needs, and shows what would change:
  +  create    ~  update    -  delete
Objects the tool did not create (prefix ROCE-) are read and kept, never changed.

A plan in which any target could not be read or planned (the plan says why:
unreadable, or the policy does not fit it) is incomplete: -out refuses to
save it unless -allow-partial, and then the file names the targets left out
(roce-apply lists them before it asks). A lossless class must be the same on
both ends of every link, so applying part of a fabric can leave a link with
PFC on one end only.

If an earlier roce-apply was interrupted (killed, crashed), roce-plan lists
the targets it left and in which state, and exits 1 until
"roce-apply -recover" has made them consistent (docs/apply-safety.md#interrupted).

Exit codes: 0 success; 1 error (bad policy, a target could not be read or
planned, or an interrupted apply awaits recovery); with -detailed-exitcode:
0 no changes, 1 error, 2 the plan has changes.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// Device text reaches every output; none may carry a credential.
	stdout, stderr := cli.NewRedactWriter(os.Stdout, nil), cli.NewRedactWriter(os.Stderr, nil)
	code := run(ctx, os.Args[1:], stdout, stderr)
	_, _ = stdout.Flush(), stderr.Flush()
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "validate":
			return runValidate(args[1:], stdout, stderr)
		case "fmt":
			return runFmt(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("roce-plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c cli.Common
	c.Register(fs)
	out := fs.String("out", "", "save the plan to `FILE` for roce-apply")
	asJSON := fs.Bool("json", false, "print the plan as JSON (docs/plan-json.md#the-plan)")
	asMarkdown := fs.Bool("markdown", false, "print the plan as Markdown, for a pull-request comment")
	detailed := fs.Bool("detailed-exitcode", false, "exit 0 when nothing changes, 2 when something does, 1 on error")
	verbose := fs.Bool("verbose", false, "show full before/after text and every command")
	allowPartial := fs.Bool("allow-partial", false, "with -out: save the plan even if some targets could not be read or planned; they are recorded as excluded")
	lockFile := fs.String("lock-file", "", "the apply lock `FILE` roce-apply uses (default DIR/.roce/apply.lock); its apply journal, checked for interrupted applies, is beside it")
	fs.Usage = cli.Usage(fs, usage)
	// Until there is a plan, an error ends the run; with -json stdout
	// still gets a JSON document saying why (docs/plan-json.md#when-a-run-stops-early),
	// so a CI job parsing it never sees nothing. reported: the message is
	// already on stderr (a bad flag, the policy's diagnostics).
	jsonWanted := cli.FlagGiven(args, "json")
	fail := func(msg string, cause error, reported bool) int {
		if !reported {
			fmt.Fprintln(stderr, "roce-plan:", msg)
		}
		if jsonWanted {
			if err := plan.RenderFailureJSON(stdout, plan.FailureKindPlan, msg, cli.Problems(cause)); err != nil {
				fmt.Fprintln(stderr, "roce-plan:", err)
			}
		}
		return cli.ExitError
	}
	dir, code, err := parseArgs(fs, args, stderr)
	if err != nil {
		return fail(err.Error(), err, true)
	}
	if dir == "" {
		return code
	}
	jsonWanted = *asJSON
	if *asJSON && *asMarkdown {
		return fail("-json and -markdown are exclusive; pick one", nil, false)
	}
	log, err := c.Logger(stderr)
	if err != nil {
		return fail(err.Error(), err, false)
	}
	fab, src, err := c.LoadFabric(dir, stderr)
	if fab != nil {
		cli.RedactSecrets(fab, stdout, stderr)
	}
	if err != nil {
		return fail("the policy in "+dir+" did not load", err, true)
	}
	lockPath := *lockFile
	if lockPath == "" {
		lockPath = plan.DefaultLockPath(dir)
	}
	interrupted, err := plan.ReadJournal(plan.JournalDir(lockPath))
	if err != nil {
		return fail(err.Error(), err, false)
	}
	if len(interrupted) > 0 {
		rc := "roce-apply -recover"
		if *lockFile != "" {
			rc += " -lock-file " + *lockFile
		}
		msg := plan.DescribeInterrupted(interrupted, rc+" "+dir)
		fmt.Fprintln(stderr, "roce-plan:", msg)
		fmt.Fprintln(stderr, "roce-plan: not planning: a plan read from half-configured targets would be misleading.")
		return fail("not planning: an interrupted roce-apply awaits recovery: "+msg, nil, true)
	}
	p, err := cli.MakePlan(ctx, &c, fab, log, stderr, stdout, !*asJSON && !*asMarkdown)
	if err != nil {
		return fail(err.Error(), err, false)
	}
	p.PolicyDir = dir
	p.PolicyDigest = src.Digest()

	switch {
	case *asJSON:
		err = plan.RenderJSON(stdout, p)
	case *asMarkdown:
		err = plan.RenderMarkdown(stdout, p)
	default:
		err = plan.RenderText(stdout, p, plan.TextOptions{Color: c.Color(stdout), Verbose: *verbose})
	}
	if err != nil {
		fmt.Fprintln(stderr, "roce-plan: writing the plan:", err)
		return cli.ExitError
	}
	counts := plan.CountPlan(p)
	partial := false
	if *out != "" {
		toSave := p
		if counts.TargetsFailed > 0 {
			if !*allowPartial {
				fmt.Fprintf(stderr, "roce-plan: not saving the plan to %s: %d target(s) could not be read or planned (above), so it is incomplete. "+
					"A lossless class must be the same on both ends of every link; applying the rest could leave PFC on one end only. "+
					"Fix or wait for them, limit the plan with -target, or save it anyway with -allow-partial (the file then names them)\n", *out, counts.TargetsFailed)
				return cli.ExitError
			}
			toSave, partial = plan.Partial(p), true
		}
		// A saved plan names its policy directory both absolutely and
		// relative to the plan file, so roce-apply works from any directory
		// and from another checkout, and records its inputs, so roce-apply
		// can say what differs (docs/plan-json.md#saved-plan-file).
		inputs, err := c.Inputs(src)
		if err != nil {
			fmt.Fprintln(stderr, "roce-plan: not saving the plan:", err)
			return cli.ExitError
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			fmt.Fprintf(stderr, "roce-plan: not saving the plan: resolving the policy directory %s: %v\n", dir, err)
			return cli.ExitError
		}
		withInputs := *toSave
		withInputs.PolicyDir, withInputs.Inputs = abs, inputs
		toSave = &withInputs
		if err := plan.WritePlanFileRedacting(*out, toSave, cli.Secrets(fab)); err != nil {
			fmt.Fprintln(stderr, "roce-plan: saving the plan:", err)
			return cli.ExitError
		}
		if !*asJSON && !*asMarkdown {
			apply := "roce-apply"
			for _, f := range c.VarFiles {
				apply += " -var-file " + f
			}
			for _, n := range inputs.Vars {
				apply += " -var " + n + "=..."
			}
			fmt.Fprintf(stdout, "\nSaved the plan to %s. Apply exactly this plan with:\n    %s %s\n", *out, apply, *out)
			if len(c.Vars) > 0 {
				fmt.Fprintln(stdout, "(give each -var the value it had here: the plan records only a digest of the values)")
			}
		}
		if partial {
			fmt.Fprintf(stderr, "roce-plan: saved a PARTIAL plan: %d target(s) that could not be read or planned are left out and named in the file\n", counts.TargetsFailed)
		}
	}
	switch {
	case counts.TargetsFailed > 0 && !partial:
		return cli.ExitError
	case *detailed && counts.TargetsChanged > 0:
		return cli.ExitChanges
	}
	return cli.ExitOK
}

// parseArgs parses fs's flags and its one optional policy directory
// (default "."). After -h it returns no directory and code 0; after a bad
// flag or argument an error, already reported on stderr (exit 1).
func parseArgs(fs *flag.FlagSet, args []string, stderr io.Writer) (dir string, code int, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", cli.ExitOK, nil
		}
		return "", cli.ExitError, err
	}
	switch fs.NArg() {
	case 0:
		return ".", 0, nil
	case 1:
		return fs.Arg(0), 0, nil
	}
	err = fmt.Errorf("expected at most one policy directory, got %d arguments: %v", fs.NArg(), fs.Args())
	fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
	return "", cli.ExitError, err
}

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("roce-plan validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c cli.Common
	c.RegisterPolicyFlags(fs)
	fs.Usage = cli.Usage(fs, "Usage: roce-plan validate [flags] [DIR]\n\nChecks the policy in DIR without contacting any device. Exit 1 on errors.\n")
	dir, code, err := parseArgs(fs, args, stderr)
	if err != nil || dir == "" {
		return code
	}
	fab, _, err := c.LoadFabric(dir, stderr)
	if err != nil {
		return cli.ExitError
	}
	fmt.Fprintf(stdout, "The policy in %s is valid: %d lossless class(es), %d switch(es), %d host(s).\n",
		dir, len(fab.Lossless), len(fab.Switches), len(fab.Hosts))
	return cli.ExitOK
}

func runFmt(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("roce-plan fmt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	check := fs.Bool("check", false, "change nothing; list files that are not canonical and exit 1 if any")
	fs.Usage = cli.Usage(fs, "Usage: roce-plan fmt [-check] [DIR]\n\nRewrites every *.hcl file in DIR in canonical form.\n")
	dir, code, err := parseArgs(fs, args, stderr)
	if err != nil || dir == "" {
		return code
	}
	changed, err := policies.Format(dir, *check)
	if err != nil {
		fmt.Fprintln(stderr, "roce-plan fmt:", err)
		return cli.ExitError
	}
	for _, f := range changed {
		fmt.Fprintln(stdout, f)
	}
	if *check && len(changed) > 0 {
		fmt.Fprintf(stderr, "roce-plan fmt: %d file(s) not in canonical form; run roce-plan fmt %s\n", len(changed), dir)
		return cli.ExitError
	}
	return cli.ExitOK
}
