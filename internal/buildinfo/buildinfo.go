// Package buildinfo says which build of roce is running, for every
// binary's -version flag and for reports that record the tool's version.
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// stampedCommit is the commit the Makefile's build passes with
// -ldflags "-X github.com/rocefabric/roce/internal/buildinfo.stampedCommit=..."
// (git rev-parse --short HEAD). Go's own VCS stamp is preferred; this one
// counts when the build had none (GOFLAGS=-buildvcs=false, or a build
// from a copy that the go command could not read git from). It is set
// only by the linker, never at run time.
var stampedCommit string

// Unknown is the commit -version prints when the build recorded none.
const Unknown = "unknown"

// Info is what the Go toolchain (and the Makefile) stamped into the binary.
type Info struct {
	Module   string // module path
	Version  string // module version ("(devel)" for a source build)
	Revision string // VCS commit, else the Makefile's stamp, else "unknown"
	Time     string // commit time (RFC 3339)
	Modified bool   // built from a checkout with uncommitted changes
	Go       string // Go toolchain version
}

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "unknown", Revision: revision("", stampedCommit)}
	}
	return fromBuildInfo(bi, stampedCommit)
}

// revision prefers the VCS stamp, then the -ldflags one, then "unknown".
func revision(vcs, stamped string) string {
	switch {
	case vcs != "":
		return vcs
	case strings.TrimSpace(stamped) != "":
		return strings.TrimSpace(stamped)
	}
	return Unknown
}

func fromBuildInfo(bi *debug.BuildInfo, stamped string) Info {
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
	in.Revision = revision(in.Revision, stamped)
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
