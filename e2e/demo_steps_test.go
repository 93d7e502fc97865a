package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Every step of the demo that runs a roce command shows its command line
// ("$ roce-…"), so a reader can type what they just watched.
func TestDemoStepsShowTheirCommands(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(file)), "scripts", "demo.sh"))
	if err != nil {
		t.Fatal(err)
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
