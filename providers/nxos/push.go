package nxos

import (
	"fmt"
	"strings"

	"github.com/rocefabric/roce/nexus"
)

// A pipelined apply (docs/nxos.md#pipelined) costs, besides the login:
//
//	read + `show checkpoint summary`                       1 round trip
//	`checkpoint`, the checkpoint table, re-read, `configure terminal`  1
//	the push, in the groups nexus.PlanPush proves safe     1 per group
//	  (policy-map headers written again where that proves fewer groups;
//	  the last group also carries `end` and the verifying re-read)
//	`no checkpoint`                                        1
//
// Each group's answers are read in order and every line's answer checked
// before the next group is sent; a refused line is reported as "line N of
// M" with the switch's answer, and the apply rolls back as after any
// other failure.

// envPush forces the push mode: "line" sends one line per round trip
// whatever the platform allows ("pipelined", or unset, is the default).
const envPush = "ROCE_NXOS_PUSH"

// pushPlan is how one apply pushes its lines: pipelined (push says what
// is sent, in which groups), or line by line.
type pushPlan struct {
	pipelined bool
	push      *nexus.Push
}

// planPush decides, before anything is sent, whether the push is
// pipelined: not for a sequential target (the old exchange pattern), not
// when ROCE_NXOS_PUSH=line, not where the platform's capability row says
// no, and not when the grammar cannot group the script.
func (t *Target) planPush(pre *state, lines []string) pushPlan {
	if t.sequential {
		return pushPlan{}
	}
	if t.env.Getenv != nil {
		if v, ok := t.env.Getenv(envPush); ok && v != "" {
			switch v {
			case "line":
				t.log.Debug("pushing line by line: "+envPush+"=line", "target", t.Address())
				return pushPlan{}
			case "pipelined":
			default:
				t.log.Warn("ignoring "+envPush+": want line or pipelined", "value", v)
			}
		}
	}
	if ok, why := t.platform.PipelinedPush(pre.version.OS); !ok {
		t.log.Debug("pushing line by line", "target", t.Address(), "why", why)
		return pushPlan{}
	}
	push, err := nexus.PlanPush(pre.cfg, t.platform, pre.modules, lines)
	if err != nil {
		t.log.Debug("pushing line by line: the script cannot be grouped", "target", t.Address(), "error", err)
		return pushPlan{}
	}
	return pushPlan{pipelined: true, push: push}
}

// maxPaste bounds the bytes of configuration lines written in one go. A
// group longer than that is written in several, each one's answers read
// before the next (more boundaries never make a push less safe). The
// simulator reads its input 4 KiB at a time; what a real switch's
// terminal takes in one go is not documented (UNCONFIRMED), though
// netmiko's send_config_set writes whole configurations without waiting
// for answers (docs/nxos.md#pipelined).
const maxPaste = 3072

// groups is how many exchanges the push takes.
func (p pushPlan) groups(lines int) int {
	if !p.pipelined {
		return lines
	}
	return len(p.groupRanges())
}

// groupRanges is the push's groups as [from, to) ranges of its lines,
// each at most maxPaste bytes (or one line).
func (p pushPlan) groupRanges() [][2]int {
	var out [][2]int
	for _, g := range p.push.Groups() {
		from, size := g[0], 0
		for i := g[0]; i < g[1]; i++ {
			n := len(p.push.Lines[i]) + 1
			if i > from && size+n > maxPaste {
				out = append(out, [2]int{from, i})
				from, size = i, 0
			}
			size += n
		}
		out = append(out, [2]int{from, g[1]})
	}
	return out
}

// readBeforeApply is readLive and, in the same round trip, `show
// checkpoint summary` (names is nil for a sequential target, which reads
// it on its own).
func (t *Target) readBeforeApply(c *conn) (*state, []string, error) {
	if t.sequential {
		st, err := t.readLive(c)
		return st, nil, err
	}
	cmds := append(t.readCommands(true), "show checkpoint summary")
	parts, err := c.batch(cmds)
	if err != nil && !onlyStartupRefused(cmds, parts) {
		return nil, nil, fmt.Errorf("read %s: %w", strings.Join(cmds, ", "), err)
	}
	st, err := t.readParts(parts[:len(cmds)-1], nil)
	if err != nil {
		return nil, nil, err
	}
	names := parseCheckpointSummary(parts[len(cmds)-1])
	if names == nil {
		names = []string{}
	}
	return st, names, nil
}

// checkpointTurn writes `checkpoint NAME`, `show checkpoint summary`, the
// configuration read and `configure terminal` together. It returns the
// checkpoint list and the re-read. refused is set when the switch refused
// the checkpoint itself (nothing was changed); the session is then in
// configuration mode, which changes nothing either.
func (t *Target) checkpointTurn(c *conn, name string, pre *state) (names []string, again *state, refused, err error) {
	reads := t.readCommands(false)
	cmds := append(append([]string{"checkpoint " + name, "show checkpoint summary"}, reads...), "configure terminal")
	parts, err := c.paste(cmds)
	if err != nil {
		return nil, nil, nil, err
	}
	if cliRefused(parts[0]) {
		return nil, nil, fmt.Errorf("the switch refused %q: %s", cmds[0], firstLines(parts[0])), nil
	}
	for i := 1; i < len(cmds); i++ {
		if cliRefused(parts[i]) {
			return nil, nil, nil, fmt.Errorf("the switch refused %q: %s", cmds[i], firstLines(parts[i]))
		}
	}
	if !c.inConfig() {
		return nil, nil, nil, fmt.Errorf("after %q the switch is not in configuration mode", "configure terminal")
	}
	again, err = t.readParts(parts[2:2+len(reads)], pre)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("re-read before pushing: %w", err)
	}
	return parseCheckpointSummary(parts[1]), again, nil, nil
}

// pushGroups sends the plan's push (the session already in configuration
// mode) in its groups; the last group ends with `end` and the verifying
// re-read, whose state it returns. It stops after the first group with a
// refused line, naming the first refused line as "line N of M".
func (t *Target) pushGroups(c *conn, p pushPlan, lines []string, pre *state) (*state, error) {
	push := p.push
	groups := p.groupRanges()
	reads := t.readCommands(false)
	for gi, g := range groups {
		cmds := push.Lines[g[0]:g[1]]
		last := gi == len(groups)-1
		if last {
			cmds = append(append(append([]string(nil), cmds...), "end"), reads...)
		}
		parts, err := c.paste(cmds)
		if err != nil {
			return nil, fmt.Errorf("%s to %s of %d: %w", push.Name(g[0]), push.Name(g[1]-1), len(lines), err)
		}
		for i := 0; i < g[1]-g[0]; i++ {
			if !cliRefused(parts[i]) {
				continue
			}
			n := g[0] + i
			if k := push.From[n]; k >= 0 {
				return nil, fmt.Errorf("the switch refused line %d of %d: %s: %s", k+1, len(lines), strings.TrimSpace(lines[k]), firstLines(parts[i]))
			}
			return nil, fmt.Errorf("the switch refused %s of %d lines: %s", push.Name(n), len(lines), firstLines(parts[i]))
		}
		if !last {
			continue
		}
		rest := parts[g[1]-g[0]:]
		if cliRefused(rest[0]) || c.inConfig() {
			return nil, fmt.Errorf("leaving configuration mode: the switch answered %q to end", firstLines(rest[0]))
		}
		for i, r := range rest[1:] {
			if cliRefused(r) {
				return nil, fmt.Errorf("re-read after apply: the switch refused %q: %s", reads[i], firstLines(r))
			}
		}
		post, err := t.readParts(rest[1:], pre)
		if err != nil {
			return nil, fmt.Errorf("re-read after apply: %w", err)
		}
		return post, nil
	}
	return nil, fmt.Errorf("no lines to push")
}

// inConfig reports whether the session's last prompt was a configuration
// mode's.
func (c *conn) inConfig() bool { return c.d.CurrentPriv == "configuration" }
