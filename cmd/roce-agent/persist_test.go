package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/agentproto"
)

// The persisted DCB files (a udev rule runs its program as root) take only
// what roce writes: any other content in a request is refused before the
// host is opened, and the host is left as it was.
func TestPersistedDCBContentRefused(t *testing.T) {
	batch := nics.DCBPersistPath("eth0")
	allRefusedUntouched(t, map[string]*nics.HostState{
		"udev rule running a shell":    linesFile(nics.FileDCBUdevRule, `ACTION=="add", SUBSYSTEM=="net", RUN+="/bin/sh -c 'touch /tmp/pwned'"`),
		"udev rule with a second RUN":  linesFile(nics.FileDCBUdevRule, `ACTION=="add", SUBSYSTEM=="net", TEST=="/etc/roce/dcb/$name.dcb", RUN+="/usr/sbin/dcb -b /etc/roce/dcb/$name.dcb", RUN+="/bin/sh"`),
		"batch for another netdev":     linesFile(batch, "pfc set dev eth1 prio-pfc all:off 4:on"),
		"batch flushing the APP table": linesFile(batch, "app flush dev eth0"),
		"batch with a newline":         linesFile(batch, "pfc set dev eth0 prio-pfc all:off 4:on\nbuffer set dev eth0 buffer-size all:0"),
		"batch outside /etc/roce/dcb":  linesFile("/etc/roce/eth0.dcb", "pfc set dev eth0 prio-pfc all:off 4:on"),
		"batch named with a slash":     linesFile("/etc/roce/dcb/../../cron.d/x.dcb", "pfc set dev eth0 prio-pfc all:off 4:on"),
	})
}

// linesFile is a desired host state of one lines file at p holding l.
func linesFile(p string, l ...string) *nics.HostState {
	return &nics.HostState{Files: []nics.FileState{{Path: p, Format: nics.FormatLines, Exists: true, Lines: l}}}
}

// allRefusedUntouched runs refusedUntouched on each named desired state.
func allRefusedUntouched(t *testing.T, cases map[string]*nics.HostState) {
	t.Helper()
	for name, desired := range cases {
		t.Run(name, func(t *testing.T) { refusedUntouched(t, desired) })
	}
}

// refusedUntouched: a read and an apply of desired are refused before the
// host is opened, and the host tree is left exactly as it was.
func refusedUntouched(t *testing.T, desired *nics.HostState) {
	t.Helper()
	root := t.TempDir()
	before := fileTree(t, root)
	for _, op := range []string{agentproto.OpRead, agentproto.OpApply} {
		r := callAgent(t, root, agentproto.Request{Op: op, Desired: desired})
		if r.OK || r.Error.Code != agentproto.ErrCodeRefused {
			t.Fatalf("%s: %+v, want refused", op, r.Error)
		}
	}
	if d := treeDiff(before, fileTree(t, root)); d != "" {
		t.Fatalf("a refused request changed the host: %s", d)
	}
}

// A persisted DCB file that is a symlink is neither read through nor
// written through; the outside stays as it was.
func TestPersistedDCBSymlinkRefused(t *testing.T) {
	symlinkRefused(t, nics.FileState{Path: nics.DCBPersistPath("eth0"), Format: nics.FormatLines, Exists: true,
		Lines: []string{"dcbx set dev eth0 host ieee", "pfc set dev eth0 prio-pfc all:off 4:on"}})
}

// symlinkRefused: with f's path a symlink to a file outside the root, a
// read and an apply of f fail saying why, echo nothing of the target, and
// leave it as it was.
func symlinkRefused(t *testing.T, f nics.FileState) {
	t.Helper()
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	link := filepath.Join(root, filepath.FromSlash(f.Path))
	must(t, os.MkdirAll(filepath.Dir(link), 0o755))
	must(t, os.MkdirAll(outside, 0o755))
	must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("SECRET-MARKER\n"), 0o600))
	must(t, os.Symlink(filepath.Join(outside, "secret"), link))
	want := fileTree(t, outside)
	d := &nics.HostState{Files: []nics.FileState{f}}
	for _, op := range []string{agentproto.OpRead, agentproto.OpApply} {
		r := callAgent(t, root, agentproto.Request{Op: op, Desired: d})
		if r.OK {
			t.Fatalf("%s through a symlink succeeded", op)
		}
		if !strings.Contains(r.Error.Message, "symlink") {
			t.Errorf("%s: error does not say why: %v", op, r.Error)
		}
		b, _ := json.Marshal(r)
		if strings.Contains(string(b), "SECRET-MARKER") {
			t.Errorf("%s echoes the content behind the symlink: %s", op, b)
		}
	}
	if diff := treeDiff(want, fileTree(t, outside)); diff != "" {
		t.Fatalf("wrote outside the root: %s", diff)
	}
}
