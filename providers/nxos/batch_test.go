package nxos

import (
	"slices"
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
)

func TestSplitBatch(t *testing.T) {
	cmds := []string{"show version", "show module", "show running-config ipqos"}
	full := "show version\nNX-OS 7.1\nsw1# show module\n\nMod Ports\n1 48  \nsw1# show running-config ipqos\n\nsystem qos\nsw1# "
	push := []string{"interface Ethernet1/1", "priority-flow-control mode on", "end", "show running-config ipqos"}
	pasted := "interface Ethernet1/1\nsw1(config-if)# priority-flow-control mode on\n\n% Invalid command at '^' marker.\nsw1(config-if)# end\nsw1# show running-config ipqos\nsystem qos\nsw1# "
	for _, tc := range []splitCase{
		{"complete", full, []string{"NX-OS 7.1", "Mod Ports\n1 48", "system qos"}, "", nil},
		{"CRLF", strings.ReplaceAll(full, "\n", "\r\n"), []string{"NX-OS 7.1", "Mod Ports\n1 48", "system qos"}, "", nil},
		{"last prompt missing", strings.TrimSuffix(full, "sw1# "), nil, "", nil},
		{"last answer still coming", "show version\nNX-OS 7.1\nsw1# show module\nMod\nsw1# show running-config ipqos\nsys", nil, "", nil},
		{"prompt before the next echo", "show version\nNX-OS 7.1\nsw1# ", nil, "", nil},
		{"echo cut short", "show version\nNX-OS 7.1\nsw1# show mod", nil, "", nil},
		{"empty answers", "show version\nsw1# show module\nsw1# show running-config ipqos\nsw1#", []string{"", "", ""}, "", nil},
		{"VDC prompt", strings.ReplaceAll(full, "sw1#", "n7k-vdc2#"), []string{"NX-OS 7.1", "Mod Ports\n1 48", "system qos"}, "", nil},
		{"echoed as typed, before the answers", "show version\nshow module\nshow running-config ipqos\nNX-OS 7.1\nsw1# \nMod Ports\n1 48\nsw1# \nsystem qos\nsw1# ", []string{"NX-OS 7.1", "Mod Ports\n1 48", "system qos"}, "", nil},
		{"echoed as typed, answers still coming", "show version\nshow module\nshow running-config ipqos\nNX-OS 7.1\nsw1# ", nil, "", nil},
		{"echoed as typed, then an echo again", "show version\nshow module\nshow running-config ipqos\nNX-OS 7.1\nsw1# show module\nx\nsw1# ", nil, "a later prompt carries", nil},
		{"echo of another command", "show version\nNX-OS 7.1\nsw1# show clock\nx\nsw1# show running-config ipqos\ny\nsw1# ", nil, `carries "show clock" where the echo of "show module" was expected`, nil},
		{"no echo at all (echoed early or not at all)", "NX-OS 7.1\nsw1# show module\nx\nsw1# ", nil, "does not start with the echo", nil},
		{"more prompts than commands", full + "show clock\nsw1# ", nil, "after the answer to the last command", nil},
		// A pasted configuration group: the prompts change with the mode.
		{"configuration modes", pasted, []string{"", "% Invalid command at '^' marker.", "", "system qos"}, "", push},
		{"configuration modes, last prompt still coming", strings.TrimSuffix(pasted, "sw1# "), nil, "", push},
		{"another host's prompt is an answer line", strings.Replace(pasted, "sw1(config-if)# end", "sw2(config-if)# end", 1), nil, `where the echo of "end" was expected`, push},
		{"a prompt with a space in the mode is no prompt", strings.Replace(pasted, "sw1(config-if)# end", "sw1(config if)# end", 1), nil, `where the echo of "end" was expected`, push},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, done, err := splitBatch(tc.text, tc.cmds(cmds))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if done != (tc.want != nil) {
				t.Fatalf("done %v, want %v (parts %q)", done, tc.want != nil, got)
			}
			if done && !slices.Equal(got, tc.want) {
				t.Errorf("parts %q, want %q", got, tc.want)
			}
		})
	}
}

// splitCase is one TestSplitBatch case; cmds, when set, replaces the
// three show commands.
type splitCase struct {
	name    string
	text    string
	want    []string // nil: not complete yet
	wantErr string
	lines   []string
}

func (c splitCase) cmds(def []string) []string {
	if c.lines != nil {
		return c.lines
	}
	return def
}

func FuzzSplitBatch(f *testing.F) {
	f.Add("interface Ethernet1/1\nsw1(config-if)# end\nsw1# ", "interface Ethernet1/1\nend")
	f.Add("show version\nX\nsw1# show module\nY\nsw1# ", "show version\nshow module")
	f.Add("a\r\nsw1# b\r\n\r\nsw1#", "a\nb")
	f.Add("", "a")
	f.Fuzz(func(t *testing.T, text, cmdList string) {
		cmds := strings.Split(cmdList, "\n")
		parts, done, err := splitBatch(text, cmds)
		if done && (err != nil || len(parts) != len(cmds)) {
			t.Fatalf("done with %d parts for %d commands (err %v)", len(parts), len(cmds), err)
		}
	})
}

// TestBatchedReadsMatchSequential: on both platforms a batched read sees
// exactly what reading one command at a time sees (same fingerprint, same
// plan, same transcript answers), in fewer round trips: the whole read in
// one exchange.
func TestBatchedReadsMatchSequential(t *testing.T) {
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		t.Run(kind, func(t *testing.T) {
			r := newRig(t, rigOpts{kind: kind, start: "fcoe-defaults"})
			sw := r.srv.Switch()
			plans := map[bool]*plan.TargetPlan{}
			trips := map[bool]int{}
			for _, seq := range []bool{true, false} {
				r.target.sequential = seq
				before := r.roundTrips(t)
				plans[seq] = r.plan(t)
				trips[seq] = r.roundTrips(t) - before
			}
			s, b := plans[true], plans[false]
			if s.Fingerprint != b.Fingerprint || !slices.Equal(s.Commands, b.Commands) || len(b.Commands) == 0 {
				t.Fatalf("batched read differs: fingerprint %s vs %s, %d vs %d commands", b.Fingerprint, s.Fingerprint, len(b.Commands), len(s.Commands))
			}
			if trips[false] >= trips[true] {
				t.Errorf("round trips to plan: batched %d, sequential %d; want fewer batched", trips[false], trips[true])
			}
			// The read itself: one exchange batched, two per command (the
			// command, then its return after the echo) one at a time.
			reads := len(r.target.readCommands(true))
			for _, seq := range []bool{true, false} {
				r.target.sequential = seq
				c := openConn(t, t.Context(), r)
				before := sw.RoundTrips()
				st, err := r.target.readLive(c)
				got := sw.RoundTrips() - before
				c.close()
				if err != nil || st.fingerprint != b.Fingerprint {
					t.Fatalf("sequential=%v: read %v, fingerprint %v", seq, err, st)
				}
				want := 1
				if seq {
					want = 2 * reads
				}
				if got != want {
					t.Errorf("sequential=%v: reading %d commands took %d round trips, want %d", seq, reads, got, want)
				}
			}
			res, err := r.apply(t, b)
			if err != nil || res.Status != plan.StatusApplied {
				t.Fatalf("apply after a batched plan: %s %v\n%s", res.Status, err, transcriptText(res.Transcript))
			}
			for _, seq := range []bool{true, false} {
				r.target.sequential = seq
				if tp := r.plan(t); tp.HasChanges() || tp.Fingerprint == b.Fingerprint {
					t.Errorf("sequential=%v: plan after apply has %d changes, fingerprint moved: %v", seq, len(tp.Changes), tp.Fingerprint != b.Fingerprint)
				}
			}
		})
	}
}

// TestApplyFewerRoundTripsThanSequential: against scrapligo's exchange
// pattern (sequential: two round trips per command and per line), an
// apply saves at least one round trip per line; the pipelined push's own
// count is TestPipelinedApplyRoundTrips'.
func TestApplyFewerRoundTripsThanSequential(t *testing.T) {
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		t.Run(kind, func(t *testing.T) {
			trips := map[bool]int{}
			lines := 0
			for _, seq := range []bool{true, false} {
				r := newRig(t, rigOpts{kind: kind, start: "fcoe-defaults"})
				r.target.sequential = seq
				tp := r.plan(t)
				lines = len(tp.Commands)
				before := r.roundTrips(t)
				res, err := r.apply(t, tp)
				if err != nil || res.Status != plan.StatusApplied {
					t.Fatalf("sequential=%v: %s %v", seq, res.Status, err)
				}
				trips[seq] = r.roundTrips(t) - before
			}
			if trips[true]-trips[false] < lines {
				t.Errorf("%d lines: apply took %d round trips batched, %d one command per exchange; want at least one round trip fewer per line", lines, trips[false], trips[true])
			}
			// Log in, read, checkpoint, the push's groups, no
			// checkpoint, log out.
			if trips[false] > 12 {
				t.Errorf("%d lines: apply took %d round trips, want at most 12", lines, trips[false])
			}
		})
	}
}
