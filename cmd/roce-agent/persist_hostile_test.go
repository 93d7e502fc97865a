package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/agentproto"
)

// The persisted files' directories may not exist yet (the agent creates
// /etc/roce/dcb), and any of them may be a symlink planted on the host
// (to /etc/cron.d, to the real /etc). An apply whose path runs through a
// symlinked directory is refused and writes nothing outside the root,
// whichever directory of the path is the link.
func TestHostilePersistDirSymlink(t *testing.T) {
	batch := nics.FileState{Path: nics.DCBPersistPath("eth0"), Format: nics.FormatLines, Exists: true,
		Lines: []string{"dcbx set dev eth0 host ieee", "pfc set dev eth0 prio-pfc all:off 4:on"}}
	for _, tc := range []struct {
		name string
		link string // directory (relative to the root) made a symlink out
		f    nics.FileState
	}{
		{"dcb dir", "etc/roce/dcb", batch},
		{"roce dir", "etc/roce", batch},
		{"etc", "etc", batch},
		{"udev rules dir", "etc/udev/rules.d", nics.FileState{Path: nics.FileDCBUdevRule}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.f.Path == nics.FileDCBUdevRule {
				tc.f = udevRuleFile(t) // roce's own rule: only the path can be refused
			}
			base := t.TempDir()
			root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
			must(t, os.MkdirAll(outside, 0o755))
			l := filepath.Join(root, filepath.FromSlash(tc.link))
			must(t, os.MkdirAll(filepath.Dir(l), 0o755))
			// Control: without the link the same apply writes the file,
			// so the refusal below is the link's.
			ctl := callAgent(t, root, agentproto.Request{Op: agentproto.OpApply, Desired: &nics.HostState{Files: []nics.FileState{tc.f}}})
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(tc.f.Path))); !ctl.OK || err != nil {
				t.Fatalf("control apply without a symlink: %+v, %v", ctl.Error, err)
			}
			must(t, os.RemoveAll(l))
			must(t, os.Symlink(outside, l))
			want := fileTree(t, outside)
			r := callAgent(t, root, agentproto.Request{Op: agentproto.OpApply, Desired: &nics.HostState{Files: []nics.FileState{tc.f}}})
			if r.OK || !strings.Contains(r.Error.Message, "symlink") {
				t.Errorf("apply through symlinked %s: %+v, want a refusal naming the symlink", tc.link, r.Error)
			}
			if d := treeDiff(want, fileTree(t, outside)); d != "" {
				t.Fatalf("wrote outside the root through symlinked %s: %s", tc.link, d)
			}
		})
	}
}

// udevRuleFile is roce's own udev rule line (docs/platform-hosts.md), which
// the agent's content check accepts.
func udevRuleFile(t *testing.T) nics.FileState {
	t.Helper()
	return nics.FileState{Path: nics.FileDCBUdevRule, Format: nics.FormatLines, Exists: true,
		Lines: []string{`ACTION=="add", SUBSYSTEM=="net", TEST=="/etc/roce/dcb/$name.dcb", RUN+="/usr/sbin/dcb -b /etc/roce/dcb/$name.dcb"`}}
}
