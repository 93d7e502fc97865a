package nexus

import (
	"slices"
	"testing"

	"github.com/rocefabric/roce/platforms"
)

// TestCapabilityNoDropSetsMatchTemplates keeps the capability table's
// Nexus 7000 no-drop CoS sets (which validation checks priorities against,
// as policies cannot import nexus) equal to the template table Render
// chooses from, in the same order: the two cannot drift.
func TestCapabilityNoDropSetsMatchTemplates(t *testing.T) {
	caps, ok := platforms.Default().Lookup("nexus7000", "")
	if !ok {
		t.Fatal("no nexus7000 row")
	}
	var want []platforms.CoSSet
	for _, tpl := range NQTemplates() {
		if nd := tpl.NoDropCoS(); len(nd) > 0 {
			want = append(want, platforms.CoSSet{Template: tpl.Name, CoS: nd})
		}
	}
	got := caps.NoDropCoSSets
	if !slices.EqualFunc(got, want, func(a, b platforms.CoSSet) bool {
		return a.Template == b.Template && slices.Equal(a.CoS, b.CoS)
	}) {
		t.Errorf("platforms nexus7000 NoDropCoSSets = %v, but nexus.NQTemplates() makes no-drop %v; update platforms/capabilities.go", got, want)
	}
	// Validation and Render agree on every CoS set a switch can need.
	for bits := 1; bits < 256; bits++ {
		var need []int
		for c := 0; c < 8; c++ {
			if bits&(1<<c) != 0 {
				need = append(need, c)
			}
		}
		_, fits := caps.NoDropFits(need)
		_, err := ChooseNQTemplate(need)
		if fits != (err == nil) {
			t.Errorf("CoS %v: capability table says fits=%v, ChooseNQTemplate err=%v", need, fits, err)
		}
	}
	if n5k, _ := platforms.Default().Lookup("nexus5000", ""); n5k.NoDropCoSSets != nil {
		t.Error("nexus5000 has no network-qos templates; NoDropCoSSets must be nil")
	}
}
