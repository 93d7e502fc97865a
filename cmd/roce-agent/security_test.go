package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/agentproto"
)

func callAgent(t *testing.T, root string, req agentproto.Request) *agentproto.Response {
	t.Helper()
	req.Version = agentproto.Version
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return Handle(context.Background(), root, strings.NewReader(string(b)))
}

func ncclState(v string) *nics.HostState {
	return &nics.HostState{Files: []nics.FileState{{Path: nics.FileNCCL, Format: nics.FormatKV, Exists: true, Entries: []nics.KV{{Key: "NCCL_IB_SL", Value: v}}}}}
}

// A symlink planted under --root must never be followed: every case
// points somewhere outside the root, and after the read and the apply
// the outside is exactly as it was and the agent said why it refused.
func TestSymlinkUnderRootIsNeverFollowed(t *testing.T) {
	cases := []struct {
		name    string
		plant   func(t *testing.T, root, outside string)
		desired *nics.HostState
	}{
		{"etc is a symlink", func(t *testing.T, root, outside string) {
			must(t, os.Symlink(outside, filepath.Join(root, "etc")))
		}, ncclState("3")},
		{"the file is a symlink", func(t *testing.T, root, outside string) {
			must(t, os.MkdirAll(filepath.Join(root, "etc"), 0o755))
			must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "etc/nccl.conf")))
		}, ncclState("3")},
		{"a directory the apply would create", func(t *testing.T, root, outside string) {
			must(t, os.MkdirAll(filepath.Join(root, "etc"), 0o755))
			must(t, os.Symlink(outside, filepath.Join(root, "etc/ucx")))
		}, &nics.HostState{Files: []nics.FileState{{Path: nics.FileUCX, Format: nics.FormatKV, Exists: true, Entries: []nics.KV{{Key: "UCX_IB_SL", Value: "3"}}}}}},
		{"the backup is a symlink", func(t *testing.T, root, outside string) {
			must(t, os.MkdirAll(filepath.Join(root, "etc"), 0o755))
			must(t, os.WriteFile(filepath.Join(root, "etc/nccl.conf"), []byte("NCCL_IB_SL=0\n"), 0o644))
			must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "etc/nccl.conf.roce-backup")))
		}, ncclState("3")},
		{"the transaction record's directory", func(t *testing.T, root, outside string) {
			must(t, os.MkdirAll(filepath.Join(root, "var/lib"), 0o755))
			must(t, os.Symlink(outside, filepath.Join(root, "var/lib/roce")))
		}, ncclState("3")},
		{"a dot-dot symlink", func(t *testing.T, root, outside string) {
			rel, err := filepath.Rel(root, outside)
			must(t, err)
			must(t, os.Symlink(rel, filepath.Join(root, "etc")))
		}, ncclState("3")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
			must(t, os.MkdirAll(root, 0o755))
			must(t, os.MkdirAll(outside, 0o755))
			must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("NCCL_IB_SL=SECRET-MARKER\n"), 0o600))
			tc.plant(t, root, outside)
			want := fileTree(t, outside)

			rd := callAgent(t, root, agentproto.Request{Op: agentproto.OpRead, Desired: tc.desired})
			if rd.OK {
				b, _ := json.Marshal(rd)
				if strings.Contains(string(b), "SECRET-MARKER") {
					t.Fatalf("read echoed the content behind the symlink: %s", b)
				}
			}
			ap := callAgent(t, root, agentproto.Request{Op: agentproto.OpApply, Desired: tc.desired})
			if ap.OK {
				t.Fatalf("apply through a symlink succeeded: %+v", ap.Apply)
			}
			if !strings.Contains(ap.Error.Message, "symlink") {
				t.Errorf("error does not say why: %v", ap.Error)
			}
			b, _ := json.Marshal(ap)
			if strings.Contains(string(b), "SECRET-MARKER") {
				t.Errorf("apply response echoes the content behind the symlink: %s", b)
			}
			if d := treeDiff(want, fileTree(t, outside)); d != "" {
				t.Fatalf("wrote outside the root: %s", d)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Content roce would never write is refused before the host is opened,
// whatever the path: a modprobe install line is a root command at the
// next module load, a newline in a value is a second line.
func TestManagedFileContentInjectionRefused(t *testing.T) {
	file := func(p, format string, lines []string, kv ...nics.KV) *nics.HostState {
		return &nics.HostState{Files: []nics.FileState{{Path: p, Format: format, Exists: true, Lines: lines, Entries: kv}}}
	}
	cases := []struct {
		name    string
		desired *nics.HostState
	}{
		{"modprobe install", file(nics.ModprobeFile, nics.FormatLines, []string{"install rdma_cm /bin/sh -c 'touch /tmp/pwned'"})},
		{"modprobe other module", file(nics.ModprobeFile, nics.FormatLines, []string{"options mlx5_core prof_sel=2"})},
		{"modprobe trailing command", file(nics.ModprobeFile, nics.FormatLines, []string{"options rdma_cm def_prec2sl=3 ; install x /bin/sh"})},
		{"newline in a value", file(nics.FileNCCL, nics.FormatKV, nil, nics.KV{Key: "NCCL_IB_SL", Value: "3\nNCCL_SOCKET_IFNAME=evil"})},
		{"foreign key", file(nics.FileUCX, nics.FormatKV, nil, nics.KV{Key: "LD_PRELOAD", Value: "/tmp/x.so"})},
		{"value out of range", file(nics.FileNCCL, nics.FormatKV, nil, nics.KV{Key: "NCCL_IB_TC", Value: "999"})},
		{"memlock other limit", file(nics.FileMemlock, nics.FormatLines, []string{"* hard nofile 0"})},
		{"mv2 not an address", file(nics.FileMV2, nics.FormatLines, []string{"$(reboot)"})},
		{"wrong format for the file", file(nics.FileNCCL, nics.FormatLines, []string{"NCCL_IB_SL=3"})},
		{"hca list with a space", file(nics.FileNCCL, nics.FormatKV, nil, nics.KV{Key: "NCCL_IB_HCA", Value: "=mlx5_0:1 x"})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { refusedUntouched(t, tc.desired) })
	}
}

// roce's own files (modprobe.d/roce-rdma_cm.conf, the memlock limits)
// must hold only roce's lines after an edit: a line planted there before
// is refused, not kept beside ours, and the file is left as it was.
func TestOwnFileWithPlantedLineIsNotEdited(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, nics.ModprobeFile)
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	planted := "install rdma_cm /bin/sh -c 'touch /tmp/pwned'\n"
	must(t, os.WriteFile(p, []byte(planted), 0o644))
	before := fileTree(t, root)
	d := &nics.HostState{Files: []nics.FileState{{Path: nics.ModprobeFile, Format: nics.FormatLines, Exists: true, Lines: []string{"options rdma_cm def_prec2sl=3"}}}}
	r := callAgent(t, root, agentproto.Request{Op: agentproto.OpApply, Desired: d})
	if r.OK || !strings.Contains(r.Error.Message, "remove the line by hand") {
		t.Fatalf("apply: %+v", r.Error)
	}
	if r.Apply == nil || r.Apply.Status != "rolled-back" {
		t.Fatalf("apply report %+v", r.Apply)
	}
	if d := treeDiff(before, fileTree(t, root)); d != "" {
		t.Fatalf("host changed: %s", d)
	}
}

// A probe is a perftest tool and typed options: no command line, no
// free-form arguments (perftest has options that write files as root),
// no server "address" that perftest would read as an option.
func TestProbeOptionsOutsideTheAllowListRefused(t *testing.T) {
	cases := map[string]string{
		"shell":              `{"Command":["/bin/sh"]}`,
		"relative path":      `{"Command":["bin/ib_write_bw"]}`,
		"arguments":          `{"Command":["/usr/bin/ib_write_bw","--out_json_file=/etc/cron.d/x"]}`,
		"extra arguments":    `{"ExtraArgs":["--out_json","--out_json_file=/etc/cron.d/x"]}`,
		"unknown tool":       `{"Tool":"ib_atomic_bw"}`,
		"server is option":   `{"Server":"--out_json_file=/etc/x"}`,
		"server with spaces": `{"Server":"10.0.0.1 -d x"}`,
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			in := `{"version":1,"op":"probe","probe":{"options":` + opts + `,"nic":{"netdev":""}}}`
			resp := Handle(context.Background(), root, strings.NewReader(in))
			if resp.OK || resp.Error == nil || resp.Error.Code != agentproto.ErrCodeRefused || resp.Probe != nil {
				t.Fatalf("response %+v %+v", resp.Error, resp.Probe)
			}
		})
	}
}
