package nics

import (
	"fmt"
	"net"
	"strconv"

	"github.com/rocefabric/roce/policies"
)

// Files we manage, relative to the host root.
const (
	FileMV2      = "/etc/mv2.conf"
	FileMVAPICH2 = "/etc/mvapich2.conf"
	FileOpenMPI  = "/etc/openmpi/openmpi-mca-params.conf"
	FileUCX      = "/etc/ucx/ucx.conf"
	FileNCCL     = "/etc/nccl.conf"
	FileMemlock  = "/etc/security/limits.d/90-roce-memlock.conf"
	backupSuffix = ".roce-backup"
)

// BackupPath is where apply keeps the pre-change copy of a file it edits
// (written once, the first time roce touches the file).
func BackupPath(p string) string { return p + backupSuffix }

// desiredFiles derives the MPI / collectives / memlock files. Values that
// must agree with the switch class: the service level (= priority, which
// mlx5 puts in the PCP), the traffic class (= ToS, DSCP in its top six
// bits), the GID index (resolved on the host) and the RoCE addresses.
// When NICs disagree (several classes), the first NIC's class is used for
// single-valued settings.
func desiredFiles(h *policies.Host, nics []nicPlan) ([]FileState, error) {
	var files []FileState
	files = append(files, FileState{Path: FileMemlock, Format: FormatLines, Exists: true,
		Lines: []string{"* soft memlock unlimited", "* hard memlock unlimited"}})
	if len(h.MPI) == 0 || len(nics) == 0 {
		return files, nil
	}
	first := nics[0]
	prio := strconv.Itoa(first.class.Priority)
	tos := strconv.Itoa(first.tos)
	var gid *GIDRef
	pinned := ""
	if first.gidIndex != nil {
		// The policy pins the index: used as is, never resolved.
		pinned = strconv.Itoa(*first.gidIndex)
	} else if first.cidr != "" {
		ip, _, _ := net.ParseCIDR(first.cidr)
		gid = &GIDRef{Device: first.state.RDMADevice, Port: first.state.Port, Netdev: first.ipNetdev, Parent: first.state.Netdev, IP: ip.String(), RoCEMode: first.state.RoCEMode}
	}
	var ips, nets, hcas []string
	for _, n := range nics {
		hcas = append(hcas, deviceRef(n.state.Netdev)+":"+strconv.Itoa(n.state.Port))
		if n.cidr == "" {
			continue
		}
		ip, ipn, _ := net.ParseCIDR(n.cidr)
		ips = append(ips, ip.String())
		nets = append(nets, ipn.String())
	}
	nets = sortedUnique(nets)
	gidKV := func(key string) (KV, error) {
		if pinned != "" {
			return KV{Key: key, Value: pinned}, nil
		}
		if gid == nil {
			return KV{}, fmt.Errorf("%s needs a GID index, resolved from the first NIC's address: set address on nic %s", key, first.state.Netdev)
		}
		g := *gid
		return KV{Key: key, GID: &g}, nil
	}
	for _, m := range h.MPI {
		switch m {
		case "mvapich2":
			if len(ips) == 0 {
				return nil, fmt.Errorf("mvapich2 needs the RoCE addresses for %s: set address on the NICs", FileMV2)
			}
			files = append(files, FileState{Path: FileMV2, Format: FormatLines, Exists: true, Lines: ips})
			g, err := gidKV("MV2_DEFAULT_GID_INDEX")
			if err != nil {
				return nil, err
			}
			files = append(files, FileState{Path: FileMVAPICH2, Format: FormatKVSpaced, Exists: true, Entries: []KV{
				{Key: "MV2_USE_RoCE", Value: "1"},
				{Key: "MV2_DEFAULT_SERVICE_LEVEL", Value: prio},
				g,
			}})
		case "openmpi":
			e := []KV{{Key: "btl_openib_ib_service_level", Value: prio}}
			if len(nets) > 0 {
				e = append(e, KV{Key: "btl_openib_ipaddr_include", Value: joinComma(nets)})
			}
			if gid != nil || pinned != "" {
				g, _ := gidKV("btl_openib_gid_index")
				e = append(e, g)
			}
			files = append(files, FileState{Path: FileOpenMPI, Format: FormatKVSpaced, Exists: true, Entries: e})
		case "ucx":
			e := []KV{{Key: "UCX_IB_SL", Value: prio}, {Key: "UCX_IB_TRAFFIC_CLASS", Value: tos}}
			if gid != nil || pinned != "" {
				g, _ := gidKV("UCX_IB_GID_INDEX")
				e = append(e, g)
			}
			e = append(e, KV{Key: "UCX_NET_DEVICES", Value: joinComma(hcas)})
			files = append(files, FileState{Path: FileUCX, Format: FormatKV, Exists: true, Entries: e})
		case "nccl":
			e := []KV{{Key: "NCCL_IB_SL", Value: prio}, {Key: "NCCL_IB_TC", Value: tos}}
			if gid != nil || pinned != "" {
				g, _ := gidKV("NCCL_IB_GID_INDEX")
				e = append(e, g)
			}
			// A leading '=' makes NCCL match the HCA names exactly.
			e = append(e, KV{Key: "NCCL_IB_HCA", Value: "=" + joinComma(hcas)})
			files = append(files, FileState{Path: FileNCCL, Format: FormatKV, Exists: true, Entries: e})
		default:
			return nil, fmt.Errorf("mpi %q: want mvapich2, openmpi, ucx or nccl", m)
		}
	}
	return files, nil
}
