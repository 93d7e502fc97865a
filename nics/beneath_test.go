package nics

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Both ways of opening beneath the root — openat2 and the O_NOFOLLOW walk
// for kernels without it — refuse every symlink and every escape.
func TestOpenBeneathRefusesSymlinksAndEscapes(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{root + "/etc/ok", outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "etc/ok/f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "f"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{outside, "etc/dirlink"}, {filepath.Join(outside, "f"), "etc/filelink"}, {"ok", "etc/rellink"}} {
		if err := os.Symlink(l[0], filepath.Join(root, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		rel  string
		want error // nil = opens
	}{
		{"etc/ok/f", nil},
		{"etc/dirlink/f", unix.ELOOP},
		{"etc/filelink", unix.ELOOP},
		{"etc/rellink/f", unix.ELOOP}, // even a symlink that stays inside
		{"etc/../../outside/f", unix.EXDEV},
	}
	rootfd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(rootfd)
	for _, way := range []struct {
		name string
		open func(int, string, int, uint32) (int, error)
	}{{"openat2", openat2Beneath}, {"walk", walkNoFollow}} {
		for _, tc := range cases {
			fd, err := way.open(rootfd, tc.rel, unix.O_RDONLY, 0)
			if err == nil {
				unix.Close(fd)
			}
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("%s %s: %v, want %v", way.name, tc.rel, err, tc.want)
			}
		}
	}
	// The System API says why, in words.
	s := &System{Root: root}
	if _, _, err := s.readBeneath("/etc/filelink"); !errors.Is(err, ErrSymlink) {
		t.Errorf("readBeneath through a symlink: %v", err)
	}
	if err := s.writeAtomicBeneath("/etc/dirlink/new", []byte("x"), 0o644); !errors.Is(err, ErrSymlink) {
		t.Errorf("write through a symlinked directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Error("wrote outside the root")
	}
	if _, err := s.openBeneath("/../outside/f", unix.O_RDONLY, 0); err == nil {
		t.Error("an unclean path was opened")
	}
}

// A symlink planted in a lab tree's configfs never brings another file's
// content into a read: it is refused, naming the symlink.
func TestConfigfsSymlinkRefused(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	if err := SeedLab(root, LabSpec{EmulatedLinks: true, NICs: []LabNIC{{Netdev: "sc0", RDMADevice: "mlx5_0"}}}); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(base, "secret")
	if err := os.WriteFile(secret, []byte("SECRET-MARKER\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	port := filepath.Join(root, "sys/kernel/config/rdma_cm/mlx5_0/ports/1")
	if err := os.MkdirAll(port, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(port, "default_roce_mode"), []byte("RoCE v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(port, "default_roce_tos")) // seeded by the lab
	if err := os.Symlink(secret, filepath.Join(port, "default_roce_tos")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	d := &HostState{RDMACM: []RDMACMState{{Device: "mlx5_0", Netdev: "sc0", Port: 1, Method: RDMACMConfigfs, ToS: 106, Mode: "RoCE v2", Prec2SL: -1}}}
	_, err = s.Read(context.Background(), d)
	if !errors.Is(err, ErrSymlink) || strings.Contains(err.Error(), "SECRET-MARKER") {
		t.Fatalf("read through a configfs symlink: %v", err)
	}
	if _, err := s.Apply(context.Background(), d, ApplyOptions{}); err == nil {
		t.Fatal("apply through a configfs symlink succeeded")
	}
	if b, _ := os.ReadFile(secret); string(b) != "SECRET-MARKER\n" {
		t.Errorf("the file behind the symlink changed: %q", b)
	}
}
