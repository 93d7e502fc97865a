package nexus

import (
	"fmt"
	"slices"
	"strings"
)

// Pipelined pushes (docs/nxos.md#pipelined). NX-OS reads pasted lines one
// by one and goes on after a refused one, so a push written in one go is
// only as safe as what the lines after a refusal do. A line that does not
// change the mode leaves the mode as it was whether it is taken or
// refused, so the lines after it still run where they were meant to. A
// line that enters (or leaves) a mode is the risk: refused, it leaves the
// session where it was, and the lines meant for its mode run there.
//
// PushGroups proves, with the editor grammar and the configuration the
// push starts from, which lines can be written together: it follows every
// mode the session can be in after any set of refusals ("wrong" modes) and
// requires each line, typed in each of them, to be
//
//   - refused by the grammar (a syntax error: invalid, incomplete,
//     ambiguous or out of range, which does not depend on the
//     configuration), or
//   - taken into the very mode and object the plan takes it into (the
//     session is back where the plan is), or
//   - the same line, in the same mode on the same object, that the plan
//     itself sent earlier there, and not a mode change (re-applying it
//     changes nothing the plan does not change), or
//   - a line that changes nothing in the configuration the plan has
//     reached (it only enters an object the plan's configuration already
//     has, as `class X` typed at the top level enters class-map X by
//     abbreviation); the session is then followed into that mode too. On
//     the switch, where refused lines are missing, such a line can at most
//     create what the plan creates.
//
// A line the grammar takes may still be refused by the switch, so a wrong
// mode stays possible after it: the proof holds whatever set of lines the
// switch refuses, not only for one refusal.
//
// Where a line fails that, the group ends before it: the client reads the
// answers so far, and stops at a refusal before anything runs elsewhere.
// After a group boundary only the planned mode is possible again.

// PushCut is one group boundary: the push waits for the answers before
// Line (0-based) because, were Origin refused, Line would act in Mode.
type PushCut struct {
	Line   int    // first line of the next group
	Origin int    // the mode-changing line whose refusal would misplace Line
	Mode   string // where Line would land, e.g. "config-if Ethernet1/1"
}

// String says why the push waits there, with 1-based line numbers.
func (c PushCut) String() string {
	return fmt.Sprintf("line %d waits for line %d's answer: were line %d refused, line %d would run in %s", c.Line+1, c.Origin+1, c.Origin+1, c.Line+1, c.Mode)
}

// modeState is where the session is: the mode, the object it edits and
// the policy class (keys, so states of two editors compare).
type modeState struct {
	mode, obj, cls string
}

func (s modeState) String() string {
	out := s.mode
	if s.obj != "" {
		out += " " + s.obj
	}
	if s.cls != "" {
		out += " class " + s.cls
	}
	return out
}

func (e *Editor) state() modeState {
	s := modeState{mode: e.mode}
	if e.obj != nil {
		s.obj = e.obj.Key()
	}
	if e.cls != nil {
		s.cls = e.cls.Name
	}
	return s
}

// editorAt is an Editor on cfg positioned at s; false when s's object
// (or class) is not in cfg.
func editorAt(cfg *Config, p Platform, modules []Module, s modeState) (*Editor, bool) {
	e := NewEditor(cfg, p, modules)
	e.mode = s.mode
	if s.obj != "" {
		if e.obj = cfg.Find(s.obj); e.obj == nil {
			return nil, false
		}
	}
	if s.cls != "" {
		if e.obj == nil {
			return nil, false
		}
		if e.cls = e.obj.Class(s.cls); e.cls == nil {
			return nil, false
		}
	}
	return e, true
}

// syntaxRefusal reports whether err is a refusal by the grammar alone.
func syntaxRefusal(err error) bool {
	ce, ok := err.(*CLIError)
	return ok && (ce.Kind == "invalid" || ce.Kind == "incomplete" || ce.Kind == "ambiguous" || ce.Kind == "range")
}

// sent is one line the plan takes, where it takes it.
type sent struct {
	before modeState
	line   string
}

// PushGroups returns where a push of lines onto cfg (the configuration
// read before the push, in "config" mode after `configure terminal`) must
// wait for the answers: the group boundaries, in order. No boundary means
// the whole push may be written in one go. An error means the grammar
// refuses the planned script itself; the caller then sends it line by line.
func PushGroups(cfg *Config, p Platform, modules []Module, lines []string) ([]PushCut, error) {
	return pushGroups(cfg, p, modules, lines, nil)
}

// pushGroups is PushGroups where repeats[j] says line j writes again a
// top-level line the plan's path took before (a policy-map header written
// again, PlanPush): on the plan's path the switch takes it again, as it
// answers the same top-level line the same way, so its refusal there is
// not followed (off the plan's path it is).
func pushGroups(cfg *Config, p Platform, modules []Module, lines []string, repeats map[int]bool) ([]PushCut, error) {
	planned := NewEditor(cfg.Clone(), p, modules)
	var cuts []PushCut
	// wrong maps each mode the session may be in, though the plan is
	// elsewhere, to the line whose refusal can leave it there.
	wrong := map[modeState]int{}
	done := map[sent]bool{}
	for j, line := range lines {
		before := planned.state()
		var base *Config
		var baseText string // base.String(), when first needed
		if len(wrong) > 0 {
			base = planned.cfg.Clone()
		}
		if err := planned.Line(line); err != nil {
			return nil, fmt.Errorf("line %d %q (mode %s): %w", j+1, line, before.mode, err)
		}
		if !planned.InConfig() {
			return nil, fmt.Errorf("line %d %q leaves configuration mode", j+1, line)
		}
		after := planned.state()
		next := map[modeState]int{}
		var cut *PushCut
		for _, s := range sortedStates(wrong) {
			moved, ok := wrongLineSafe(base, &baseText, p, modules, s, line, after, done)
			if !ok {
				cut = &PushCut{Line: j, Origin: wrong[s], Mode: s.String()}
				break
			}
			// Refused (or taken where the plan is, or refused by the
			// switch for a reason the grammar does not know): the session
			// may still be in s; or, taken without changing anything, in
			// the mode it entered.
			next[s] = wrong[s]
			if moved != s {
				if _, seen := next[moved]; !seen {
					next[moved] = wrong[s]
				}
			}
		}
		if cut != nil {
			cuts = append(cuts, *cut)
			next = map[modeState]int{}
		}
		if after != before && !repeats[j] {
			if _, ok := next[before]; !ok {
				next[before] = j
			}
		}
		delete(next, after)
		wrong = next
		done[sent{before, line}] = after == before
	}
	return cuts, nil
}

// wrongLineSafe reports whether line, typed in wrong state s (on a copy of
// base, the configuration the plan has reached), is refused by the
// grammar, lands where the plan's does (after), repeats a line the plan
// sent in s without changing the mode, or changes nothing at all (it only
// enters an object the plan's configuration already has: on the switch it
// can at most create what the plan creates). moved is the state the
// session is in when the line is taken.
func wrongLineSafe(base *Config, baseText *string, p Platform, modules []Module, s modeState, line string, after modeState, done map[sent]bool) (moved modeState, ok bool) {
	cfg := base.Clone()
	e, found := editorAt(cfg, p, modules, s)
	if !found {
		return s, false
	}
	err := e.Line(line)
	switch {
	case err != nil:
		return s, syntaxRefusal(err)
	case !e.InConfig():
		return s, false
	case e.state() == after:
		return after, true
	}
	if same, sentHere := done[sent{s, line}]; sentHere && same && e.state() == s {
		return s, true
	}
	if *baseText == "" {
		*baseText = base.String()
	}
	if cfg.String() == *baseText {
		return e.state(), true
	}
	return s, false
}

// sortedStates orders the wrong states for a deterministic first cut.
func sortedStates(m map[modeState]int) []modeState {
	out := make([]modeState, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b modeState) int {
		if m[a] != m[b] {
			return m[a] - m[b]
		}
		switch {
		case a.String() < b.String():
			return -1
		case a.String() > b.String():
			return 1
		}
		return 0
	})
	return out
}

// Push is how a script is written to the CLI: the plan's lines, with a
// policy-map's header written again before a `class` line typed in the
// sub-mode of the class before it where that proves fewer groups
// (PlanPush), and the group boundaries.
type Push struct {
	Lines []string  // sent, in order
	From  []int     // for each sent line, its index in the plan's lines, or -1 for a header written again
	Cuts  []PushCut // group boundaries, as indexes into Lines
}

// Groups returns the groups as [from, to) ranges of Lines.
func (p *Push) Groups() [][2]int {
	var out [][2]int
	from := 0
	for _, c := range p.Cuts {
		out = append(out, [2]int{from, c.Line})
		from = c.Line
	}
	return append(out, [2]int{from, len(p.Lines)})
}

// Name is "line N" (1-based, of the plan) for a plan line, and "LINE
// (written again before line N)" for a repeated header.
func (p *Push) Name(i int) string {
	if p.From[i] >= 0 {
		return fmt.Sprintf("line %d", p.From[i]+1)
	}
	for j := i + 1; j < len(p.From); j++ {
		if p.From[j] >= 0 {
			return fmt.Sprintf("%q (written again before line %d)", p.Lines[i], p.From[j]+1)
		}
	}
	return fmt.Sprintf("%q (written again)", p.Lines[i])
}

// Explain says why the push waits at c, in the plan's line numbers.
func (p *Push) Explain(c PushCut) string {
	return fmt.Sprintf("%s waits for the answer to %s: were that refused, %s would run in %s", p.Name(c.Line), p.Name(c.Origin), p.Name(c.Line), c.Mode)
}

// PlanPush groups a script for a pipelined push (PushGroups). Where it
// proves fewer groups, it writes a policy-map's header again before each
// `class` line typed in the sub-mode of the class before it. The `class`
// line falls back to the policy-map's mode anyway, so the header changes
// neither the mode it is taken in nor the configuration (the grammar
// checks both, line by line); but were the `class` line refused, the
// session is left in the policy-map's mode, where the previous class's
// actions (`set`, `bandwidth`, `pause`, `mtu`, …) are refused instead of
// being applied to that class. The header written again is taken on the
// plan's path as it was a few lines before (the same top-level line on
// the same policy-map); off it, it is followed like any other line.
func PlanPush(cfg *Config, p Platform, modules []Module, lines []string) (*Push, error) {
	plain := plainPush(lines)
	cuts, err := PushGroups(cfg, p, modules, lines)
	if err != nil {
		return nil, err
	}
	plain.Cuts = cuts
	if len(cuts) == 0 {
		return plain, nil
	}
	barred, repeats := withHeaders(cfg, p, modules, lines)
	if len(repeats) == 0 {
		return plain, nil
	}
	if barred.Cuts, err = pushGroups(cfg, p, modules, barred.Lines, repeats); err != nil || len(barred.Cuts) >= len(cuts) {
		return plain, nil //nolint:nilerr // the plain push is proven; the headers only help when they prove fewer groups
	}
	return barred, nil
}

// withHeaders writes a policy-map's header again before each line typed
// in one of its classes that enters another of its classes, where
// header-then-line reaches the same mode and configuration as the line
// alone. repeats marks the headers written again.
func withHeaders(cfg *Config, p Platform, modules []Module, lines []string) (*Push, map[int]bool) {
	out := &Push{}
	repeats := map[int]bool{}
	header := map[string]string{} // policy-map key -> the line that entered it
	planned := NewEditor(cfg.Clone(), p, modules)
	for i, l := range lines {
		before := planned.state()
		var base *Config
		if modeParent(before.mode) != "" {
			base = planned.cfg.Clone()
		}
		if err := planned.Line(l); err != nil {
			return plainPush(lines), nil
		}
		after := planned.state()
		if h, ok := header[before.obj]; ok && base != nil && after.mode == before.mode && after.obj == before.obj && after != before {
			e, found := editorAt(base, p, modules, before)
			if found && e.Line(h) == nil && e.state() == (modeState{mode: modeParent(before.mode), obj: before.obj}) &&
				e.Line(l) == nil && e.state() == after && base.String() == planned.cfg.String() {
				repeats[len(out.Lines)] = true
				out.Lines = append(out.Lines, h)
				out.From = append(out.From, -1)
			}
		}
		if modeParent(after.mode) == "" && after.obj != "" && after != before && after.cls == "" && strings.HasPrefix(after.obj, "policy-map ") {
			header[after.obj] = l
		}
		out.Lines = append(out.Lines, l)
		out.From = append(out.From, i)
	}
	return out, repeats
}

func plainPush(lines []string) *Push {
	out := &Push{Lines: lines, From: make([]int, len(lines))}
	for i := range lines {
		out.From[i] = i
	}
	return out
}
