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
