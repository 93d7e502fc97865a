package gnmi

import (
	"context"
	"fmt"

	"github.com/rocefabric/roce/providers/gnmi/profiles"
)

// readFirst reads the config a profile renders from (profiles.CurrentReader:
// the sonic profile merges with the port's QoS maps), one Get per
// container; nil for a profile that renders from the classes alone.
func (t *target) readFirst(ctx context.Context) (profiles.Current, error) {
	cr, ok := t.prof.(profiles.CurrentReader)
	if !ok {
		return nil, nil
	}
	cur := profiles.Current{}
	for _, c := range cr.ReadFirst(t.sw.Interfaces) {
		leaves, err := t.getLeaves(ctx, c.Origin, c.Container)
		if err != nil {
			return nil, fmt.Errorf("reading the current config before rendering: %w", err) // getLeaves names the switch and path
		}
		for _, l := range leaves {
			cur[l.Path.String()] = fmt.Sprint(l.Value)
		}
	}
	return cur, nil
}

// render renders the switch's classes, onto cur for a profile that reads
// the current config first.
func (t *target) render(cur profiles.Current) (*profiles.Desired, error) {
	in := profiles.Input{Switch: t.sw.Name, Interfaces: t.sw.Interfaces, Classes: t.classes}
	if cr, ok := t.prof.(profiles.CurrentReader); ok {
		return cr.RenderCurrent(in, cur)
	}
	return t.prof.Render(in)
}
