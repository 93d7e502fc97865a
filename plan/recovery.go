package plan

import (
	"context"
	"time"
)

// This file is the contract between the engine's apply journal and the
// providers: a provider records each step of a target's transaction before
// it takes it (write-ahead) and after it completes, and a provider whose
// apply can be interrupted half-way implements Recoverer so the next run
// can bring the target to a consistent state (fully before or fully after).

// Recorder receives a target's transaction steps during Apply. Record must
// be durable (fsynced) when it returns: a provider calls it before sending
// anything the step describes, so a SIGKILL at any instant leaves a record
// of what might have reached the device. An error from Record means the
// step must not be taken.
type Recorder interface {
	Record(step string, detail map[string]string) error
}

type recorderKey struct{}

// WithRecorder hands r to a target's Apply through its context.
func WithRecorder(ctx context.Context, r Recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

// RecorderFrom returns the recorder in ctx, or one that records nothing
// (tests and code paths without a journal).
func RecorderFrom(ctx context.Context) Recorder {
	if r, ok := ctx.Value(recorderKey{}).(Recorder); ok && r != nil {
		return r
	}
	return nopRecorder{}
}

type nopRecorder struct{}

func (nopRecorder) Record(string, map[string]string) error { return nil }

// JournalStep is one recorded step of a target's transaction.
type JournalStep struct {
	Step   string            `json:"step"`
	Detail map[string]string `json:"detail,omitempty"`
	At     time.Time         `json:"at"`
}

// JournalEntry is what the journal knows of one target whose apply did not
// reach an outcome: the target plan that was being applied and every step
// recorded for it, in order.
type JournalEntry struct {
	Address string        `json:"address"`
	Kind    string        `json:"kind"`
	Target  *TargetPlan   `json:"target"`
	Steps   []JournalStep `json:"steps"`
}

// LastDetail returns the value of key in the latest step that recorded it.
func (e *JournalEntry) LastDetail(key string) string {
	for i := len(e.Steps) - 1; i >= 0; i-- {
		if v, ok := e.Steps[i].Detail[key]; ok {
			return v
		}
	}
	return ""
}

// Reached reports whether step was recorded.
func (e *JournalEntry) Reached(step string) bool {
	for _, s := range e.Steps {
		if s.Step == step {
			return true
		}
	}
	return false
}

// Recoverer is implemented by targets that can finish or undo an
// interrupted apply. Recover reads the device, decides from it and from
// the journal entry whether the target is fully before, fully after or in
// between, finishes or rolls back so it is one of the first two, removes
// anything the transaction left behind (an NX-OS checkpoint, a host's
// transaction record) and verifies by reading back. The result's Status is
// StatusApplied (consistent with the plan), StatusRolledBack (consistent
// with before) or StatusFailed (could not be made consistent; Error says
// what to do by hand). The result is never nil.
type Recoverer interface {
	Recover(ctx context.Context, e *JournalEntry) (*ApplyResult, error)
}
