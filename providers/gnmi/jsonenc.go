package gnmi

import (
	"encoding/json"
	"fmt"
	"regexp"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// identityRe is a module-qualified identityref value as the profiles write
// it ("openconfig-qos-types:ONE_RATE_TWO_COLOR",
// "srl_nokia-interfaces:routed"): a YANG module name (letters, digits,
// '-', '_', with at least one '-' or '_', so "aa:bb" is not taken for one)
// and an identity name without ':'.
var identityRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*[-_][A-Za-z0-9_.-]*:([A-Za-z_][A-Za-z0-9_.-]*)$`)

// plainJSON turns a JSON_IETF value (RFC 7951) into the plain JSON a
// target that lacks JSON_IETF takes (gNMI specification §2.3.1: RFC 7159
// JSON, no module namespaces): member names and identityref values lose
// their "module:" qualifier. Numbers are kept exactly.
func plainJSON(ietf []byte) ([]byte, error) {
	v, err := gpath.Decode(ietf)
	if err != nil {
		return nil, fmt.Errorf("value is not JSON: %w", err)
	}
	return json.Marshal(stripModules(v))
}

func stripModules(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[gpath.StripModule(k)] = stripModules(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripModules(e)
		}
		return out
	case string:
		if m := identityRe.FindStringSubmatch(x); m != nil {
			return m[1]
		}
	}
	return v
}

// jsonUpdates moves every replace and update value of req from JSON_IETF
// to plain JSON, for a target whose Capabilities list JSON but not
// JSON_IETF.
func jsonUpdates(req *gpb.SetRequest) error {
	for _, u := range append(append([]*gpb.Update(nil), req.Replace...), req.Update...) {
		v, ok := u.GetVal().GetValue().(*gpb.TypedValue_JsonIetfVal)
		if !ok {
			continue
		}
		b, err := plainJSON(v.JsonIetfVal)
		if err != nil {
			return err
		}
		u.Val = &gpb.TypedValue{Value: &gpb.TypedValue_JsonVal{JsonVal: b}}
	}
	return nil
}
