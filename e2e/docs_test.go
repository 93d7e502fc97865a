package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/internal/lab"
	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/nics/agentproto"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// Every roce-* command line in the README, docs, examples and the demo
// script must use flags the binary really has, so documentation cannot
// drift from the code.
func TestDocumentedCommandLinesUseRealFlags(t *testing.T) {
	repo := repoRoot()
	var files []string
	for _, g := range []string{"README.md", "docs/*.md", "examples/*/README.md", "examples/ci/*.yml", "examples/fleet-runners/*", "scripts/demo.sh"} {
		m, _ := filepath.Glob(filepath.Join(repo, g))
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("found only %v", files)
	}
	subcommands := map[string][]string{
		"roce-plan": {"validate", "fmt"},
		"roce-lab":  {"up", "down", "status", "nxos", "gnmi", "upgrade"},
	}
	helpCache := map[string]string{}
	help := func(bin, sub string) string {
		key := bin + " " + sub
		if h, ok := helpCache[key]; ok {
			return h
		}
		args := []string{"-h"}
		if sub != "" {
			args = []string{sub, "-h"}
		}
		var out bytes.Buffer
		cmd := exec.Command(filepath.Join(binDir, bin), args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		_ = cmd.Run()
		helpCache[key] = out.String()
		return out.String()
	}
	cmdRe := regexp.MustCompile(`\b(roce-(?:plan|apply|verify|lab|agent))[ \t]+([^\n|&;#]*)`)
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cmdRe.FindAllStringSubmatch(string(b), -1) {
			bin, rest := m[1], m[2]
			if bin == "roce-agent" {
				continue // speaks JSON on stdin; its flags are checked by its own tests
			}
			fields := strings.Fields(rest)
			sub := ""
			if len(fields) > 0 {
				for _, s := range subcommands[bin] {
					if fields[0] == s {
						sub = s
						fields = fields[1:]
						break
					}
				}
			}
			for _, f0 := range fields {
				if !strings.HasPrefix(f0, "-") || f0 == "-" || strings.HasPrefix(f0, "--") && bin != "roce-lab" {
					continue
				}
				name := strings.TrimLeft(strings.SplitN(f0, "=", 2)[0], "-")
				name = strings.Trim(name, "`'\")*,.")
				if name == "" || name == "h" {
					continue
				}
				h := help(bin, sub)
				if !regexp.MustCompile(`(?m)^\s*--?` + regexp.QuoteMeta(name) + `\b`).MatchString(h) {
					t.Errorf("%s: %s %s uses -%s, which `%s %s -h` does not list", rel(repo, f), bin, sub, name, bin, sub)
				}
				checked++
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d documented flags found; the scan is broken", checked)
	}
	keys := make([]string, 0, len(helpCache))
	for k := range helpCache {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("checked %d documented flags against %v", checked, keys)
}

func rel(repo, f string) string {
	r, err := filepath.Rel(repo, f)
	if err != nil {
		return f
	}
	return r
}

// The policy shown in the README is a real, valid policy.
func TestReadmePolicyValidates(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```hcl\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	if len(blocks) == 0 {
		t.Fatal("README has no hcl block")
	}
	dir := t.TempDir()
	var src strings.Builder
	for _, m := range blocks {
		src.WriteString(m[1] + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(filepath.Join(binDir, "roce-plan"), "validate", dir)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the README's policy does not validate: %v\n%s", err, out.String())
	}
}

// Every shipped policy is in canonical form, as `roce-plan fmt -check`
// would demand of a user's own pipeline.
func TestExamplesAreCanonical(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(repoRoot(), "examples", "*"))
	n := 0
	for _, d := range dirs {
		if m, _ := filepath.Glob(filepath.Join(d, "*.hcl")); len(m) == 0 {
			continue
		}
		n++
		changed, err := policies.Format(d, true)
		if err != nil {
			t.Errorf("%s: %v", d, err)
		}
		for _, f := range changed {
			t.Errorf("%s is not canonical; run roce-plan fmt %s", f, d)
		}
	}
	if n < 6 {
		t.Fatalf("found only %d example policies", n)
	}
}

// examples/README.md says which examples print warnings, and which; every
// other example validates without one. `roce-plan validate` holds it to
// that.
func TestExamplesReadmeNamesEveryWarning(t *testing.T) {
	repo := repoRoot()
	b, err := os.ReadFile(filepath.Join(repo, "examples", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// | `dscp/`, `mixed/` | `bandwidth_percent not applied` on ... |
	rowRe := regexp.MustCompile("(?m)^\\| ((?:`[a-z-]+/`(?:, )?)+) \\| (.*) \\|$")
	tick := regexp.MustCompile("`([^`]+)`")
	documented := map[string]map[string]bool{}
	for _, m := range rowRe.FindAllStringSubmatch(string(b), -1) {
		var titles []string
		for _, w := range tick.FindAllStringSubmatch(m[2], -1) {
			titles = append(titles, w[1])
		}
		for _, d := range tick.FindAllStringSubmatch(m[1], -1) {
			dir := strings.TrimSuffix(d[1], "/")
			if documented[dir] == nil {
				documented[dir] = map[string]bool{}
			}
			for _, w := range titles {
				documented[dir][w] = true
			}
		}
	}
	// The lab row says "the same, and ...": it has the dscp row's warning too.
	for w := range documented["dscp"] {
		if documented["lab"] != nil {
			documented["lab"][w] = true
		}
	}
	if len(documented) < 2 {
		t.Fatalf("the warnings table of examples/README.md was not found: %v", documented)
	}
	dirs, _ := filepath.Glob(filepath.Join(repo, "examples", "*"))
	n := 0
	for _, d := range dirs {
		if m, _ := filepath.Glob(filepath.Join(d, "*.hcl")); len(m) == 0 {
			continue
		}
		n++
		name := filepath.Base(d)
		var out bytes.Buffer
		cmd := exec.Command(filepath.Join(binDir, "roce-plan"), "validate", d)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Errorf("examples/%s does not validate: %v\n%s", name, err, out.String())
			continue
		}
		got := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^Warning: (.+)$`).FindAllStringSubmatch(out.String(), -1) {
			got[m[1]] = true
		}
		for w := range got {
			if !documented[name][w] {
				t.Errorf("examples/%s warns %q, which examples/README.md does not say", name, w)
			}
		}
		for w := range documented[name] {
			if !got[w] && !strings.Contains(out.String(), w) {
				t.Errorf("examples/README.md says examples/%s warns %q; it does not:\n%s", name, w, out.String())
			}
		}
	}
	if n < 7 {
		t.Fatalf("found only %d example policies", n)
	}
}

// commandLine matches a line of a fenced block that runs one of the
// commands the documentation tests must cover — a roce binary, make or jq
// — at its start (after "$ ", VAR=value assignments and sudo) or after a
// pipe. A line that starts "roce-plan:" is output, not a command.
var commandLine = regexp.MustCompile(`^(?:\$ )?(?:[A-Z_][A-Z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s+)*(?:sudo\s+)?(?:bin/)?(?:roce-[a-z]+|make|jq)(?:\s|$)|\|\s*(?:sudo\s+)?(?:bin/)?(?:roce-[a-z]+|jq)(?:\s|$)`)

// commandBlockLangs are the fenced blocks that hold commands a reader
// runs; ```text, ```json and the like hold output and files.
var commandBlockLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true, "": true}

// documentedCommands lists every command line (commandLine) in the
// command blocks of the README, docs/ and examples/, with its document
// and line.
func documentedCommands(t *testing.T, repo string) []docCommand {
	t.Helper()
	docs := []string{"README.md"}
	for _, g := range []string{"docs/*.md", "examples/*.md", "examples/*/*.md"} {
		m, _ := filepath.Glob(filepath.Join(repo, g))
		for _, f := range m {
			docs = append(docs, rel(repo, f))
		}
	}
	var out []docCommand
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join(repo, doc))
		if err != nil {
			t.Fatal(err)
		}
		in, lang := false, ""
		for i, line := range strings.Split(string(b), "\n") {
			trimmed := strings.TrimSpace(line)
			if strings.HasPrefix(trimmed, "```") {
				in, lang = !in, strings.TrimPrefix(trimmed, "```")
				continue
			}
			if in && commandBlockLangs[lang] && !strings.HasPrefix(trimmed, "#") && commandLine.MatchString(trimmed) {
				out = append(out, docCommand{doc: doc, line: i + 1, text: trimmed})
			}
		}
	}
	return out
}

// docsRunInFull are the documents whose every ```sh command a test runs
// (or names in notRunHere with the reason), and the test that does.
var docsRunInFull = map[string]string{
	"README.md":                        "TestDocumentedCommandsRun",
	"docs/tutorial.md":                 "TestDocumentedCommandsRun",
	"docs/lab-upgrades.md":             "TestDocumentedCommandsRun",
	"docs/lab-status.md":               "TestDocumentedCommandsRun",
	"docs/lab.md":                      "TestDocumentedCommandsRun",
	"docs/apply-safety.md":             "TestApplySafetyCommandsRun",
	"docs/gnmi-profiles.md":            "TestGNMIProfilesCommandsRun",
	"docs/agent-protocol.md":           "TestAgentProtocolCommandsRun",
	"docs/plan-json.md":                "TestPlanJSONCommandsRun",
	"docs/performance.md":              "TestPerformanceCommandsParse",
	"examples/fleet-runners/README.md": "TestFleetRunnersCommandsRun",
}

// docsEveryBlock are the documents of docsRunInFull whose test also
// takes the commands of their unmarked fenced blocks, not only ```sh.
var docsEveryBlock = map[string]bool{"docs/performance.md": true}

// Every command the documentation shows is run by a test — against the
// lab, its output checked for what the document claims — or named in
// notRunHere with the reason it is not. A new command in a document fails
// here until it is one or the other.
func TestEveryDocumentedCommandIsRunOrExcused(t *testing.T) {
	repo := repoRoot()
	run := map[string]bool{}
	for doc := range docsRunInFull {
		for _, c := range shCommands(t, repo, doc) {
			run[fmt.Sprintf("%s:%d", c.doc, c.line)] = true
		}
	}
	for _, c := range documentedCommands(t, repo) {
		if docsEveryBlock[c.doc] {
			run[fmt.Sprintf("%s:%d", c.doc, c.line)] = true
		}
	}
	var src []byte
	files, _ := filepath.Glob(filepath.Join(repo, "e2e", "*_test.go"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, b...)
	}
	for doc, test := range docsRunInFull {
		if !bytes.Contains(src, []byte("func "+test+"(t *testing.T)")) {
			t.Errorf("docsRunInFull says %s runs %s, but there is no such test", test, doc)
		}
	}
	all := documentedCommands(t, repo)
	if len(all) < 60 {
		t.Fatalf("only %d documented commands found; the scan is broken", len(all))
	}
	excused := 0
	for _, c := range all {
		if why := notRunHere(c.doc, commandOnly(c.text)); why != "" {
			excused++
			continue
		}
		if !run[fmt.Sprintf("%s:%d", c.doc, c.line)] {
			t.Errorf("%s:%d: %q is run by no test: put it in a ```sh block of a document in docsRunInFull (and give its test what it claims), or add it to notRunHere with the reason", c.doc, c.line, c.text)
		}
	}
	t.Logf("%d documented commands: %d run, %d not run (notRunHere)", len(all), len(all)-excused, excused)
}

// The scan finds commands where a reader finds them, and nothing else.
func TestDocumentedCommandsScan(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"bin/roce-plan $V examples/lab", true},
		{"roce-apply -recover -var-file prod.vars policies", true},
		{"make build                 # bin/roce-plan", true},
		{`BENCH_ARGS="-switches 100 -hosts 1000" make bench`, true},
		{"bin/roce-scale -hosts 0", true},
		{`echo '{"version":1,"op":"recover"}' | sudo roce-agent --root /`, true},
		{"roce-lab status -json examples/lab | jq -r '.devices[]'", true},
		{"$ roce-plan validate ./policy", true},
		{"roce-plan: 2 target(s) were left by an interrupted roce-apply", false},
		{"Run `roce-apply -recover policies` to bring each of them back", false},
		{"go tool pprof -top -cum bin/roce-scale /tmp/full.prof", false},
		{"makefile", false},
	} {
		if got := commandLine.MatchString(tc.line); got != tc.want {
			t.Errorf("%q: command %v, want %v", tc.line, got, tc.want)
		}
	}
}

// docShell runs one documented command line with bash in dir, after
// replacing the document's placeholders (repl: policies → the lab, ...);
// stdin is empty, colour off.
func docShell(t *testing.T, dir string, c docCommand, repl *strings.Replacer) result {
	t.Helper()
	text := repl.Replace(commandOnly(c.text))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", text)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.Stdin = strings.NewReader("")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s:%d: running %q: %v", c.doc, c.line, text, err)
	}
	t.Logf("%s:%d: $ %s\n%s", c.doc, c.line, text, r)
	return r
}

// docCommandsOf is the ```sh commands of doc a test runs itself.
func docCommandsOf(t *testing.T, doc string) (repo string, cmds []docCommand) {
	t.Helper()
	repo = repoRoot()
	for _, c := range shCommands(t, repo, doc) {
		if notRunHere(c.doc, commandOnly(c.text)) == "" {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) == 0 {
		t.Fatalf("%s has no command to run", doc)
	}
	return repo, cmds
}

// unknownDocCommand fails a test that met a command its document gained
// after the test was written.
func unknownDocCommand(t *testing.T, c docCommand) {
	t.Helper()
	t.Fatalf("%s:%d: %q is new: run it here and check what the document says it does, or add it to notRunHere with the reason", c.doc, c.line, c.text)
}

// interruptApply starts roce-apply on target in the lab, with the switch
// slowed, and SIGKILLs it once its journal says the push began, leaving
// an interrupted apply for the recovery commands.
func interruptApply(t *testing.T, l *lab.Lab, sim, target string) {
	t.Helper()
	sw := l.Sims[sim].Switch()
	// The push takes a few round trips (it is pipelined): slow enough
	// that the journal's push step is seen before the push ends.
	sw.SetFaults(nxsim.Faults{Latency: 100 * time.Millisecond})
	defer sw.SetFaults(nxsim.Faults{})
	s := startRoce(t, l, nil, "roce-apply", "-auto-approve", "-target", target, l.Dir)
	pushing := func() bool {
		files, _ := filepath.Glob(filepath.Join(journalDir(l.Dir), "*.jsonl"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(`"step":"push"`)) {
				return true
			}
		}
		return false
	}
	if !s.killWhen(t, pushing) {
		t.Fatalf("roce-apply finished before it could be interrupted\n%s\n%s", s.stdout.String(), s.stderr.String())
	}
	if ins, err := plan.ReadJournal(journalDir(l.Dir)); err != nil || len(ins) == 0 {
		t.Fatalf("the killed apply left no interrupted target (%v)", err)
	}
}

// docs/apply-safety.md: after a killed apply, its -recover command
// settles the target and roce-plan works again; its -forget command
// drops the entry without contacting the target; its -allow-partial
// command saves a plan that names the unreadable switch.
func TestApplySafetyCommandsRun(t *testing.T) {
	_, cmds := docCommandsOf(t, "docs/apply-safety.md")
	l := startLab(t)
	work := t.TempDir()
	lab := "-var-file " + l.VarFile() + " " + l.Dir
	repl := strings.NewReplacer("-var-file prod.vars policies", lab, "policies", lab, "switch.leaf1", "switch.n5k-1")
	planWorks := func(why string) {
		t.Helper()
		if r := roce(t, l, "", "roce-plan", "-target", "switch.n5k-1", l.Dir); r.code == 1 || strings.Contains(r.stderr, "interrupted") {
			t.Fatalf("%s: roce-plan must work again\n%s", why, r)
		}
	}
	// -forget leaves the switch as the killed apply left it (with its
	// checkpoint, which holds off other applies for a while): the page
	// says to fix it by hand. It runs last.
	last := func(c docCommand) int {
		if strings.Contains(c.text, "-forget") {
			return 1
		}
		return 0
	}
	sort.SliceStable(cmds, func(i, j int) bool { return last(cmds[i]) < last(cmds[j]) })
	for _, c := range cmds {
		switch commandOnly(c.text) {
		case "roce-apply -recover -var-file prod.vars policies":
			interruptApply(t, l, "n5k-1", "switch.n5k-1")
			// The page's first message, and with -json a document a CI job
			// can read (docs/plan-json.md#when-a-run-stops-early).
			if r := roce(t, l, "", "roce-plan", "-json", l.Dir); r.code != 1 ||
				!strings.Contains(r.stderr, "were left by an interrupted roce-apply and may be half-configured") ||
				!strings.Contains(r.stdout, `"kind": "roce-plan-error"`) || !strings.Contains(r.stdout, "roce-apply -recover") {
				t.Fatalf("roce-plan after a killed apply: want exit 1, the message, and a JSON error document\n%s", r)
			}
			r := docShell(t, work, c, repl)
			if r.code != 0 || !strings.Contains(r.stdout, "switch.n5k-1") ||
				!(strings.Contains(r.stdout, "applied") || strings.Contains(r.stdout, "rolled-back") || strings.Contains(r.stdout, "rolled back")) {
				t.Fatalf("%s:%d: -recover must settle switch.n5k-1 (applied or rolled back) and exit 0\n%s", c.doc, c.line, r)
			}
			planWorks("after -recover")
		case "roce-apply -recover -forget switch.leaf1 policies":
			interruptApply(t, l, "n5k-1", "switch.n5k-1")
			// The killed apply's session may still be read by the
			// simulator: count from when it is gone.
			sw := l.Sims["n5k-1"].Switch()
			idle, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			err := sw.WaitIdle(idle)
			cancel()
			if err != nil {
				t.Fatalf("the killed apply's session: %v", err)
			}
			lines := sw.LinesHandled()
			r := docShell(t, work, c, repl)
			if r.code != 0 || !strings.Contains(r.stderr, "forgot the interrupted apply of switch.n5k-1") || !strings.Contains(r.stderr, "without contacting it") {
				t.Fatalf("%s:%d: -forget must drop the entry and say so\n%s", c.doc, c.line, r)
			}
			if got := l.Sims["n5k-1"].Switch().LinesHandled(); got != lines {
				t.Errorf("%s:%d: -forget contacted the switch (%d lines handled)", c.doc, c.line, got-lines)
			}
			planWorks("after -forget")
		case "roce-plan -out plan.roce -allow-partial policies":
			dead := deadVarFile(t, l, filepath.Join(work, "dead.vars"), "n5k-1", l.Sims["n5k-1"].Addr())
			r := docShell(t, work, c, strings.NewReplacer("policies", "-connect-timeout 2s -var-file "+dead+" "+l.Dir))
			if r.code != 0 || !strings.Contains(r.stderr, "PARTIAL") || !strings.Contains(r.stdout, "switch.n5k-1: could not be read") {
				t.Fatalf("%s:%d: -allow-partial must save the plan without the unreadable switch and say so\n%s", c.doc, c.line, r)
			}
			p, err := plan.ReadPlanFile(filepath.Join(work, "plan.roce"))
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Excluded) != 1 || p.Excluded[0].Address != "switch.n5k-1" {
				t.Errorf("%s:%d: the saved plan must list switch.n5k-1 under excluded: %+v", c.doc, c.line, p.Excluded)
			}
		default:
			unknownDocCommand(t, c)
		}
	}
}

// docs/gnmi-profiles.md: each simulator command serves its profile and
// prints the address (and, with TLS, the CA file to trust). The test
// listens on a free port, not the document's, which a lab may hold.
func TestGNMIProfilesCommandsRun(t *testing.T) {
	_, cmds := docCommandsOf(t, "docs/gnmi-profiles.md")
	for _, c := range cmds {
		text := commandOnly(c.text)
		var want []string
		switch {
		case strings.HasPrefix(text, "roce-lab gnmi --profile arista "):
			want = []string{"gnmi arista target listening on 127.0.0.1:", "tls ca: "}
		case strings.HasPrefix(text, "roce-lab gnmi --profile sonic "):
			want = []string{"gnmi sonic target listening on 127.0.0.1:", "tls: off (plaintext)"}
		default:
			unknownDocCommand(t, c)
		}
		args := strings.Fields(regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(text, "127.0.0.1:0"))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, filepath.Join(binDir, args[0]), args[1:]...)
		// The simulator serves until killed: its output goes to a file the
		// test polls.
		log, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatal(err)
		}
		out := func() string { b, _ := os.ReadFile(log.Name()); return string(b) }
		deadline := time.Now().Add(30 * time.Second)
		for !containsAll(out(), want) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		cancel()
		log.Close()
		if !containsAll(out(), want) {
			t.Errorf("%s:%d: %s does not print %q:\n%s", c.doc, c.line, text, want, out())
		}
	}
}

func containsAll(s string, subs []string) bool {
	for _, w := range subs {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// docs/agent-protocol.md: recover on a host with no unfinished apply
// answers ok and "unchanged". The test gives the agent a temporary root,
// never this machine's /, and runs it without sudo (it runs as root or
// needs nothing here).
func TestAgentProtocolCommandsRun(t *testing.T) {
	_, cmds := docCommandsOf(t, "docs/agent-protocol.md")
	root := t.TempDir()
	for _, c := range cmds {
		switch commandOnly(c.text) {
		case `echo '{"version":1,"op":"recover"}' | sudo roce-agent --root /`:
			r := docShell(t, t.TempDir(), c, strings.NewReplacer("sudo roce-agent --root /", filepath.Join(binDir, "roce-agent")+" --root "+root))
			var resp struct {
				OK      bool `json:"ok"`
				Recover struct {
					Status string `json:"status"`
				} `json:"recover"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &resp); err != nil || r.code != 0 || !resp.OK || resp.Recover.Status != "unchanged" {
				t.Errorf("%s:%d: want ok and status unchanged (nothing was unfinished) (%v)\n%s", c.doc, c.line, err, r)
			}
		default:
			unknownDocCommand(t, c)
		}
	}
}

// docs/plan-json.md: the jq recipe prints file:line: message for each
// problem of a policy that does not load.
func TestPlanJSONCommandsRun(t *testing.T) {
	_, cmds := docCommandsOf(t, "docs/plan-json.md")
	testenv.Tool(t, "jq", "apt-get install jq")
	work := t.TempDir()
	bad := filepath.Join(work, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "main.hcl"), []byte("lossless \"a\" {\n  priority = 3\n  dscp = [26]\n  bandwith_percent = 40\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		switch commandOnly(c.text) {
		case `roce-plan -json examples/lab > plan.json || jq -r '.errors[]? | "\(.file // "-"):\(.line // 0): \(.message)"' plan.json`:
			r := docShell(t, work, c, strings.NewReplacer("examples/lab", bad))
			want := filepath.Join(bad, "main.hcl") + `:4: Unsupported argument: An argument named "bandwith_percent" is not expected here.`
			if r.code != 0 || !strings.HasPrefix(r.stdout, want) {
				t.Errorf("%s:%d: want a line starting %q\n%s", c.doc, c.line, want, r)
			}
		default:
			unknownDocCommand(t, c)
		}
	}
}

// examples/fleet-runners/README.md: the jq recipe turns a saved plan's
// host payload into an agent apply request. Against the lab, for host h1.
func TestFleetRunnersCommandsRun(t *testing.T) {
	testenv.Root(t, "the lab's hosts run in network namespaces")
	_, cmds := docCommandsOf(t, "examples/fleet-runners/README.md")
	testenv.Tool(t, "jq", "apt-get install jq")
	l := startLab(t)
	work := t.TempDir()
	repl := strings.NewReplacer("policies/", "-var-file "+l.VarFile()+" "+l.Dir, "host.gpu01", "host.h1")
	for _, c := range cmds {
		switch commandOnly(c.text) {
		case "roce-plan -out plan.roce policies/":
			if r := docShell(t, work, c, repl); r.code != 0 || !strings.Contains(r.stdout, "Saved the plan to plan.roce") {
				t.Fatalf("%s:%d: the plan must be saved\n%s", c.doc, c.line, r)
			}
		case `jq '{version: 1, op: "apply", desired: (.plan.targets[] | select(.address=="host.gpu01") | .payload)}' plan.roce > gpu01-apply.json`:
			if r := docShell(t, work, c, repl); r.code != 0 {
				t.Fatalf("%s:%d: jq\n%s", c.doc, c.line, r)
			}
			b, err := os.ReadFile(filepath.Join(work, "gpu01-apply.json"))
			if err != nil {
				t.Fatal(err)
			}
			var req agentproto.Request
			if err := json.Unmarshal(b, &req); err != nil || req.Version != 1 || req.Op != agentproto.OpApply || req.Desired == nil || len(req.Desired.NICs) == 0 {
				t.Errorf("%s:%d: want an agent apply request with the host's desired NICs (%v):\n%s", c.doc, c.line, err, b)
			}
		default:
			unknownDocCommand(t, c)
		}
	}
}

// docs/performance.md: every roce-scale flag its commands use (directly
// or in BENCH_ARGS) exists, and each roce-scale command runs — at a small
// size (at most 3 switches and 2 hosts, 1 ms latency in place of the
// document's), as the real sizes take minutes.
func TestPerformanceCommandsParse(t *testing.T) {
	repo := repoRoot()
	scale := filepath.Join(t.TempDir(), "roce-scale")
	build := exec.Command("go", "build", "-o", scale, "./internal/scale/cmd/roce-scale")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building roce-scale: %v\n%s", err, out)
	}
	help, _ := exec.Command(scale, "-h").CombinedOutput()
	benchArgs := regexp.MustCompile(`BENCH_ARGS="([^"]*)"`)
	ran := 0
	_, cmds := docCommandsOf(t, "docs/performance.md")
	seen := map[int]bool{}
	for _, c := range cmds {
		seen[c.line] = true
	}
	for _, c := range documentedCommands(t, repo) { // the unmarked blocks too (docsEveryBlock)
		if c.doc == "docs/performance.md" && !seen[c.line] && notRunHere(c.doc, commandOnly(c.text)) == "" {
			cmds = append(cmds, c)
		}
	}
	for _, c := range cmds {
		text := commandOnly(c.text)
		var flags []string
		switch {
		case strings.HasPrefix(text, "bin/roce-scale"):
			flags = strings.Fields(strings.TrimPrefix(text, "bin/roce-scale"))
		case benchArgs.MatchString(text):
			flags = strings.Fields(benchArgs.FindStringSubmatch(text)[1])
		case commandLine.MatchString(text):
			unknownDocCommand(t, c)
		default:
			continue // scripts/bench.sh without BENCH_ARGS, benchstat, go tool pprof
		}
		args := []string{"-tmp", t.TempDir()}
		for i := 0; i < len(flags); i++ {
			name, _, hasValue := strings.Cut(strings.TrimLeft(flags[i], "-"), "=")
			if !regexp.MustCompile(`(?m)^\s*-` + regexp.QuoteMeta(name) + `\b`).Match(help) {
				t.Errorf("%s:%d: roce-scale has no -%s:\n%s", c.doc, c.line, name, help)
			}
			value := ""
			if !hasValue && name != "compare" && name != "v" && i+1 < len(flags) {
				i++
				value = flags[i]
			}
			switch name {
			case "switches", "hosts":
				if n, err := strconv.Atoi(value); err != nil || n > 2 {
					value = "2"
				}
			case "latency":
				value = "1ms"
			case "cpuprofile":
				value = filepath.Join(t.TempDir(), "cpu.prof")
			}
			if value != "" {
				args = append(args, "-"+name, value)
			} else {
				args = append(args, flags[i])
			}
		}
		args = append([]string{"-switches", "3", "-hosts", "2", "-latency", "1ms"}, args...)
		out, err := exec.Command(scale, args...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "total measured CPU") {
			t.Errorf("%s:%d: %q at a small size (roce-scale %s): %v\n%s", c.doc, c.line, text, strings.Join(args, " "), err, out)
		}
		ran++
	}
	if ran < 3 {
		t.Fatalf("only %d performance.md commands checked", ran)
	}
}
