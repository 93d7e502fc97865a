package nxos

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/scrapli/scrapligo/channel"
	"github.com/scrapli/scrapligo/driver/network"
	"github.com/scrapli/scrapligo/response"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// Reading in one exchange. scrapligo sends a command, waits for its echo,
// sends the return and waits for the prompt: two network round trips per
// command. The show commands a read needs do not depend on each other's
// answers, so they are written together, as a terminal paste: the CLI
// reads and runs them in order, echoing each line when it gets to it, and
// prints a prompt after each answer (docs/performance.md, "One exchange
// per read"). The answer is cut at those prompts; every part must start
// with its own command's echo (or, on a terminal that echoes type-ahead
// at once, all echoes come first and bare prompts end the answers), or
// the batch is refused as unreadable rather than guessed at.

// execPromptLine is a prompt at the end of what was read: exec mode
// ("switch# ", "n7k-VDC2# ", scrapligo's cisco_nxos privilege-exec
// pattern) or a configuration mode ("switch(config-pmap-c-qos)# ", its
// configuration pattern).
var execPromptLine = regexp.MustCompile(`^([\w.\-]{1,63}(?:\(config[\+\w.\-@/:]{0,32}\))?)#\s?$`)

// batch runs exec commands written in one go and returns each one's
// answer. A refusal names the command and quotes the answer, like command.
func (c *conn) batch(cmds []string) ([]string, error) {
	if len(cmds) == 0 {
		return nil, nil
	}
	if c.d.CurrentPriv != c.d.DefaultDesiredPriv {
		c.trips++
		if err := c.d.AcquirePriv(c.d.DefaultDesiredPriv); err != nil {
			c.exchange = append(c.exchange, plan.Exchange{Command: "end", Response: err.Error(), Failed: true})
			return nil, fmt.Errorf("%w: %w: back to exec mode: %w", errConnection, errSessionLost, err)
		}
	}
	parts, err := c.paste(cmds)
	if err != nil {
		return nil, err
	}
	for i, cmd := range cmds {
		if cliRefused(parts[i]) {
			return parts, fmt.Errorf("the switch refused %q: %s", cmd, firstLines(parts[i]))
		}
	}
	return parts, nil
}

// paste writes lines in one go (one round trip), whatever mode the
// session is in, and returns each line's answer; every line is recorded
// with its answer, refused or not. The session's mode is then the one of
// the last prompt. Only a failure of the session itself is an error
// (errConnection); refusals are for the caller to read in the answers.
func (c *conn) paste(lines []string) ([]string, error) {
	c.trips++
	parts, raw, err := runBatch(c.d.Channel, lines)
	switch {
	case errors.Is(err, errUnreadable):
		// What came back cannot be attributed to the lines: do not
		// guess, and do not use this session again (more may still be
		// coming); a rollback, if one is due, reconnects.
		c.exchange = append(c.exchange, plan.Exchange{Command: strings.Join(lines, "\n"), Response: raw, Failed: true})
		_ = c.tr.Close()
		return nil, fmt.Errorf("%w: %d lines sent together: %w", errConnection, len(lines), err)
	case err != nil:
		c.exchange = append(c.exchange, plan.Exchange{Command: strings.Join(lines, "\n"), Response: err.Error(), Failed: true})
		return nil, fmt.Errorf("%w: %w: %d lines sent together (%s): %w", errConnection, errSessionLost, len(lines), firstLines(strings.Join(lines, "\n")), err)
	}
	for i, l := range lines {
		c.exchange = append(c.exchange, plan.Exchange{Command: l, Response: parts[i], Failed: cliRefused(parts[i])})
	}
	if _, inConfig := lastPrompt(raw); inConfig {
		c.d.CurrentPriv = "configuration"
	} else {
		c.d.CurrentPriv = c.d.DefaultDesiredPriv
	}
	return parts, nil
}

// lastPrompt is the prompt that ends raw and whether it is a
// configuration mode's.
func lastPrompt(raw string) (string, bool) {
	raw = strings.TrimRight(strings.ReplaceAll(raw, "\r", ""), " ")
	prompt := raw[strings.LastIndexByte(raw, '\n')+1:]
	return prompt, strings.Contains(prompt, "(config") && !containsAny(prompt, configurationNotContains)
}

// sendCommand is scrapligo's SendCommand in one round trip: the command
// and its return written together, then the answer read up to the
// prompt. Nothing else changes: the answer is checked before anything
// else is sent.
func (c *conn) sendCommand(cmd string) (*response.Response, error) {
	if c.sequential {
		return c.d.SendCommand(cmd)
	}
	// As SendCommand: exec commands run from exec mode (after a refused
	// configuration line the session is still in a configuration mode).
	if c.d.CurrentPriv != c.d.DefaultDesiredPriv {
		if err := c.d.AcquirePriv(c.d.DefaultDesiredPriv); err != nil {
			return nil, err
		}
	}
	r := response.NewResponse(cmd, c.d.Transport.Args.Host, c.d.Transport.Args.Port, c.d.FailedWhenContains)
	parts, _, err := runBatch(c.d.Channel, []string{cmd})
	if err != nil {
		if errors.Is(err, errUnreadable) {
			_ = c.tr.Close()
		}
		return nil, err
	}
	r.Record([]byte(parts[0]))
	return r, nil
}

// sendInput is Channel.SendInput (one line in a configuration mode, its
// answer without echo and prompt) in one round trip.
func (c *conn) sendInput(line string) ([]byte, error) {
	if c.sequential {
		return c.d.Channel.SendInput(line)
	}
	parts, _, err := runBatch(c.d.Channel, []string{line})
	if err != nil {
		if errors.Is(err, errUnreadable) {
			_ = c.tr.Close()
		}
		return nil, err
	}
	return []byte(parts[0]), nil
}

// enterConfig is AcquirePriv("configuration") in one round trip:
// scrapligo's asks for the prompt, sends `configure terminal` (two round
// trips) and asks again, four in all.
func (c *conn) enterConfig() error {
	if c.sequential {
		return c.d.AcquirePriv("configuration")
	}
	if c.d.CurrentPriv != c.d.DefaultDesiredPriv {
		if err := c.d.AcquirePriv(c.d.DefaultDesiredPriv); err != nil {
			return err
		}
	}
	return c.modeLine("configure terminal", "configuration")
}

// leaveConfig is AcquirePriv("privilege-exec") from a configuration mode
// in one round trip (`end`).
func (c *conn) leaveConfig() error {
	if c.sequential {
		return c.d.AcquirePriv("privilege-exec")
	}
	return c.modeLine("end", "privilege-exec")
}

// modeLine sends a line that changes the CLI mode and checks that the
// prompt after it is the mode's (a configuration prompt, or an exec one).
func (c *conn) modeLine(line, priv string) error {
	parts, raw, err := runBatch(c.d.Channel, []string{line})
	if err != nil {
		if errors.Is(err, errUnreadable) {
			_ = c.tr.Close()
		}
		return err
	}
	if cliRefused(parts[0]) {
		return fmt.Errorf("the switch refused %q: %s", line, firstLines(parts[0]))
	}
	prompt, inConfig := lastPrompt(raw)
	if inConfig != (priv == "configuration") {
		return fmt.Errorf("after %q the switch prompts %q, not in %s mode", line, prompt, priv)
	}
	c.d.CurrentPriv = priv
	return nil
}

// errUnreadable marks a batch whose answer cannot be cut into the
// commands' answers.
var errUnreadable = errors.New("the answer cannot be attributed to the commands")

// runBatch writes cmds in one go on an exec-mode channel (its prompt
// already read) and reads until the prompt after the last answer. It
// returns the answers and what was read.
func runBatch(ch *channel.Channel, cmds []string) ([]string, string, error) {
	if err := ch.Write([]byte(strings.Join(cmds, "\n")+"\n"), false); err != nil {
		return nil, "", err
	}
	deadline := time.Now().Add(ch.TimeoutOps)
	var buf []byte
	for {
		b, err := ch.Read()
		if err != nil {
			return nil, string(buf), err
		}
		if b == nil {
			if time.Now().After(deadline) {
				return nil, string(buf), fmt.Errorf("no complete answer within %s; read so far: %q", ch.TimeoutOps, firstLines(string(buf)))
			}
			time.Sleep(ch.ReadDelay)
			continue
		}
		buf = append(buf, b...)
		parts, done, err := splitBatch(string(buf), cmds)
		if err != nil {
			return nil, string(buf), fmt.Errorf("%w: %w", errUnreadable, err)
		}
		if done {
			return parts, string(buf), nil
		}
	}
}

// onOpenBatched replaces scrapligo's cisco_nxos on-open (find the prompt,
// acquire privilege-exec, then terminal width and terminal length one at
// a time: five round trips) with one: the prompt NX-OS prints after the
// login is read as it comes, and both terminal settings are written
// together. A prompt that is not privilege-exec's gets the stock on-open.
func onOpenBatched(stock func(*network.Driver) error) func(*network.Driver) error {
	return func(d *network.Driver) error {
		ctx, cancel := context.WithTimeout(context.Background(), d.Channel.TimeoutOps)
		defer cancel()
		b, err := d.Channel.ReadUntilPrompt(ctx)
		if err != nil {
			return fmt.Errorf("waiting for the first prompt: %w", err)
		}
		lines := strings.Split(strings.TrimRight(strings.ReplaceAll(string(b), "\r", ""), "\n"), "\n")
		if !execPromptLine.MatchString(lines[len(lines)-1]) {
			if stock == nil {
				return fmt.Errorf("the first prompt %q is not an exec prompt", lines[len(lines)-1])
			}
			return stock(d)
		}
		d.CurrentPriv = "privilege-exec"
		cmds := []string{"terminal width 511", "terminal length 0"}
		parts, _, err := runBatch(d.Channel, cmds)
		if err != nil {
			return fmt.Errorf("terminal settings: %w", err)
		}
		for i, p := range parts {
			if cliRefused(p) {
				return fmt.Errorf("the switch refused %q: %s", cmds[i], firstLines(p))
			}
		}
		return nil
	}
}

// onCloseBatched leaves without asking for a prompt first when the
// session is known to be in exec mode (scrapligo's stock on-close asks
// for one: a round trip).
func onCloseBatched(stock func(*network.Driver) error) func(*network.Driver) error {
	return func(d *network.Driver) error {
		if d.CurrentPriv != "privilege-exec" && stock != nil {
			return stock(d)
		}
		return d.Channel.Write([]byte("exit\n"), false)
	}
}

// splitBatch cuts what the CLI printed for commands written together:
//
//	cmd1 \n answer1 \n host# cmd2 \n answer2 \n … host# cmdN \n answerN \n host#
//
// (the prompt before cmd1 was read by the previous exchange). It returns
// false while the last prompt has not arrived, and an error when a prompt
// line does not carry the echo of the command expected next.
func splitBatch(text string, cmds []string) ([]string, bool, error) {
	text = strings.ReplaceAll(text, "\r", "")
	nl := strings.LastIndexByte(text, '\n')
	if nl < 0 {
		return nil, false, nil
	}
	m := execPromptLine.FindStringSubmatch(text[nl+1:])
	if m == nil {
		return nil, false, nil
	}
	// The prompts in between may be of other modes than the last one (a
	// push enters and leaves modes): any prompt of this host cuts.
	host, _, _ := strings.Cut(m[1], "(config")
	lines := strings.Split(text[:nl], "\n")
	// Leading blank lines (an empty answer's newline) come before the echo.
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if len(lines) == 0 {
		return nil, false, nil
	}
	if strings.TrimRight(lines[0], " ") != cmds[0] {
		return nil, false, fmt.Errorf("the answer does not start with the echo of %q but with %q; this CLI does not take commands written together", cmds[0], lines[0])
	}
	if early(lines, cmds) {
		return splitEarlyEcho(lines[len(cmds):], host, len(cmds))
	}
	parts := make([]string, 0, len(cmds))
	var cur []string
	for _, l := range lines[1:] {
		rest, ok := afterPrompt(l, host)
		if !ok {
			cur = append(cur, l)
			continue
		}
		echo := strings.TrimSpace(rest)
		next := len(parts) + 1
		if next >= len(cmds) {
			return nil, false, fmt.Errorf("a prompt with %q after the answer to the last command, %q", echo, cmds[len(cmds)-1])
		}
		if echo == "" {
			// The prompt arrived before the echo of the next line: more
			// is coming.
			return nil, false, nil
		}
		if echo != cmds[next] {
			return nil, false, fmt.Errorf("prompt %d carries %q where the echo of %q was expected", next, echo, cmds[next])
		}
		parts = append(parts, strings.Join(cur, "\n"))
		cur = nil
	}
	if len(parts) != len(cmds)-1 {
		return nil, false, nil
	}
	parts = append(parts, strings.Join(cur, "\n"))
	for i, p := range parts {
		parts[i] = tidyAnswer(p)
	}
	return parts, true, nil
}

// early reports whether the terminal echoed every command as it arrived,
// before the first answer (a line discipline that echoes type-ahead),
// instead of each when the CLI took it.
func early(lines, cmds []string) bool {
	if len(cmds) < 2 || len(lines) < len(cmds) {
		return false
	}
	for i, c := range cmds {
		if strings.TrimRight(lines[i], " ") != c {
			return false
		}
	}
	return true
}

// splitEarlyEcho cuts the answers of an early-echoed batch: the answers
// follow the echoes, each ended by a bare prompt line.
func splitEarlyEcho(lines []string, host string, n int) ([]string, bool, error) {
	parts := make([]string, 0, n)
	var cur []string
	for _, l := range lines {
		rest, ok := afterPrompt(l, host)
		if !ok {
			cur = append(cur, l)
			continue
		}
		if rest = strings.TrimSpace(rest); rest != "" {
			return nil, false, fmt.Errorf("the commands were echoed together, but a later prompt carries %q", rest)
		}
		if len(parts) == n-1 {
			return nil, false, fmt.Errorf("more prompts than the %d commands sent", n)
		}
		parts = append(parts, tidyAnswer(strings.Join(cur, "\n")))
		cur = nil
	}
	if len(parts) != n-1 {
		return nil, false, nil
	}
	return append(parts, tidyAnswer(strings.Join(cur, "\n"))), true, nil
}

// afterPrompt reports whether line starts with a prompt of host, in exec
// mode ("sw1#") or any configuration mode ("sw1(config-if)#"), and returns
// what follows it (the echo of the next line, if any).
func afterPrompt(line, host string) (string, bool) {
	rest, ok := strings.CutPrefix(line, host)
	if !ok {
		return "", false
	}
	if strings.HasPrefix(rest, "(config") {
		end := strings.IndexByte(rest, ')')
		if end < 0 || strings.ContainsAny(rest[:end], " #") {
			return "", false
		}
		rest = rest[end+1:]
	}
	return strings.CutPrefix(rest, "#")
}

// tidyAnswer trims an answer as scrapligo's SendCommand does (trailing
// spaces of every line, blank lines at both ends), so a batched read and
// a command-by-command one record and fingerprint the same text.
func tidyAnswer(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// readCommands are the show commands of a full read, in order.
func (t *Target) readCommands(withFacts bool) []string {
	var cmds []string
	if withFacts {
		cmds = append(cmds, "show version", "show module")
		if t.platform.Is7000() {
			cmds = append(cmds, "show vdc current-vdc", jumboCommand)
		}
	}
	cmds = append(cmds, t.configCommands("show running-config")...)
	if withFacts {
		// The saved configuration of the same sections, in the same
		// exchange: whether a reload would keep roce's change (save.go).
		cmds = append(cmds, t.configCommands("show startup-config")...)
	}
	return cmds
}

// configCommands are the reads of the managed configuration: show is
// "show running-config" or "show startup-config".
func (t *Target) configCommands(show string) []string {
	var cmds []string
	for _, sec := range sections {
		cmds = append(cmds, show+" "+sec)
	}
	if len(t.ifaces) > 0 {
		cmds = append(cmds, show+" interface "+interfaceList(t.ifaces))
	}
	return cmds
}

// readBatched is readLive (withFacts) or readConfig in one exchange.
func (t *Target) readBatched(c *conn, facts *state) (*state, error) {
	withFacts := facts == nil
	cmds := t.readCommands(withFacts)
	parts, err := c.batch(cmds)
	if err != nil && !onlyStartupRefused(cmds, parts) {
		return nil, fmt.Errorf("read %s: %w", strings.Join(cmds, ", "), err)
	}
	return t.readParts(parts, facts)
}

// readParts makes the state from the answers to readCommands(facts == nil).
func (t *Target) readParts(parts []string, facts *state) (*state, error) {
	withFacts := facts == nil
	var err error
	st := &state{}
	if withFacts {
		if err := t.takeVersion(st, parts[0], "show version"); err != nil {
			return nil, err
		}
		if st.modules, err = nexus.ParseShowModule(parts[1]); err != nil {
			return nil, fmt.Errorf("parse show module: %w", err)
		}
		parts = parts[2:]
		if t.platform.Is7000() {
			if st.vdcID, st.vdcName, err = parseCurrentVDC(parts[0]); err != nil {
				return nil, err
			}
			if err := st.takeJumbo(parts[1]); err != nil {
				return nil, err
			}
			parts = parts[2:]
		}
	} else {
		st = &state{version: facts.version, kind: facts.kind, modules: facts.modules, vdcID: facts.vdcID, vdcName: facts.vdcName, jumbo: facts.jumbo, defaultL2: facts.defaultL2}
	}
	if withFacts {
		n := len(t.configCommands("show running-config"))
		st.takeStartup(parts[n:])
		parts = parts[:n]
	}
	var text strings.Builder
	for _, p := range parts {
		text.WriteString(nexus.NormaliseRunning(p))
	}
	if err := st.finish(text.String(), t.sw.Address); err != nil {
		return nil, err
	}
	return st, nil
}

// NewSequential is the plan.SwitchFactory that reads one command per
// exchange, as roce did before reads were batched: for comparisons (the
// scale benchmark's before/after) and for a CLI that does not take
// commands written together.
func NewSequential(env plan.Env, sw *policies.Switch) (plan.Target, error) {
	t, err := newTarget(env, sw)
	if err != nil {
		return nil, err
	}
	t.sequential = true
	return t, nil
}
