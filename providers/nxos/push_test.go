package nxos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
)

// scaleRig is a Nexus 5000 like the scale benchmark's: its start
// configuration, four managed ports, FCoE, its RoCE v2 class: a 47-line
// script.
func scaleRig(t *testing.T) *rig {
	t.Helper()
	return newRig(t, rigOpts{kind: "nexus5000", start: "scale", mode: "scale",
		ifaces: []string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"}})
}

// TestErrorInLine30Of47LeavesTheSwitchUnchanged is issue 19's case: the
// pipelined push of 47 lines meets a refusal in line 30; the apply rolls
// back, the running configuration is byte-identical to before, and the
// report names line 30 of 47 with the switch's answer.
func TestErrorInLine30Of47LeavesTheSwitchUnchanged(t *testing.T) {
	r := scaleRig(t)
	tp := r.plan(t)
	if len(tp.Commands) != 47 {
		t.Fatalf("the scale switch's script has %d lines, want 47:\n%s", len(tp.Commands), strings.Join(tp.Commands, "\n"))
	}
	bad := strings.TrimSpace(tp.Commands[29])
	for i, l := range tp.Commands {
		if i != 29 && strings.TrimSpace(l) == bad {
			t.Fatalf("line 30 %q also appears as line %d: the fault would hit that one first", bad, i+1)
		}
	}
	if !r.target.planPush(mustRead(t, r), tp.Commands).pipelined {
		t.Fatal("the scale switch's push is not pipelined")
	}
	_, err := r.applyRejecting(t, tp, bad)
	want := fmt.Sprintf("line 30 of 47: %s: ", bad)
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "% Invalid command") {
		t.Errorf("error does not name %q with the switch's answer: %v", want, err)
	}
}

// openConn opens a session to the rig's switch the way the target does;
// the caller closes it.
func openConn(t testing.TB, ctx context.Context, r *rig) *conn {
	t.Helper()
	dl, _, err := r.target.dialer()
	if err != nil {
		t.Fatal(err)
	}
	c, err := dl.open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mustRead reads the rig's switch as an apply starts.
func mustRead(t *testing.T, r *rig) *state {
	t.Helper()
	c := openConn(t, t.Context(), r)
	defer c.close()
	st, err := r.target.readLive(c)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestPipelinedApplyRoundTrips counts an apply's round trips on the
// simulator: pipelined, log in + read + checkpoint turn + one per push
// group + `no checkpoint` + log out (written without waiting for an
// answer, but counted as a turn); with ROCE_NXOS_PUSH=line, about one per
// line more.
func TestPipelinedApplyRoundTrips(t *testing.T) {
	for _, tc := range []struct{ kind, start, mode string }{
		{"nexus5000", "scale", "scale"},
		{"nexus5000", "fcoe-defaults", "cos"},
		{"nexus7000", "empty", "cos"},
	} {
		t.Run(tc.kind+"/"+tc.start, func(t *testing.T) {
			trips := map[string]int{}
			var lines, groups int
			for _, push := range []string{"pipelined", "line"} {
				o := rigOpts{kind: tc.kind, start: tc.start, mode: tc.mode}
				if tc.start == "scale" {
					o.ifaces = []string{"Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"}
				}
				r := newRig(t, o)
				get := r.target.env.Getenv
				r.target.env.Getenv = func(k string) (string, bool) {
					if k == envPush {
						return push, true
					}
					return get(k)
				}
				tp := r.plan(t)
				lines = len(tp.Commands)
				if push == "pipelined" {
					groups = r.target.planPush(mustRead(t, r), tp.Commands).groups(lines)
				}
				before := r.roundTrips(t)
				res, err := r.apply(t, tp)
				if err != nil || res.Status != plan.StatusApplied {
					t.Fatalf("%s: %s %v\n%s", push, res.Status, err, transcriptText(res.Transcript))
				}
				trips[push] = r.roundTrips(t) - before
				if again := r.plan(t); again.HasChanges() {
					t.Fatalf("%s: a second plan is not empty: %v", push, again.Commands)
				}
			}
			t.Logf("%d lines in %d groups: %d round trips pipelined, %d line by line", lines, groups, trips["pipelined"], trips["line"])
			if want := 5 + groups; trips["pipelined"] > want {
				t.Errorf("pipelined: %d round trips, want at most %d (5 + %d groups)", trips["pipelined"], want, groups)
			}
			if trips["line"]-trips["pipelined"] < lines-groups {
				t.Errorf("line by line %d, pipelined %d: want at least %d fewer", trips["line"], trips["pipelined"], lines-groups)
			}
		})
	}
}

// TestEachDistinctLineRejectedInTurn rejects every distinct line of the
// 47-line pipelined push in turn (mode-entering lines included, whose
// refusal leaves the session where it was): each time the apply must roll
// back to a byte-identical running configuration, leave no checkpoint, and
// name the first occurrence of the line as "line N of 47".
func TestEachDistinctLineRejectedInTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite skipped in -short mode")
	}
	probe := scaleRig(t)
	lines := probe.plan(t).Commands
	seen := map[string]bool{}
	for i, l := range lines {
		bad := strings.TrimSpace(l)
		if seen[bad] {
			continue
		}
		seen[bad] = true
		r := scaleRig(t)
		tp := r.plan(t)
		before := r.srv.Switch().RunningConfig()
		r.srv.Switch().SetFaults(nxsim.Faults{RejectCommand: bad})
		res, err := r.apply(t, tp)
		if res.Status != plan.StatusRolledBack || err == nil {
			t.Fatalf("line %d %q rejected: status %s err %v\n%s", i+1, bad, res.Status, err, transcriptText(res.Transcript))
		}
		if want := fmt.Sprintf("line %d of %d: %s: ", i+1, len(lines), bad); !strings.Contains(err.Error(), want) {
			t.Errorf("line %d rejected: error does not say %q: %v", i+1, want, err)
		}
		if after := r.srv.Switch().RunningConfig(); after != before {
			t.Errorf("line %d %q rejected: running config changed", i+1, bad)
		}
		if cps := r.srv.Switch().Checkpoints(); len(cps) != 0 {
			t.Errorf("line %d rejected: checkpoints left: %v", i+1, cps)
		}
	}
}

// TestEditAfterTheReadBacksOff: someone changes the switch after the
// apply's read and before its checkpoint. The checkpoint turn's re-read
// sees it; the apply backs off from configuration mode (entered in that
// same turn) without pushing a line, removes its checkpoint and reports
// stale.
func TestEditAfterTheReadBacksOff(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus5000", start: "fcoe-defaults"})
	tp := r.plan(t)
	var once sync.Once
	r.target.now = func() time.Time {
		once.Do(func() { applyByHand(t, r, []string{"interface Ethernet1/1", "priority-flow-control mode off"}) })
		return time.Now()
	}
	res, err := r.apply(t, tp)
	edited := r.srv.Switch().RunningConfig()
	if res.Status != plan.StatusStale || !errors.Is(err, plan.ErrStale) || !strings.Contains(err.Error(), "changed while the apply was starting") {
		t.Fatalf("status %s err %v\n%s", res.Status, err, transcriptText(res.Transcript))
	}
	if !strings.Contains(edited, "priority-flow-control mode off") {
		t.Fatalf("the edit is not on the switch:\n%s", edited)
	}
	for _, l := range tp.Commands {
		if findCommand(res.Transcript, l) != "" && !strings.HasPrefix(l, "show") {
			t.Errorf("line %q was sent although the apply backed off", l)
		}
	}
	if cps := r.srv.Switch().Checkpoints(); len(cps) != 0 {
		t.Errorf("checkpoints left: %v\n%s", cps, transcriptText(res.Transcript))
	}
}

// TestLongGroupsAreSplit: a group longer than maxPaste bytes is written in
// pieces of at most maxPaste bytes (a single longer line alone), in order,
// covering every line once.
func TestLongGroupsAreSplit(t *testing.T) {
	long := strings.Repeat("x", maxPaste)
	lines := []string{"interface Ethernet1/1", long, "description a", strings.Repeat("d", maxPaste/2), strings.Repeat("e", maxPaste/2), "end"}
	p := pushPlan{pipelined: true, push: &nexus.Push{Lines: lines, From: []int{0, 1, 2, 3, 4, 5}}}
	got := p.groupRanges()
	want := [][2]int{{0, 1}, {1, 2}, {2, 4}, {4, 6}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups %v, want %v", got, want)
	}
	if p.groups(len(lines)) != len(want) {
		t.Errorf("groups() %d, want %d", p.groups(len(lines)), len(want))
	}
}
