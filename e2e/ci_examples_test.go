package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The CI examples read the fabric once per job: the Markdown the reviewers
// see and the plan file roce-apply pushes come from one roce-plan run, and
// every job that applies applies a saved plan file.
func TestCIExamplesReadTheFabricOncePerJob(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repoRoot(), "examples", "ci", "*.yml"))
	if len(files) < 3 {
		t.Fatalf("found only %v", files)
	}
	// A job starts at a key alone on its line: "  name:" under jobs: (GitHub)
	// or "name:" at the top level (GitLab).
	githubJob := regexp.MustCompile(`^  ([a-z][a-z0-9_-]*):\s*$`)
	gitlabJob := regexp.MustCompile(`^([a-z][a-z0-9_-]*):\s*$`)
	// roce-plan as a command: at the start of a step or script line, or
	// after && or ; (not inside an echo).
	readRe := regexp.MustCompile(`(?:^\s*(?:-\s+)?(?:run:\s*)?|&&\s*|;\s*)(roce-plan(?:\s+[^\n#|;&>]*)?)`)
	jobs := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		jobRe := gitlabJob
		if strings.Contains(string(b), "\njobs:") {
			jobRe = githubJob
		}
		reads := map[string]int{}
		job := ""
		for i, line := range strings.Split(string(b), "\n") {
			if m := jobRe.FindStringSubmatch(line); m != nil {
				job = m[1]
				continue
			}
			code, _, _ := strings.Cut(line, "#")
			for _, sm := range readRe.FindAllStringSubmatch(code, -1) {
				m := sm[1]
				fields := strings.Fields(m)
				if len(fields) > 1 && (fields[1] == "validate" || fields[1] == "fmt") {
					continue // no device contacted
				}
				reads[job]++
				if reads[job] > 1 {
					t.Errorf("%s:%d: job %q reads the fabric a second time (%s); print and save one plan: roce-plan -markdown -out plan.roce", rel(repoRoot(), f), i+1, job, strings.TrimSpace(m))
				}
			}
			if strings.Contains(code, "roce-apply") && !strings.Contains(code, "-recover") && !strings.Contains(code, ".roce") && !strings.Contains(code, "roce-apply also") {
				t.Errorf("%s:%d: roce-apply without a saved plan file re-plans what nobody reviewed: %s", rel(repoRoot(), f), i+1, strings.TrimSpace(line))
			}
		}
		jobs += len(reads)
	}
	if jobs < 4 {
		t.Fatalf("found roce-plan in only %d jobs; the scan is broken", jobs)
	}
}

// The CI examples' plan-in-one-job, apply-in-another flow, run as written
// (their roce-plan and roce-apply lines, plus a var file and one target
// for the simulated switch): the plan saved in one checkout is applied
// from another checkout somewhere else, with no -dir
// (docs/plan-json.md#saved-plan-file).
func TestCIExamplesApplyThePlanFromAnotherCheckout(t *testing.T) {
	repo := repoRoot()
	// command is the first line of f running name with a plan.roce
	// argument, as arguments (up to a redirection or ||).
	command := func(t *testing.T, f, name string) []string {
		t.Helper()
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "#")
			_, cmd, ok := strings.Cut(code, name+" ")
			if !ok || !strings.Contains(cmd, "plan.roce") {
				continue
			}
			var args []string
			for _, a := range strings.Fields(cmd) {
				if strings.HasPrefix(a, ">") || a == "||" || a == "&&" || a == ";" {
					break
				}
				args = append(args, a)
			}
			return args
		}
		t.Fatalf("%s: no %s line with plan.roce", f, name)
		return nil
	}
	for _, name := range []string{"github-actions.yml", "gitlab-ci.yml"} {
		t.Run(name, func(t *testing.T) {
			f := filepath.Join(repo, "examples", "ci", name)
			planArgs, applyArgs := command(t, f, "roce-plan"), command(t, f, "roce-apply")
			for i := range applyArgs {
				if i > 0 && applyArgs[i-1] == "-lock-file" {
					applyArgs[i] = filepath.Join(t.TempDir(), "apply.lock") // shared storage in the example
				}
			}
			srv := leaf1Sim(t) // a switch of its own: the plan has changes to apply
			root := filepath.Join(t.TempDir(), "plan-job")
			firstSwitchCheckout(t, root, srv)
			r := runInDir(t, root, "roce-plan", append([]string{"-var-file", "site.vars", "-target", "switch.leaf1"}, planArgs...)...)
			if r.code != 2 && !(r.code == 0 && !slices.Contains(planArgs, "-detailed-exitcode")) {
				t.Fatalf("%s's roce-plan %s\n%s", name, strings.Join(planArgs, " "), r)
			}
			apply := movedCheckout(t, root)
			r = runInDir(t, apply, "roce-apply", append([]string{"-var-file", "site.vars"}, applyArgs...)...)
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "switch.leaf1") {
				t.Fatalf("%s's roce-apply %s from another checkout: want it applied without -dir\n%s", name, strings.Join(applyArgs, " "), r)
			}
		})
	}
}
