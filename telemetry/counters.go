package telemetry

import "strconv"

// Neutral names in Port.Counters for what verify checks beyond the typed
// fields. Producers map their platform's counters onto them (nics maps the
// mlx5 sysfs, hw_counters and ethtool names); verify reads only these.
// Producers may keep their raw counters in the same map for the report.
const (
	// CounterRxErrors: packets received with errors (host: port_rcv_errors).
	CounterRxErrors = "roce.rx_errors"
	// CounterPauseStormErrors / Warnings: the port's pause-storm
	// protection fired / warned (the NIC stopped honouring pause).
	CounterPauseStormErrors   = "roce.pause_storm_errors"
	CounterPauseStormWarnings = "roce.pause_storm_warnings"
	// CounterOutOfSequence / CounterPSNErrors: RDMA packets that arrived
	// out of order or with a PSN error (lost on the lossless path).
	CounterOutOfSequence = "roce.out_of_sequence"
	CounterPSNErrors     = "roce.psn_errors"
	// CounterCNPSent / CounterCNPHandled: ECN congestion notifications
	// sent (notification point) and acted on (reaction point).
	CounterCNPSent    = "roce.cnp_sent"
	CounterCNPHandled = "roce.cnp_handled"
)

// CounterRxDiscardsPrio names the receive discards on one priority.
func CounterRxDiscardsPrio(prio int) string { return "roce.rx_discards.prio" + strconv.Itoa(prio) }
