package nxos

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/telemetry"
)

// portWideDiscards stands port-wide counts (input + output discards) in
// for per-class ones only when every managed port has them; otherwise no
// port keeps a count and the reason says both reads failed.
func TestPortWideDiscards(t *testing.T) {
	const why = "parse show queuing interface Ethernet2/1-2: another layout"
	st := []nexus.InterfaceStatus{
		{Name: "Ethernet2/1", InDiscards: 3, OutDiscards: 4},
		{Name: "Ethernet2/2"},
		{Name: "Ethernet2/9", InDiscards: 100}, // not managed
	}
	for _, tc := range []struct {
		name             string
		ports            []string
		st               []nexus.InterfaceStatus
		stErr            error
		portWide, unread string // substrings; "" = must be empty
		counts           []uint64
	}{
		{name: "every port printed", ports: []string{"Ethernet2/1", "Ethernet2/2"}, st: st,
			portWide: why, counts: []uint64{7, 0}},
		{name: "a port missing", ports: []string{"Ethernet2/1", "Ethernet2/3"}, st: st,
			unread: why + "; nor the port-wide ones: show interface printed no Ethernet2/3", counts: []uint64{0, 0}},
		{name: "show interface unreadable", ports: []string{"Ethernet2/1"}, stErr: errors.New("parse show interface Ethernet2/1: no state line"),
			unread: why + "; nor the port-wide ones: parse show interface Ethernet2/1: no state line", counts: []uint64{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ports := make([]telemetry.Port, len(tc.ports))
			for i, n := range tc.ports {
				ports[i].Name = n
			}
			portWide, unread := portWideDiscards(ports, tc.st, tc.stErr, why)
			if (tc.portWide == "") != (portWide == "") || !strings.Contains(portWide, tc.portWide) {
				t.Errorf("port-wide reason %q, want %q", portWide, tc.portWide)
			}
			if (tc.unread == "") != (unread == "") || !strings.Contains(unread, tc.unread) {
				t.Errorf("unread reason %q, want %q", unread, tc.unread)
			}
			for i, p := range ports {
				if p.LosslessDiscards != tc.counts[i] {
					t.Errorf("%s: discards %d, want %d", p.Name, p.LosslessDiscards, tc.counts[i])
				}
			}
		})
	}
}

// Telemetry against the simulator, end to end over SSH:
//   - a 5000 prints its queuing layout: the discards are per class (a
//     port's show interface discards do not count), and no show interface
//     is sent;
//   - a 7000 prints none roce reads: the managed ports' show interface
//     discards (input + output) stand in, marked port-wide, and cost no
//     extra command (the 7000 reads show interface for the MTU anyway);
//   - a switch of another platform whose queuing layout is not read (a
//     5000 target in front of the simulated 7000) sends that one command
//     more and gets the same port-wide counts.
//
// When show interface cannot be read either the discards stay unread
// (TestPortWideDiscards): the simulator refuses a port it does not have
// in both commands, which fails the whole read before that.
func TestTelemetryDiscardSources(t *testing.T) {
	for _, tc := range []struct {
		name        string
		sim, target string // simulated platform, policy platform
		// want: per-port discards; portWide/unread: substrings of the reasons ("" = empty)
		want             map[string]uint64
		portWide, unread string
		extraCommands    int // commands beyond the 5000's read
	}{
		{name: "5000 layout: per class", sim: "nexus5000", target: "nexus5000",
			want: map[string]uint64{"Ethernet1/1": 0, "Ethernet1/2": 0}},
		{name: "7000: port-wide", sim: "nexus7000", target: "nexus7000",
			want:     map[string]uint64{"Ethernet2/1": 7, "Ethernet2/2": 0},
			portWide: "nxsim: no public capture of a Nexus 7000", extraCommands: 1},
		{name: "another platform, unread layout: port-wide with one command more", sim: "nexus7000", target: "nexus5000",
			want:     map[string]uint64{"Ethernet2/1": 7, "Ethernet2/2": 0},
			portWide: "not in the Nexus 5000-family layout roce reads", extraCommands: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{kind: tc.sim, start: "empty"})
			if tc.target != tc.sim {
				sw := *r.sw
				sw.Platform = tc.target
				tg, err := newTarget(r.target.env, &sw)
				if err != nil {
					t.Fatal(err)
				}
				r.target = tg
			}
			sim := r.srv.Switch()
			first := r.sw.Interfaces[0]
			if err := sim.AddDiscards(first, 3, 4); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			before := handled(t, ctx, r)
			dev, err := r.target.Telemetry(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]uint64{}
			for _, p := range dev.Ports {
				got[p.Name] = p.LosslessDiscards
			}
			if len(got) != len(tc.want) {
				t.Errorf("ports %v, want %v", got, tc.want)
			}
			for n, w := range tc.want {
				if got[n] != w {
					t.Errorf("%s: discards %d, want %d", n, got[n], w)
				}
			}
			if (tc.portWide == "") != (dev.DiscardsPortWide == "") || !strings.Contains(dev.DiscardsPortWide, tc.portWide) {
				t.Errorf("DiscardsPortWide %q, want %q", dev.DiscardsPortWide, tc.portWide)
			}
			if wantCmd := tc.portWide != ""; wantCmd != (dev.DiscardsPerClassCommand == "show policy-map interface PORT type queuing") {
				t.Errorf("DiscardsPerClassCommand %q, want the NX-OS per-class drops command only with port-wide counts", dev.DiscardsPerClassCommand)
			}
			if (tc.unread == "") != (dev.DiscardsUnread == "") || !strings.Contains(dev.DiscardsUnread, tc.unread) {
				t.Errorf("DiscardsUnread %q, want %q", dev.DiscardsUnread, tc.unread)
			}
			// The 5000 read with the layout read is the baseline count.
			n := handled(t, ctx, r) - before
			base := telemetryCommands5000(t)
			if n != base+tc.extraCommands {
				t.Errorf("the read sent %d show commands, want %d (%d more than a 5000 whose queuing layout is read)", n, base+tc.extraCommands, tc.extraCommands)
			}
		})
	}
}

// handled is how many commands the rig's switch has handled, once the
// last client is gone.
func handled(t *testing.T, ctx context.Context, r *rig) int {
	t.Helper()
	if err := r.srv.Switch().WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	// Show commands only: the `exit` a client sends as it hangs up may
	// or may not be read before the connection closes.
	return r.srv.Switch().ShowsHandled()
}

// telemetryCommands5000 counts the show commands one Telemetry read of a
// 5000 sends.
func telemetryCommands5000(t *testing.T) int {
	t.Helper()
	r := newRig(t, rigOpts{kind: "nexus5000", start: "empty"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before := handled(t, ctx, r)
	if _, err := r.target.Telemetry(ctx); err != nil {
		t.Fatal(err)
	}
	return handled(t, ctx, r) - before
}
