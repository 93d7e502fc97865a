package nxsim

import (
	"context"
	"iter"
	"time"
)

// turns yields the shell's input chunks and counts the client's turns: a
// chunk the CLI had to wait for (everything received so far was answered)
// is a new round trip, as the client sent it after reading an answer;
// input already buffered behind the line being run (pipelined, pasted)
// is not. Each turn pays Faults.RoundTripLatency once, so a client that
// pipelines N lines pays one network round trip, not N.
//
// A pasted batch larger than one read arrives in several chunks; the later
// ones are already buffered when the CLI gets to them, so they do not
// count. A count can only be too high (a batch split by the network while
// the CLI was idle), never too low.
func (s *session) turns(ctx context.Context, chunks <-chan []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for {
			var chunk []byte
			var ok bool
			select {
			case chunk, ok = <-chunks:
			default:
				chunk, ok = <-chunks
				if ok {
					if !s.sw.countRoundTrip(ctx) {
						return
					}
				}
			}
			if !ok || !yield(chunk) {
				return
			}
		}
	}
}

// countRoundTrip records one client turn and waits the round-trip
// latency; false when the session ended meanwhile.
func (sw *Switch) countRoundTrip(ctx context.Context) bool {
	sw.mu.Lock()
	sw.roundTrips++
	d := sw.faults.RoundTripLatency
	sw.mu.Unlock()
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// RoundTrips is how many turns clients have taken on the switch's
// interactive shells since it started: each time a client sent input
// after waiting for an answer. Lines sent together (pipelined) count
// once; a client that waits for the echo of a command before sending its
// return (as scrapligo does) takes two turns per command. Unlike
// LinesHandled, SetFaults does not reset it.
func (sw *Switch) RoundTrips() int {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.roundTrips
}
