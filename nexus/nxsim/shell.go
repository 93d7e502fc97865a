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

// runShell is an interactive CLI: it echoes typed characters when a
// terminal was requested (scrapligo waits for the echo before it sends the
// return), handles CR, LF and CRLF line ends, backspace, ^C and ^Z, and
// answers every line — an empty one too — with output and a prompt.
func (s *session) runShell(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A stalled or sleeping handler must end when the client goes away;
	// reads fail then, and cancel wakes the handler.
	if s.write(banner+s.prompt()) != nil {
		return
	}
	var (
		line    []byte
		afterCR bool
		escape  int // bytes of an escape sequence still to swallow
		buf     = make([]byte, 4096)
	)
	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		defer close(lines)
		for {
			n, err := s.in.Read(buf)
			for _, c := range buf[:n] {
				switch {
				case escape > 0:
					// ESC [ X: swallow arrow and function keys.
					if escape == 2 && c != '[' && c != 'O' {
						escape = 0
						continue
					}
					escape--
					continue
				case c == esc:
					escape = 2
				case c == '\r' || c == '\n':
					if c == '\n' && afterCR {
						afterCR = false
						continue
					}
					afterCR = c == '\r'
					s.echo("\n")
					select {
					case lines <- string(line):
					case <-ctx.Done():
						return
					}
					line = line[:0]
				case c == backspace || c == del:
					afterCR = false
					if len(line) > 0 {
						line = line[:len(line)-1]
						s.echo("\b \b")
					}
				case c == ctrlC:
					line = line[:0]
					s.echo("^C\n")
					select {
					case lines <- "\x03":
					case <-ctx.Done():
						return
					}
				case c == ctrlZ:
					line = line[:0]
					s.echo("^Z\n")
					select {
					case lines <- "\x1a":
					case <-ctx.Done():
						return
					}
				case c >= 0x20 || c == '\t':
					afterCR = false
					line = append(line, c)
					s.echo(string(c))
				}
			}
			if err != nil {
				readErr <- err
				cancel()
				return
			}
		}
	}()
	for l := range lines {
		var out string
		var err error
		switch l {
		case "\x03":
		case "\x1a":
			s.ed = nil
		default:
			out, err = s.handle(ctx, l)
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
