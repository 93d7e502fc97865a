package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Off a terminal (CI logs) every target event becomes one line on stderr.
func TestProgressLines(t *testing.T) {
	var b bytes.Buffer
	f := ProgressLines(&b, "roce-apply")
	if f == nil {
		t.Fatal("a buffer is not a terminal: progress lines must be on")
	}
	f("switch.leaf1", "", "applying (canary)")
	f("switch.leaf1", "applied", "")
	f("switch.leaf2", "failed", strings.Repeat("x", 400))
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	want := []string{"roce-apply: switch.leaf1: applying (canary)", "roce-apply: switch.leaf1: applied", "roce-apply: switch.leaf2: failed: " + strings.Repeat("x", 300) + "..."}
	if len(lines) != len(want) {
		t.Fatalf("got %q", lines)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d: %q, want %q", i, lines[i], want[i])
		}
	}
}

// The per-command limit never exceeds the per-target one.
func TestCommandTimeout(t *testing.T) {
	for _, tc := range []struct{ target, command, want time.Duration }{
		{5 * time.Minute, time.Minute, time.Minute},
		{10 * time.Second, time.Minute, 10 * time.Second},
		{time.Minute, 0, time.Minute},
		{0, 30 * time.Second, 30 * time.Second},
	} {
		c := Common{Timeout: tc.target, CommandTimeout: tc.command}
		if got := c.commandTimeout(); got != tc.want {
			t.Errorf("timeout %s, command %s: %s, want %s", tc.target, tc.command, got, tc.want)
		}
	}
}
