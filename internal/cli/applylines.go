package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/rocefabric/roce/plan"
)

// SlowTargetAfter is how long a target may take to apply before roce-apply
// says, off a terminal, that it is still at it (a CI log is otherwise
// silent until the report).
const SlowTargetAfter = 30 * time.Second

// ApplyLines is roce-apply's Engine.OnTarget off a terminal (nil on one,
// where the progress bar is drawn). A CI log reader wants each target once:
//
//   - when the report goes to the same file as w (stdout and stderr both
//     captured by one CI log) and is text, the report lists every target's
//     outcome, so no per-target line is written;
//   - otherwise (the report redirected to a file, or -json) each target's
//     outcome gets one line on w, its error cut at 300 characters.
//
// Either way a target still applying after slow gets one "still ..." line,
// so a long canary does not look like a hang. stop cancels the pending
// slow-target lines; call it when the apply returns.
func ApplyLines(w, report io.Writer, textReport bool, prefix string, slow time.Duration) (onTarget func(address, status, detail string), stop func()) {
	return applyLines(w, report, textReport, prefix, slow, func(d time.Duration, f func()) func() bool {
		return time.AfterFunc(d, f).Stop
	})
}

// applyLines is ApplyLines with the timer injected (tests fire it by hand).
func applyLines(w, report io.Writer, textReport bool, prefix string, slow time.Duration,
	after func(time.Duration, func()) func() bool) (func(address, status, detail string), func()) {
	if IsTerminal(w) {
		return nil, func() {}
	}
	quiet := textReport && SameFile(w, report)
	var mu sync.Mutex
	timers := map[string]func() bool{}
	onTarget := func(address, status, detail string) {
		if status == "" { // started: "applying (canary)"
			stopTimer := after(slow, func() {
				mu.Lock()
				defer mu.Unlock()
				if _, running := timers[address]; running {
					fmt.Fprintf(w, "%s: %s: still %s after %s\n", prefix, address, detail, slow)
				}
			})
			mu.Lock()
			timers[address] = stopTimer
			mu.Unlock()
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if stopTimer, ok := timers[address]; ok {
			stopTimer()
			delete(timers, address)
		}
		if !quiet {
			writeOutcome(w, prefix, address, status, detail)
		}
	}
	stop := func() {
		mu.Lock()
		defer mu.Unlock()
		for a, stopTimer := range timers {
			stopTimer()
			delete(timers, a)
		}
	}
	return onTarget, stop
}

// SameFile reports whether a and b write to the same open file (one pipe
// or log file behind both stdout and stderr), looking through wrappers.
func SameFile(a, b io.Writer) bool {
	fa, ok1 := plan.UnwrapWriter(a).(*os.File)
	fb, ok2 := plan.UnwrapWriter(b).(*os.File)
	if !ok1 || !ok2 {
		return false
	}
	sa, err1 := fa.Stat()
	sb, err2 := fb.Stat()
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
