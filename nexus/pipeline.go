package nexus

import (
	"fmt"
	"slices"
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
	planned := NewEditor(cfg.Clone(), p, modules)
	var cuts []PushCut
	// wrong maps each mode the session may be in, though the plan is
	// elsewhere, to the line whose refusal can leave it there.
	wrong := map[modeState]int{}
	done := map[sent]bool{}
	for j, line := range lines {
		before := planned.state()
		var base *Config
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
			moved, ok := wrongLineSafe(base, p, modules, s, line, after, done)
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
		if after != before {
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
func wrongLineSafe(base *Config, p Platform, modules []Module, s modeState, line string, after modeState, done map[sent]bool) (moved modeState, ok bool) {
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
	if cfg.String() == base.String() {
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
