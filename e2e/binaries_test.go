package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefabric/roce/internal/cli"
	"github.com/rocefabric/roce/internal/jsonschema"
	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/verify"
)

var binaries = []string{"roce-plan", "roce-apply", "roce-verify", "roce-agent", "roce-lab"}

func runBin(t *testing.T, name string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(filepath.Join(binDir, name), args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return code, out.String(), errb.String()
}

// Every binary has -version (one line: its name, module version and, when
// built from a checkout, the commit) and -h with examples and its exit
// codes, both exiting 0.
func TestEveryBinaryHasVersionAndHelp(t *testing.T) {
	for _, b := range binaries {
		code, out, errb := runBin(t, b, "-version")
		if code != 0 || !strings.HasPrefix(out, b+" ") || strings.Count(out, "\n") != 1 {
			t.Errorf("%s -version: exit %d, stdout %q, stderr %q", b, code, out, errb)
		}
		code, out, errb = runBin(t, b, "-h")
		help := out + errb
		if code != 0 {
			t.Errorf("%s -h: exit %d\n%s", b, code, help)
		}
		for _, want := range []string{"Usage", "Examples:", "Exit codes", "-version"} {
			if !strings.Contains(help, want) {
				t.Errorf("%s -h does not mention %q:\n%s", b, want, help)
			}
		}
	}
	// Subcommands too.
	for _, args := range [][]string{{"roce-plan", "validate"}, {"roce-plan", "fmt"}, {"roce-lab", "up"}, {"roce-lab", "down"}, {"roce-lab", "status"}, {"roce-lab", "upgrade"}} {
		code, out, errb := runBin(t, args[0], args[1], "-h")
		if code != 0 || !strings.Contains(out+errb, "Examples:") {
			t.Errorf("%s %s -h: exit %d, no examples:\n%s%s", args[0], args[1], code, out, errb)
		}
	}
}

// docs/exit-codes.md is the one table of exit codes: it lists exactly the
// codes each binary's -h names, and the code's own constants.
func TestExitCodeTableMatchesBinaries(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "exit-codes.md"))
	if err != nil {
		t.Fatal(err)
	}
	table := map[string][]int{}
	for _, m := range regexp.MustCompile(`(?m)^\| (roce-[a-z]+) \| (\d+) \|`).FindAllStringSubmatch(string(b), -1) {
		n, _ := strconv.Atoi(m[2])
		table[m[1]] = append(table[m[1]], n)
	}
	codeRe := regexp.MustCompile(`(?:^|[\s;:,(])(\d)(?:\s)`)
	for _, bin := range binaries {
		_, out, errb := runBin(t, bin, "-h")
		help := out + errb
		i := strings.Index(help, "Exit codes")
		if i < 0 {
			t.Errorf("%s -h has no exit codes", bin)
			continue
		}
		section := help[i:]
		if j := strings.Index(section, "\n\n"); j >= 0 {
			section = section[:j]
		}
		seen := map[int]bool{}
		for _, m := range codeRe.FindAllStringSubmatch(section, -1) {
			n, _ := strconv.Atoi(m[1])
			seen[n] = true
		}
		var fromHelp []int
		for n := range seen {
			fromHelp = append(fromHelp, n)
		}
		sort.Ints(fromHelp)
		got := append([]int(nil), table[bin]...)
		sort.Ints(got)
		if len(got) == 0 || !equalInts(got, fromHelp) {
			t.Errorf("%s: docs/exit-codes.md lists %v, its -h names %v:\n%s", bin, got, fromHelp, section)
		}
	}
	for _, c := range []struct {
		bin  string
		code int
	}{
		{"roce-plan", cli.ExitOK}, {"roce-plan", cli.ExitError}, {"roce-plan", cli.ExitChanges},
		{"roce-apply", cli.ExitOK}, {"roce-apply", cli.ExitError},
		{"roce-verify", verify.ExitPass}, {"roce-verify", verify.ExitError}, {"roce-verify", verify.ExitFailed},
	} {
		found := false
		for _, n := range table[c.bin] {
			found = found || n == c.code
		}
		if !found {
			t.Errorf("%s can exit %d; docs/exit-codes.md does not list it", c.bin, c.code)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The examples every -h shows run against the lab, with the exit code
// their comment names: roce-lab's own, then roce-plan, roce-apply and
// roce-verify on a fresh lab.
func TestHelpExamplesRun(t *testing.T) {
	repo := repoRoot()
	examples := func(args ...string) []docCommand {
		_, out, errb := runBin(t, args[0], append(args[1:], "-h")...)
		help := out + errb
		i := strings.Index(help, "Examples:\n")
		if i < 0 {
			t.Fatalf("%v -h has no examples", args)
		}
		var cmds []docCommand
		for _, line := range strings.Split(help[i+len("Examples:\n"):], "\n") {
			if !strings.HasPrefix(line, "  ") {
				break
			}
			c := docCommand{doc: strings.Join(args, " ") + " -h", text: strings.TrimSpace(line)}
			if m := exitComment.FindStringSubmatch(c.text); m != nil {
				c.want, _ = strconv.Atoi(m[1])
			}
			cmds = append(cmds, c)
		}
		return cmds
	}
	var cmds []docCommand
	cmds = append(cmds, examples("roce-lab")...)
	cmds = append(cmds, docCommand{doc: "test", text: "roce-lab up -d examples/lab"})
	for _, b := range [][]string{{"roce-plan", "validate"}, {"roce-plan", "fmt"}, {"roce-plan"}, {"roce-apply"}, {"roce-verify"}} {
		cmds = append(cmds, examples(b...)...)
	}
	cmds = append(cmds, docCommand{doc: "test", text: "roce-lab down examples/lab"})
	if len(cmds) < 15 {
		t.Fatalf("only %d examples found: %+v", len(cmds), cmds)
	}
	runDocCommands(t, docWorkdir(t, repo), cmds)
}

// roce-verify takes -json and -markdown, the names roce-plan and
// roce-apply use, as well as -format; its JSON report is the documented
// one (docs/verify-report.schema.json).
func TestVerifyFormatFlagsMatchPlan(t *testing.T) {
	l := startLab(t)
	schema, err := jsonschema.Load(filepath.Join(repoRoot(), "docs", "verify-report.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := roce(t, l, "", "roce-verify", "-json", l.Dir)
	if r.code != verify.ExitPass && r.code != verify.ExitFailed {
		t.Fatalf("roce-verify -json\n%s", r)
	}
	if errs := schema.Validate([]byte(r.stdout), "#"); len(errs) > 0 {
		t.Errorf("roce-verify -json is not the documented report:\n%s\n%s", strings.Join(errs, "\n"), r.stdout)
	}
	r = roce(t, l, "", "roce-verify", "-markdown", l.Dir)
	if !strings.HasPrefix(r.stdout, "#") || !strings.Contains(r.stdout, "|") {
		t.Errorf("roce-verify -markdown is not Markdown:\n%s", r)
	}
}

// A `make build` binary names the commit it was built from even with VCS
// stamping off (GOFLAGS=-buildvcs=false, as on CI machines): the Makefile
// passes `git rev-parse --short HEAD` with -ldflags.
func TestMakeBuildVersionNamesCommit(t *testing.T) {
	repo := repoRoot()
	testenv.Tool(t, "make", "Debian's make")
	head, err := exec.Command("git", "-C", repo, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): -version says commit unknown, covered by internal/buildinfo's tests", err)
	}
	commit := strings.TrimSpace(string(head))
	bin := t.TempDir()
	mk := exec.Command("make", "-C", repo, "build", "BIN="+bin, "CMDS=roce-plan")
	mk.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "roce-plan"), "-version").Output()
	if err != nil {
		t.Fatalf("roce-plan -version: %v", err)
	}
	if want := "roce-plan (devel) commit " + commit + " "; !strings.HasPrefix(string(out), want) {
		t.Errorf("roce-plan -version built by make with -buildvcs=false = %q, want it to start %q", out, want)
	}
}
