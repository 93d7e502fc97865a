package nxos

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A capture is the saved text of what the provider would read from a
// switch, for offline change review: a directory with show-version.txt,
// show-module.txt and show-running-config.txt, or one file holding a
// session log in which each output follows its prompt line
// ("sw1# show version").
type capture struct {
	version, module, running string
}

// captureFile is one command of a capture and its file in a capture
// directory.
type captureFile struct{ command, file string }

// captureFiles are read in this order.
var captureFiles = []captureFile{
	{"show version", "show-version.txt"},
	{"show module", "show-module.txt"},
	{"show running-config", "show-running-config.txt"},
}

func readCapture(path string) (capture, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return capture{}, fmt.Errorf("capture %s: %w", path, err)
	}
	out := map[string]string{}
	if fi.IsDir() {
		for _, cf := range captureFiles {
			cmd, name := cf.command, cf.file
			b, err := os.ReadFile(filepath.Join(path, name))
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return capture{}, fmt.Errorf("capture %s: %s is missing; save the output of `%s` there", path, name, cmd)
				}
				return capture{}, fmt.Errorf("capture %s: %w", path, err)
			}
			out[cmd] = string(b)
		}
	} else {
		b, err := os.ReadFile(path)
		if err != nil {
			return capture{}, fmt.Errorf("capture %s: %w", path, err)
		}
		out = splitSessionLog(string(b))
		for _, cf := range captureFiles {
			cmd := cf.command
			if _, ok := out[cmd]; !ok {
				return capture{}, fmt.Errorf("capture %s: no `%s` output found (each output must follow a prompt line such as \"sw1# %s\")", path, cmd, cmd)
			}
		}
	}
	return capture{version: out["show version"], module: out["show module"], running: out["show running-config"]}, nil
}

// promptLine matches "host# command" at the start of a line.
var promptLine = regexp.MustCompile(`^[\w.\-]{1,63}(?:\([\w.\-]+\))?#\s*(.*)$`)

// splitSessionLog splits a saved terminal session into outputs keyed by
// the command typed (abbreviations expanded for the three we need).
func splitSessionLog(text string) map[string]string {
	out := map[string]string{}
	cur := ""
	var b strings.Builder
	flush := func() {
		if cur != "" {
			out[cur] = b.String()
		}
		b.Reset()
	}
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if m := promptLine.FindStringSubmatch(l); m != nil {
			flush()
			cur = canonicalShow(m[1])
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	flush()
	return out
}

// canonicalShow expands "sh ver", "show run" and the like.
func canonicalShow(cmd string) string {
	f := strings.Fields(strings.ToLower(cmd))
	if len(f) != 2 || !strings.HasPrefix("show", f[0]) || len(f[0]) < 2 {
		return strings.Join(f, " ")
	}
	for _, w := range []string{"version", "module", "running-config"} {
		if strings.HasPrefix(w, f[1]) && len(f[1]) >= 3 {
			return "show " + w
		}
	}
	return strings.Join(f, " ")
}
