package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

// Every roce-* command line in the README, docs, examples and the demo
// script must use flags the binary really has, so documentation cannot
// drift from the code.
func TestDocumentedCommandLinesUseRealFlags(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Dir(filepath.Dir(file))
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
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(file)), "README.md"))
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
	_, file, _, _ := runtime.Caller(0)
	dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(file)), "examples", "*"))
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
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Dir(filepath.Dir(file))
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
