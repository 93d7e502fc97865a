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
// the largest heap, not the last one, and it is a heap profile pprof reads.
func TestPeakHeapProfilerKeepsThePeak(t *testing.T) {
	p := &PeakHeapProfiler{Grow: 0.01}
	if _, err := p.WriteTo(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "no heap profile") {
		t.Fatalf("WriteTo before any sample: %v, want an error saying no profile was taken", err)
	}
	hold := make([][]byte, 0, 64)
	for range 64 {
		hold = append(hold, make([]byte, 1<<20)) // 64 MiB live
	}
	runtime.GC()
	p.sample()
	peak, at := p.Peak()
	if peak < 64<<20 || at.IsZero() {
		t.Fatalf("peak %d bytes at %v, want at least 64 MiB", peak, at)
	}
	first := p.profile
	runtime.KeepAlive(hold)
	hold = nil
	runtime.GC()
	p.sample() // smaller heap: the peak's profile stays
	if got, _ := p.Peak(); got != peak || !bytes.Equal(p.profile, first) {
		t.Fatalf("a smaller heap replaced the peak (%d → %d)", peak, got)
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
