package plan

import "testing"

func TestCountPlan(t *testing.T) {
	got := CountPlan(fixtureRenderPlan())
	want := Counts{Create: 2, Update: 4, Delete: 2, TargetsChanged: 4, TargetsTotal: 6, TargetsFailed: 1,
		Unreadable: 1, TargetsOffline: 1, Drift: 1, WorstDisruption: DisruptionLink}
	if got != want {
		t.Errorf("CountPlan = %+v\nwant %+v", got, want)
	}
	if got.Changes() != 8 {
		t.Errorf("Changes() = %d, want 8", got.Changes())
	}
}

func TestSummary(t *testing.T) {
	ch := func(a Action, d Disruption, drift bool) Change {
		return Change{Address: "x", Action: a, Disrupt: d, Drift: drift}
	}
	tests := []struct {
		name string
		plan *Plan
		want string
	}{
		{"nil", nil, "No changes. The policy names no targets."},
		{"no targets", &Plan{}, "No changes. The policy names no targets."},
		{"all up to date", fixtureEmptyPlan(), "No changes. The fabric matches the policy."},
		{"fixture", fixtureRenderPlan(), "Plan: 2 to create, 4 to change, 2 to destroy on 4 of 6 targets; 1 target unreadable; drift on 1 object; 1 target planned offline; worst disruption: link flap."},
		{"no changes but unreadable", &Plan{Targets: []*TargetPlan{{Address: "a"}, {Address: "b", Error: "x"}, {Address: "c", Error: "y"}}},
			"No changes on the 1 readable target; 2 targets unreadable."},
		{"nothing readable", &Plan{Targets: []*TargetPlan{{Address: "a", Error: "x"}}},
			"No changes planned: no target could be read; 1 target unreadable."},
		{"no changes, one does not fit", &Plan{Targets: []*TargetPlan{{Address: "a"}, {Address: "b", Error: "x", ErrorKind: ErrorKindRender}}},
			"No changes on the 1 planned target; the policy does not fit 1 target."},
		{"nothing planned, mixed kinds", &Plan{Targets: []*TargetPlan{{Address: "a", Error: "x", ErrorKind: ErrorKindRender}, {Address: "b", Error: "y"}}},
			"No changes planned: no target could be planned; 1 target unreadable; the policy does not fit 1 target."},
		{"changes beside a conflict", &Plan{Targets: []*TargetPlan{{Address: "a", Changes: []Change{ch(ActionCreate, DisruptionNone, false)}}, {Address: "b", Error: "x", ErrorKind: ErrorKindRender}, {Address: "c", Error: "p", ErrorKind: ErrorKindInternal}, {Address: "d", Error: "c", ErrorKind: ErrorKindCancelled}}},
			"Plan: 1 to create, 0 to change, 0 to destroy on 1 of 4 targets; the policy does not fit 1 target; 1 target failed with an internal error; 1 target not planned (the run ended first)."},
		{"one change brief", &Plan{Targets: []*TargetPlan{{Address: "a", Changes: []Change{ch(ActionUpdate, DisruptionBrief, false)}}, {Address: "b"}}},
			"Plan: 0 to create, 1 to change, 0 to destroy on 1 of 2 targets; worst disruption: brief traffic disruption."},
		{"drift plural, hitless", &Plan{Targets: []*TargetPlan{{Address: "a", Changes: []Change{ch(ActionUpdate, DisruptionNone, true), ch("", DisruptionNone, true)}}}},
			"Plan: 0 to create, 2 to change, 0 to destroy on 1 of 1 target; drift on 2 objects."},
		{"nil target skipped", &Plan{Targets: []*TargetPlan{nil, {Address: "a", Changes: []Change{ch(ActionDelete, "", false)}}}},
			"Plan: 0 to create, 0 to change, 1 to destroy on 1 of 1 target."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Summary(tc.plan); got != tc.want {
				t.Errorf("Summary = %q\nwant      %q", got, tc.want)
			}
		})
	}
}
