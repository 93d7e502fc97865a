package nexus

import (
	"slices"
	"strconv"

	"github.com/rocefabric/roce/policies"
)

// render7000 builds the Nexus 7000 network-qos: a copy of the default-nq-*
// template whose no-drop CoS cover what the classes need (reference §2.3),
// with the classes' MTU set on the no-drop template classes, attached under
// system qos (default VDC, reference §2.4). Classification is by CoS only
// (platforms.Capabilities.CoSOnly): hosts mark the PCP.
func (r *renderer) render7000() error {
	var need []int
	mtu := map[int]int{}
	for _, c := range r.in.Classes {
		if c.Match.Kind == policies.MatchAll {
			continue
		}
		need = append(need, c.Priority)
		mtu[c.Priority] = max(mtu[c.Priority], c.MTU)
	}
	if len(need) == 0 {
		r.attach(nil)
		return nil
	}
	if r.in.FCoE {
		need = append(need, r.p.Caps.FCoECoS)
	}
	slices.Sort(need)
	need = slices.Compact(need)
	tpl, err := ChooseNQTemplate(need)
	if err != nil {
		return err
	}
	name := tpl.CopyName(r.prefix)
	want := tpl.policy(name)
	for i, tc := range tpl.Classes {
		if !tc.NoDrop {
			continue
		}
		m := 0
		for _, cos := range tc.CoS {
			m = max(m, mtu[cos])
		}
		if m > 0 {
			want.Classes[i].Actions = setLine(want.Classes[i].Actions, "mtu", "mtu "+strconv.Itoa(m))
		}
	}
	r.put(r.policy(TypeNetworkQoS, name, want.Classes))
	r.attach([]ServicePolicy{{Type: TypeNetworkQoS, Name: name}})
	return nil
}
