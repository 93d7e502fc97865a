package nics

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ethtool ioctl interface (linux/ethtool.h). Driver-private statistics such
// as mlx5's rx_prio3_pause exist only here, not in ethtool-netlink
// (docs/platform-hosts.md #counters).
const (
	ethtoolGSSetInfo = 0x37
	ethtoolGStrings  = 0x1b
	ethtoolGStats    = 0x1d
	ethSSStats       = 1
	ethGStringLen    = 32
	ifreqSize        = 40 // struct ifreq on 64-bit Linux
	maxEthtoolStats  = 1 << 16
)

// EthtoolStats returns `ethtool -S ifname` as a map (keys trimmed: one old
// mlx5 string carried a trailing space). EOPNOTSUPP when the driver has no
// statistics.
func EthtoolStats(ifname string) (map[string]uint64, error) {
	if len(ifname) >= unix.IFNAMSIZ {
		return nil, fmt.Errorf("ethtool -S %s: interface name too long", ifname)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("ethtool -S %s: socket: %w", ifname, err)
	}
	defer unix.Close(fd)

	// struct ethtool_sset_info { u32 cmd; u32 reserved; u64 sset_mask; u32 data[1]; }
	info := make([]byte, 20)
	binary.NativeEndian.PutUint32(info[0:], ethtoolGSSetInfo)
	binary.NativeEndian.PutUint64(info[8:], 1<<ethSSStats)
	if err := ethtoolIoctl(fd, ifname, info); err != nil {
		return nil, fmt.Errorf("ethtool -S %s: ETHTOOL_GSSET_INFO: %w", ifname, err)
	}
	if binary.NativeEndian.Uint64(info[8:])&(1<<ethSSStats) == 0 {
		return nil, fmt.Errorf("ethtool -S %s: %w", ifname, unix.EOPNOTSUPP)
	}
	n := int(binary.NativeEndian.Uint32(info[16:]))
	if n <= 0 || n > maxEthtoolStats {
		return nil, fmt.Errorf("ethtool -S %s: driver reports %d statistics", ifname, n)
	}
	// struct ethtool_gstrings { u32 cmd; u32 string_set; u32 len; u8 data[]; }
	strs := make([]byte, 12+n*ethGStringLen)
	binary.NativeEndian.PutUint32(strs[0:], ethtoolGStrings)
	binary.NativeEndian.PutUint32(strs[4:], ethSSStats)
	binary.NativeEndian.PutUint32(strs[8:], uint32(n))
	if err := ethtoolIoctl(fd, ifname, strs); err != nil {
		return nil, fmt.Errorf("ethtool -S %s: ETHTOOL_GSTRINGS: %w", ifname, err)
	}
	// struct ethtool_stats { u32 cmd; u32 n_stats; u64 data[]; }
	stats := make([]byte, 8+n*8)
	binary.NativeEndian.PutUint32(stats[0:], ethtoolGStats)
	binary.NativeEndian.PutUint32(stats[4:], uint32(n))
	if err := ethtoolIoctl(fd, ifname, stats); err != nil {
		return nil, fmt.Errorf("ethtool -S %s: ETHTOOL_GSTATS: %w", ifname, err)
	}
	got := int(binary.NativeEndian.Uint32(stats[4:]))
	if got < n {
		n = got
	}
	out := make(map[string]uint64, n)
	for i := 0; i < n; i++ {
		raw := strs[12+i*ethGStringLen : 12+(i+1)*ethGStringLen]
		if j := strings.IndexByte(string(raw), 0); j >= 0 {
			raw = raw[:j]
		}
		out[strings.TrimSpace(string(raw))] = binary.NativeEndian.Uint64(stats[8+i*8:])
	}
	return out, nil
}

// ethtoolIoctl runs SIOCETHTOOL with buf as ifr_data. buf is copied into
// memory outside the Go heap for the call, so the kernel never holds a Go
// pointer, and copied back afterwards.
func ethtoolIoctl(fd int, ifname string, buf []byte) error {
	mem, err := unix.Mmap(-1, 0, ifreqSize+len(buf), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return err
	}
	defer unix.Munmap(mem)
	copy(mem[:unix.IFNAMSIZ], ifname)
	data := mem[ifreqSize:]
	copy(data, buf)
	binary.NativeEndian.PutUint64(mem[16:], uint64(uintptr(unsafe.Pointer(&data[0]))))
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&mem[0])))
	if errno != 0 {
		return errno
	}
	copy(buf, data)
	return nil
}

// PausePerPriority extracts mlx5's per-priority pause counters
// (rx_prio<N>_pause / tx_prio<N>_pause) from ethtool statistics; ok is
// false when the driver has none.
func PausePerPriority(stats map[string]uint64) (rx, tx []uint64, ok bool) {
	rx, tx = make([]uint64, 8), make([]uint64, 8)
	for k, v := range stats {
		var dir string
		switch {
		case strings.HasPrefix(k, "rx_prio"):
			dir = "rx"
		case strings.HasPrefix(k, "tx_prio"):
			dir = "tx"
		default:
			continue
		}
		rest, found := strings.CutSuffix(k[len("rx_prio"):], "_pause")
		if !found {
			continue
		}
		p, err := strconv.Atoi(rest)
		if err != nil || p < 0 || p > 7 {
			continue
		}
		ok = true
		if dir == "rx" {
			rx[p] = v
		} else {
			tx[p] = v
		}
	}
	if !ok {
		return nil, nil, false
	}
	return rx, tx, true
}
