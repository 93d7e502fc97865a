// Package perftest runs the perftest bandwidth tools (ib_write_bw,
// ib_send_bw, ib_read_bw), parses their result table and classifies their
// failures into something a user can act on.
//
// It is used on the host side (the roce-agent `probe` operation) and by
// roce-verify's local agent. The tool's flags, output table and failure
// texts are perftest's own (https://github.com/linux-rdma/perftest); which
// tools a probe may run is the allow-list in tools.go.
package perftest
