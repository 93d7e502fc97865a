package nexus

import "strings"

// NormaliseRunning drops what changes between two reads of an unchanged
// switch, or is not configuration: the header comments NX-OS prints
// (!Command, !Time, !Running configuration last done at, …), the
// `version` line, blank lines and trailing spaces. Other lines starting
// with "!" stay: they may be a banner's text or its closing delimiter
// (`banner motd !` … `!`), and Parse reads comments itself.
func NormaliseRunning(out string) string {
	out = strings.ReplaceAll(out, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(out))
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if strings.TrimSpace(l) == "" || isHeaderComment(l) || strings.HasPrefix(l, "version ") {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// isHeaderComment reports whether s is one of the comment lines `show
// running-config` and `show startup-config` print above the configuration
// (NX-OS 5.x–7.x captures in testdata/corpus, docs/nxos.md): they name the
// command and the time, so they differ between two reads of an unchanged
// switch, and they are not configuration.
func isHeaderComment(s string) bool {
	if !strings.HasPrefix(s, "!") {
		return false
	}
	for _, h := range []string{"!Command:", "!Time:", "!Running configuration", "!running configuration",
		"!No configuration change", "!Startup config"} {
		if strings.HasPrefix(s, h) {
			return true
		}
	}
	return false
}
