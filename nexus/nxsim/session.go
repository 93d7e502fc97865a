package nxsim

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/rocefabric/roce/nexus"
)

// session is one CLI session (an SSH shell or exec channel) on a switch.
type session struct {
	sw   *Switch
	conn io.Closer // the whole SSH connection, closed by DropAfterConfigLines
	out  io.Writer
	in   io.Reader
	user string
	pty  bool // a terminal was requested: echo input, CRLF line ends

	ed    *nexus.Editor // nil while in exec mode
	gen   uint64        // the switch config generation ed was built on
	iface string        // the port config-if mode edits (trackInterface)
}

func newSession(sw *Switch, conn io.Closer, ch io.ReadWriter, user string) *session {
	return &session{sw: sw, conn: conn, out: ch, in: ch, user: user}
}

// Errors that end a session: errExit closes the session (the user left),
// errDrop closes the whole SSH connection (a fault, or the client is gone).
var (
	errExit = errors.New("session exit")
	errDrop = errors.New("connection dropped")
)

// prompt is what NX-OS prints before reading a line: `host# ` in exec mode,
// `host(mode)# ` in configuration modes. In a non-default VDC of a 7000 the
// host part is `switch-VDC`, as after `switchto vdc` (docs/nxos.md).
func (s *session) prompt() string {
	host := s.sw.hostname
	if s.sw.vdc != "" {
		host += "-" + s.sw.vdc
	}
	if s.ed == nil {
		return host + "# "
	}
	return host + "(" + s.ed.Mode() + ")# "
}

// write sends text, turning LF into CRLF on a terminal.
func (s *session) write(text string) error {
	if s.pty {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	_, err := io.WriteString(s.out, text)
	return err
}

// handle runs one typed line and returns what the switch prints before the
// next prompt. errDrop means the connection must close.
func (s *session) handle(ctx context.Context, raw string) (string, error) {
	line := strings.TrimRight(raw, " \t\r\n")
	f := s.sw.faultsNow()
	if f.Latency > 0 {
		t := time.NewTimer(f.Latency)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", errDrop
		case <-t.C:
		}
	}
	cmd := strings.TrimSpace(line)
	if cmd == "" {
		return "", nil
	}
	if f.StallCommand != "" && cmd == f.StallCommand {
		s.sw.log.Info("fault: stalling", "switch", s.sw.hostname, "line", cmd)
		<-ctx.Done()
		return "", errDrop
	}
	var out string
	var err error
	switch {
	case s.ed != nil && !execInConfig(cmd):
		out, err = s.configLine(line, cmd, f)
	case s.ed != nil && strings.HasPrefix(cmd, "do "):
		col := strings.Index(line, "do ") + 3
		out, err = s.execFiltered(line[col:], len(s.prompt())+col)
	default:
		if f := strings.Fields(cmd); strings.HasPrefix(strings.ToLower(f[0]), "sh") {
			s.sw.countShow()
		}
		out, err = s.execFiltered(line, len(s.prompt()))
	}
	if s.sw.countLine() && err == nil {
		s.sw.log.Info("fault: dropping the connection", "switch", s.sw.hostname, "after", cmd)
		err = errDrop
	}
	return out, err
}

// execInConfig reports whether a line typed in a configuration mode is an
// exec command: NX-OS runs `show …` and `do …` from any mode.
func execInConfig(cmd string) bool {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return false
	}
	w := strings.ToLower(f[0])
	return (len(w) >= 2 && strings.HasPrefix("show", w)) || w == "do"
}

// configLine applies one line in a configuration mode through the nexus
// grammar Editor.
func (s *session) configLine(line, cmd string, f Faults) (string, error) {
	drop := s.sw.countConfigLine()
	lead := len(line) - len(strings.TrimLeft(line, " \t"))
	base := len(s.prompt()) + lead
	var out string
	switch {
	case f.RejectCommand != "" && cmd == f.RejectCommand:
		s.sw.log.Info("fault: rejecting", "switch", s.sw.hostname, "line", cmd)
		out = caretError(base, "invalid", "")
	default:
		if msg, refused := s.sw.vdcRefusal(s.modeNow(), cmd); refused {
			out = msg
			break
		}
		err := s.sw.edit(s, cmd)
		out = formatEditError(base, err)
	}
	if drop {
		s.sw.log.Info("fault: dropping the connection", "switch", s.sw.hostname, "after", cmd)
		return out, errDrop
	}
	return out, nil
}

func (s *session) modeNow() string {
	if s.ed == nil {
		return ""
	}
	return s.ed.Mode()
}

// caretError prints an NX-OS parser error: a caret under column col
// (counted from the start of the prompt line), then the message
// (docs/nxos.md).
func caretError(col int, kind, msg string) string {
	caret := strings.Repeat(" ", col) + "^\n"
	switch kind {
	case "invalid":
		return caret + "% Invalid command at '^' marker."
	case "incomplete":
		return caret + "% Incomplete command at '^' marker."
	case "ambiguous":
		return caret + "% Ambiguous command at '^' marker."
	case "range":
		// NX-OS prints this one without the leading "%" (docs/nxos.md).
		return caret + "Invalid range at '^' marker."
	}
	return msg
}

// formatEditError turns an Editor error into what the CLI prints.
func formatEditError(base int, err error) string {
	if err == nil {
		return ""
	}
	var ce *nexus.CLIError
	if errors.As(err, &ce) {
		switch ce.Kind {
		case "invalid", "incomplete", "ambiguous", "range":
			return caretError(base+ce.Pos, ce.Kind, "")
		}
		return ce.Message
	}
	return "ERROR: " + err.Error()
}

// execFiltered runs an exec line with what NX-OS adds around a command: a
// trailing '?' lists what may come next instead of running it, and
// "| include …", "| exclude …", "| section …", "| begin …", "| count" and
// "| no-more" filter the output (several may follow one another).
func (s *session) execFiltered(line string, base int) (string, error) {
	if t := strings.TrimRight(line, " \t"); strings.HasSuffix(t, "?") {
		out, merr := s.sw.exec.help(strings.TrimSuffix(t, "?"))
		if merr != nil {
			return caretError(base+merr.col, merr.kind, ""), nil
		}
		return out, nil
	}
	cmd, filters := splitPipes(line)
	if out, ok := s.execJSON(line, cmd, filters, base); ok { // `| json` (json.go)
		return out, nil
	}
	out, err := s.execLine(cmd, base)
	if err != nil || isCLIError(out) || len(filters) == 0 {
		return out, err
	}
	for i, f := range filters {
		end := len(line)
		if i+1 < len(filters) {
			end = filters[i+1] - 1
		}
		text := line[f:end]
		filtered, ok, ferr := applyPipe(out, text)
		if ferr != nil {
			return ferr.Error(), nil
		}
		if !ok {
			col := f + len(text) - len(strings.TrimLeft(text, " "))
			return caretError(base+col, "invalid", ""), nil
		}
		out = filtered
	}
	return out, nil
}

// splitPipes cuts a line at its '|' filters (outside double quotes). It
// returns the command and where each filter's text starts; a filter's text
// runs to the next '|'.
func splitPipes(line string) (string, []int) {
	var cuts []int
	quoted := false
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			quoted = !quoted
		case '|':
			if !quoted {
				cuts = append(cuts, i)
			}
		}
	}
	if len(cuts) == 0 {
		return line, nil
	}
	starts := make([]int, len(cuts))
	for i, c := range cuts {
		starts[i] = c + 1
	}
	return line[:cuts[0]], starts
}
