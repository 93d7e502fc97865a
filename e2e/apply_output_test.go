package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// roce-apply off a terminal prints each target once (issue 18): with stdout
// and stderr in one CI log the report alone lists the outcomes; with the
// report elsewhere (here, stdout apart), stderr gets one outcome line per
// target and no "applying" line.
func TestApplyOutputOncePerTarget(t *testing.T) {
	l := startLab(t)
	run := func(combined bool, name string, args ...string) (stdout, stderr string) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, filepath.Join(binDir, name), append([]string{"-var-file", l.VarFile()}, args...)...)
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if combined {
			cmd.Stderr = &out // one pipe behind both, as in a CI log
		}
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 { // roce-plan -detailed-exitcode: changes
				t.Fatalf("%s: %v\n%s\n%s", name, err, out.String(), errb.String())
			}
		}
		return out.String(), errb.String()
	}
	apply := func(targets []string, combined bool) (stdout, stderr string) {
		planFile := filepath.Join(t.TempDir(), "plan.roce")
		args := []string{"-target", targets[0], "-target", targets[1]}
		if p := roce(t, l, "", "roce-plan", append(args, "-out", planFile, l.Dir)...); p.code != 0 {
			t.Fatalf("roce-plan\n%s", p)
		}
		return run(combined, "roce-apply", planFile)
	}
	// roce-plan: one "read" line per target with the plan apart, none when
	// the plan is printed to the same log.
	planArgs := []string{"-detailed-exitcode", "-target", "switch.n5k-1", "-target", "switch.eos-1", l.Dir}
	if _, stderr := run(false, "roce-plan", planArgs...); len(regexp.MustCompile(`(?m)^roce-plan: switch\.[a-z0-9-]+: read$`).FindAllString(stderr, -1)) != 2 {
		t.Errorf("roce-plan, plan apart: want one read line per target:\n%s", stderr)
	}
	if combined, _ := run(true, "roce-plan", planArgs...); regexp.MustCompile(`(?m)^roce-plan: switch`).MatchString(combined) {
		t.Errorf("roce-plan, one log: per-target lines beside the plan:\n%s", combined)
	}

	progress := regexp.MustCompile(`(?m)^roce-apply: (switch\.[a-z0-9-]+): (.*)$`)

	// The report apart: one outcome line per target on stderr.
	targets := []string{"switch.n5k-1", "switch.n7k-1"}
	stdout, stderr := apply(targets, false)
	lines := progress.FindAllStringSubmatch(stderr, -1)
	if len(lines) != len(targets) {
		t.Errorf("stderr has %d per-target lines, want one per target (%d):\n%s", len(lines), len(targets), stderr)
	}
	for _, m := range lines {
		if m[2] != "applied" {
			t.Errorf("per-target line %q, want only the outcome", m[0])
		}
	}
	for _, tg := range targets {
		if !strings.Contains(stdout, tg+": applied") {
			t.Errorf("the report lacks %s's outcome:\n%s", tg, stdout)
		}
	}

	// Both streams in one log (other switches, which still have changes):
	// the report is the only per-target account.
	targets = []string{"switch.eos-1", "switch.sonic-1"}
	combined, _ := apply(targets, true)
	if lines := progress.FindAllString(combined, -1); len(lines) != 0 {
		t.Errorf("one log for both streams: per-target lines beside the report: %q\n%s", lines, combined)
	}
	for _, tg := range targets {
		if n := strings.Count(combined, tg+": applied"); n != 1 {
			t.Errorf("%s's outcome appears %d times, want once:\n%s", tg, n, combined)
		}
	}
}
