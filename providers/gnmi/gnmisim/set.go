package gnmisim

import (
	"context"
	"strings"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/openconfig/gnmi/proto/gnmi_ext"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// Set applies the request's deletes, replaces and updates (in that order,
// gNMI specification §3.4.3) to a copy of the config, validates the whole
// copy, and only then makes it current: all or nothing.
func (t *Target) Set(ctx context.Context, req *gpb.SetRequest) (*gpb.SetResponse, error) {
	if err := t.enter(ctx); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, status.Error(codes.Unavailable, "target is shut down")
	}
	t.sets = append(t.sets, proto.Clone(req).(*gpb.SetRequest))

	ext, err := commitExtension(req)
	if err != nil {
		return nil, err
	}
	if ext != nil && !t.opts.CommitConfirm {
		return nil, status.Error(codes.Unimplemented, "commit-confirmed extension not supported by this target")
	}
	if ext != nil {
		switch ext.GetAction().(type) {
		case *gnmi_ext.Commit_Confirm, *gnmi_ext.Commit_Cancel, *gnmi_ext.Commit_SetRollbackDuration:
			return t.commitControl(req, ext)
		}
	}
	if t.commit != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "commit %q is waiting for confirmation; confirm or cancel it first", t.commit.id)
	}
	if len(req.GetUnionReplace()) > 0 {
		return nil, status.Error(codes.Unimplemented, "union_replace is not supported by this target")
	}

	resp := &gpb.SetResponse{Prefix: req.GetPrefix(), Timestamp: time.Now().UnixNano()}
	cand := t.cfg.clone()
	for _, d := range req.GetDelete() {
		p, err := t.resolve(req.GetPrefix(), d)
		if err != nil {
			return nil, err
		}
		if err := t.rejected(p); err != nil {
			return nil, err
		}
		cand.remove(p) // deleting a missing path is not an error (gNMI specification §3.4.6)
		resp.Response = append(resp.Response, &gpb.UpdateResult{Path: d, Op: gpb.UpdateResult_DELETE})
	}
	for _, op := range []struct {
		ups     []*gpb.Update
		replace bool
	}{{req.GetReplace(), true}, {req.GetUpdate(), false}} {
		for _, u := range op.ups {
			if err := t.write(cand, req.GetPrefix(), u, op.replace); err != nil {
				return nil, err
			}
			kind := gpb.UpdateResult_UPDATE
			if op.replace {
				kind = gpb.UpdateResult_REPLACE
			}
			resp.Response = append(resp.Response, &gpb.UpdateResult{Path: u.GetPath(), Op: kind})
		}
	}
	if err := t.prof.cfg.validate(cand, t.ports); err != nil && !t.opts.Faults.SkipSchema {
		t.log.Info("gnmisim: set refused", "profile", t.prof.name, "err", err)
		return nil, err
	}
	if ext != nil {
		t.armCommit(ext, t.cfg)
	}
	t.cfg = cand
	t.applied++
	t.log.Info("gnmisim: set applied", "profile", t.prof.name, "ops", len(resp.Response), "commit", ext != nil)
	return resp, nil
}

// resolve joins prefix and path and checks the origin.
func (t *Target) resolve(prefix, p *gpb.Path) (gpath.Path, error) {
	gp, origin, err := gpath.FromProto(prefix, p)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "%v", err)
	}
	if !t.prof.accepts[origin] {
		return nil, status.Errorf(codes.InvalidArgument, "origin %q is not served by this %s target (want %q)", origin, t.prof.name, t.prof.origin)
	}
	return gp, nil
}

func (t *Target) rejected(p gpath.Path) error {
	r := t.opts.Faults.RejectPath
	if r != "" && strings.HasPrefix(p.String(), r) {
		return status.Errorf(codes.Aborted, "injected fault: writes to %s are rejected", r)
	}
	return nil
}

// write applies one update or replace to the candidate tree.
func (t *Target) write(cand tree, prefix *gpb.Path, u *gpb.Update, replace bool) error {
	p, err := t.resolve(prefix, u.GetPath())
	if err != nil {
		return err
	}
	if err := t.rejected(p); err != nil {
		return err
	}
	skip := t.opts.Faults.SkipSchema
	if _, err := t.prof.cfg.resolve(p); err != nil && !skip {
		return err
	}
	raw, err := typedJSON(u.GetVal())
	if err != nil {
		return err
	}
	v, err := gpath.Decode(raw)
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "%s: value is not valid JSON: %v", p, err)
	}
	_, ietf := u.GetVal().GetValue().(*gpb.TypedValue_JsonIetfVal)
	if enc := map[bool]gpb.Encoding{true: gpb.Encoding_JSON_IETF, false: gpb.Encoding_JSON}[ietf]; !t.serves(enc) {
		return status.Errorf(codes.Unimplemented, "%s: value encoding %s not supported by this target (it serves %v)", p, enc, t.encodings())
	}
	if m, ok := v.(map[string]any); ok && len(m) == 0 && replace {
		return status.Errorf(codes.InvalidArgument, "%s: replace with an empty value is invalid (gNMI §3.4.4); use delete", p)
	}
	if err := t.prof.cfg.checkValue(p, v, ietf); err != nil && !skip {
		return err
	}
	leaves, err := gpath.Flatten(p, v, t.prof.cfg.keysOf)
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "%v", err)
	}
	if err := t.prof.cfg.checkLeaves(leaves); err != nil && !skip {
		return err
	}
	if !ietf {
		t.prof.cfg.fromJSON(leaves)
	}
	leaves = append(leaves, t.prof.cfg.keyLeaves(leaves)...)
	if replace {
		cand.remove(p)
	}
	ign := t.opts.Faults.IgnorePath
	for _, l := range leaves {
		if ign != "" && strings.HasPrefix(l.Path.String(), ign) {
			continue
		}
		cand[l.Path.Key()] = l
	}
	return nil
}

// typedJSON returns the JSON bytes of a value; other encodings are refused
// with Unimplemented (gNMI specification §2.3.1: this target speaks JSON and JSON_IETF).
func typedJSON(v *gpb.TypedValue) ([]byte, error) {
	switch x := v.GetValue().(type) {
	case *gpb.TypedValue_JsonIetfVal:
		return x.JsonIetfVal, nil
	case *gpb.TypedValue_JsonVal:
		return x.JsonVal, nil
	case nil:
		return nil, status.Error(codes.InvalidArgument, "update has no value")
	}
	return nil, status.Errorf(codes.Unimplemented, "value encoding %T not supported: send JSON_IETF", v.GetValue())
}

// enter applies the latency and drop faults to every RPC.
func (t *Target) enter(ctx context.Context) error {
	t.mu.Lock()
	faults := t.opts.Faults
	t.rpcs++
	t.mu.Unlock()
	if d := faults.Latency; d > 0 {
		tm := time.NewTimer(d)
		defer tm.Stop()
		select {
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		case <-tm.C:
		}
	}
	if n := faults.DropAfterSets; n > 0 {
		t.mu.Lock()
		dropped := t.applied >= n
		t.mu.Unlock()
		if dropped {
			return status.Errorf(codes.Unavailable, "injected fault: connection dropped after %d sets", n)
		}
	}
	return nil
}

// Seed applies an update outside gRPC (tests and the lab use it to put
// foreign config on the target); it is validated like a Set.
func (t *Target) Seed(path, jsonValue string) error {
	p, err := gpath.Parse(path)
	if err != nil {
		return err
	}
	req := &gpb.SetRequest{Update: []*gpb.Update{{
		Path: p.Proto(t.prof.origin),
		Val:  &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(jsonValue)}},
	}}}
	t.mu.Lock()
	defer t.mu.Unlock()
	cand := t.cfg.clone()
	if err := t.write(cand, nil, req.Update[0], false); err != nil {
		return err
	}
	if err := t.prof.cfg.validate(cand, t.ports); err != nil {
		return err
	}
	t.cfg = cand
	return nil
}
