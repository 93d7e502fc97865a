package gnmi

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
	"github.com/rocefabric/roce/providers/gnmi/profiles"
)

// QueueShare reads the egress bandwidth share of the queue carrying
// priority, for roce-verify's lab path model (docs/verify.md, "Queue
// share"). Only the arista profile renders a weight (the
// arista-qos-augments `bandwidth` of roce's queue); the other profiles
// render none, so the share is the switch's default and reported unknown
// (percent 0, with why).
func (t *target) QueueShare(ctx context.Context, priority int) (percent int, where string, err error) {
	if err := t.connect(ctx); err != nil {
		return 0, "", err
	}
	if t.prof.Name() != policies.ProfileArista {
		return 0, "the " + t.prof.Name() + " profile renders no scheduler weight for the class's queue, so it keeps the switch's default share", nil
	}
	class := ""
	for _, c := range t.classes {
		if c.Priority == priority && c.Match.Kind != policies.MatchAll {
			class = c.Name
		}
	}
	if class == "" {
		return 0, fmt.Sprintf("no lossless class of this switch is on priority %d", priority), nil
	}
	q := profiles.Prefix + class
	ls, err := t.getAll(ctx, "openconfig", "/qos/queues/queue[name="+gpath.EscapeKey(q)+"]/config")
	if err != nil {
		return 0, "", fmt.Errorf("%s: reading queue %s: %w", t.Address(), q, err)
	}
	for _, l := range ls {
		if len(l.Path) == 0 || !strings.HasSuffix(l.Path[len(l.Path)-1].Name, "bandwidth") {
			continue
		}
		s, err := gpath.ScalarString(l.Value)
		if err != nil {
			return 0, "", fmt.Errorf("%s: queue %s bandwidth: %w", t.Address(), q, err)
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 || n > 100 {
			return 0, "", fmt.Errorf("%s: queue %s bandwidth %q is not a percentage", t.Address(), q, s)
		}
		return n, "queue " + q + " bandwidth (arista-qos-augments)", nil
	}
	return 0, "queue " + q + " has no bandwidth set: the switch's default share", nil
}
