// Package cli holds what roce-plan, roce-apply and roce-verify share: the
// flags users expect from Terraform-style tools, policy loading with
// diagnostics, logging, and the wiring of real providers into a registry.
package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/rocefabric/roce/internal/buildinfo"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// Exit codes shared by the CLIs.
const (
	ExitOK      = 0
	ExitError   = 1
	ExitChanges = 2 // roce-plan -detailed-exitcode: the plan has changes
)

// Multi is a repeatable string flag (-var, -var-file, -target).
type Multi []string

func (m *Multi) String() string     { return strings.Join(*m, ",") }
func (m *Multi) Set(v string) error { *m = append(*m, v); return nil }

// Common are the flags every CLI has.
type Common struct {
	Vars        Multi
	VarFiles    Multi
	Targets     Multi
	Parallelism int
	Timeout     time.Duration
	// ConnectTimeout bounds one session's TCP connect, handshake and
	// login; CommandTimeout one command or RPC on it.
	ConnectTimeout time.Duration
	CommandTimeout time.Duration
	NoColor        bool
	LogLevel       string
	LogFormat      string

	versionOut  io.Writer      // -version's output; os.Stdout when nil
	versionExit func(code int) // what ends the program after -version; os.Exit when nil
}

// Register adds the common flags to fs: the policy's (RegisterPolicyFlags)
// and those of a run that contacts devices.
func (c *Common) Register(fs *flag.FlagSet) {
	c.RegisterPolicyFlags(fs)
	fs.Var(&c.Targets, "target", "limit the run to switch.NAME or host.NAME (repeatable)")
	fs.IntVar(&c.Parallelism, "parallelism", plan.DefaultParallelism, "how many targets to read or apply at once")
	fs.DurationVar(&c.Timeout, "timeout", 5*time.Minute, "overall time limit for one target's read or apply")
	fs.DurationVar(&c.ConnectTimeout, "connect-timeout", plan.DefaultConnectTimeout, "time limit to connect to one device: TCP, SSH/TLS handshake and login (a dead switch is reported after it)")
	fs.DurationVar(&c.CommandTimeout, "command-timeout", time.Minute, "time limit for one command or RPC on a device")
	fs.StringVar(&c.LogLevel, "log-level", "warn", "log level: debug, info, warn, error")
	fs.StringVar(&c.LogFormat, "log-format", "text", "log format: text or json")
}

// RegisterPolicyFlags adds only what loading a policy uses (-var,
// -var-file, -no-color for its diagnostics, -version): for commands that
// contact no device, such as roce-plan validate, whose -h must not offer
// flags that would do nothing.
func (c *Common) RegisterPolicyFlags(fs *flag.FlagSet) {
	fs.Var(&c.Vars, "var", "set a policy variable: -var 'name=value' (repeatable)")
	fs.Var(&c.VarFiles, "var-file", "load policy variables from an HCL file (repeatable)")
	fs.BoolVar(&c.NoColor, "no-color", false, "never use colour")
	fs.BoolFunc("version", "print the version (module version and commit) and exit", func(string) error {
		c.printVersion(fs.Name())
		return nil
	})
}

// printVersion is -version: the build's one line on stdout, then exit 0
// at once, as -h does (Go's flag package has no way for a flag to end
// parsing successfully). Tests set versionOut/versionExit.
func (c *Common) printVersion(flagSet string) {
	program, _, _ := strings.Cut(flagSet, " ") // "roce-plan validate" → roce-plan
	out, exit := c.versionOut, c.versionExit
	if out == nil {
		out = os.Stdout
	}
	if exit == nil {
		exit = os.Exit
	}
	fmt.Fprintln(out, buildinfo.Read().String(program))
	exit(ExitOK)
}

// Logger builds the slog logger the flags ask for; logs go to w (stderr).
func (c *Common) Logger(w io.Writer) (*slog.Logger, error) {
	return plan.NewLogger(w, c.LogLevel, c.LogFormat)
}

// Color reports whether w is a terminal and colour was not turned off:
// -no-color, NO_COLOR set to anything (https://no-color.org), or
// TERM=dumb (or unset) turn it off.
func (c *Common) Color(w io.Writer) bool {
	return c.color(w, os.LookupEnv)
}

func (c *Common) color(w io.Writer, getenv func(string) (string, bool)) bool {
	return !c.NoColor && ColorAllowed(getenv) && isTerminal(w, getenv)
}

// ColorAllowed reports whether the environment lets a program colour its
// output on a terminal: not when NO_COLOR is set to a non-empty value, nor
// when TERM is "dumb" or unset. Every colour decision goes through it.
func ColorAllowed(getenv func(string) (string, bool)) bool {
	if v, _ := getenv("NO_COLOR"); v != "" {
		return false
	}
	term, ok := getenv("TERM")
	return ok && term != "" && term != "dumb"
}

// IsTerminal reports whether w is a terminal that takes cursor control,
// so progress bars (and, unless turned off, colour) may be drawn on it:
// not a pipe or file, and not TERM=dumb (or no TERM), where one plain line
// per event is written instead.
func IsTerminal(w io.Writer) bool {
	return isTerminal(w, os.LookupEnv)
}

func isTerminal(w io.Writer, getenv func(string) (string, bool)) bool {
	f, ok := plan.UnwrapWriter(w).(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false
	}
	t, _ := getenv("TERM")
	return t != "" && t != "dumb"
}

// ErrReported means the error was already printed (diagnostics); the CLI
// only has to exit non-zero.
var ErrReported = errors.New("errors reported above")

// LoadFabric loads and validates the policy in dir, printing every
// diagnostic (errors and warnings) to stderr in HCL's own format.
func (c *Common) LoadFabric(dir string, stderr io.Writer) (*policies.Fabric, *policies.Sources, error) {
	// SIGINT/SIGTERM stop the load between steps (nothing is planned or
	// changed); the CLIs' own signal contexts take over after it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fab, src, diags := policies.Load(dir, policies.LoadOptions{Vars: c.Vars, VarFiles: c.VarFiles, Getenv: os.LookupEnv, Context: ctx})
	if len(diags) > 0 {
		// Paths under the current directory are shown relative to it, as
		// the user typed them: roce-apply loads a saved plan's policy by
		// its absolute directory, and its warnings must read as roce-plan's.
		var b bytes.Buffer
		if src != nil {
			_ = src.WriteDiagnostics(&b, diags, c.Color(stderr))
		} else {
			fmt.Fprintln(&b, diags.Error())
		}
		text := b.String()
		if cwd, err := os.Getwd(); err == nil {
			text = relativeToDir(text, cwd)
		}
		_, _ = io.WriteString(stderr, text)
	}
	if diags.HasErrors() || fab == nil {
		return nil, src, &DiagnosticsError{Diags: diags}
	}
	return fab, src, nil
}

// relativeToDir rewrites the absolute paths under dir in text (at the
// start of a word: after a blank, a quote or a bracket) relative to dir.
func relativeToDir(text, dir string) string {
	dir = filepath.Clean(dir)
	if !filepath.IsAbs(dir) || dir == string(filepath.Separator) {
		return text
	}
	re := regexp.MustCompile(`(?m)(^|[\s"'(\[<])` + regexp.QuoteMeta(dir+string(filepath.Separator)))
	return re.ReplaceAllString(text, "${1}")
}

// Secrets returns every credential value the policy resolves to, named by
// its block, so a saved plan can be checked never to contain one (the error
// names the credential, never the value). Unresolvable credentials are
// skipped: they fail later with a clear error at the target that needs them.
func Secrets(fab *policies.Fabric) []plan.Redaction {
	var out []plan.Redaction
	for name := range fab.Credentials {
		s, err := fab.ResolveCredentials(name, os.LookupEnv)
		if err != nil {
			continue
		}
		for _, form := range policies.SecretForms(s.Password) {
			out = append(out, plan.Redaction{Name: "credentials." + name + " password", Value: form})
		}
		if len(s.Key) > 0 {
			out = append(out, plan.Redaction{Name: "credentials." + name + " key", Value: string(s.Key)})
		}
	}
	// What the policy evaluated from env(), secret files and sensitive
	// variables, in every encoding it could be saved in.
	for i, v := range fab.SensitiveValues() {
		for _, form := range policies.SecretForms(v) {
			out = append(out, plan.Redaction{Name: fmt.Sprintf("sensitive value #%d of the policy", i+1), Value: form})
		}
	}
	return out
}

// Usage prints a usage text followed by the flag defaults.
func Usage(fs *flag.FlagSet, text string) func() {
	return func() {
		w := fs.Output()
		fmt.Fprint(w, text)
		if ex := Examples(fs.Name()); ex != "" {
			fmt.Fprint(w, "\nExamples:\n"+ex)
		}
		fmt.Fprintln(w, "\nFlags:")
		fs.PrintDefaults()
	}
}

// Inputs records what a plan is made from (plan.Inputs): the policy files
// src read (not the var files), and the -var-file and -var flags; of the
// -var values only a digest is kept.
func (c *Common) Inputs(src *policies.Sources) (*plan.Inputs, error) {
	varFile := map[string]bool{}
	for _, f := range c.VarFiles {
		varFile[f] = true
	}
	var files []string
	for _, f := range src.Files() {
		if !varFile[f] {
			files = append(files, f)
		}
	}
	return plan.CollectInputs(files, c.VarFiles, c.Vars)
}
