package plan

import (
	"fmt"
	"strings"
)

// Counts tallies a plan for summaries, tables and exit codes.
type Counts struct {
	Create, Update, Delete int
	// TargetsChanged is how many targets have at least one change.
	TargetsChanged int
	TargetsTotal   int
	// TargetsFailed is how many targets could not be read or planned.
	TargetsFailed int
	// TargetsOffline is how many targets were planned against a saved
	// capture (roce-apply refuses them).
	TargetsOffline int
	// Drift is how many changes repair drift on objects we own.
	Drift int
	// WorstDisruption is the most disruptive change in the plan.
	WorstDisruption Disruption
}

// Changes is the total number of resource changes.
func (c Counts) Changes() int { return c.Create + c.Update + c.Delete }

// CountPlan tallies p. A nil plan counts as empty.
func CountPlan(p *Plan) Counts {
	c := Counts{WorstDisruption: DisruptionNone}
	if p == nil {
		return c
	}
	for _, t := range p.Targets {
		if t == nil {
			continue
		}
		tc := countTarget(t)
		c.TargetsTotal++
		c.Create += tc.Create
		c.Update += tc.Update
		c.Delete += tc.Delete
		c.Drift += tc.Drift
		if tc.Changes() > 0 {
			c.TargetsChanged++
		}
		if t.Error != "" {
			c.TargetsFailed++
		}
		if t.Offline {
			c.TargetsOffline++
		}
		if tc.WorstDisruption.Rank() > c.WorstDisruption.Rank() {
			c.WorstDisruption = tc.WorstDisruption
		}
	}
	return c
}

// countTarget tallies the changes of one target (target fields stay zero).
func countTarget(t *TargetPlan) Counts {
	c := Counts{WorstDisruption: DisruptionNone}
	for _, ch := range t.Changes {
		switch ch.Action {
		case ActionCreate:
			c.Create++
		case ActionDelete:
			c.Delete++
		default:
			// Unknown actions are counted as updates: they change something
			// and must not vanish from the summary.
			c.Update++
		}
		if ch.Drift {
			c.Drift++
		}
		if ch.Disrupt.Rank() > c.WorstDisruption.Rank() {
			c.WorstDisruption = ch.Disrupt
		}
	}
	return c
}

// disruptionPhrase is how a disruption class reads in prose and tags; ""
// for none.
func disruptionPhrase(d Disruption) string {
	switch d {
	case DisruptionLink:
		return "link flap"
	case DisruptionBrief:
		return "brief traffic disruption"
	}
	return ""
}

// plural returns "1 target" / "2 targets".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Summary is the one-line account of a plan, for the end of the text diff,
// the top of a pull-request comment and CI logs.
func Summary(p *Plan) string {
	c := CountPlan(p)
	var parts []string
	switch {
	case c.TargetsTotal == 0:
		return "No changes. The policy names no targets."
	case c.Changes() == 0 && c.TargetsFailed == 0:
		parts = append(parts, "No changes. The fabric matches the policy")
	case c.Changes() == 0 && c.TargetsFailed == c.TargetsTotal:
		parts = append(parts, "No changes planned: no target could be read")
	case c.Changes() == 0:
		// Unreadable targets may well need changes: don't claim a match.
		parts = append(parts, fmt.Sprintf("No changes on the %s",
			plural(c.TargetsTotal-c.TargetsFailed, "readable target", "readable targets")))
	default:
		parts = append(parts, fmt.Sprintf("Plan: %d to create, %d to change, %d to destroy on %d of %s",
			c.Create, c.Update, c.Delete, c.TargetsChanged, plural(c.TargetsTotal, "target", "targets")))
	}
	if c.TargetsFailed > 0 {
		parts = append(parts, plural(c.TargetsFailed, "target unreadable", "targets unreadable"))
	}
	if c.Drift > 0 {
		parts = append(parts, "drift on "+plural(c.Drift, "object", "objects"))
	}
	if c.TargetsOffline > 0 {
		parts = append(parts, plural(c.TargetsOffline, "target planned offline", "targets planned offline"))
	}
	if ph := disruptionPhrase(c.WorstDisruption); ph != "" {
		parts = append(parts, "worst disruption: "+ph)
	}
	return strings.Join(parts, "; ") + "."
}
