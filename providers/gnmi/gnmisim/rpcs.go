package gnmisim

// RPCs is how many gNMI RPCs (Capabilities, Get, Set) the target has
// served since it started: its round trips, each of which pays
// Faults.Latency once.
func (t *Target) RPCs() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rpcs
}
