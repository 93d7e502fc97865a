package nxos

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestQueueShareAfterApply: before roce applies, a 7000 runs its default
// egress queuing (share unknown, said why) and a 5000 its default-out-policy
// (class-default 100 %); after the apply both report the share roce pinned
// for the class's CoS, from the queuing class roce rendered.
func TestQueueShareAfterApply(t *testing.T) {
	for _, tc := range []struct {
		kind       string
		before     int
		beforeText string
	}{
		{"nexus7000", 0, "default egress policy"},
		{"nexus5000", 100, "default-out-policy class class-default"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			r := newRig(t, rigOpts{kind: tc.kind, start: "empty"})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			pct, where, err := r.target.QueueShare(ctx, 4)
			if err != nil || pct != tc.before || !strings.Contains(where, tc.beforeText) {
				t.Fatalf("before the apply: %d%% %q %v, want %d%% %q", pct, where, err, tc.before, tc.beforeText)
			}
			if res, err := r.apply(t, r.plan(t)); err != nil {
				t.Fatalf("apply: %s %v", res.Status, err)
			}
			pct, where, err = r.target.QueueShare(ctx, 4)
			if err != nil || pct <= 0 || pct >= 100 || !strings.HasPrefix(where, "ROCE-QUEUING-OUT class ROCE-") {
				t.Errorf("after the apply: %d%% %q %v, want roce's share from ROCE-QUEUING-OUT", pct, where, err)
			}
		})
	}
}
