package nexus

import (
	"strings"
	"testing"
)

// Whether the switch echoes a class-map's match type (and which) differs by
// type and release; once applied, none of these echoes may turn into a
// change roce wants to push again.
func TestEchoDifferencesAreNotChanges(t *testing.T) {
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		for mode := range modeClasses() {
			t.Run(kind+"/"+mode, func(t *testing.T) {
				in := intentFor(t, kind, mode, "empty")
				cur := loadStart(t, kind, "empty")
				_, _, script := renderDiff(t, in, cur)
				applied := cur.Clone()
				if err := ApplyCommands(applied, in.Platform, in.Modules, script); err != nil {
					t.Fatal(err)
				}
				for name, echo := range map[string]func(string) string{
					"no match type printed": func(s string) string {
						return strings.NewReplacer("class-map type network-qos match-all ", "class-map type network-qos ",
							"class-map type queuing match-all ", "class-map type queuing ").Replace(s)
					},
					"match-any printed": func(s string) string {
						return strings.NewReplacer("class-map type network-qos match-all ", "class-map type network-qos match-any ",
							"class-map type queuing match-all ", "class-map type queuing match-any ").Replace(s)
					},
				} {
					seen, err := Parse(echo(applied.String()))
					if err != nil {
						t.Fatal(err)
					}
					re, err := Render(in, seen)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if _, again, err := Diff(seen, re, in.Platform); err != nil || len(again) != 0 {
						t.Errorf("%s: plan not empty (%v):\n%s", name, err, strings.Join(again, "\n"))
					}
				}
			})
		}
	}
}
