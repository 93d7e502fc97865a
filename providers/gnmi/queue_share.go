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
// share"). Where the weight lives is the profile's knowledge
// (profiles.QueueWeighter); a profile that renders none leaves the switch's
// default share, reported unknown (percent 0, with why).
func (t *target) QueueShare(ctx context.Context, priority int) (percent int, where string, err error) {
	if err := t.connect(ctx); err != nil {
		return 0, "", err
	}
	qw, ok := t.prof.(profiles.QueueWeighter)
	if !ok {
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
	origin, container, leaf, what, ok := qw.QueueWeight(class)
	if !ok {
		return 0, "the " + t.prof.Name() + " profile renders no scheduler weight for the class's queue, so it keeps the switch's default share", nil
	}
	ls, err := t.getAll(ctx, origin, container)
	if err != nil {
		return 0, "", fmt.Errorf("%s: reading %s: %w", t.Address(), what, err)
	}
	for _, l := range ls {
		if len(l.Path) == 0 || !strings.HasSuffix(l.Path[len(l.Path)-1].Name, leaf) {
			continue
		}
		s, err := gpath.ScalarString(l.Value)
		if err != nil {
			return 0, "", fmt.Errorf("%s: %s: %w", t.Address(), what, err)
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 || n > 100 {
			return 0, "", fmt.Errorf("%s: %s %q is not a percentage", t.Address(), what, s)
		}
		return n, what, nil
	}
	return 0, what + " is not set: the switch's default share", nil
}
