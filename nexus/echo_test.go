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
				// roce pushes network-qos and queuing class-maps with no
				// keyword; a switch may print one back.
				keyword := func(kw string) func(string) string {
					return func(s string) string {
						return strings.NewReplacer("class-map type network-qos ROCE-", "class-map type network-qos "+kw+" ROCE-",
							"class-map type queuing ROCE-", "class-map type queuing "+kw+" ROCE-").Replace(s)
					}
				}
				if !strings.Contains(applied.String(), "class-map type queuing ROCE-") && mode != "all" {
					t.Fatalf("no keyword-less queuing class-map to echo differently:\n%s", applied)
				}
				for name, echo := range map[string]func(string) string{
					"match-any printed": keyword("match-any"),
					"match-all printed": keyword("match-all"),
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
