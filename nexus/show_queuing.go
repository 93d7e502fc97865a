package nexus

import "errors"

// QueuingGroup is one qos-group of `show queuing interface`.
type QueuingGroup struct {
	QoSGroup         int
	Direction        string // "RX" | "TX"
	DropType         string
	MTU              int
	Bandwidth        int
	RxPause, TxPause string // "Active" | "Inactive"
	Discards         uint64
	QSize            int
}

// QueuingInterface is one interface of `show queuing interface`.
type QueuingInterface struct {
	Interface string
	Groups    []QueuingGroup
}

// ParseShowQueuing reads `show queuing interface`.
func ParseShowQueuing(text string) ([]QueuingInterface, error) {
	return nil, errors.New("nexus: not implemented yet")
}

// FormatShowQueuing prints ifs as the switch does.
func FormatShowQueuing(ifs []QueuingInterface) string { return "" }
