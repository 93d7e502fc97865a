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
	// TargetsFailed is how many targets could not be read or planned;
	// the four fields after it split it by ErrorKind.
	TargetsFailed int
	Unreadable    int // ErrorKindRead (and errors of plans without a kind)
	DoNotFit      int // ErrorKindRender: the policy does not fit the target
	Internal      int // ErrorKindInternal
	NotPlanned    int // ErrorKindCancelled
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
			switch t.errorKind() {
			case ErrorKindRender:
				c.DoNotFit++
			case ErrorKindInternal:
				c.Internal++
			case ErrorKindCancelled:
				c.NotPlanned++
			default:
				c.Unreadable++
			}
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
	case c.Changes() == 0 && c.TargetsFailed == c.TargetsTotal && c.Unreadable == c.TargetsFailed:
		parts = append(parts, "No changes planned: no target could be read")
	case c.Changes() == 0 && c.TargetsFailed == c.TargetsTotal:
		parts = append(parts, "No changes planned: no target could be planned")
	case c.Changes() == 0 && c.Unreadable == c.TargetsFailed:
		// Unreadable targets may well need changes: don't claim a match.
		parts = append(parts, fmt.Sprintf("No changes on the %s",
			plural(c.TargetsTotal-c.TargetsFailed, "readable target", "readable targets")))
	case c.Changes() == 0:
		parts = append(parts, fmt.Sprintf("No changes on the %s",
			plural(c.TargetsTotal-c.TargetsFailed, "planned target", "planned targets")))
	default:
		parts = append(parts, fmt.Sprintf("Plan: %d to create, %d to change, %d to destroy on %d of %s",
			c.Create, c.Update, c.Delete, c.TargetsChanged, plural(c.TargetsTotal, "target", "targets")))
	}
	if c.Unreadable > 0 {
		parts = append(parts, plural(c.Unreadable, "target unreadable", "targets unreadable"))
	}
	if c.DoNotFit > 0 {
		parts = append(parts, "the policy does not fit "+plural(c.DoNotFit, "target", "targets"))
	}
	if c.Internal > 0 {
		parts = append(parts, plural(c.Internal, "target", "targets")+" failed with an internal error")
	}
	if c.NotPlanned > 0 {
		parts = append(parts, plural(c.NotPlanned, "target", "targets")+" not planned (the run ended first)")
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

// errorKind is t's error kind; a plan written before kinds existed has
// none, and every error then was reported as a read error.
func (t *TargetPlan) errorKind() string {
	if t.Error != "" && t.ErrorKind == "" {
		return ErrorKindRead
	}
	return t.ErrorKind
}

// errorLabel introduces a target's error by its kind, in the words of
// the text diff and the Markdown comment.
func errorLabel(t *TargetPlan) string {
	switch t.errorKind() {
	case ErrorKindRender:
		return "could not be planned: the policy does not fit this " + targetNoun(t.Address)
	case ErrorKindInternal:
		return "could not be planned: internal error in roce"
	case ErrorKindCancelled:
		return "not planned: the run ended before it was read"
	}
	return "could not be read"
}

// errorNextStep is the next step after a target's error, for the kinds
// whose messages (from the renderers, the engine) do not carry one; ""
// for read errors, whose providers name the next step in the message.
func errorNextStep(t *TargetPlan) string {
	switch t.errorKind() {
	case ErrorKindRender:
		return "change the policy so that it fits this " + targetNoun(t.Address) +
			" (the message says what does not fit; docs/policy-language.md#platform-match), then re-run roce-plan"
	case ErrorKindInternal:
		return "this is a bug in roce: report it with this message and the output of roce-plan -version"
	case ErrorKindCancelled:
		return "re-run roce-plan; if a deadline ended the run, raise -timeout"
	}
	return ""
}

// targetNoun is "switch" or "host", from the address.
func targetNoun(address string) string {
	if strings.HasPrefix(address, "host.") {
		return "host"
	}
	return "switch"
}
