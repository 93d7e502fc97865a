package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/internal/cli"
	"github.com/rocefabric/roce/internal/lab"
	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// The fault suite: for every switch platform, a fault at every position of
// an apply. Afterwards each device is either exactly as before (and the
// report says rolled-back) or fully in the desired state (and the report
// says applied) — never anything in between.

func labEngine(t *testing.T, l *lab.Lab, timeout time.Duration, env ...string) (*plan.Engine, *policies.Fabric) {
	t.Helper()
	fab, src, diags := policies.Load(l.Dir, policies.LoadOptions{VarFiles: []string{l.VarFile()}, Getenv: os.LookupEnv})
	if diags.HasErrors() {
		var b strings.Builder
		_ = src.WriteDiagnostics(&b, diags, false)
		t.Fatalf("lab policy:\n%s", b.String())
	}
	getenv := func(k string) (string, bool) {
		for i := 0; i+1 < len(env); i += 2 {
			if env[i] == k {
				return env[i+1], true
			}
		}
		return os.LookupEnv(k)
	}
	return &plan.Engine{
		Registry:    cli.Registry(),
		Env:         plan.Env{Fabric: fab, Getenv: getenv, Timeout: timeout},
		Parallelism: 4,
	}, fab
}

// oneTarget plans a single switch and returns its target and plan.
func oneTarget(t *testing.T, eng *plan.Engine, fab *policies.Fabric, addr string) (plan.BoundTarget, *plan.Plan) {
	t.Helper()
	ts, err := eng.Targets(fab, []string{addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plan.CloseAll(ts) })
	p := eng.Plan(context.Background(), ts)
	if tp := p.Targets[0]; tp.Error != "" || !tp.HasChanges() {
		t.Fatalf("%s: want a plan with changes, got error %q, %d changes", addr, tp.Error, len(tp.Changes))
	}
	return ts[0], p
}

func applyOnce(t *testing.T, eng *plan.Engine, bt plan.BoundTarget, p *plan.Plan) *plan.ApplyResult {
	t.Helper()
	rs, err := eng.Apply(context.Background(), p, []plan.BoundTarget{bt}, plan.RolloutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rs[0]
}

func TestFaultSuiteNexus(t *testing.T) {
	l := startLab(t)
	for _, name := range []string{"n5k-1", "n7k-1"} {
		t.Run(name, func(t *testing.T) {
			sim := l.Sims[name].Switch()
			before := sim.RunningConfig()
			eng, fab := labEngine(t, l, 0)
			bt, p := oneTarget(t, eng, fab, "switch."+name)
			cmds := p.Targets[0].Commands

			// A rejected command at every position (each distinct line; a
			// repeated line is rejected at its first occurrence).
			seen := map[string]bool{}
			for i, c := range cmds {
				if seen[c] {
					continue
				}
				seen[c] = true
				sim.SetFaults(nxsim.Faults{RejectCommand: strings.TrimSpace(c)})
				res := applyOnce(t, eng, bt, p)
				if res.Status != plan.StatusRolledBack {
					t.Fatalf("reject at command %d %q: status %q (%s), want rolled-back", i+1, c, res.Status, res.Error)
				}
				if got := sim.RunningConfig(); got != before {
					t.Fatalf("reject at command %d %q: the switch is not exactly as before", i+1, c)
				}
				// The push is pipelined (docs/nxos.md#pipelined): the
				// report still names the refused line and its place.
				if want := fmt.Sprintf("line %d of %d: %s: ", i+1, len(cmds), strings.TrimSpace(c)); !strings.Contains(res.Error, want) {
					t.Fatalf("reject at command %d: the report does not say %q: %s", i+1, want, res.Error)
				}
			}
			t.Logf("%s: rejected each of %d distinct commands in turn; always rolled back exactly", name, len(seen))

			// A command that never answers, past the operation timeout, at
			// the first, a middle and the last position.
			short, _ := labEngine(t, l, 2*time.Second)
			sbt, _ := oneTarget(t, short, fab, "switch."+name)
			for _, i := range []int{0, len(cmds) / 2, len(cmds) - 1} {
				sim.SetFaults(nxsim.Faults{StallCommand: strings.TrimSpace(cmds[i])})
				res := applyOnce(t, short, sbt, p)
				if res.Status != plan.StatusRolledBack {
					t.Fatalf("stall at command %d %q: status %q (%s), want rolled-back", i+1, cmds[i], res.Status, res.Error)
				}
				if got := sim.RunningConfig(); got != before {
					t.Fatalf("stall at command %d: the switch is not exactly as before", i+1)
				}
			}

			// The connection dropped after every number of config lines
			// (the session's own mode lines count too, and so do the
			// policy-map headers a pipelined push writes again before
			// class lines, docs/nxos.md#pipelined: hence the margin):
			// either exactly as before, or fully applied.
			for n := 1; n <= 2*len(cmds)+8; n++ {
				sim.SetFaults(nxsim.Faults{DropAfterConfigLines: n})
				res := applyOnce(t, eng, bt, p)
				sim.SetFaults(nxsim.Faults{})
				got := sim.RunningConfig()
				switch res.Status {
				case plan.StatusRolledBack:
					if got != before {
						t.Fatalf("drop after %d lines: reported rolled-back but the config differs from before", n)
					}
				case plan.StatusApplied:
					again := eng.Plan(context.Background(), []plan.BoundTarget{bt})
					if again.Targets[0].HasChanges() {
						t.Fatalf("drop after %d lines: reported applied but a new plan still has changes", n)
					}
					t.Logf("%s: drops after 1..%d config lines all rolled back exactly; from %d lines on the apply completes", name, n-1, n)
					return // the rest of the positions need a fresh switch; applied is the end state
				default:
					t.Fatalf("drop after %d lines: status %q (%s)", n, res.Status, res.Error)
				}
			}
			t.Fatalf("the apply never succeeded, even with the drop after every command")
		})
	}
}

func TestFaultSuiteGNMI(t *testing.T) {
	l := startLab(t)
	for _, name := range []string{"eos-1", "sonic-1", "srl-1"} {
		t.Run(name, func(t *testing.T) {
			sim := l.Targets[name].Target()
			before := sim.ConfigJSON()
			// A short commit-confirmed window, so the target's own rollback
			// of an unconfirmed commit can be observed.
			eng, fab := labEngine(t, l, 0, "ROCE_GNMI_COMMIT_ROLLBACK", "2s")
			bt, p := oneTarget(t, eng, fab, "switch."+name)
			ops := p.Targets[0].Ops

			// The device rejects the SetRequest because of each operation in turn.
			for i, op := range ops {
				sim.SetFaults(gnmisim.Faults{RejectPath: op.Path})
				res := applyOnce(t, eng, bt, p)
				if res.Status != plan.StatusRolledBack && res.Status != plan.StatusFailed {
					t.Fatalf("reject of op %d %s: status %q, want a failure", i+1, op.Path, res.Status)
				}
				if !strings.Contains(res.Error, "Aborted") {
					t.Errorf("reject of op %d: the report does not carry the gNMI status: %q", i+1, res.Error)
				}
				if got := sim.ConfigJSON(); got != before {
					t.Fatalf("reject of op %d %s: the target changed", i+1, op.Path)
				}
			}

			// The connection dies right after the Set is accepted, before
			// the tool can verify and confirm: the target must end either as
			// before or fully applied, and the report must say which.
			sim.SetFaults(gnmisim.Faults{DropAfterSets: 1})
			res := applyOnce(t, eng, bt, p)
			sim.SetFaults(gnmisim.Faults{})
			deadline := time.Now().Add(20 * time.Second)
			for sim.CommitPending() && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond) // the unconfirmed commit's rollback timer runs
			}
			if sim.CommitPending() {
				t.Fatal("drop after Set: the commit is still pending after its rollback window")
			}
			got := sim.ConfigJSON()
			again := eng.Plan(context.Background(), []plan.BoundTarget{bt})
			switch {
			case got == before:
				if res.Status == plan.StatusApplied {
					t.Fatalf("drop after Set: reported applied but the target is as before")
				}
			case !again.Targets[0].HasChanges():
				if res.Status != plan.StatusApplied {
					t.Fatalf("drop after Set: the target is fully applied but the report says %q (%s)", res.Status, res.Error)
				}
			default:
				t.Fatalf("drop after Set: the target is neither as before nor fully applied (status %q, %s)", res.Status, res.Error)
			}
			t.Logf("%s: %d ops rejected in turn, unchanged each time; drop after Set → %s (%s)", name, len(ops), res.Status, res.Error)
		})
	}
}
