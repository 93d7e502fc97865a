package e2e

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// captureRecorder keeps what a provider records, to learn the
// compensating Set of an apply (the test uses it to reset the target).
type captureRecorder struct{ steps []plan.JournalStep }

func (c *captureRecorder) Record(step string, d map[string]string) error {
	c.steps = append(c.steps, plan.JournalStep{Step: step, Detail: d})
	return nil
}

// The kill-9 matrix for each gNMI profile: killed before the Set, while
// its commit-confirmed commit is pending (after the Set, before the
// confirm), and at random instants; -recover confirms a pending commit
// whose result reads as planned, otherwise cancels or compensates.
func TestCrashMatrixGNMI(t *testing.T) {
	l := startLab(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for _, name := range []string{"eos-1", "sonic-1", "srl-1"} {
		t.Run(name, func(t *testing.T) {
			addr := "switch." + name
			sim := l.Targets[name].Target()
			before := sim.ConfigJSON()

			// Apply once in-process to learn the compensating Set, which
			// puts the target back between kill points.
			eng, fab := labEngine(t, l, 0)
			bt, p := oneTarget(t, eng, fab, addr)
			rec := &captureRecorder{}
			res, err := bt.Target.Apply(plan.WithRecorder(context.Background(), rec), p.Targets[0])
			if err != nil || res.Status != plan.StatusApplied {
				t.Fatalf("clean apply: %v %+v", err, res)
			}
			after := sim.ConfigJSON()
			var revert *gpb.SetRequest
			for _, s := range rec.steps {
				if s.Step == "set-sent" {
					revert = &gpb.SetRequest{}
					if err := protojson.Unmarshal([]byte(s.Detail["revert"]), revert); err != nil {
						t.Fatal(err)
					}
				}
			}
			if revert == nil {
				t.Fatal("the apply recorded no set-sent step with its compensating Set")
			}
			reset := func() {
				t.Helper()
				if sim.ConfigJSON() == before {
					return
				}
				if _, err := sim.Set(context.Background(), revert); err != nil {
					t.Fatalf("resetting %s: %v", name, err)
				}
				if sim.ConfigJSON() != before {
					t.Fatal("the compensating Set did not restore the target")
				}
			}
			reset()
			planFile := filepath.Join(t.TempDir(), "plan.roce")
			if r := roce(t, l, "", "roce-plan", "-target", addr, "-out", planFile, l.Dir); r.code != 0 {
				t.Fatalf("plan\n%s", r)
			}
			const lat = 60 * time.Millisecond
			sim.SetFaults(gnmisim.Faults{Latency: lat})
			t0 := time.Now()
			if r := roce(t, l, "", "roce-apply", planFile); r.code != 0 {
				t.Fatalf("clean apply with latency\n%s", r)
			}
			took := time.Since(t0)
			reset()

			type point struct {
				name string
				cond func(start time.Time) bool
			}
			points := []point{
				{"before the Set", func(start time.Time) bool { return time.Since(start) >= lat }},
				{"while the commit is pending", func(time.Time) bool { return sim.CommitPending() }},
			}
			for k := 0; k < 2; k++ {
				d := time.Duration(rng.Int64N(int64(took)))
				points = append(points, point{"at " + d.Round(time.Millisecond).String(), func(start time.Time) bool { return time.Since(start) >= d }})
			}
			outcomes := map[string]int{}
			for _, pt := range points {
				reset()
				sim.SetFaults(gnmisim.Faults{Latency: lat})
				start := time.Now()
				run := startRoce(t, l, nil, "roce-apply", planFile)
				killed := run.killWhen(t, func() bool { return pt.cond(start) })
				sim.SetFaults(gnmisim.Faults{})
				afterKill(t, l, pt.name, killed, addr)
				if sim.CommitPending() {
					t.Fatalf("kill %s: a commit is still pending after recovery", pt.name)
				}
				switch got := sim.ConfigJSON(); got {
				case before:
					outcomes["before"]++
				case after:
					outcomes["after"]++
				default:
					t.Fatalf("kill %s: after recovery the target is neither exactly as before nor as planned", pt.name)
				}
			}
			t.Logf("%s: %d kills, recovered to %v", name, len(points), outcomes)

			// A pending commit left past its rollback window: the target
			// rolls itself back, and -recover finds it as before.
			reset()
			sim.SetFaults(gnmisim.Faults{Latency: lat})
			// (The rollback window is a setting the plan records, so this
			// run plans for itself.)
			run := startRoce(t, l, []string{"ROCE_GNMI_COMMIT_ROLLBACK=1s"}, "roce-apply", "-auto-approve", "-target", addr, l.Dir)
			if !run.killWhen(t, sim.CommitPending) {
				t.Fatal("the apply finished before its commit could be caught pending")
			}
			sim.SetFaults(gnmisim.Faults{})
			deadline := time.Now().Add(30 * time.Second)
			for sim.CommitPending() && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			afterKill(t, l, "commit expired", true, addr)
			if sim.ConfigJSON() != before {
				t.Fatal("after the commit's own rollback, recovery must leave the target as before")
			}
			if r := roce(t, l, "", "roce-apply", "-auto-approve", "-target", addr, l.Dir); r.code != 0 {
				t.Fatalf("normal apply after the matrix\n%s", r)
			}
			if r := roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", addr, l.Dir); r.code != 0 || !strings.Contains(r.stdout, "No changes") {
				t.Fatalf("the plan after the normal apply must be empty\n%s", r)
			}
		})
	}
}
