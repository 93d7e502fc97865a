package gnmi

import (
	"fmt"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// SetRequestFromOps builds the one SetRequest a plan's ops describe:
// deletes, replaces and updates keep their order within each group; the
// groups must already be in that order (the target applies them so anyway,
// gNMI specification §3.4.3). Values are sent as JSON_IETF byte for byte.
func SetRequestFromOps(ops []plan.Op) (*gpb.SetRequest, error) {
	req := &gpb.SetRequest{}
	stage := 0
	for i, op := range ops {
		p, err := gpath.Parse(op.Path)
		if err != nil {
			return nil, fmt.Errorf("op %d: %w", i, err)
		}
		rank := map[string]int{"delete": 0, "replace": 1, "update": 2}
		r, ok := rank[op.Op]
		if !ok {
			return nil, fmt.Errorf("op %d: unknown operation %q (want delete, replace or update)", i, op.Op)
		}
		if r < stage {
			return nil, fmt.Errorf("op %d (%s %s): out of order; a SetRequest is deletes, then replaces, then updates", i, op.Op, op.Path)
		}
		stage = r
		gp := p.Proto(op.Origin)
		if op.Op == "delete" {
			if len(op.Value) > 0 {
				return nil, fmt.Errorf("op %d: delete %s carries a value", i, op.Path)
			}
			req.Delete = append(req.Delete, gp)
			continue
		}
		if len(op.Value) == 0 {
			return nil, fmt.Errorf("op %d: %s %s has no value", i, op.Op, op.Path)
		}
		u := &gpb.Update{Path: gp, Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: append([]byte(nil), op.Value...)}}}
		if op.Op == "replace" {
			req.Replace = append(req.Replace, u)
		} else {
			req.Update = append(req.Update, u)
		}
	}
	return req, nil
}

// OpsFromSetRequest is the inverse, for checking what a target received
// against a plan.
func OpsFromSetRequest(req *gpb.SetRequest) ([]plan.Op, error) {
	var out []plan.Op
	conv := func(op string, p *gpb.Path, v *gpb.TypedValue) error {
		gp, origin, err := gpath.FromProto(req.GetPrefix(), p)
		if err != nil {
			return err
		}
		o := plan.Op{Op: op, Origin: origin, Path: gp.String()}
		if v != nil {
			switch x := v.GetValue().(type) {
			case *gpb.TypedValue_JsonIetfVal:
				o.Value = x.JsonIetfVal
			case *gpb.TypedValue_JsonVal:
				o.Value = x.JsonVal
			default:
				return fmt.Errorf("%s %s: value is not JSON (%T)", op, gp, x)
			}
		}
		out = append(out, o)
		return nil
	}
	for _, d := range req.GetDelete() {
		if err := conv("delete", d, nil); err != nil {
			return nil, err
		}
	}
	for _, u := range req.GetReplace() {
		if err := conv("replace", u.GetPath(), u.GetVal()); err != nil {
			return nil, err
		}
	}
	for _, u := range req.GetUpdate() {
		if err := conv("update", u.GetPath(), u.GetVal()); err != nil {
			return nil, err
		}
	}
	return out, nil
}
