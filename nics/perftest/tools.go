package perftest

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// The latency tools of perftest, paired with the bandwidth tools: the same
// connection options, a latency table instead of a bandwidth one.
const (
	ToolWriteLat = "ib_write_lat"
	ToolSendLat  = "ib_send_lat"
	ToolReadLat  = "ib_read_lat"
)

// knownTools is the allow-list of probe executables, in one place for the
// policy validator, roce-verify and roce-agent: a probe names one of these
// perftest tools and typed options, never a command line.
var knownTools = []string{ToolWriteBW, ToolReadBW, ToolSendBW, ToolWriteLat, ToolReadLat, ToolSendLat}

// bandwidthTools are the tools roce-verify measures with (their result is
// a bandwidth table).
var bandwidthTools = []string{ToolWriteBW, ToolReadBW, ToolSendBW}

// KnownTools returns the allow-list of probe tools.
func KnownTools() []string { return slices.Clone(knownTools) }

// BandwidthTools returns the tools a bandwidth probe may name.
func BandwidthTools() []string { return slices.Clone(bandwidthTools) }

// IsKnownTool reports whether name is exactly one of the allowed perftest
// tools (a bare name, looked up on PATH: no directory, no arguments).
func IsKnownTool(name string) bool { return slices.Contains(knownTools, name) }

// IsBandwidthTool reports whether name is one of the bandwidth tools.
func IsBandwidthTool(name string) bool { return slices.Contains(bandwidthTools, name) }

// CheckExecutable accepts exe when it is an allowed tool: a bare name from
// the allow-list, or an absolute path whose base name is one (a perftest
// installed outside PATH, as a host's agent may be told). Anything else
// (a shell, a script, a relative path) is refused with the list.
func CheckExecutable(exe string) error {
	base := exe
	if filepath.IsAbs(exe) {
		base = filepath.Base(exe)
	} else if strings.ContainsRune(exe, '/') {
		return fmt.Errorf("probe executable %q is a relative path; name a perftest tool (%s)", exe, strings.Join(knownTools, ", "))
	}
	if !IsKnownTool(base) {
		return fmt.Errorf("probe executable %q is not a perftest tool; allowed: %s", exe, strings.Join(knownTools, ", "))
	}
	return nil
}
