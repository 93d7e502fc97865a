package nxsim

import (
	"context"
	"io"
	"iter"
	"time"
)

// turns yields the shell's input chunks and counts the client's turns: a
// chunk taken after the CLI printed something (an answer, a prompt, an
// echo) since the previous one is a new round trip, as the client may
// have waited for that output before sending it; the rest of a batch of
// lines sent together (pipelined, pasted) is not. Each turn pays
// Faults.RoundTripLatency once, so a client that pipelines N lines pays
// one network round trip, not N.
//
// The count never misses a client that waits for output before sending.
// It can be too high for a batch the shell reads in more than one piece
// (larger than one read, 4 KiB): the pieces after the first count too.
func (s *session) turns(ctx context.Context, chunks <-chan []byte) iter.Seq[[]byte] {
	out := &writeCounter{w: s.out}
	s.out = out
	return func(yield func([]byte) bool) {
		seen := -1
		for chunk := range chunks {
			if out.n != seen {
				seen = out.n
				if !s.sw.countRoundTrip(ctx) {
					return
				}
			}
			if !yield(chunk) {
				return
			}
		}
	}
}

// writeCounter counts the writes of the session's CLI (all made by the
// shell's own goroutine).
type writeCounter struct {
	w io.Writer
	n int
}

func (c *writeCounter) Write(p []byte) (int, error) {
	c.n++
	return c.w.Write(p)
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
// after output it may have waited for. Lines sent together (pipelined) count
// once; a client that waits for the echo of a command before sending its
// return (as scrapligo does) takes two turns per command. Unlike
// LinesHandled, SetFaults does not reset it.
func (sw *Switch) RoundTrips() int {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.roundTrips
}
