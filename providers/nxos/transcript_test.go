package nxos

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

var (
	checkpointRe = regexp.MustCompile(`roce-\d{8}T\d{6}Z-[0-9a-f]{6}`)
	timeRe       = regexp.MustCompile(`(?m)^!Time: .*$`)
	savedAtRe    = regexp.MustCompile(`(?m)^!Startup config saved at: .*$`)
	createdRe    = regexp.MustCompile(`(?m)^Created at .*$`)
	uptimeRe     = regexp.MustCompile(`(?m)^Kernel uptime is .*$`)
	lastResetRe  = regexp.MustCompile(`(?m)^Last reset at \d+ usecs after  .*$`)
)

// TestApplyTranscriptGolden records the whole exchange of one apply and one
// rollback (checkpoint name and times normalised) so a reviewer can read
// exactly what the provider sends and what it gets back.
func TestApplyTranscriptGolden(t *testing.T) {
	for _, tc := range []struct {
		name, kind, start, reject string
	}{
		{name: "n5k-fcoe-applied", kind: "nexus5000", start: "fcoe-defaults"},
		{name: "n7k-empty-rolledback", kind: "nexus7000", start: "empty", reject: "priority-flow-control mode on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{kind: tc.kind, start: tc.start})
			tp := r.plan(t)
			if tc.reject != "" {
				r.srv.Switch().SetFaults(nxsim.Faults{RejectCommand: tc.reject})
			}
			res, _ := r.apply(t, tp)
			want := plan.StatusApplied
			if tc.reject != "" {
				want = plan.StatusRolledBack
			}
			if res.Status != want {
				t.Fatalf("status %s, want %s", res.Status, want)
			}
			got := res.Status + "\n" + transcriptText(res.Transcript)
			got = checkpointRe.ReplaceAllString(got, "roce-CHECKPOINT")
			got = timeRe.ReplaceAllString(got, "!Time: TIME")
			got = savedAtRe.ReplaceAllString(got, "!Startup config saved at: TIME")
			got = createdRe.ReplaceAllString(got, "Created at TIME")
			got = uptimeRe.ReplaceAllString(got, "Kernel uptime is UPTIME")
			got = lastResetRe.ReplaceAllString(got, "Last reset at TIME")
			path := filepath.Join("testdata", "golden", tc.name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if string(b) != got {
				t.Errorf("transcript differs from %s (run with -update after review):\n%s", path, got)
			}
		})
	}
}
