package main

import (
	"testing"

	"github.com/rocefabric/roce/nics"
)

// The persisted rdma_cm files (a udev rule runs systemd-tmpfiles as root
// on them) take only what roce writes: any other content in a request is
// refused before the host is opened, and the host is left as it was.
func TestPersistedRDMACMContentRefused(t *testing.T) {
	conf := nics.RDMACMPersistPath("mlx5_0")
	allRefusedUntouched(t, map[string]*nics.HostState{
		"udev rule running a shell":       linesFile(nics.FileRDMACMUdevRule, `ACTION=="add", SUBSYSTEM=="infiniband", RUN+="/bin/sh -c 'touch /tmp/pwned'"`),
		"udev rule with a second RUN":     linesFile(nics.FileRDMACMUdevRule, `ACTION=="add|move", SUBSYSTEM=="infiniband", TEST=="/etc/roce/rdma_cm/$kernel.conf", RUN+="/usr/bin/systemd-tmpfiles --create /etc/roce/rdma_cm/$kernel.conf", RUN+="/bin/sh"`),
		"tmpfiles line writing elsewhere": linesFile(conf, "w /etc/passwd - - - - x"),
		"tmpfiles line removing a tree":   linesFile(conf, "R /sys/kernel/config/rdma_cm/mlx5_0 - - - -"),
		"another device's value":          linesFile(conf, "w /sys/kernel/config/rdma_cm/mlx5_1/ports/1/default_roce_tos - - - - 106"),
		"value with a newline":            linesFile(conf, "w /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos - - - - 106\nw /etc/passwd - - - - x"),
		"file outside /etc/roce/rdma_cm":  linesFile("/etc/tmpfiles.d/mlx5_0.conf", "d /sys/kernel/config/rdma_cm/mlx5_0 - - - -"),
		"file named with a slash":         linesFile("/etc/roce/rdma_cm/../../tmpfiles.d/x.conf", "d /sys/kernel/config/rdma_cm/x - - - -"),
	})
}

// A persisted rdma_cm file or rule that is a symlink is neither read
// through nor written through; the outside stays as it was.
func TestPersistedRDMACMSymlinkRefused(t *testing.T) {
	for _, f := range []nics.FileState{
		{Path: nics.RDMACMPersistPath("mlx5_0"), Format: nics.FormatLines, Exists: true,
			Lines: []string{"d /sys/kernel/config/rdma_cm/mlx5_0 - - - -", "w /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos - - - - 106"}},
		{Path: nics.FileRDMACMUdevRule, Format: nics.FormatLines, Exists: true,
			Lines: []string{`ACTION=="add|move", SUBSYSTEM=="infiniband", TEST=="/etc/roce/rdma_cm/$kernel.conf", RUN+="/usr/bin/systemd-tmpfiles --create /etc/roce/rdma_cm/$kernel.conf"`}},
	} {
		t.Run(f.Path, func(t *testing.T) { symlinkRefused(t, f) })
	}
}
