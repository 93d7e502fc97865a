package plan

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// progressRedrawEvery limits redraws to about ten a second.
const progressRedrawEvery = 100 * time.Millisecond

// progressBarWidth is the number of cells between the brackets.
const progressBarWidth = 24

// IsTerminal reports whether w is a terminal (so progress bars and colour
// make sense on it).
func IsTerminal(w io.Writer) bool {
	f, ok := UnwrapWriter(w).(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Progress draws "Reading targets 37/120 [=======>        ] 31% ETA 12s"
// on one terminal line, redrawn in place. On anything that is not a
// terminal it writes nothing, so CI logs stay clean.
type Progress struct {
	w     io.Writer
	label string
	total int
	on    bool
	now   func() time.Time // a clock tests can drive

	mu       sync.Mutex
	done     int
	start    time.Time
	lastDraw time.Time
	finished bool
}

// NewProgress starts a progress display for total tasks labelled label
// ("Reading targets", "Applying"). isTerminal is usually IsTerminal(w).
func NewProgress(w io.Writer, label string, total int, isTerminal bool) *Progress {
	return newProgressClock(w, label, total, isTerminal, time.Now)
}

func newProgressClock(w io.Writer, label string, total int, isTerminal bool, now func() time.Time) *Progress {
	return &Progress{w: w, label: label, total: total, on: isTerminal && w != nil, now: now, start: now()}
}

// Done records n more finished tasks; safe from many goroutines.
func (p *Progress) Done(n int) {
	if p == nil || n <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.done = min(p.done+n, max(p.total, 0))
	t := p.now()
	if !p.on || (t.Sub(p.lastDraw) < progressRedrawEvery && p.done < p.total) {
		return
	}
	p.lastDraw = t
	p.draw(t)
}

// Finish draws the final state and ends the line. Later calls to Done and
// Finish do nothing.
func (p *Progress) Finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.finished = true
	if !p.on {
		return
	}
	p.draw(p.now())
	// Write errors are ignored: the progress line is decoration and must
	// never fail the run it reports on.
	_, _ = io.WriteString(p.w, "\n")
}

// draw writes the current line; the caller holds p.mu.
func (p *Progress) draw(t time.Time) {
	_, _ = io.WriteString(p.w, "\r\x1b[K"+p.line(t))
}

// line renders the progress line at time t.
func (p *Progress) line(t time.Time) string {
	frac := 1.0
	if p.total > 0 {
		frac = float64(p.done) / float64(p.total)
	}
	filled := int(frac * progressBarWidth)
	bar := strings.Repeat("=", filled)
	if filled < progressBarWidth {
		bar += ">" + strings.Repeat(" ", progressBarWidth-filled-1)
	}
	s := fmt.Sprintf("%s %d/%d [%s] %3d%%", p.label, p.done, p.total, bar, int(frac*100))
	elapsed := t.Sub(p.start)
	switch {
	case p.done >= p.total:
		s += " done in " + formatETA(elapsed)
	case p.done == 0:
		s += " ETA --"
	default:
		eta := time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done))
		s += " ETA " + formatETA(eta)
	}
	return s
}

// formatETA rounds a duration for display: "12s", "3m05s", "1h02m".
func formatETA(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// UnwrapWriter returns the writer under any wrappers that say what they
// wrap (Unwrap() io.Writer, as the CLIs' secret filter does), so terminal
// checks see the file underneath.
func UnwrapWriter(w io.Writer) io.Writer {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}
