package nxos

import (
	"strings"
	"testing"
)

// Queuing output in a layout roce does not read leaves the discards
// unknown (said in unread) instead of failing the device's telemetry, so
// its PFC state and pause counters are still checked; other parse errors
// and empty output still fail.
func TestReadQueues(t *testing.T) {
	const cmd = "show queuing interface Ethernet3/1"
	other := cmd + "\nslot  3\n=======\n\nEgress Queuing for Ethernet3/1 [System]\n"
	q, unread, err := readQueues(cmd, other)
	if err != nil || q != nil || !strings.Contains(unread, "`"+cmd+"`: ") || !strings.Contains(unread, `not in the Nexus 5000-family layout roce reads (line 2 reads "slot  3")`) ||
		strings.Contains(unread, "maintainers") {
		t.Fatalf("another layout: queues %v, unread %q, err %v; want unknown queues said in unread", q, unread, err)
	}
	if _, unread, err := readQueues(cmd, ""); err == nil || unread != "" {
		t.Errorf("empty output: unread %q, err %v; want an error", unread, err)
	}
	five := "Ethernet3/1 queuing information:\n  TX Queuing\n    qos-group  sched-type  oper-bandwidth\n        0       WRR            100\n  RX Queuing\n    qos-group 0\n    q-size: 100160, HW MTU: 1500 (1500 configured)\n    drop-type: drop, xon: 0, xoff: 0\n    Statistics:\n        Pkts received over the port             : 0\n        Pkts discarded on ingress               : 7\n"
	q, unread, err = readQueues(cmd, five)
	if err != nil || unread != "" || len(q) != 1 {
		t.Fatalf("the 5000 layout: queues %v, unread %q, err %v", q, unread, err)
	}
}
