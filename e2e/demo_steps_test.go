package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every step of the demo that runs a roce command shows its command line
// ("$ roce-…"), so a reader can type what they just watched.
func TestDemoStepsShowTheirCommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(), "scripts", "demo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// A step may send a command's output to a file or /dev/null; its $
	// line must still show, so shown writes to fd 3, the script's stdout.
	script := string(b)
	if !strings.Contains(script, "exec 3>&1") || !strings.Contains(script, `shown() { printf '$ %s\n' "$*" >&3; }`) {
		t.Error("scripts/demo.sh: shown must print on fd 3 (exec 3>&1), or a redirected step hides its $ line")
	}
	for _, helper := range []string{"show() { shown ", "last() { shown ", "\tshown \"$@\"\n"} {
		if !strings.Contains(script, helper) {
			t.Errorf("scripts/demo.sh: %q: show, last and expect print their command through shown", helper)
		}
	}
	var title string
	runs, shows := false, false
	check := func() {
		if title != "" && runs && !shows {
			t.Errorf("scripts/demo.sh: step %q runs a roce command without showing it ($ line)", title)
		}
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "step ") {
			check()
			title, runs, shows = strings.TrimPrefix(line, "step "), false, false
			continue
		}
		for _, shown := range []string{"show ", "shown ", "last ", "expect "} {
			if strings.HasPrefix(line, shown) && strings.Contains(line, "roce-") {
				shows = true
			}
		}
		if strings.HasPrefix(line, "roce-") {
			runs = true
		}
	}
	check()
	if title == "" {
		t.Fatal("scripts/demo.sh: no step found")
	}
}
