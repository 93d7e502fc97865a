package scale

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// PeakHeapProfiler keeps the heap profile taken when the Go heap was
// largest: it samples the heap every Every, and each time the heap grows
// past the largest seen by Grow (a fraction, e.g. 0.05) it takes a new
// profile. The profile is what was live at the most recent collection
// before that moment (runtime/pprof's heap profile), so it names what
// holds memory at the run's peak, not at its end.
type PeakHeapProfiler struct {
	Every time.Duration
	Grow  float64

	peak    uint64
	profile []byte
	at      time.Time
}

// heapBytes is the memory the Go heap holds now: objects, unused parts of
// spans, and memory freed but not yet returned to the OS.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}, {Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	var n uint64
	for _, x := range s {
		if x.Value.Kind() == metrics.KindUint64 {
			n += x.Value.Uint64()
		}
	}
	return n
}

// Run samples until ctx is done; call WriteTo only after it returned.
func (p *PeakHeapProfiler) Run(ctx context.Context) {
	every := p.Every
	if every <= 0 {
		every = 500 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.sample()
		}
	}
}

func (p *PeakHeapProfiler) sample() { p.sampleAt(heapBytes()) }

// sampleAt takes a profile when a heap of n bytes is a new peak.
func (p *PeakHeapProfiler) sampleAt(n uint64) {
	if float64(n) <= float64(p.peak)*(1+p.Grow) {
		return
	}
	p.peak = n
	var b bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&b, 0); err != nil {
		return
	}
	p.profile, p.at = b.Bytes(), time.Now()
}

// WriteTo writes the profile taken at the peak (a pprof heap profile; read
// it with `go tool pprof -sample_index=inuse_space -top`).
func (p *PeakHeapProfiler) WriteTo(w io.Writer) (int64, error) {
	if p.profile == nil {
		return 0, fmt.Errorf("scale: no heap profile was taken (the run ended before the first sample)")
	}
	n, err := w.Write(p.profile)
	return int64(n), err
}

// Peak is the largest Go heap seen and when its profile was taken.
func (p *PeakHeapProfiler) Peak() (uint64, time.Time) { return p.peak, p.at }
