// Package perftest runs the perftest bandwidth tools (ib_write_bw,
// ib_send_bw, ib_read_bw), parses their result table and classifies their
// failures into something a user can act on.
//
// It is used on the host side (the roce-agent `probe` operation) and by
// roce-verify's local agent. Facts about the tool's flags, output table and
// failure texts are in /work/shared/reference/host.md §6.
package perftest
