// Package nics is the host side of a lossless class: the state a Linux host
// needs so RoCE traffic lands on the priority the switches pause, and the
// code that reads, diffs, applies and restores it.
//
// State is a HostState: per NIC the dcbnl settings (IEEE PFC, DSCP APP
// entries that switch mlx5 to DSCP trust, DCBX mode), the netdev MTU and
// address, the VLAN device with its egress-qos-map; per RDMA device the
// rdma_cm default ToS / RoCE mode (configfs) or the legacy def_prec2sl
// module option; and the MPI / collective / memlock files. Every path hangs
// off one root (System.Root) so tests and the lab run against a temporary
// tree.
//
// Desired computes the wanted state from a policy (pure). A host-side Read
// resolves what only the host knows (RDMA device, GID index, MTU floor,
// rdma_cm method) and returns the current state; Diff turns the pair into
// plan.Changes; Apply snapshots, applies step by step and restores
// everything on any failure.
//
// A lab backend emulates what the lab kernel lacks (DCB, VLAN devices,
// RDMA sysfs/configfs). It is chosen only when Root is not "/" and
// <Root>/.roce-lab exists, and is always labelled in facts.
package nics
