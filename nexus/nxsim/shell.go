package nxsim

import (
	"context"
	"errors"
	"strings"
)

// banner is printed when an interactive shell starts.
const banner = "Cisco Nexus Operating System (NX-OS) Software\n" +
	"TAC support: http://www.cisco.com/tac\n" +
	"Copyright (c) 2002-2016, Cisco Systems, Inc. All rights reserved.\n" +
	"This is nxsim, a simulated switch for testing roce.\n"

// Control characters the line editor understands.
const (
	ctrlC     = 0x03
	ctrlZ     = 0x1a
	backspace = 0x08
	del       = 0x7f
	esc       = 0x1b
)

// runShell is an interactive CLI. Like the NX-OS shell (which keeps the
// terminal raw and echoes what it reads), it handles input strictly in
// order: a line typed while the previous one is still running is echoed
// only when the CLI gets to it, so the echo always follows the previous
// answer. It echoes on a terminal (scrapligo waits for the echo before it
// sends the return), takes CR, LF and CRLF line ends, backspace, ^C and ^Z,
// swallows arrow keys, and answers every line — an empty one too — with
// output and a prompt.
func (s *session) runShell(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if s.write(banner+s.prompt()) != nil {
		return
	}
	chunks := make(chan []byte)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 4096)
			n, err := s.in.Read(buf)
			if n > 0 {
				select {
				case chunks <- buf[:n]:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				// The client went away: wake a stalled or sleeping line.
				cancel()
				return
			}
		}
	}()
	var ed lineEditor
	for chunk := range s.turns(ctx, chunks) {
		for _, c := range chunk {
			line, done := ed.feed(c, s.echo)
			if !done {
				continue
			}
			var out string
			var err error
			switch line {
			case "\x03":
			case "\x1a":
				s.ed = nil
			default:
				out, err = s.handle(ctx, line)
			}
			if out != "" && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			if err != nil {
				_ = s.write(out)
				if errors.Is(err, errDrop) && s.conn != nil {
					_ = s.conn.Close()
				}
				return
			}
			if s.write(out+s.prompt()) != nil {
				return
			}
		}
	}
}

// lineEditor collects typed bytes into lines.
type lineEditor struct {
	line    []byte
	afterCR bool
	escape  int // bytes of an escape sequence still to swallow
}

// feed takes one byte. It returns a finished line ("\x03" for ^C, "\x1a"
// for ^Z) and true, or false while the line goes on.
func (e *lineEditor) feed(c byte, echo func(string)) (string, bool) {
	switch {
	case e.escape > 0:
		// ESC [ X and ESC O X: arrow and function keys.
		if e.escape == 2 && c != '[' && c != 'O' {
			e.escape = 0
			return "", false
		}
		e.escape--
		return "", false
	case c == esc:
		e.escape = 2
	case c == '\r' || c == '\n':
		if c == '\n' && e.afterCR {
			e.afterCR = false
			return "", false
		}
		e.afterCR = c == '\r'
		echo("\n")
		l := string(e.line)
		e.line = e.line[:0]
		return l, true
	case c == backspace || c == del:
		e.afterCR = false
		if len(e.line) > 0 {
			e.line = e.line[:len(e.line)-1]
			echo("\b \b")
		}
	case c == ctrlC:
		e.line = e.line[:0]
		echo("^C\n")
		return "\x03", true
	case c == ctrlZ:
		e.line = e.line[:0]
		echo("^Z\n")
		return "\x1a", true
	case c >= 0x20 || c == '\t':
		e.afterCR = false
		e.line = append(e.line, c)
		echo(string(c))
	}
	return "", false
}

// echo repeats typed input on a terminal.
func (s *session) echo(text string) {
	if s.pty {
		_ = s.write(text)
	}
}

// runExec runs an `ssh host 'command'` request: commands separated by
// " ; " run in order in one session, like NX-OS's command separator.
func (s *session) runExec(ctx context.Context, cmd string) uint32 {
	var code uint32
	for _, c := range strings.Split(cmd, " ; ") {
		out, err := s.handle(ctx, c)
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		_ = s.write(out)
		if isCLIError(out) {
			code = 1
		}
		if err != nil {
			if errors.Is(err, errDrop) && s.conn != nil {
				_ = s.conn.Close()
			}
			break
		}
	}
	return code
}

// isCLIError reports whether output carries an NX-OS error marker.
func isCLIError(out string) bool {
	return strings.Contains(out, "% Invalid") || strings.Contains(out, "% Incomplete") ||
		strings.Contains(out, "% Ambiguous") || strings.Contains(out, "ERROR:") ||
		strings.Contains(out, "Invalid range at")
}
