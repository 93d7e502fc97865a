// Package buildinfo says which build of roce is running, for every
// binary's -version flag and for reports that record the tool's version.
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Info is what the Go toolchain stamped into the binary.
type Info struct {
	Module   string // module path
	Version  string // module version ("(devel)" for a source build)
	Revision string // VCS commit, when built from a checkout
	Time     string // commit time (RFC 3339)
	Modified bool   // built from a checkout with uncommitted changes
	Go       string // Go toolchain version
}

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "unknown"}
	}
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Module: bi.Main.Path, Version: bi.Main.Version, Go: bi.GoVersion}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// String is the one line -version prints:
//
//	roce-plan (devel) commit 9650cf7c1a2b (modified) 2026-11-24T18:00:00Z go1.26.8
func (in Info) String(program string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", program, in.Version)
	if in.Revision != "" {
		rev := in.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		fmt.Fprintf(&b, " commit %s", rev)
		if in.Modified {
			b.WriteString(" (modified)")
		}
	}
	if in.Time != "" {
		fmt.Fprintf(&b, " %s", in.Time)
	}
	if in.Go != "" {
		fmt.Fprintf(&b, " %s", in.Go)
	}
	return b.String()
}
