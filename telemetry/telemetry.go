// Package telemetry is the neutral shape of what a device reports for
// verification: versions and per-port lossless counters. Switch providers
// (providers/nxos, providers/gnmi) and the host agent produce it;
// roce-verify consumes it. It holds data only.
package telemetry

import "context"

// Device is one snapshot of a switch's or host's counters and versions.
type Device struct {
	Address string `json:"address"` // "switch.NAME" | "host.NAME"
	Kind    string `json:"kind"`
	// Versions: "os" (NX-OS / EOS / SONiC version), "image", "fw.<rdma-dev>"
	// (NIC firmware), "driver"... compared against a baseline after upgrades.
	Versions map[string]string `json:"versions,omitempty"`
	Ports    []Port            `json:"ports,omitempty"`
	// DiscardsUnread says why the lossless discard counters of the ports
	// could not be read (empty: they were). Their zeros then mean
	// "unknown", never "no drops".
	DiscardsUnread string `json:"discards_unread,omitempty"`
	// DiscardsPortWide, when set, says why the ports' LosslessDiscards are
	// port-wide counts (input plus output discards of every class on the
	// port, from the switch's interface counters) rather than the lossless
	// class's own: the per-class counters could not be read. A port-wide
	// count that did not move proves the lossless class dropped nothing
	// there; one that moved may be another class's drops.
	DiscardsPortWide string `json:"discards_port_wide,omitempty"`
	// DiscardsPerClassCommand, with DiscardsPortWide, is a command that
	// prints one port's per-class drops on this device, PORT standing for
	// the port ("show policy-map interface PORT type queuing"), for the
	// next step a report names; empty when the provider knows none.
	DiscardsPerClassCommand string `json:"discards_per_class_command,omitempty"`
}

// Port is one interface's lossless-relevant state and counters. Counters are
// cumulative; verify subtracts a before snapshot from an after snapshot.
type Port struct {
	Name string `json:"name"` // "Ethernet1/1", "ens1f0"
	// PFCMode is the configured mode ("on", "auto", "off") where known.
	PFCMode string `json:"pfc_mode,omitempty"`
	// PFCOperational: PFC is operationally on (negotiated or forced).
	PFCOperational bool `json:"pfc_operational"`
	// PFCPriorities is the bitmap of priorities with PFC enabled (bit n = prio n).
	PFCPriorities uint8 `json:"pfc_priorities"`
	// Pause frames per priority (index = priority); nil when the device only
	// reports totals (then RxPauseTotal/TxPauseTotal are set).
	RxPause      []uint64 `json:"rx_pause,omitempty"`
	TxPause      []uint64 `json:"tx_pause,omitempty"`
	RxPauseTotal uint64   `json:"rx_pause_total"`
	TxPauseTotal uint64   `json:"tx_pause_total"`
	// Discards on the lossless class / no-drop queue (switch) or
	// port_xmit_discards (host); every class's when the device's
	// DiscardsPortWide is set.
	LosslessDiscards uint64 `json:"lossless_discards"`
	// Host RDMA counters (hw_counters / counters): out_of_sequence,
	// packet_seq_err, np_cnp_sent, rp_cnp_handled, port_rcv_errors,
	// port_xmit_discards ...
	Counters map[string]uint64 `json:"counters,omitempty"`
	// RateGbps is the link rate where known (sysfs rate, interface speed).
	RateGbps float64 `json:"rate_gbps,omitempty"`
	MTU      int     `json:"mtu,omitempty"`
}

// Source is implemented by targets that can report telemetry.
type Source interface {
	Telemetry(ctx context.Context) (*Device, error)
}
