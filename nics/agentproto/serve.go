package agentproto

import (
	"context"
	"fmt"

	"github.com/rocefabric/roce/nics"
)

// ServeState answers the operations that read or change the host's
// managed state — read, apply, recover — on sys, filling resp (OK or
// Error); it reports false, leaving resp alone, for any other op. The
// roce-agent binary and the in-process lab agent both serve through it,
// so they answer alike. hold is the kill tests' pause hook (nil outside a
// test build).
func ServeState(ctx context.Context, sys *nics.System, req *Request, hold func(string), resp *Response) bool {
	fail := func(err error) {
		resp.OK = false
		resp.Error = &Error{Code: ErrCode(err), Message: err.Error()}
	}
	switch req.Op {
	case OpRead:
		// An unfinished transaction is reported with the read: the host
		// may be half applied, and the controller must say so rather than
		// diff it as if nothing happened.
		tx, err := sys.PendingSummary()
		if err != nil {
			fail(err)
			return true
		}
		resp.Transaction = tx
		rd, err := sys.Read(ctx, req.Desired)
		if err != nil {
			fail(err)
			return true
		}
		resp.Read = rd
	case OpApply:
		if req.FailAfterStep != 0 && !sys.Lab {
			resp.OK = false
			resp.Error = &Error{Code: ErrCodeRefused, Message: fmt.Sprintf("fail_after_step is accepted only on lab hosts (root with %s); nothing was changed", nics.LabMarker)}
			return true
		}
		rep, err := sys.Apply(ctx, req.Desired, nics.ApplyOptions{Fingerprint: req.Fingerprint, FailAfterStep: req.FailAfterStep, Hold: hold})
		resp.Apply = rep
		if rep != nil {
			resp.Transaction = rep.Transaction
		}
		if err != nil {
			fail(err)
			return true
		}
	case OpRecover:
		rep, err := sys.Recover(ctx, nics.ApplyOptions{Hold: hold})
		resp.Recover = rep
		if rep != nil {
			resp.Transaction = rep.Transaction
		}
		if err != nil {
			fail(err)
			return true
		}
	default:
		return false
	}
	resp.OK = true
	return true
}
