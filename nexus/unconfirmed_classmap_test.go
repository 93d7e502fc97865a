package nexus

import (
	"strings"
	"testing"
)

// Render creates network-qos (5000) and queuing class-maps with no match
// keyword, as every capture prints them, and type qos ones with match-all
// (docs/nxos.md#class-map-match); an existing class-map keeps the keyword
// the switch echoes, so an earlier roce's match-all stays as it is.
func TestClassMapMatchKeyword(t *testing.T) {
	for _, tt := range []struct {
		kind  string
		types []string // class-map types Render creates without a keyword
	}{
		{"nexus5000", []string{TypeNetworkQoS, TypeQueuing}},
		{"nexus7000", []string{TypeQueuing}},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			in := intentFor(t, tt.kind, "cos", "empty")
			_, _, script := renderDiff(t, in, loadStart(t, tt.kind, "empty"))
			pushed := strings.Join(script, "\n")
			for _, typ := range tt.types {
				if !strings.Contains(pushed, "class-map type "+typ+" ROCE-") {
					t.Errorf("no %s class-map pushed without a match keyword:\n%s", typ, pushed)
				}
				for _, kw := range []string{"match-all", "match-any"} {
					if strings.Contains(pushed, "class-map type "+typ+" "+kw) {
						t.Errorf("a %s class-map pushed with %s:\n%s", typ, kw, pushed)
					}
				}
			}
			for _, w := range Unconfirmed(in) {
				if strings.Contains(w, "match-all") {
					t.Errorf("a warning about match-all remains: %s", w)
				}
			}
		})
	}
	// An existing class-map keeps its echoed keyword: no change to push.
	cur, err := Parse("class-map type queuing match-all ROCE-rdma\n  match cos 4\n")
	if err != nil {
		t.Fatal(err)
	}
	r := &renderer{cur: cur}
	if o := r.classMap(TypeQueuing, "ROCE-rdma", []string{"match cos 4"}); o.Match != "match-all" {
		t.Errorf("an existing match-all queuing class-map rendered with %q", o.Match)
	}
	if o := r.classMap(TypeQueuing, "ROCE-new", []string{"match cos 4"}); o.Match != "" {
		t.Errorf("a new queuing class-map rendered with %q", o.Match)
	}
	if o := r.classMap(TypeQoS, "ROCE-new", []string{"match cos 4"}); o.Match != "match-all" {
		t.Errorf("a new type qos class-map rendered with %q", o.Match)
	}
}
