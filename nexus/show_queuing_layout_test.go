package nexus

import (
	"errors"
	"strings"
	"testing"
)

// Output in another layout is ErrQueuingLayout (queues unknown), which a
// caller may tell apart from a broken answer; empty output is not.
func TestShowQueuingLayoutError(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		layout    bool
	}{
		{"another layout", "slot  1\n=======\n\nEgress Queuing for Ethernet1/1 [System]\n", true},
		{"an invalid command", "% Invalid command at '^' marker.\n", true},
		{"empty", "", false},
		{"a bad TX row in the 5000 layout", "Ethernet1/1 queuing information:\n  TX Queuing\n    qos-group  sched-type  oper-bandwidth\n        9       WRR            100\n", false},
	} {
		_, err := ParseShowQueuing(tc.out)
		if err == nil {
			t.Fatalf("%s: parsed", tc.name)
		}
		if got := errors.Is(err, ErrQueuingLayout); got != tc.layout {
			t.Errorf("%s: errors.Is(ErrQueuingLayout) = %v, want %v (%v)", tc.name, got, tc.layout, err)
		}
	}
}

// The layout error names the first line that is not an echo, in full and
// in its short form, and cuts a long line.
func TestQueuingLayoutErrorText(t *testing.T) {
	_, err := ParseShowQueuing("leaf7# show queuing interface Ethernet1/1\nslot  1\n=======\n")
	var le *QueuingLayoutError
	if !errors.As(err, &le) || le.Line != 2 || le.Text != "slot  1" {
		t.Fatalf("got %#v (%v), want line 2 %q", le, err, "slot  1")
	}
	if got, want := le.Short(), `its output is not in the Nexus 5000-family layout roce reads (line 2 reads "slot  1")`; got != want {
		t.Errorf("Short() = %q, want %q", got, want)
	}
	long := strings.Repeat("x", 100)
	if _, err = ParseShowQueuing(long + "\n"); !errors.As(err, &le) || le.Text != strings.Repeat("x", 80)+"…" {
		t.Errorf("a long first line: %v", err)
	}
}
