package plan

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// progressTestClock is a clock the test moves by hand.
type progressTestClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *progressTestClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *progressTestClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestProgressNotTerminalWritesNothing(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, "Reading targets", 10, false)
	for i := 0; i < 10; i++ {
		p.Done(1)
	}
	p.Finish()
	if buf.Len() != 0 {
		t.Errorf("wrote %q to a non-terminal", buf.String())
	}
}

func TestProgressTerminal(t *testing.T) {
	clk := &progressTestClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var buf bytes.Buffer
	p := newProgressClock(&buf, "Reading targets", 120, true, clk.now)

	clk.advance(4 * time.Second)
	p.Done(37)
	first := buf.String()
	// 37 done in 4s: 83 left at 37 per 4s is 9s.
	want := "\r\x1b[KReading targets 37/120 [=======>                ]  30% ETA 9s"
	if first != want {
		t.Errorf("first draw = %q\nwant         %q", first, want)
	}

	// Within the redraw interval nothing is drawn...
	p.Done(1)
	if buf.String() != first {
		t.Errorf("redrawn within %s: %q", progressRedrawEvery, buf.String())
	}
	// ...after it, the count includes everything done meanwhile.
	clk.advance(time.Second)
	p.Done(1)
	if !strings.HasSuffix(buf.String(), "Reading targets 39/120 [=======>                ]  32% ETA 10s") {
		t.Errorf("second draw: %q", buf.String())
	}

	clk.advance(70 * time.Second)
	p.Done(500) // more than total is clamped
	p.Finish()
	if !strings.HasSuffix(buf.String(), "\r\x1b[KReading targets 120/120 [========================] 100% done in 1m15s\n") {
		t.Errorf("final line: %q", buf.String())
	}
	n := buf.Len()
	p.Done(1)
	p.Finish()
	if buf.Len() != n {
		t.Error("wrote after Finish")
	}
}

func TestProgressLine(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		total, done int
		elapsed     time.Duration
		want        string
	}{
		{10, 0, 0, "Applying 0/10 [>                       ]   0% ETA --"},
		{10, 5, 2 * time.Hour, "Applying 5/10 [============>           ]  50% ETA 2h00m"},
		{3, 1, 90 * time.Second, "Applying 1/3 [========>               ]  33% ETA 3m00s"},
		{0, 0, time.Second, "Applying 0/0 [========================] 100% done in 1s"},
	}
	for _, tc := range tests {
		p := newProgressClock(&bytes.Buffer{}, "Applying", tc.total, true, func() time.Time { return start })
		p.done = tc.done
		if got := p.line(start.Add(tc.elapsed)); got != tc.want {
			t.Errorf("line(%d/%d after %s) = %q\nwant %q", tc.done, tc.total, tc.elapsed, got, tc.want)
		}
	}
}

func TestProgressConcurrentDone(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, "Reading targets", 400, true)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				p.Done(1)
			}
		}()
	}
	wg.Wait()
	p.Finish()
	if !strings.Contains(buf.String(), "Reading targets 400/400 [") {
		t.Errorf("lost increments: %q", buf.String())
	}
	var nilP *Progress
	nilP.Done(1)
	nilP.Finish()
}

func TestIsTerminal(t *testing.T) {
	if IsTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is not a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("a regular file is not a terminal")
	}
}
