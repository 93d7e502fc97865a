package nxsim

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nexus"
)

// No public capture of a Nexus 7000 `show queuing interface` exists, so a
// simulated 7000 prints the simulator's notice instead of a layout, which
// roce's parser reads as a layout it does not read; a 5000 still prints
// its own layout, and a bad interface list is refused on both.
func TestShowQueuingPerPlatform(t *testing.T) {
	for _, tc := range []struct {
		platform string
		cmd      string
		notice   bool   // the 7000 notice, read as nexus.ErrQueuingLayout
		err      string // an answer refusing the command
	}{
		{platform: "nexus5000", cmd: "show queuing interface Ethernet1/1-2"},
		{platform: "nexus5000", cmd: "show queuing interface"},
		{platform: "nexus7000", cmd: "show queuing interface Ethernet1/1-2", notice: true},
		{platform: "nexus7000", cmd: "show queuing interface", notice: true},
		{platform: "nexus7000", cmd: "show queuing interface Ethernet9/1", err: "does not exist on this switch"},
		{platform: "nexus5000", cmd: "show queuing interface Ethernet9/1", err: "does not exist on this switch"},
	} {
		t.Run(tc.platform+" "+tc.cmd, func(t *testing.T) {
			sw := newTestSwitch(t, Options{Platform: tc.platform})
			out := answer(t, sw, tc.cmd)
			q, err := nexus.ParseShowQueuing(out)
			switch {
			case tc.err != "":
				if !strings.Contains(out, tc.err) {
					t.Errorf("answer %q, want one refusing with %q", out, tc.err)
				}
			case tc.notice:
				if strings.TrimSpace(out) != queuing7000Notice || !strings.HasPrefix(out, "nxsim: ") || !strings.Contains(out, "docs/nxos.md#queuing-7000") {
					t.Errorf("answer %q, want the simulator's notice %q", out, queuing7000Notice)
				}
				if !errors.Is(err, nexus.ErrQueuingLayout) {
					t.Errorf("parse: %v, want nexus.ErrQueuingLayout", err)
				}
			default:
				if err != nil || len(q) == 0 || strings.Contains(out, "nxsim:") {
					t.Errorf("the 5000 layout: %d interfaces, %v\n%s", len(q), err, out)
				}
			}
		})
	}
}

// AddDiscards moves a port's input and output discard counters, as `show
// interface` and its JSON form print them; other ports stay at zero,
// counts add up, and a name the switch has no port for is refused.
func TestAddDiscards(t *testing.T) {
	// releases with `| json`
	for _, opts := range []Options{{Platform: "nexus7000", Version: "7.3(1)D1(1)"}, {Platform: "nexus5000", Version: "7.3(0)N1(1)"}} {
		t.Run(opts.Platform, func(t *testing.T) {
			sw := newTestSwitch(t, opts)
			port, other := sw.interfaces[0], sw.interfaces[1]
			short := "e" + strings.TrimPrefix(port, "Ethernet")
			if err := sw.AddDiscards(port, 3, 1); err != nil {
				t.Fatal(err)
			}
			if err := sw.AddDiscards(short, 2, 1); err != nil {
				t.Fatalf("AddDiscards(%q): %v", short, err)
			}
			st, err := nexus.ParseShowInterface(answer(t, sw, "show interface "+port+", "+other))
			if err != nil || len(st) != 2 {
				t.Fatalf("show interface: %v %+v", err, st)
			}
			if st[0].Name != port || st[0].InDiscards != 5 || st[0].OutDiscards != 2 {
				t.Errorf("%s: input %d output %d discards, want 5 and 2", st[0].Name, st[0].InDiscards, st[0].OutDiscards)
			}
			if st[1].InDiscards != 0 || st[1].OutDiscards != 0 {
				t.Errorf("%s: input %d output %d discards, want none", st[1].Name, st[1].InDiscards, st[1].OutDiscards)
			}

			var doc struct {
				Table struct {
					Row map[string]any `json:"ROW_interface"` // one row: an object, as NX-OS prints it
				} `json:"TABLE_interface"`
			}
			js := answer(t, sw, "show interface "+port+" | json")
			if err := json.Unmarshal([]byte(js), &doc); err != nil || doc.Table.Row == nil {
				t.Fatalf("show interface | json: %v\n%s", err, js)
			}
			if r := doc.Table.Row; r["eth_indiscard"] != 5.0 || r["eth_outdiscard"] != 2.0 {
				t.Errorf("JSON eth_indiscard %v eth_outdiscard %v, want 5 and 2", r["eth_indiscard"], r["eth_outdiscard"])
			}

			for _, bad := range []string{"Ethernet9/99", "mgmt", ""} {
				if err := sw.AddDiscards(bad, 1, 1); err == nil {
					t.Errorf("AddDiscards(%q) accepted a name that is no port of the switch", bad)
				}
			}
		})
	}
}

// Faults.DiscardsPerRead makes a port keep dropping: each show interface
// answer that prints it counts that many more input discards first, so
// two reads around a round differ by exactly that; a port not listed, and
// the port once the fault is cleared, stay where they were.
func TestDiscardsPerRead(t *testing.T) {
	sw := newTestSwitch(t, Options{Platform: "nexus7000"})
	port, other := sw.interfaces[0], sw.interfaces[1]
	faults := Faults{DiscardsPerRead: map[string]uint64{port: 5}}
	sw.SetFaults(faults)
	faults.DiscardsPerRead[port] = 1000 // the switch keeps its own copy
	read := func() (uint64, uint64) {
		t.Helper()
		st, err := nexus.ParseShowInterface(answer(t, sw, "show interface "+port+", "+other))
		if err != nil || len(st) != 2 {
			t.Fatalf("show interface: %v %+v", err, st)
		}
		if st[0].OutDiscards != 0 || st[1].OutDiscards != 0 {
			t.Errorf("output discards %d, %d; want none", st[0].OutDiscards, st[1].OutDiscards)
		}
		return st[0].InDiscards, st[1].InDiscards
	}
	for i, want := range []uint64{5, 10, 15} {
		if got, o := read(); got != want || o != 0 {
			t.Errorf("read %d: %s %d, %s %d input discards; want %d and 0", i+1, port, got, other, o, want)
		}
	}
	sw.SetFaults(Faults{})
	if got, _ := read(); got != 15 {
		t.Errorf("after the fault is cleared: %d input discards, want 15 (counters keep, stop rising)", got)
	}
}
