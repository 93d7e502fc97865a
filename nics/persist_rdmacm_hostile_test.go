package nics

import (
	"strings"
	"testing"
)

// FuzzRDMACMPersistDevice: for any RDMA device name, either it is refused
// (and the agent refuses its tmpfiles.d file), or every line roce writes
// for it is a tmpfiles.d line whose path field is one word free of '%'
// (systemd-tmpfiles expands % specifiers in paths, tmpfiles.d(5)) naming
// that device's own configfs directory, and the agent accepts the file.
func FuzzRDMACMPersistDevice(f *testing.F) {
	for _, s := range []string{"mlx5_0", "mlx5_%H", "%%", "rxe$kernel", "a b", "a\tb", "..", "x/y", "mlx5#0", "m\x1b"} {
		f.Add(s)
	}
	ports := []RDMACMState{{Port: 1, Method: RDMACMConfigfs, ToS: 106, Mode: "RoCE v2", Prec2SL: -1}, {Port: 2, Method: RDMACMConfigfs, ToS: 0, Prec2SL: -1}}
	f.Fuzz(func(t *testing.T, dev string) {
		file := FileState{Path: RDMACMPersistPath(dev), Format: FormatLines, Exists: true, Lines: rdmacmPersistLines(dev, ports)}
		if CheckRDMADeviceName(dev) != nil {
			if CheckFileContent(file) == nil {
				t.Fatalf("device %q is refused but the agent accepts %s", dev, file.Path)
			}
			return
		}
		for _, l := range file.Lines {
			fields := strings.Fields(l)
			if len(fields) < 6 {
				t.Fatalf("device %q: line %q has %d fields", dev, l, len(fields))
			}
			p := fields[1]
			if strings.Contains(p, "%") || !strings.HasPrefix(p, "/sys/kernel/config/rdma_cm/"+dev) {
				t.Fatalf("device %q: line %q's path %q is not the device's own, taken literally", dev, l, p)
			}
		}
		if err := CheckFileContent(file); err != nil {
			t.Fatalf("device %q: the agent refuses roce's own file: %v", dev, err)
		}
	})
}
