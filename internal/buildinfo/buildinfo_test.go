package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestString(t *testing.T) {
	tests := []struct {
		name    string
		bi      debug.BuildInfo
		stamped string // the Makefile's -ldflags -X value
		want    string
	}{
		{
			name: "source build from a clean checkout",
			bi: debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/rocefabric/roce", Version: "(devel)"},
				Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "9650cf7c1a2b3c4d5e6f"}, {Key: "vcs.time", Value: "2026-11-24T18:00:00Z"}, {Key: "vcs.modified", Value: "false"}}},
			want: "roce-plan (devel) commit 9650cf7c1a2b 2026-11-24T18:00:00Z go1.26.8",
		},
		{
			name: "modified checkout",
			bi: debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
				Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}},
			want: "roce-plan (devel) commit abc (modified) go1.26.8",
		},
		{
			name: "go install of a tagged version, no VCS stamp",
			bi:   debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}},
			want: "roce-plan v0.3.0 commit unknown go1.26.8",
		},
		{
			name: "no version at all",
			bi:   debug.BuildInfo{},
			want: "roce-plan (devel) commit unknown",
		},
		{
			name:    "-buildvcs=false, commit from the Makefile's -ldflags",
			bi:      debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			stamped: "124aee7\n",
			want:    "roce-plan (devel) commit 124aee7 go1.26.8",
		},
		{
			name: "the VCS stamp wins over the -ldflags one",
			bi: debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
				Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "9650cf7c1a2b3c4d5e6f"}}},
			stamped: "124aee7",
			want:    "roce-plan (devel) commit 9650cf7c1a2b go1.26.8",
		},
		{
			name:    "an empty -ldflags value (not a git checkout) is unknown",
			bi:      debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			stamped: " ",
			want:    "roce-plan (devel) commit unknown",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fromBuildInfo(&tt.bi, tt.stamped).String("roce-plan"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReadFromTestBinary(t *testing.T) {
	// A test binary has build info; its main module is this one.
	in := Read()
	if in.Go == "" {
		t.Fatalf("Read() has no Go version: %+v", in)
	}
}
