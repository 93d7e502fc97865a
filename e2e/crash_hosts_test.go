package e2e

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/internal/lab"
	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/plan"
)

// The kill-9 matrix over the whole lab fabric, hosts included: roce-apply
// killed right after the canary switch is done and before its hosts are
// touched (between a switch and its hosts), and at random instants of the
// batch where switches and hosts apply in parallel. After each kill and
// -recover, a fresh read of every target finds it either fully as planned
// (no changes left) or exactly as it was before the run (the fingerprint
// read before it) — never in between.
func TestCrashMatrixFabricWithHosts(t *testing.T) {
	testenv.Root(t, "the lab hosts run in network namespaces")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 99))
	d := time.Duration(rng.Int64N(int64(time.Second)))
	type point struct {
		name string
		// cond is polled; canaryDone is when the canary switch finished.
		cond func(l *lab.Lab, canaryDone time.Time) bool
	}
	for _, pt := range []point{
		{"between the canary switch and its hosts", func(*lab.Lab, time.Time) bool { return true }},
		{"while a gNMI commit is pending in the batch", func(l *lab.Lab, _ time.Time) bool { return l.Targets["eos-1"].Target().CommitPending() }},
		{d.Round(time.Millisecond).String() + " into the batch", func(_ *lab.Lab, at time.Time) bool { return time.Since(at) >= d }},
	} {
		t.Run(pt.name, func(t *testing.T) {
			l := startLab(t)
			canary := l.Sims["n5k-1"].Switch()
			pre := readFingerprints(t, l)
			canaryBefore := canary.RunningConfig()
			var canaryDone time.Time
			run := startRoce(t, l, nil, "roce-apply", "-auto-approve", l.Dir)
			killed := run.killWhen(t, func() bool {
				if canaryDone.IsZero() {
					if canary.RunningConfig() == canaryBefore || len(roceCheckpoints(canary)) > 0 {
						return false
					}
					canaryDone = time.Now()
				}
				return pt.cond(l, canaryDone)
			})
			ins, err := plan.ReadJournal(journalDir(l.Dir))
			if err != nil {
				t.Fatal(err)
			}
			r := roce(t, l, "", "roce-plan", l.Dir)
			if len(ins) > 0 && (r.code != 1 || !strings.Contains(r.stderr, "interrupted")) {
				t.Fatalf("roce-plan must report the interrupted apply\n%s", r)
			}
			rec := roce(t, l, "", "roce-apply", "-recover", l.Dir)
			if rec.code != 0 {
				t.Fatalf("-recover\n%s", rec)
			}
			post := readPlan(t, l)
			var applied, before []string
			for _, tp := range post.Targets {
				switch {
				case tp.Error != "":
					t.Fatalf("%s cannot be read after recovery: %s", tp.Address, tp.Error)
				case !tp.HasChanges():
					applied = append(applied, tp.Address)
				case pre[tp.Address] != "" && tp.Fingerprint == pre[tp.Address]:
					before = append(before, tp.Address)
				default:
					t.Fatalf("(killed %v): %s is neither fully applied nor exactly as before the run\n%s", killed, tp.Address, rec)
				}
			}
			var names []string
			for _, in := range ins {
				names = append(names, in.Entry.Address)
			}
			t.Logf("killed %v; interrupted %v; afterwards as planned: %v; as before: %v", killed, names, applied, before)
			if r := roce(t, l, "", "roce-apply", "-auto-approve", l.Dir); r.code != 0 {
				t.Fatalf("normal apply after the kill\n%s", r)
			}
			if r := roce(t, l, "", "roce-plan", "-detailed-exitcode", l.Dir); r.code != 0 {
				t.Fatalf("the plan after the normal apply must be empty\n%s", r)
			}
		})
	}
}

// readPlan reads the whole fabric as roce-plan -json does.
func readPlan(t *testing.T, l *lab.Lab) *plan.Plan {
	t.Helper()
	r := roce(t, l, "", "roce-plan", "-json", l.Dir)
	var p plan.Plan
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatalf("roce-plan -json: %v\n%s", err, r)
	}
	return &p
}

// readFingerprints maps each target that still has changes to the
// fingerprint of its current state.
func readFingerprints(t *testing.T, l *lab.Lab) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tp := range readPlan(t, l).Targets {
		if tp.HasChanges() {
			out[tp.Address] = tp.Fingerprint
		}
	}
	return out
}
