package nexus

import (
	"strings"
	"testing"
)

// Render pushes a new network-qos (5000) or queuing class-map with
// match-all, a form no public capture shows for those types; the plan
// says so, citing docs/nxos.md#class-map-match, for exactly the types it
// pushes. If Render stops pushing match-all there, this test fails so the
// warning goes with it.
func TestUnconfirmedClassMapMatchAll(t *testing.T) {
	tests := []struct {
		kind  string
		types []string // class-map types Render creates with match-all
		want  string
	}{
		{"nexus5000", []string{TypeNetworkQoS, TypeQueuing}, "nexus5000: new network-qos and queuing class-maps are pushed as 'class-map type … match-all NAME'"},
		{"nexus7000", []string{TypeQueuing}, "nexus7000: new queuing class-maps are pushed as 'class-map type … match-all NAME'"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			in := intentFor(t, tt.kind, "cos", "empty")
			_, _, script := renderDiff(t, in, loadStart(t, tt.kind, "empty"))
			pushed := strings.Join(script, "\n")
			for _, typ := range tt.types {
				if !strings.Contains(pushed, "class-map type "+typ+" match-all ") {
					t.Fatalf("Render no longer pushes a %s class-map with match-all; drop or change the warning:\n%s", typ, pushed)
				}
			}
			var hit []string
			for _, w := range Unconfirmed(in) {
				if strings.Contains(w, "match-all NAME") {
					hit = append(hit, w)
				}
			}
			if len(hit) != 1 || !strings.HasPrefix(hit[0], tt.want) || !strings.Contains(hit[0], "UNCONFIRMED (docs/nxos.md#class-map-match)") {
				t.Fatalf("warnings %q, want one starting %q citing docs/nxos.md#class-map-match", hit, tt.want)
			}
		})
	}
	// No lossless class, no class-map pushed: no warning.
	in := intentFor(t, "nexus5000", "all", "empty")
	for _, w := range Unconfirmed(in) {
		if strings.Contains(w, "match-all NAME") {
			t.Errorf("all-traffic intent pushes no class-map, but warns: %s", w)
		}
	}
}
