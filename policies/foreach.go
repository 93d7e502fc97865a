package policies

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// maxForEachInstances bounds one for_each, so a mistaken expression cannot
// expand into millions of targets.
const maxForEachInstances = 100000

// instance is one expansion of a block: its name and the scope its
// attributes are evaluated in (with each.key / each.value for for_each).
type instance struct {
	name string
	ctx  *hcl.EvalContext
}

// expand returns the instances of a switch or host block. Without
// for_each there is one, named by the block label. With for_each each
// instance is named by each.key, like Terraform's resource instances, but
// flattened: switch "leaf" { for_each = toset(["leaf01", "leaf02"]) }
// declares switches leaf01 and leaf02.
func (l *loader) expand(b *hcl.Block, attrs hcl.Attributes, ctx *hcl.EvalContext) []instance {
	fe, ok := attrs["for_each"]
	if !ok {
		return []instance{{name: b.Labels[0], ctx: ctx}}
	}
	what := fmt.Sprintf("%s %q", b.Type, b.Labels[0])
	v, diags := fe.Expr.Value(ctx)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	bad := func(detail string) []instance {
		l.diags = append(l.diags, errorDiag(fe.Expr.Range(), "Invalid for_each value", what+": "+detail))
		return nil
	}
	if v.IsNull() || !v.IsWhollyKnown() {
		return bad("for_each must be a known map, or a set of strings.")
	}
	sensitiveKey := func() []instance {
		l.diags = append(l.diags, errorDiag(fe.Expr.Range(), "Sensitive value in for_each",
			what+": the for_each keys become switch or host names, which every plan and report shows, but this value is sensitive (it comes from env(), from file() of a secret, or from a variable declared sensitive = true). Use non-sensitive keys; a sensitive each.value is fine where a credentials block uses it."))
		return nil
	}
	// The collection itself must not be sensitive (its keys would be);
	// marks on element values stay, so each.value is still checked where
	// it is used.
	v, topMarks := v.Unmark()
	if _, ok := topMarks[markSensitive]; ok {
		return sensitiveKey()
	}
	t := v.Type()
	switch {
	case t.IsMapType() || t.IsObjectType():
	case t.IsSetType():
		if !t.ElementType().Equals(cty.String) && t.ElementType() != cty.DynamicPseudoType {
			return bad(fmt.Sprintf("for_each must be a map, or a set of strings; this set holds %s. Convert the elements with tostring or format.", friendlyType(t.ElementType())))
		}
	case t.IsListType() || t.IsTupleType():
		return bad("for_each must be a map, or a set of strings; got a list. Wrap it in toset(...) (its elements become each.key).")
	default:
		return bad(fmt.Sprintf("for_each must be a map, or a set of strings; got %s.", friendlyType(t)))
	}
	if v.LengthInt() > maxForEachInstances {
		return bad(fmt.Sprintf("for_each has %d elements, more than the limit of %d.", v.LengthInt(), maxForEachInstances))
	}
	var out []instance
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if t.IsSetType() {
			if hasMark(e, markSensitive) {
				return sensitiveKey()
			}
			e, _ = e.Unmark()
			if e.IsNull() || e.Type() != cty.String {
				return bad("every element of a for_each set must be a string.")
			}
			k = e
		}
		k, _ = k.Unmark()
		key := k.AsString()
		child := ctx.NewChild()
		child.Variables = map[string]cty.Value{
			"each": cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal(key), "value": e}),
		}
		out = append(out, instance{name: key, ctx: child})
	}
	// Element order of maps and sets is already sorted by key in cty; keep it
	// explicit so the fabric order never depends on that detail.
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
