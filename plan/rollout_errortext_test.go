package plan

import (
	"context"
	"errors"
	"testing"
)

// An apply error names the target once: the report shows it under the
// address, so the provider's "switch.NAME: " in front is dropped; an error
// that does not start with the address is kept as it is.
func TestApplyErrorNamesTargetOnce(t *testing.T) {
	for _, tc := range []struct{ err, want string }{
		{"switch.a: connect to 10.0.0.1:22 (nothing was sent): TCP connect: connection refused", "connect to 10.0.0.1:22 (nothing was sent): TCP connect: connection refused"},
		{"the switch refused line 1 of 2: x", "the switch refused line 1 of 2: x"},
		{"switch.ab: not this target's prefix", "switch.ab: not this target's prefix"},
	} {
		tg := &funcTarget{addr: "switch.a", apply: func(context.Context, *TargetPlan) (*ApplyResult, error) {
			return nil, errors.New(tc.err)
		}}
		p := &Plan{Targets: []*TargetPlan{{Address: "switch.a", Changes: []Change{{Action: ActionCreate}}}}}
		rs, err := (&Engine{}).Apply(context.Background(), p, []BoundTarget{{Address: "switch.a", Target: tg}}, RolloutOptions{})
		must(t, err)
		if rs[0].Status != StatusFailed || rs[0].Error != tc.want {
			t.Errorf("error %q: result %s %q, want failed %q", tc.err, rs[0].Status, rs[0].Error, tc.want)
		}
	}
}
