// Command roce-verify proves a lossless fabric: it runs perftest between
// host pairs on every lossless class, checks PFC state and counters on the
// switches and hosts around each probe, compares against a baseline, and
// reports as text, JSON, JUnit XML or Markdown.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/rocefabric/roce/internal/cli"
	"github.com/rocefabric/roce/nics/perftest"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/verify"
)

const usage = `Usage:
  roce-verify [flags] [DIR]     verify the fabric described by the policy in DIR (default .)

For every lossless class, roce-verify pairs the hosts that carry it (each host
in at most one probe per round, cross-switch pairs first, fewest rounds),
starts perftest's server side through the host's agent, then the client, and
checks the bandwidth against probe { threshold_gbps | threshold_fraction } and
the RoCE ceiling of the link. Around every round it reads PFC state and
counters from the switches and hosts and flags PFC not operational, drops on
the lossless class, pause storms and out-of-sequence packets.

-local-probes runs the probes on this machine instead of through the hosts'
agents; it is refused unless -allow-this-machine is given too (in CI as
well): a policy from a pull request must never make roce-verify run
programs on the machine running it.

After an upgrade, run roce-plan (drift) and then:
  roce-verify -baseline baseline.json      (recorded earlier with -record-baseline)

Exit codes (docs/verify.md#exit-codes):
  0  every probe and check passed (skips and warnings allowed: a warn check,
     such as lossless-drops from port-wide counters that rose, is no failure)
  1  error: the policy or a flag is wrong, or something could not be measured
     (no RDMA device on a host, agent unreachable, probe timed out)
  3  verification failed: a probe or check failed (bandwidth, PFC, drops,
     pause storm, sequence errors, baseline, versions)
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// Device text reaches every output; none may carry a credential.
	stdout, stderr := cli.NewRedactWriter(os.Stdout, nil), cli.NewRedactWriter(os.Stderr, nil)
	code := run(ctx, os.Args[1:], stdout, stderr, cli.Registry())
	_, _ = stdout.Flush(), stderr.Flush()
	stop()
	os.Exit(code)
}

// flags are roce-verify's own flags (the common ones come from cli.Common).
type flags struct {
	recordBaseline string
	baseline       string
	tolerance      float64
	format         string
	out            string
	probeCommand   string
	localProbes    bool
	allowThis      bool
	pauseStormPPS  float64
	emulated       string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, reg *plan.Registry) int {
	fs := flag.NewFlagSet("roce-verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c cli.Common
	c.Register(fs)
	// The shared flags describe plan/apply; say what they mean here.
	fs.Lookup("timeout").Usage = "time limit for one device's counter read; when given, also for each probe side (perftest server or client), overriding probe { timeout }"
	fs.Lookup("parallelism").Usage = "how many probes and counter reads to run at once"
	var f flags
	fs.StringVar(&f.recordBaseline, "record-baseline", "", "store the results and device versions in `FILE` as the baseline")
	fs.StringVar(&f.baseline, "baseline", "", "compare against the baseline in `FILE`: flag results below it and any version change")
	fs.Float64Var(&f.tolerance, "tolerance", 10, "how many `percent` below the baseline a result may fall")
	fs.StringVar(&f.format, "format", verify.FormatText, "report format: text, json, junit or markdown")
	// The names roce-plan and roce-apply use for the same formats.
	fs.BoolFunc("json", "same as -format json", func(string) error { f.format = verify.FormatJSON; return nil })
	fs.BoolFunc("markdown", "same as -format markdown", func(string) error { f.format = verify.FormatMarkdown; return nil })
	fs.StringVar(&f.out, "out", "", "write the report to `FILE` (the text report still goes to stdout)")
	fs.StringVar(&f.probeCommand, "probe-command", "", "run this `command` instead of the perftest tool (space-separated, no quoting); overrides probe { command }")
	fs.BoolVar(&f.localProbes, "local-probes", false, "run every probe's perftest on this machine instead of through the host agents (lab hosts, substitute commands); needs -allow-this-machine")
	fs.BoolVar(&f.allowThis, "allow-this-machine", false, "consent to -local-probes running programs on the machine roce-verify runs on (never implied, also not in CI)")
	fs.Float64Var(&f.pauseStormPPS, "pause-storm-pps", verify.DefaultPauseStormPPS, "pause frames per second on one port and priority reported as a pause storm")
	fs.StringVar(&f.emulated, "emulated", "auto", "the lab's emulated RDMA device: auto (lab hosts only), on (every probe; non-lab hosts are refused) or off (perftest everywhere); see docs/verify.md#emulated")
	fs.Usage = cli.Usage(fs, usage)
	// Until there is a report, an error ends the run; with -json (-format
	// json) and no -out, stdout still gets a JSON document saying why
	// (docs/plan-json.md#when-a-run-stops-early). reported: the message is
	// already on stderr (a bad flag, the policy's diagnostics).
	jsonWanted := cli.FlagGiven(args, "json") || formatJSONGiven(args)
	failWith := func(msg string, cause error, reported bool) int {
		if !reported {
			fmt.Fprintln(stderr, "roce-verify: "+msg)
		}
		if jsonWanted {
			if err := plan.RenderFailureJSON(stdout, plan.FailureKindVerify, msg, cli.Problems(cause)); err != nil {
				fmt.Fprintln(stderr, "roce-verify:", err)
			}
		}
		return cli.ExitError
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cli.ExitOK
		}
		return failWith(err.Error(), err, true)
	}
	jsonWanted = f.format == verify.FormatJSON && f.out == ""
	fail := func(format string, a ...any) int {
		return failWith(fmt.Sprintf(format, a...), nil, false)
	}
	if fs.NArg() > 1 {
		return fail("expected at most one policy directory, got %d arguments: %v", fs.NArg(), fs.Args())
	}
	dir := "."
	if fs.NArg() == 1 {
		dir = fs.Arg(0)
	}
	switch f.format {
	case verify.FormatText, verify.FormatJSON, verify.FormatJUnit, verify.FormatMarkdown:
	default:
		return fail("-format %q: want text, json, junit or markdown", f.format)
	}
	if f.tolerance < 0 || f.tolerance >= 100 {
		return fail("-tolerance %g: want a percentage in [0, 100)", f.tolerance)
	}
	if f.pauseStormPPS <= 0 {
		return fail("-pause-storm-pps must be positive")
	}
	switch f.emulated {
	case "auto":
		f.emulated = verify.EmulationAuto
	case verify.EmulationOn, verify.EmulationOff:
	default:
		return fail("-emulated %q: want auto, on or off", f.emulated)
	}
	if f.localProbes && !f.allowThis {
		where := "add -allow-this-machine to the command line if running perftest here is intended"
		if os.Getenv("CI") == "true" {
			where = "CI=true: this job would run programs on the CI runner itself; add -allow-this-machine in the pipeline file only if that is intended"
		}
		return fail("-local-probes runs every probe's perftest on this machine, not on the policy's hosts; refused without -allow-this-machine (%s). Nothing was run.", where)
	}
	if f.baseline != "" && f.baseline == f.recordBaseline {
		return fail("-baseline and -record-baseline name the same file %s; record to a new file", f.baseline)
	}

	log, err := c.Logger(stderr)
	if err != nil {
		return fail("%v", err)
	}
	opts := verify.Options{
		Logger:           log,
		Targets:          c.Targets,
		Parallelism:      c.Parallelism,
		TolerancePercent: f.tolerance,
		PauseStormPPS:    f.pauseStormPPS,
		Emulation:        f.emulated,
	}
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "timeout" {
			opts.Timeout = c.Timeout // per probe side; else probe { timeout }
		}
	})
	if f.probeCommand != "" {
		opts.Command = strings.Fields(f.probeCommand)
		if len(opts.Command) == 0 {
			return fail("-probe-command is empty")
		}
		// The host agents run only the perftest tools; say so before any
		// probe instead of once per host.
		if err := perftest.CheckExecutable(opts.Command[0]); err != nil && !f.localProbes {
			return fail("-probe-command: %v; the host agents run nothing else (a substitute program runs only with -local-probes -allow-this-machine)", err)
		}
	}
	if f.baseline != "" {
		b, err := verify.ReadBaseline(f.baseline)
		if err != nil {
			return fail("%v", err)
		}
		opts.Baseline = b
	}

	fab, _, err := c.LoadFabric(dir, stderr)
	if fab != nil {
		cli.RedactSecrets(fab, stdout, stderr)
	}
	if err != nil {
		return failWith("the policy in "+dir+" did not load", err, true)
	}
	// A probe's commands run for up to -timeout, so that stays the
	// per-command limit here; -connect-timeout bounds each session's set-up.
	env := c.Env(fab, log, c.Timeout)
	w := wire(reg, env, fab, opts, f.localProbes)
	defer func() {
		if err := w.close(); err != nil {
			log.Warn("closing device sessions", "error", err)
		}
	}()

	rep, err := verify.Run(ctx, w.fabric, opts)
	if err != nil {
		return fail("%v", err)
	}
	jsonWanted = false // from here stdout holds the report, and only it
	if err := writeReport(rep, f, stdout); err != nil {
		return fail("%v", err)
	}
	if f.recordBaseline != "" {
		b := verify.NewBaseline(rep)
		if err := verify.WriteBaseline(f.recordBaseline, b); err != nil {
			return fail("%v", err)
		}
		fmt.Fprintf(stderr, "roce-verify: recorded baseline %s: %d result(s), versions of %d device(s)\n", f.recordBaseline, len(b.Results), len(b.Versions))
		if len(b.Results) < len(rep.Probes) {
			fmt.Fprintf(stderr, "roce-verify: warning: %d probe(s) did not pass and are not in the baseline\n", len(rep.Probes)-len(b.Results))
		}
	}
	return rep.ExitCode()
}

// writeReport prints the report: the chosen format to stdout, or to -out
// with the text report on stdout.
func writeReport(rep *verify.Report, f flags, stdout io.Writer) error {
	if f.out == "" {
		return verify.Render(stdout, rep, f.format)
	}
	file, err := os.Create(f.out)
	if err != nil {
		return fmt.Errorf("creating the report file: %w", err)
	}
	if err := verify.Render(file, rep, f.format); err != nil {
		file.Close()
		return fmt.Errorf("writing %s: %w", f.out, err)
	}
	if err := file.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", f.out, err)
	}
	return verify.RenderText(stdout, rep)
}

// formatJSONGiven reports whether args ask for -format json (-format json,
// -format=json), for a run that fails while parsing its flags.
func formatJSONGiven(args []string) bool {
	given := false
	for i, a := range args {
		if a == "--" {
			break
		}
		switch n, v, ok := strings.Cut(strings.TrimLeft(a, "-"), "="); {
		case !strings.HasPrefix(a, "-") || n != "format":
		case ok:
			given = v == verify.FormatJSON
		case i+1 < len(args):
			given = args[i+1] == verify.FormatJSON
		}
	}
	return given
}
