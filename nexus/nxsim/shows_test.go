package nxsim

import (
	"context"
	"testing"
)

// ShowsHandled counts the show commands a client ran, in any
// abbreviation, and nothing else: not configuration, not `terminal`, not
// `exit`.
func TestShowsHandled(t *testing.T) {
	sw, err := New(Options{Platform: "nexus5000", Hostname: "leaf5"})
	if err != nil {
		t.Fatal(err)
	}
	s := &session{sw: sw}
	for _, l := range []string{"terminal length 0", "show version", "sh int Ethernet1/1", "SHOW clock", "", "configure terminal", "interface Ethernet1/1", "end", "exit"} {
		if _, err := s.handle(context.Background(), l); err != nil && l != "exit" {
			t.Fatalf("%q: %v", l, err)
		}
	}
	if got := sw.ShowsHandled(); got != 3 {
		t.Errorf("ShowsHandled = %d, want 3", got)
	}
}
