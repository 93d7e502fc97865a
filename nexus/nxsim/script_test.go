package nxsim

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// fixedNow is the clock of golden tests.
func fixedNow() time.Time { return time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC) }

// runScript types lines into an in-memory session and returns the screen:
// each prompt with the line typed, then the answer.
func runScript(t testing.TB, sw *Switch, lines []string) string {
	t.Helper()
	var screen strings.Builder
	s := newSession(sw, nil, nil, "admin")
	s.out = &screen
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, l := range lines {
		screen.WriteString(s.prompt() + l + "\n")
		out, err := s.handle(ctx, l)
		if out != "" {
			screen.WriteString(strings.TrimRight(out, "\n") + "\n")
		}
		if err != nil {
			screen.WriteString("[session ended: " + err.Error() + "]\n")
			break
		}
	}
	return screen.String()
}

func newTestSwitch(t testing.TB, opts Options) *Switch {
	t.Helper()
	if opts.Platform == "" {
		opts.Platform = "nexus5000"
	}
	if opts.Hostname == "" {
		opts.Hostname = "sw1"
	}
	sw, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	sw.now = fixedNow
	sw.booted = fixedNow() // show version's last reset: the same on every run
	return sw
}

// TestScripts replays testdata/scripts/*.txt (first line: platform, then
// one typed line per line) and compares the screen with
// testdata/golden/<name>.txt. Run with -update to rewrite.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/scripts/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
			opts := Options{Platform: lines[0]}
			if p, vdc, ok := strings.Cut(lines[0], " vdc="); ok {
				opts.Platform, opts.VDC = p, vdc
			}
			sw := newTestSwitch(t, opts)
			got := runScript(t, sw, lines[1:])
			golden := filepath.Join("testdata", "golden", name+".txt")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if got != string(want) {
				t.Errorf("screen differs from %s (run with -update after checking):\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
		})
	}
}
