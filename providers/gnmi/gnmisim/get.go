package gnmisim

import (
	"context"
	"encoding/json"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// gnmiVersion is the gNMI specification version served.
const gnmiVersion = "0.10.0"

// Capabilities reports the profile's models and JSON encodings. Like real
// targets it advertises nothing about commit-confirmed (the extension's
// specification defines no capability signal), even when it supports it.
func (t *Target) Capabilities(ctx context.Context, _ *gpb.CapabilityRequest) (*gpb.CapabilityResponse, error) {
	if err := t.enter(ctx); err != nil {
		return nil, err
	}
	resp := &gpb.CapabilityResponse{
		SupportedModels:    t.prof.models,
		SupportedEncodings: t.encodings(),
		GNMIVersion:        gnmiVersion,
	}
	return resp, nil
}

// Get returns each requested path's subtree as one JSON_IETF value. A path
// that is not modelled, or holds nothing, is NotFound (gNMI specification §3.3.4).
func (t *Target) Get(ctx context.Context, req *gpb.GetRequest) (*gpb.GetResponse, error) {
	if err := t.enter(ctx); err != nil {
		return nil, err
	}
	if !t.serves(req.GetEncoding()) {
		return nil, status.Errorf(codes.Unimplemented, "encoding %s not supported: use one of %v", req.GetEncoding(), t.encodings())
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	resp := &gpb.GetResponse{}
	now := time.Now().UnixNano()
	for _, rp := range req.GetPath() {
		p, err := t.resolve(req.GetPrefix(), rp)
		if err != nil {
			return nil, err
		}
		var leaves []gpath.Leaf
		dt := req.GetType()
		if dt == gpb.GetRequest_ALL || dt == gpb.GetRequest_CONFIG {
			leaves = append(leaves, t.cfg.under(p)...)
		}
		if dt == gpb.GetRequest_ALL || dt == gpb.GetRequest_STATE || dt == gpb.GetRequest_OPERATIONAL {
			leaves = append(leaves, t.state.under(p)...)
		}
		if len(leaves) == 0 {
			if !t.prof.cfg.known(p) && len(t.state.under(p)) == 0 {
				return nil, status.Errorf(codes.NotFound, "path %s is not supported by this target", p)
			}
			return nil, status.Errorf(codes.NotFound, "path %s: no data", p)
		}
		if req.GetEncoding() == gpb.Encoding_JSON {
			leaves = t.prof.cfg.toJSON(leaves)
		}
		v, err := t.build(p, leaves)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "%s: %v", p, err)
		}
		if req.GetEncoding() == gpb.Encoding_JSON_IETF {
			v = t.prof.cfg.qualify(p, v)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "%s: %v", p, err)
		}
		val := &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: b}}
		if req.GetEncoding() == gpb.Encoding_JSON {
			val = &gpb.TypedValue{Value: &gpb.TypedValue_JsonVal{JsonVal: b}}
		}
		resp.Notification = append(resp.Notification, &gpb.Notification{
			Timestamp: now,
			Update:    []*gpb.Update{{Path: rp, Val: val}},
		})
	}
	return resp, nil
}

func (t *Target) encodings() []gpb.Encoding {
	if len(t.opts.Encodings) > 0 {
		return t.opts.Encodings
	}
	return []gpb.Encoding{gpb.Encoding_JSON_IETF, gpb.Encoding_JSON}
}

func (t *Target) serves(e gpb.Encoding) bool {
	for _, x := range t.encodings() {
		if x == e {
			return true
		}
	}
	return false
}

// build nests leaves into the value at p; a whole list (p without keys)
// comes back as a JSON array of entries.
func (t *Target) build(p gpath.Path, leaves []gpath.Leaf) (any, error) {
	if t.prof.cfg.isList(p) {
		parent := p[:len(p)-1]
		v, err := gpath.Build(parent, leaves)
		if err != nil {
			return nil, err
		}
		m, _ := v.(map[string]any)
		return m[p[len(p)-1].Name], nil
	}
	return gpath.Build(p, leaves)
}
