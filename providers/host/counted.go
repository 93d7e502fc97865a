package host

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// CallCounter counts agent calls: one request and its response, a round
// trip to the host. Safe for concurrent use.
type CallCounter struct {
	calls atomic.Int64
}

// Calls is how many agent calls were made so far.
func (c *CallCounter) Calls() int64 { return c.calls.Load() }

// NewInProcessCounted is NewInProcess with every agent call counted in c:
// the scale benchmark reports agent round trips per host from it.
func NewInProcessCounted(c *CallCounter) plan.HostFactory {
	return func(env plan.Env, h *policies.Host) (plan.Target, error) {
		pt, err := NewInProcess(env, h)
		if err != nil {
			return nil, err
		}
		t, ok := pt.(*Target)
		if !ok || t.client == nil {
			return nil, fmt.Errorf("host.%s: in-process target of unexpected type %T", h.Name, pt)
		}
		t.client.r = callCountingRunner{runner: t.client.r, c: c}
		return t, nil
	}
}

// callCountingRunner counts the calls made through another runner.
type callCountingRunner struct {
	runner
	c *CallCounter
}

func (r callCountingRunner) run(ctx context.Context, stdin []byte) ([]byte, []byte, error) {
	r.c.calls.Add(1)
	return r.runner.run(ctx, stdin)
}
