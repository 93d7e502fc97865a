package scale

import (
	"bytes"
	"compress/gzip"
	"io"
	"runtime"
	"strings"
	"testing"
)

// TestPeakHeapProfilerKeepsThePeak: the profile kept is the one taken at
// the largest heap (grown by more than Grow), not the last one, and it is
// a heap profile pprof reads.
func TestPeakHeapProfilerKeepsThePeak(t *testing.T) {
	p := &PeakHeapProfiler{Grow: 0.05}
	if _, err := p.WriteTo(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "no heap profile") {
		t.Fatalf("WriteTo before any sample: %v, want an error saying no profile was taken", err)
	}
	p.sampleAt(100 << 20)
	first, firstAt := p.profile, p.at
	if first == nil {
		t.Fatal("no profile at the first sample")
	}
	for _, n := range []uint64{50 << 20, 104 << 20} { // smaller, or grown by less than 5 %
		p.sampleAt(n)
		if peak, at := p.Peak(); peak != 100<<20 || at != firstAt {
			t.Fatalf("a heap of %d MiB replaced the peak of 100 MiB (peak now %d)", n>>20, peak)
		}
	}
	p.sampleAt(200 << 20)
	if peak, _ := p.Peak(); peak != 200<<20 {
		t.Fatalf("peak %d, want the 200 MiB sample", peak)
	}
	var b bytes.Buffer
	if _, err := p.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	// A pprof profile is a gzipped protobuf; a heap profile's string
	// table names its sample types.
	zr, err := gzip.NewReader(&b)
	if err != nil {
		t.Fatalf("the profile is not gzipped protobuf: %v", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte("inuse_space")) {
		t.Fatal("the profile is not a heap profile (no inuse_space sample type)")
	}
}

// TestHeapBytesSeesLiveMemory: the sampled size counts what is live.
func TestHeapBytesSeesLiveMemory(t *testing.T) {
	hold := make([][]byte, 0, 64)
	for range 64 {
		hold = append(hold, make([]byte, 1<<20))
	}
	runtime.GC()
	if n := heapBytes(); n < 64<<20 {
		t.Fatalf("heapBytes %d with 64 MiB live", n)
	}
	runtime.KeepAlive(hold)
}
