package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Off a terminal, roce-apply writes each target once: no per-target line
// when the text report goes to the same file (one CI log), the outcome once
// per target otherwise, and a "still applying" line for a slow target.
func TestApplyLines(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) *os.File {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	read := func(f *os.File) string {
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		name       string
		sameFile   bool
		textReport bool
		want       string // what stderr gets
	}{
		{"one CI log, text report", true, true,
			"roce-apply: switch.slow: still applying (batch 1) after 30s\n"},
		{"report redirected to a file", false, true,
			"roce-apply: switch.leaf1: applied\nroce-apply: switch.slow: still applying (batch 1) after 30s\nroce-apply: switch.leaf2: failed: the switch refused line 1\nroce-apply: switch.slow: applied\n"},
		{"-json report on the same file", true, false,
			"roce-apply: switch.leaf1: applied\nroce-apply: switch.slow: still applying (batch 1) after 30s\nroce-apply: switch.leaf2: failed: the switch refused line 1\nroce-apply: switch.slow: applied\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stderr := open(strings.ReplaceAll(tc.name, " ", "_") + ".err")
			stdout := open(strings.ReplaceAll(tc.name, " ", "_") + ".out")
			if tc.sameFile {
				stdout = stderr
			}
			fire := map[string]func(){}
			var order []string
			after := func(d time.Duration, f func()) func() bool {
				if d != SlowTargetAfter {
					t.Errorf("timer for %s, want %s", d, SlowTargetAfter)
				}
				addr := order[len(order)-1]
				fire[addr] = f
				return func() bool { return true }
			}
			on, stop := applyLines(stderr, stdout, tc.textReport, "roce-apply", SlowTargetAfter, after)
			if on == nil {
				t.Fatal("no lines off a terminal")
			}
			start := func(a, phase string) { order = append(order, a); on(a, "", "applying ("+phase+")") }
			start("switch.leaf1", "canary")
			on("switch.leaf1", "applied", "")
			fire["switch.leaf1"]() // fired after it finished: says nothing
			start("switch.slow", "batch 1")
			start("switch.leaf2", "batch 1")
			fire["switch.slow"]()
			on("switch.leaf2", "failed", "the switch refused line 1")
			on("switch.slow", "applied", "")
			stop()
			if got := read(stderr); got != tc.want {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// Two handles on one file are the same file; two files, or a writer that is
// no file, are not.
func TestSameFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	a, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := os.Create(p + "2")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !SameFile(a, NewRedactWriter(b, nil)) {
		t.Error("two handles on one file, one through a RedactWriter: not the same file")
	}
	if SameFile(a, c) || SameFile(a, &strings.Builder{}) {
		t.Error("different files reported as the same")
	}
}
