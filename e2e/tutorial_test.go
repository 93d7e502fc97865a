package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// docCommand is one command line of a ```sh block in a document.
type docCommand struct {
	doc  string // the document, relative to the repository
	line int    // 1-based line of the command in it
	text string
	want int // the exit code its comment names ("# exit 2: ..."), else 0
}

// notRunDoc says, per document, why a documented command (without its
// comment) is not run by a test. TestEveryDocumentedCommandIsRunOrExcused
// holds every command of the documentation to a test or an entry here.
var notRunDoc = map[string]map[string]string{
	"docs/lab.md": {
		// The this-machine opt-in is run by e2e/thismachine_test.go against
		// a policy naming this machine; run here, the last two would change
		// the interfaces of the machine the tests run on.
		"roce-plan -out plan.roce policy/":                        "needs a policy naming this machine; e2e/thismachine_test.go runs it",
		"roce-apply plan.roce":                                    "refuses a this-machine plan; e2e/thismachine_test.go runs it",
		"roce-apply -allow-this-machine plan.roce":                "would change the machine the tests run on",
		"roce-apply -allow-this-machine -allow-cut-off plan.roce": "would change the machine the tests run on",
	},
	"docs/performance.md": {
		"make bench": "the Go benchmarks of every package take many minutes; TestPerformanceCommandsParse runs its scale half (roce-scale) at a small size",
		// A record of a side-by-side measurement: "before" is a roce-scale
		// built from an older commit. Its flags are those of the "after"
		// lines, which TestPerformanceCommandsParse runs.
		"roce-scale (built at 9b43c59) -switches 100 -hosts 0":               "a binary built from an older commit, for comparison",
		"roce-scale (built at 9b43c59) -switches 100 -hosts 0 -latency 20ms": "a binary built from an older commit, for comparison",
	},
	"docs/policy-language.md": {
		"roce-plan validate ./policy":                            "./policy is the reader's own; validate runs on every example (TestExamplesReadmeNamesEveryWarning) and in the tutorial",
		"roce-plan fmt ./policy":                                 "./policy is the reader's own; fmt is tested in cmd/roce-plan and policies (Format), fmt -check on every example (TestExamplesAreCanonical)",
		"roce-plan fmt -check ./policy":                          "./policy is the reader's own; TestExamplesAreCanonical is fmt -check on every example",
		"roce-plan -var vlan=300 -var-file site.tfvars ./policy": "placeholders (no example declares vlan); -var and -var-file run in the README and tutorial tests and e2e/planinputs_test.go",
	},
	"docs/verify.md": {
		"roce-verify [flags] [DIR]":                          "a usage synopsis, not a command",
		"roce-verify -record-baseline baseline.json policy/": "the same sequence runs in docs/tutorial.md's test against the lab (-record-baseline, roce-plan, -baseline)",
		"roce-plan policy/":                                  "the same sequence runs in docs/tutorial.md's test against the lab",
		"roce-verify -baseline baseline.json policy/":        "the same sequence runs in docs/tutorial.md's test against the lab",
	},
	"examples/README.md": {
		"roce-plan validate examples/cos": "TestExamplesReadmeNamesEveryWarning runs roce-plan validate on every example and checks the warnings this page names",
	},
}

// notRunHere says why a documented command of doc cannot be run by a
// test, or "" when it is run (every command not named here).
func notRunHere(doc, command string) string {
	if why := notRunDoc[doc][command]; why != "" {
		return why
	}
	switch command {
	case "git clone https://github.com/rocefabric/roce && cd roce":
		return "needs the network; the test runs in a copy of this checkout"
	case "make test":
		return "the whole test suite, this test included"
	case "bin/roce-lab nxos --platform nexus5000 --listen 127.0.0.1:2222":
		return "serves until Ctrl-C; the tutorial runs the same simulator in the background"
	case "ssh -p 2222 admin@127.0.0.1":
		return "an interactive login"
	case "bin/roce-lab upgrade -lab other/lab switch.X '…'":
		return "a placeholder for a lab started from another directory"
	}
	return ""
}

var exitComment = regexp.MustCompile(`#\s*exit (\d+)\b`)

// shCommands returns the commands of every ```sh block of doc, in order.
func shCommands(t *testing.T, repo, doc string) []docCommand {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, doc))
	if err != nil {
		t.Fatal(err)
	}
	var out []docCommand
	in := false
	pending := ""
	start := 0
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && trimmed == "```sh":
			in = true
			continue
		case in && trimmed == "```":
			in = false
			continue
		case !in || trimmed == "" || strings.HasPrefix(trimmed, "#") && pending == "":
			continue
		}
		if pending == "" {
			start = i + 1
		}
		if strings.HasSuffix(trimmed, `\`) {
			pending += strings.TrimSpace(strings.TrimSuffix(trimmed, `\`)) + " "
			continue
		}
		text := pending + trimmed
		pending = ""
		c := docCommand{doc: doc, line: start, text: text}
		if m := exitComment.FindStringSubmatch(text); m != nil {
			c.want, _ = strconv.Atoi(m[1])
		}
		out = append(out, c)
	}
	return out
}

// commandOnly is a command without its trailing comment.
func commandOnly(text string) string {
	if i := strings.Index(text, " #"); i >= 0 {
		return strings.TrimSpace(text[:i])
	}
	return text
}

// docWorkdir is a copy of what the documents' commands use, laid out as a
// checkout: bin/ (the binaries TestMain built), examples/, scripts/demo.sh.
func docWorkdir(t *testing.T, repo string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "roce")
	if err := copyTree(filepath.Join(repo, "examples"), filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(binDir, filepath.Join(dir, "bin")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	demo, err := os.ReadFile(filepath.Join(repo, "scripts", "demo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scripts", "demo.sh"), demo, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runDocCommands runs cmds in order in one bash session in dir and fails
// at the first whose exit code is not the one its document names.
func runDocCommands(t *testing.T, dir string, cmds []docCommand) string {
	t.Helper()
	var s strings.Builder
	// make build: TestMain built bin/ from this checkout; make demo runs
	// the demo script as the Makefile does. Background jobs the documents
	// start end with the script, and so does a lab they leave running.
	s.WriteString(`set -u
unset NO_COLOR   # off a terminal nothing may be coloured anyway
make() {
	case "$*" in
	build) for b in roce-plan roce-apply roce-verify roce-agent roce-lab; do [ -x "bin/$b" ] || { echo "bin/$b missing" >&2; return 1; }; done ;;
	demo) ./scripts/demo.sh ;;
	*) echo "doc test: make $* is not modelled" >&2; return 99 ;;
	esac
}
cleanup() { kill $(jobs -p) 2>/dev/null; bin/roce-lab down examples/lab >/dev/null 2>&1; }
trap cleanup EXIT
`)
	ran := 0
	for _, c := range cmds {
		if why := notRunHere(c.doc, commandOnly(c.text)); why != "" {
			t.Logf("%s:%d: not run (%s): %s", c.doc, c.line, why, c.text)
			continue
		}
		ran++
		fmt.Fprintf(&s, "printf '%%s\\n' %s\n", shellQuote("$ "+c.text))
		fmt.Fprintf(&s, "%s\n", c.text)
		fmt.Fprintf(&s, "rc=$?; if [ $rc -ne %d ]; then echo %s \"exit $rc\" >&2; exit 1; fi\n",
			c.want, shellQuote(fmt.Sprintf("DOC TEST FAILED: %s:%d: want exit %d, got", c.doc, c.line, c.want)))
	}
	if ran == 0 {
		t.Fatal("no command to run: the ```sh blocks were not found")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", s.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+os.Getenv("PATH"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		text := out.String()
		if len(text) > 12000 {
			text = "...\n" + text[len(text)-12000:]
		}
		t.Fatalf("%v\n%s", err, text)
	}
	return out.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Every command in the README and the tutorial runs, in order, against the
// lab, with the exit code the document says (docs/tutorial.md: "A command
// whose comment says exit N is expected to exit N").
func TestDocumentedCommandsRun(t *testing.T) {
	repo := repoRoot()
	for _, tc := range []struct {
		doc  string   // the documents, run one after the other: "a.md+b.md"
		want []string // what the run must show, beyond exit codes
	}{
		{"README.md", []string{"switch.n7k-1 upgraded from 5.1(3) to 5.1(5)"}},
		{"docs/lab-upgrades.md+docs/lab-status.md", []string{"host.h2: driver reloaded", "\n5.1(5)\n"}},
		{"docs/lab.md", []string{"switch.n7k-1", "nexus7000", "Plan: ", "stopped"}},
		{"docs/tutorial.md", []string{
			"switch.n7k-1 upgraded from 5.1(3) to 5.1(5)",
			"nexus7000", "5.1(5)", // roce-lab status after the upgrade
			"Saved the plan to leaf1.roce",
			"nothing to recover",
		}},
	} {
		t.Run(strings.NewReplacer("/", "_", "+", "_").Replace(tc.doc), func(t *testing.T) {
			var cmds []docCommand
			for _, doc := range strings.Split(tc.doc, "+") {
				cmds = append(cmds, shCommands(t, repo, doc)...)
			}
			if len(cmds) < 5 {
				t.Fatalf("%s: only %d commands found", tc.doc, len(cmds))
			}
			out := runDocCommands(t, docWorkdir(t, repo), cmds)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("%s: the run never shows %q", tc.doc, w)
				}
			}
			// Off a terminal nothing is coloured, the demo script included.
			if i := strings.Index(out, "\x1b["); i >= 0 {
				t.Errorf("%s: colour escape off a terminal: %q", tc.doc, out[max(0, i-200):min(len(out), i+100)])
			}
		})
	}
}

// The parser takes what a reader copies: continuation lines joined, the
// exit code from the comment, comment lines and other blocks left out.
func TestShCommandsParse(t *testing.T) {
	dir := t.TempDir()
	doc := "# T\n\n```sh\n# a comment\nbin/roce-plan \\\n  -json x   # exit 2: changes\necho 'a # b'\n```\n\n```text\nnot a command\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "d.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	got := shCommands(t, dir, "d.md")
	want := []docCommand{
		{doc: "d.md", line: 5, text: "bin/roce-plan -json x   # exit 2: changes", want: 2},
		{doc: "d.md", line: 7, text: "echo 'a # b'", want: 0},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
