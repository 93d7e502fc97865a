package nexus

import (
	"errors"
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
