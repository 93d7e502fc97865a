package gnmi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

type queueShareReader interface {
	QueueShare(ctx context.Context, priority int) (int, string, error)
}

// TestQueueShare: after the apply, an Arista target reports the bandwidth
// roce set on the class's queue; the profiles that render no scheduler
// weight report the share unknown and say why; a priority without a class
// is unknown too.
func TestQueueShare(t *testing.T) {
	for _, tc := range []struct {
		profile string
		want    int
		where   string
	}{
		{"arista", 40, "queue ROCE-cos3 bandwidth"},
		{"sonic", 0, "the sonic profile renders no scheduler weight"},
		{"srlinux", 0, "the srlinux profile renders no scheduler weight"},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			c := cosClass()
			c.BandwidthPercent = 40
			l := newLab(t, gnmisim.Options{Profile: tc.profile}, c)
			tg := l.target(t, gnmi.Options{})
			ctx := ctxT(t)
			planApply(ctx, t, tg)
			qs := tg.(queueShareReader)
			pct, where, err := qs.QueueShare(ctx, 3)
			if err != nil || pct != tc.want || !strings.HasPrefix(where, tc.where) {
				t.Errorf("QueueShare(3) = %d %q %v, want %d %q", pct, where, err, tc.want, tc.where)
			}
			if tc.profile == "arista" {
				if pct, where, err := qs.QueueShare(ctx, 5); err != nil || pct != 0 || !strings.Contains(where, "no lossless class") {
					t.Errorf("QueueShare(5) = %d %q %v, want unknown: no class there", pct, where, err)
				}
			}
		})
	}
}
