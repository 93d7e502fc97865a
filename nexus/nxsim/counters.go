package nxsim

import (
	"fmt"
	"slices"

	"github.com/rocefabric/roce/nexus"
)

// portDiscards are the discard counters of one port: cumulative, as a
// switch keeps them.
type portDiscards struct {
	in, out uint64
}

// AddDiscards counts in more input discards and out more output discards
// on one of the switch's ports ("Ethernet3/1", or any form `show
// interface` accepts, "e3/1"). `show interface` and its `| json` form then
// print them (`input discard`, `output discard`; `eth_indiscard`,
// `eth_outdiscard`). The simulator forwards no traffic, so these counters
// move only when a test says so; they are what roce-verify reads on a
// Nexus 7000, whose per-class queuing output the simulator does not print
// (docs/nxos.md#queuing-7000).
func (sw *Switch) AddDiscards(port string, in, out uint64) error {
	name, ok := nexus.CanonicalInterface(port)
	if !ok || !slices.Contains(sw.interfaces, name) {
		return fmt.Errorf("nxsim %s: %q is not a port of this switch", sw.hostname, port)
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.addDiscards(name, in, out)
	return nil
}

// addDiscards adds to a port's discard counters. The caller holds sw.mu.
func (sw *Switch) addDiscards(name string, in, out uint64) {
	if sw.discards == nil {
		sw.discards = map[string]portDiscards{}
	}
	d := sw.discards[name]
	d.in += in
	d.out += out
	sw.discards[name] = d
}

// readDiscards returns the discard counters `show interface` prints for a
// port, first counting the input discards Faults.DiscardsPerRead adds on
// every read. The caller holds sw.mu.
func (sw *Switch) readDiscards(name string) portDiscards {
	if n := sw.faults.DiscardsPerRead[name]; n > 0 {
		sw.addDiscards(name, n, 0)
	}
	return sw.discards[name]
}

// queuing7000Notice is the simulator's whole answer to `show queuing
// interface` on a Nexus 7000: no public capture of that output was found,
// so the simulator prints no layout it would have to invent
// (docs/nxos.md#queuing-7000). roce reads it as a layout it does not read
// (nexus.ErrQueuingLayout), as it would a real 7000's.
const queuing7000Notice = "nxsim: no public capture of a Nexus 7000 'show queuing interface' was found, " +
	"so this simulator prints no queuing output for a 7000 (docs/nxos.md#queuing-7000)"
