package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/agentproto"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// NewInProcess is a plan.HostFactory for simulated lab hosts at scale: it
// answers the agent protocol inside this process instead of starting a
// roce-agent subprocess per call, so 10,000 hosts do not cost 30,000
// processes. The requests and responses still go through the protocol's
// JSON encoding, like the real transports.
//
// LAB ONLY: the host must be local, have no namespace, and its root must be
// a lab root whose links are emulated too (nics.SeedLab with
// LabSpec.EmulatedLinks), so no call can reach a real interface or a real
// /etc of this machine. Only read, apply and recover are served (what
// plan and apply need); probes and counters need the real agent.
func NewInProcess(env plan.Env, h *policies.Host) (plan.Target, error) {
	if h == nil {
		return nil, errors.New("host provider (in-process): nil host")
	}
	addr := "host." + h.Name
	if !h.Local || h.Netns != "" {
		return nil, fmt.Errorf("%s: the in-process agent serves only local lab hosts without a namespace", addr)
	}
	root := h.Root
	if root != "" && !filepath.IsAbs(root) && env.Fabric != nil && env.Fabric.Dir != "" {
		root = filepath.Join(env.Fabric.Dir, root)
	}
	if !nics.IsEmulatedLinks(root) {
		return nil, fmt.Errorf("%s: the in-process agent needs a lab root with emulated links (%s and %s under %q); refusing a real host", addr, nics.LabMarker, nics.LabLinksMarker, root)
	}
	t := &Target{name: h.Name, fab: env.Fabric, h: h, endpoint: "in-process lab agent"}
	t.client = &Client{host: addr, r: inProcessRunner{root: root}}
	return t, nil
}

// inProcessRunner plays roce-agent's read and apply in this process.
type inProcessRunner struct {
	root string
}

func (r inProcessRunner) describe() string { return "in-process lab agent --root " + r.root }
func (r inProcessRunner) close() error     { return nil }

func (r inProcessRunner) run(ctx context.Context, stdin []byte) ([]byte, []byte, error) {
	resp := serveInProcess(ctx, r.root, stdin)
	out, err := json.Marshal(resp)
	if err != nil {
		return nil, nil, fmt.Errorf("in-process agent: encode response: %w", err)
	}
	return out, nil, nil
}

// serveInProcess is cmd/roce-agent's Handle for the read, apply and
// recover operations, with the same error codes.
func serveInProcess(ctx context.Context, root string, stdin []byte) *agentproto.Response {
	resp := &agentproto.Response{Version: agentproto.Version}
	req, perr := agentproto.DecodeRequest(bytes.NewReader(stdin))
	if perr != nil {
		resp.Error = perr
		return resp
	}
	resp.Op = req.Op
	fail := func(code string, err error) *agentproto.Response {
		resp.OK = false
		resp.Error = &agentproto.Error{Code: code, Message: err.Error()}
		return resp
	}
	// Checked on every call: the root could have been swapped since New.
	if !nics.IsEmulatedLinks(root) {
		return fail(agentproto.ErrCodeRefused, fmt.Errorf("in-process agent: %q is not a lab root with emulated links", root))
	}
	sys, err := nics.Open(root)
	if err != nil {
		return fail(agentproto.ErrCodeFailed, err)
	}
	if !agentproto.ServeState(ctx, sys, req, nil, resp) {
		return fail(agentproto.ErrCodeRefused, fmt.Errorf("in-process agent: operation %q needs the real roce-agent", req.Op))
	}
	return resp
}
