package gnmi

import (
	"encoding/json"
	"fmt"
	"strconv"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// decodeGetResponse turns a GetResponse into leaves under want. It accepts
// both shapes targets use: one update holding the whole subtree as JSON,
// and many updates holding one leaf each (scalar TypedValues included).
func decodeGetResponse(resp *gpb.GetResponse, want gpath.Path, keysOf gpath.KeysOf) ([]gpath.Leaf, error) {
	var out []gpath.Leaf
	for _, n := range resp.GetNotification() {
		for _, u := range n.GetUpdate() {
			p, _, err := gpath.FromProto(n.GetPrefix(), u.GetPath())
			if err != nil {
				return nil, fmt.Errorf("response path: %w", err)
			}
			v, err := typedValue(u.GetVal())
			if err != nil {
				return nil, fmt.Errorf("value at %s: %w", p, err)
			}
			leaves, err := gpath.Flatten(p, v, keysOf)
			if err != nil {
				return nil, fmt.Errorf("value at %s: %w", p, err)
			}
			for _, l := range leaves {
				if l.Path.HasPrefix(want) {
					out = append(out, l)
				}
			}
		}
	}
	return out, nil
}

// typedValue converts a TypedValue to the values gpath works with.
func typedValue(v *gpb.TypedValue) (any, error) {
	switch x := v.GetValue().(type) {
	case *gpb.TypedValue_JsonIetfVal:
		return gpath.Decode(x.JsonIetfVal)
	case *gpb.TypedValue_JsonVal:
		return gpath.Decode(x.JsonVal)
	case *gpb.TypedValue_StringVal:
		return x.StringVal, nil
	case *gpb.TypedValue_UintVal:
		return json.Number(strconv.FormatUint(x.UintVal, 10)), nil
	case *gpb.TypedValue_IntVal:
		return json.Number(strconv.FormatInt(x.IntVal, 10)), nil
	case *gpb.TypedValue_BoolVal:
		return x.BoolVal, nil
	case nil:
		return nil, fmt.Errorf("no value")
	}
	return nil, fmt.Errorf("unsupported value encoding %T", v.GetValue())
}
