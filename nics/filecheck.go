package nics

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// What roce writes into each managed file, and nothing else. The agent
// checks every file of a request against this before opening the host, so
// a tampered plan or a hand-made request can't use a managed file to run
// something: a modprobe.d `install` line is a command run as root at the
// next module load, a newline in a value is a second line, an unknown key
// in nccl.conf or ucx.conf changes another program's behaviour.

type fileSpec struct {
	format string
	// keys (kv formats): the keys roce writes and each one's value check.
	keys map[string]func(v string, pending bool) error
	// line (lines format): the check of each owned line.
	line func(l string) error
	// ownFile: the whole file is roce's (named roce-*); every line in it,
	// after the edit, must be one roce writes, so lines planted there
	// earlier are refused rather than kept.
	ownFile bool
}

var (
	memlockLines = []string{"* soft memlock unlimited", "* hard memlock unlimited"}
)

func fileSpecs(p string) (fileSpec, bool) {
	if spec, ok := persistSpec(p); ok { // persist.go
		return spec, true
	}
	switch p {
	case FileMV2:
		return fileSpec{format: FormatLines, line: checkIPLine}, true
	case FileMVAPICH2:
		return fileSpec{format: FormatKVSpaced, keys: map[string]func(string, bool) error{
			"MV2_USE_RoCE":              exact("1"),
			"MV2_DEFAULT_SERVICE_LEVEL": intRange(0, 7),
			"MV2_DEFAULT_GID_INDEX":     gidValue,
		}}, true
	case FileOpenMPI:
		return fileSpec{format: FormatKVSpaced, keys: map[string]func(string, bool) error{
			"btl_openib_ib_service_level": intRange(0, 7),
			"btl_openib_ipaddr_include":   cidrList,
			"btl_openib_gid_index":        gidValue,
		}}, true
	case FileUCX:
		return fileSpec{format: FormatKV, keys: map[string]func(string, bool) error{
			"UCX_IB_SL":            intRange(0, 7),
			"UCX_IB_TRAFFIC_CLASS": intRange(0, 255),
			"UCX_IB_GID_INDEX":     gidValue,
			"UCX_NET_DEVICES":      hcaList(""),
		}}, true
	case FileNCCL:
		return fileSpec{format: FormatKV, keys: map[string]func(string, bool) error{
			"NCCL_IB_SL":        intRange(0, 7),
			"NCCL_IB_TC":        intRange(0, 255),
			"NCCL_IB_GID_INDEX": gidValue,
			"NCCL_IB_HCA":       hcaList("="),
		}}, true
	case FileMemlock:
		return fileSpec{format: FormatLines, ownFile: true, line: func(l string) error {
			for _, m := range memlockLines {
				if l == m {
					return nil
				}
			}
			return fmt.Errorf("line %q is not one roce writes (%q or %q)", l, memlockLines[0], memlockLines[1])
		}}, true
	case ModprobeFile:
		return fileSpec{format: FormatLines, ownFile: true, line: checkModprobeLine}, true
	}
	return fileSpec{}, false
}

// checkModprobeLine allows exactly `options rdma_cm def_prec2sl=N`, N a
// priority 0-7: no install/remove/softdep/blacklist line, no other module.
func checkModprobeLine(l string) error {
	const prefix = "options rdma_cm def_prec2sl="
	if !strings.HasPrefix(l, prefix) {
		return fmt.Errorf("line %q is not %q followed by a priority: roce writes only that option (never install, remove or another module's options)", l, prefix)
	}
	return intRange(0, 7)(strings.TrimPrefix(l, prefix), false)
}

func checkIPLine(l string) error {
	ip := net.ParseIP(l)
	if ip == nil || ip.String() != l {
		return fmt.Errorf("line %q is not an IP address", l)
	}
	return nil
}

func exact(want string) func(string, bool) error {
	return func(v string, _ bool) error {
		if v != want {
			return fmt.Errorf("value %q, roce writes only %q", v, want)
		}
		return nil
	}
}

func intRange(lo, hi int) func(string, bool) error {
	return func(v string, _ bool) error {
		n, err := strconv.Atoi(v)
		if err != nil || strconv.Itoa(n) != v || n < lo || n > hi {
			return fmt.Errorf("value %q is not a number %d-%d", v, lo, hi)
		}
		return nil
	}
}

// gidValue is a GID index 0-255, or empty when the index is resolved on
// the host during apply (pending).
func gidValue(v string, pending bool) error {
	if v == "" && pending {
		return nil
	}
	return intRange(0, 255)(v, false)
}

func cidrList(v string, _ bool) error {
	for _, c := range strings.Split(v, ",") {
		ip, n, err := net.ParseCIDR(c)
		if err != nil || n.String() != c || !ip.Equal(n.IP) {
			return fmt.Errorf("value %q is not a comma-separated list of network CIDRs", v)
		}
	}
	return nil
}

// hcaList is "<dev>:<port>[,...]" after prefix; dev is an RDMA device name
// or, in a desired state not yet resolved, the ${rdma_device:<netdev>}
// reference the host fills in.
func hcaList(prefix string) func(string, bool) error {
	return func(v string, _ bool) error {
		rest, ok := strings.CutPrefix(v, prefix)
		if !ok || rest == "" {
			return fmt.Errorf("value %q is not %q followed by device:port entries", v, prefix)
		}
		for _, e := range strings.Split(rest, ",") {
			i := strings.LastIndexByte(e, ':')
			if i <= 0 {
				return fmt.Errorf("value %q: entry %q is not device:port", v, e)
			}
			dev, port := e[:i], e[i+1:]
			if err := intRange(1, 255)(port, false); err != nil {
				return fmt.Errorf("value %q: entry %q: port %w", v, e, err)
			}
			if nd, ok := strings.CutPrefix(dev, "${rdma_device:"); ok && strings.HasSuffix(nd, "}") {
				if err := CheckNetdevName(strings.TrimSuffix(nd, "}")); err != nil {
					return fmt.Errorf("value %q: %w", v, err)
				}
				continue
			}
			if !isRDMADeviceChars(dev) {
				return fmt.Errorf("value %q: %q is not an RDMA device name", v, dev)
			}
		}
		return nil
	}
}

func isRDMADeviceChars(d string) bool {
	if d == "" || len(d) > 63 || d == "." || d == ".." {
		return false
	}
	for _, r := range d {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
}

// CheckFileContent refuses a managed file whose owned part is not what roce
// writes: the path's format, its keys and the form of their values, or its
// lines. Errors wrap ErrNotManaged and name the file and entry.
func CheckFileContent(f FileState) error {
	spec, ok := fileSpecs(f.Path)
	if !ok {
		return fmt.Errorf("file %q is %w", f.Path, ErrNotManaged)
	}
	if f.Format != spec.format {
		return fmt.Errorf("%s: format %q, roce writes it as %q: %w", f.Path, f.Format, spec.format, ErrNotManaged)
	}
	if spec.format == FormatLines {
		if len(f.Entries) > 0 {
			return fmt.Errorf("%s: key/value entries in a line file: %w", f.Path, ErrNotManaged)
		}
		seen := map[string]bool{}
		for _, l := range f.Lines {
			if hasControl(l) {
				return fmt.Errorf("%s: line %q has a control character (a newline would add a line): %w", f.Path, l, ErrNotManaged)
			}
			if err := spec.line(l); err != nil {
				return fmt.Errorf("%s: %v: %w", f.Path, err, ErrNotManaged)
			}
			if seen[l] {
				return fmt.Errorf("%s: line %q twice: %w", f.Path, l, ErrNotManaged)
			}
			seen[l] = true
		}
		return nil
	}
	if len(f.Lines) > 0 {
		return fmt.Errorf("%s: lines in a key/value file: %w", f.Path, ErrNotManaged)
	}
	seen := map[string]bool{}
	for _, e := range f.Entries {
		check, ok := spec.keys[e.Key]
		if !ok {
			return fmt.Errorf("%s: key %q is not one roce manages there: %w", f.Path, e.Key, ErrNotManaged)
		}
		if seen[e.Key] {
			return fmt.Errorf("%s: key %q twice: %w", f.Path, e.Key, ErrNotManaged)
		}
		seen[e.Key] = true
		if hasControl(e.Value) {
			return fmt.Errorf("%s: %s value %q has a control character (a newline would add a line): %w", f.Path, e.Key, e.Value, ErrNotManaged)
		}
		if err := check(e.Value, e.GID != nil); err != nil {
			return fmt.Errorf("%s: %s %v: %w", f.Path, e.Key, err, ErrNotManaged)
		}
	}
	return nil
}

// checkWrittenContent is the last check before bytes reach a managed file:
// the owned entries again (now resolved: no pending GID index), and for
// roce's own files every line of the result.
func checkWrittenContent(w FileState, data []byte) error {
	if err := CheckFileContent(w); err != nil {
		return err
	}
	for _, e := range w.Entries {
		if e.Value == "" {
			return fmt.Errorf("%s: %s has no value (GID index not resolved); nothing written", w.Path, e.Key)
		}
	}
	spec, _ := fileSpecs(w.Path)
	if !spec.ownFile {
		return nil
	}
	return checkOwnFileLines(w.Path, spec, data)
}

// checkOwnFileLines refuses content of one of roce's own files holding a
// line roce does not write.
func checkOwnFileLines(p string, spec fileSpec, data []byte) error {
	lines, _ := splitLines(data)
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if err := spec.line(t); err != nil {
			return fmt.Errorf("%s is roce's own file but holds a line roce does not write (%v); remove the line by hand and apply again: %w", p, err, ErrNotManaged)
		}
	}
	return nil
}
