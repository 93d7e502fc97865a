package nics

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var updateRDMACMGolden = flag.Bool("update-rdmacm", false, "rewrite testdata/rdmacm_persist.golden")

// TestRDMACMPersistRender: a device's configfs rdma_cm defaults become
// tmpfiles.d lines — the device directory first, then per port (in port
// order) the mode and the ToS — that the agent accepts and that read back
// to the same values. The two-port rendering is a golden file.
func TestRDMACMPersistRender(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ports []RDMACMState
		want  []string
	}{
		{"one port, v2, ToS 106", []RDMACMState{{Port: 1, Method: RDMACMConfigfs, ToS: 106, Mode: gidTypeV2, Prec2SL: -1}}, []string{
			"d /sys/kernel/config/rdma_cm/mlx5_0 - - - -",
			"w /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode - - - - RoCE v2",
			"w /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos - - - - 106",
		}},
		{"v1, ToS 0, no mode on port 2", []RDMACMState{
			{Port: 2, Method: RDMACMConfigfs, ToS: 96, Prec2SL: -1},
			{Port: 1, Method: RDMACMConfigfs, ToS: 0, Mode: gidTypeV1, Prec2SL: -1},
		}, []string{
			"d /sys/kernel/config/rdma_cm/mlx5_0 - - - -",
			"w /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode - - - - IB/RoCE v1",
			"w /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos - - - - 0",
			"w /sys/kernel/config/rdma_cm/mlx5_0/ports/2/default_roce_tos - - - - 96",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rdmacmPersistLines("mlx5_0", tc.ports)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if err := CheckFileContent(FileState{Path: RDMACMPersistPath("mlx5_0"), Format: FormatLines, Exists: true, Lines: got}); err != nil {
				t.Errorf("roce's own rendering is refused: %v", err)
			}
			back, err := ParseRDMACMPersist("mlx5_0", []byte(strings.Join(got, "\n")+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			if len(back) != len(tc.ports) {
				t.Fatalf("read back %d ports from %d", len(back), len(tc.ports))
			}
			for _, b := range back {
				for _, p := range tc.ports {
					if p.Port == b.Port && (p.ToS != b.ToS || p.Mode != b.Mode) {
						t.Errorf("port %d read back ToS %d mode %q, want %d %q", p.Port, b.ToS, b.Mode, p.ToS, p.Mode)
					}
				}
			}
		})
	}
	files := rdmacmPersistFiles([]RDMACMState{
		{Device: "mlx5_0", Port: 1, Method: RDMACMConfigfs, ToS: 106, Mode: gidTypeV2, Prec2SL: -1},
		{Device: "mlx5_1", Port: 1, Method: RDMACMConfigfs, ToS: 106, Mode: gidTypeV2, Prec2SL: -1},
	})
	var b strings.Builder
	for _, f := range files {
		b.WriteString("== " + f.Path + "\n" + strings.Join(f.Lines, "\n") + "\n")
	}
	golden := filepath.Join("testdata", "rdmacm_persist.golden")
	if *updateRDMACMGolden {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestRDMACMPersistRender -update-rdmacm)", err)
	}
	if b.String() != string(want) {
		t.Errorf("rendered files differ from %s (-update-rdmacm to accept):\n%s", golden, b.String())
	}
}

// TestResolvePersistsRDMACM: resolving a host whose rdma_cm is set through
// configfs adds the device's tmpfiles.d file and the udev rule once (a
// second resolve adds nothing); def_prec2sl hosts get none (modprobe.d
// persists theirs).
func TestResolvePersistsRDMACM(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		root := t.TempDir()
		if err := SeedLab(root, LabSpec{EmulatedLinks: true, LegacyOFED: legacy, NICs: []LabNIC{{Netdev: "v0", RDMADevice: "mlx5_0"}}}); err != nil {
			t.Fatal(err)
		}
		s, err := Open(root)
		if err != nil {
			t.Fatal(err)
		}
		fab, h := testFabric()
		d, err := Desired(fab, h)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := s.Resolve(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		r2, _, err := s.Resolve(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range []*HostState{r, r2} {
			var got []string
			for _, f := range st.Files {
				if _, ok := rdmacmPersistDevice(f.Path); ok || f.Path == FileRDMACMUdevRule {
					got = append(got, f.Path)
				}
			}
			var want []string
			if !legacy {
				want = []string{"/etc/roce/rdma_cm/mlx5_0.conf", FileRDMACMUdevRule}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("legacy %v: persisted rdma_cm files %q, want %q", legacy, got, want)
			}
		}
		if err := CheckManaged(r); err != nil {
			t.Errorf("legacy %v: the agent would refuse the resolved files: %v", legacy, err)
		}
		if err := CheckResolved(d, r); err != nil {
			t.Errorf("legacy %v: a saved plan's payload would be refused: %v", legacy, err)
		}
	}
}

// TestRDMACMPersistContentRefused: the agent accepts in the persisted
// rdma_cm files only what roce writes: the exact udev rule, and tmpfiles.d
// lines of roce's forms for the file's own device's two attributes.
func TestRDMACMPersistContentRefused(t *testing.T) {
	conf := RDMACMPersistPath("mlx5_0")
	tos := "/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"
	testRefusedLines(t, []refusedLine{
		{"a shell in the rule", FileRDMACMUdevRule, `ACTION=="add", SUBSYSTEM=="infiniband", RUN+="/bin/sh -c 'echo 106 > /sys/kernel/config/rdma_cm/%k/ports/1/default_roce_tos'"`, "not roce's rule"},
		{"rule on another file", FileRDMACMUdevRule, `ACTION=="add|move", SUBSYSTEM=="infiniband", TEST=="/tmp/$kernel.conf", RUN+="/usr/bin/systemd-tmpfiles --create /tmp/$kernel.conf"`, "not roce's rule"},
		{"another device's value", conf, "w /sys/kernel/config/rdma_cm/mlx5_1/ports/1/default_roce_tos - - - - 106", "for RDMA device mlx5_1"},
		{"another device's directory", conf, "d /sys/kernel/config/rdma_cm/mlx5_1 - - - -", "for RDMA device mlx5_1"},
		{"a file outside rdma_cm", conf, "w /proc/sys/kernel/core_pattern - - - - |/tmp/x", "not a tmpfiles.d line roce writes"},
		{"another attribute", conf, "w /sys/kernel/config/rdma_cm/mlx5_0/ports/1/other - - - - 1", "not a tmpfiles.d line roce writes"},
		{"dot-dot in the path", conf, "w /sys/kernel/config/rdma_cm/mlx5_0/ports/1/../../../../../../etc/shadow - - - - x", "not a tmpfiles.d line roce writes"},
		{"remove instead of create", conf, "R /sys/kernel/config/rdma_cm/mlx5_0 - - - -", "not a tmpfiles.d line roce writes"},
		{"append", conf, "w+ " + tos + " - - - - 106", "not a tmpfiles.d line roce writes"},
		{"a mode on the directory", conf, "d /sys/kernel/config/rdma_cm/mlx5_0 0777 - - -", "not a tmpfiles.d line roce writes"},
		{"ToS 256", conf, "w " + tos + " - - - - 256", "ToS 256 is not 0-255"},
		{"ToS with a leading zero", conf, "w " + tos + " - - - - 0106", "not a tmpfiles.d line roce writes"},
		{"a specifier in the value", conf, "w " + tos + " - - - - %H", "not a tmpfiles.d line roce writes"},
		{"trailing text", conf, "w " + tos + " - - - - 106 ; reboot", "not a tmpfiles.d line roce writes"},
		{"unknown mode", conf, "w /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode - - - - RoCE v3", "not a tmpfiles.d line roce writes"},
		{"port 0", conf, "w /sys/kernel/config/rdma_cm/mlx5_0/ports/0/default_roce_tos - - - - 106", "not a tmpfiles.d line roce writes"},
		{"port 256", conf, "w /sys/kernel/config/rdma_cm/mlx5_0/ports/256/default_roce_tos - - - - 106", "port 256 is outside 1-255"},
	})
	assertNotManaged(t, "/etc/roce/rdma_cm/../passwd.conf", "/etc/roce/rdma_cm/mlx5_0.dcb", "/etc/roce/rdma_cm/sub/mlx5_0.conf", "/etc/roce/rdma_cm/.conf", "/etc/udev/rules.d/91-roce-rdma_cm.rules", "/etc/tmpfiles.d/mlx5_0.conf")
	for _, p := range []string{RDMACMPersistPath("mlx5_0"), FileRDMACMUdevRule} {
		if !IsManagedFile(p) {
			t.Errorf("%s is not a managed file", p)
		}
	}
}

// TestLabReapplyRDMACM: after a driver reload a lab host with roce's rule
// and the device's file gets its rdma_cm ToS and mode back — even when
// the configfs device directory is gone (rdma_cm itself reloaded), which
// the replay recreates; without the rule they stay at the kernel's
// defaults.
func TestLabReapplyRDMACM(t *testing.T) {
	for _, tc := range []struct {
		name            string
		rule, removeDir bool
	}{
		{"rule", true, false},
		{"rule, configfs directory gone", true, true},
		{"no rule", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, s := seededLab(t)
			ctx := context.Background()
			if _, err := s.ensureConfigfsDevice(ctx, "mlx5_0"); err != nil {
				t.Fatal(err)
			}
			write := func(p string, lines []string) { writeRootFile(t, root, p, strings.Join(lines, "\n")+"\n") }
			want := RDMACMState{Device: "mlx5_0", Port: 1, Method: RDMACMConfigfs, ToS: 106, Mode: gidTypeV1, Prec2SL: -1}
			write(RDMACMPersistPath("mlx5_0"), rdmacmPersistLines("mlx5_0", []RDMACMState{want}))
			if tc.rule {
				write(FileRDMACMUdevRule, rdmacmUdevRuleLines())
			}
			if _, err := LabNICReset(root, ""); err != nil {
				t.Fatal(err)
			}
			if tc.removeDir {
				if err := os.RemoveAll(filepath.Join(root, "sys/kernel/config/rdma_cm/mlx5_0")); err != nil {
					t.Fatal(err)
				}
			}
			said, err := LabReapplyRDMACM(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.readRDMACM(ctx, want)
			if err != nil {
				t.Fatal(err)
			}
			restored := got.ToS == 106 && got.Mode == gidTypeV1
			if restored != tc.rule {
				t.Errorf("after the reload ToS %d mode %q (said %q)", got.ToS, got.Mode, said)
			}
			if !tc.rule && (got.ToS != 0 || got.Mode != gidTypeV2) {
				t.Errorf("without the rule: ToS %d mode %q, want the kernel's 0 and %q", got.ToS, got.Mode, gidTypeV2)
			}
			wantSaid := "udev re-applied /etc/roce/rdma_cm/mlx5_0.conf: port 1 default_roce_mode IB/RoCE v1, port 1 default_roce_tos 106"
			if !tc.rule {
				wantSaid = "nothing re-applies the rdma_cm defaults"
			}
			if len(said) != 1 || !strings.Contains(said[0], wantSaid) {
				t.Errorf("said %q, want %q", said, wantSaid)
			}
		})
	}
}

// FuzzParseRDMACMPersist: any file content either parses into values
// whose rendering is accepted, or is refused; never a panic.
func FuzzParseRDMACMPersist(f *testing.F) {
	f.Add([]byte("d /sys/kernel/config/rdma_cm/mlx5_0 - - - -\nw /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode - - - - RoCE v2\nw /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos - - - - 106\n"))
	f.Add([]byte("# c\n\nw /sys/kernel/config/rdma_cm/mlx5_0/ports/2/default_roce_tos - - - - 0\n"))
	f.Add([]byte("w /sys/kernel/config/rdma_cm/mlx5_0/ports/999/default_roce_tos - - - - 999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ports, err := ParseRDMACMPersist("mlx5_0", data)
		if err != nil {
			return
		}
		lines := rdmacmPersistLines("mlx5_0", ports)
		if err := CheckFileContent(FileState{Path: RDMACMPersistPath("mlx5_0"), Format: FormatLines, Exists: true, Lines: lines}); err != nil {
			t.Fatalf("parsed %q into %+v, whose rendering is refused: %v", data, ports, err)
		}
		back, err := ParseRDMACMPersist("mlx5_0", []byte(strings.Join(lines, "\n")))
		if err != nil || !reflect.DeepEqual(back, ports) {
			t.Fatalf("%+v rendered and read back as %+v (%v)", ports, back, err)
		}
	})
}
