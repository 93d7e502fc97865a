package gnmisim

import (
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/gnmi/proto/gnmi_ext"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// defaultRollback is the rollback duration when a commit request gives none
// (gnmi-commit-confirmed.md: 10 minutes).
const defaultRollback = 10 * time.Minute

// pendingCommit is an applied but unconfirmed commit.
type pendingCommit struct {
	id    string
	saved tree // config before the commit, restored on cancel or expiry
	timer *time.Timer
}

func commitExtension(req *gpb.SetRequest) (*gnmi_ext.Commit, error) {
	var found *gnmi_ext.Commit
	for _, e := range req.GetExtension() {
		if c := e.GetCommit(); c != nil {
			if found != nil {
				return nil, status.Error(codes.InvalidArgument, "more than one commit extension")
			}
			found = c
		}
	}
	if found != nil && found.GetId() == "" {
		return nil, status.Error(codes.InvalidArgument, "commit extension without an id")
	}
	return found, nil
}

// armCommit records the config to restore and starts the rollback timer.
// Called with t.mu held.
func (t *Target) armCommit(c *gnmi_ext.Commit, saved tree) {
	d := defaultRollback
	if rd := c.GetCommit().GetRollbackDuration(); rd != nil && rd.AsDuration() > 0 {
		d = rd.AsDuration()
	}
	pc := &pendingCommit{id: c.GetId(), saved: saved}
	pc.timer = time.AfterFunc(d, func() { t.expire(pc) })
	t.commit = pc
}

// expire rolls back a commit that was never confirmed.
func (t *Target) expire(pc *pendingCommit) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.commit != pc {
		return // confirmed, cancelled or replaced meanwhile
	}
	t.cfg = pc.saved
	t.commit = nil
	t.log.Info("gnmisim: commit not confirmed in time: rolled back", "profile", t.prof.name, "id", pc.id)
}

// commitControl handles confirm, cancel and set-rollback-duration. Called
// with t.mu held.
func (t *Target) commitControl(req *gpb.SetRequest, c *gnmi_ext.Commit) (*gpb.SetResponse, error) {
	if len(req.GetDelete())+len(req.GetReplace())+len(req.GetUpdate())+len(req.GetUnionReplace()) > 0 {
		return nil, status.Error(codes.InvalidArgument, "confirm, cancel and set-rollback-duration carry no operations")
	}
	if t.commit == nil {
		return nil, status.Errorf(codes.FailedPrecondition, "no commit is waiting for confirmation (id %q)", c.GetId())
	}
	if t.commit.id != c.GetId() {
		return nil, status.Errorf(codes.InvalidArgument, "commit id %q does not match the pending commit", c.GetId())
	}
	switch a := c.GetAction().(type) {
	case *gnmi_ext.Commit_Confirm:
		t.commit.timer.Stop()
		t.commit = nil
		t.log.Info("gnmisim: commit confirmed", "profile", t.prof.name, "id", c.GetId())
	case *gnmi_ext.Commit_Cancel:
		t.commit.timer.Stop()
		t.cfg = t.commit.saved
		t.commit = nil
		t.log.Info("gnmisim: commit cancelled: rolled back", "profile", t.prof.name, "id", c.GetId())
	case *gnmi_ext.Commit_SetRollbackDuration:
		d := a.SetRollbackDuration.GetRollbackDuration().AsDuration()
		if d <= 0 {
			return nil, status.Error(codes.InvalidArgument, "rollback duration must be positive")
		}
		t.commit.timer.Reset(d)
	}
	return &gpb.SetResponse{Timestamp: time.Now().UnixNano()}, nil
}
