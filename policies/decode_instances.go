package policies

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// decodeInstances decodes a switch or host block: it expands for_each into
// instances, decodes each with decode, and refuses a name already declared
// by any block of the same kind (names come from labels or each.key).
// Declared names are remembered in the loader, so checking a 10,000-host
// for_each stays linear.
func decodeInstances[T any](l *loader, b *hcl.Block, schema *hcl.BodySchema, ctx *hcl.EvalContext, kind string,
	decode func(*hcl.BodyContent, instance) (T, bool)) []T {
	content, diags := b.Body.Content(schema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	if _, ok := content.Attributes["for_each"]; ok {
		r := b.DefRange
		if body, ok := b.Body.(interface{ Range() hcl.Range }); ok { // native HCL syntax
			r = hcl.RangeBetween(b.DefRange, body.Range())
		}
		l.forEach = append(l.forEach, r)
	}
	if l.declared == nil {
		l.declared = map[string]hcl.Range{}
	}
	var out []T
	for i, inst := range l.expand(b, content.Attributes, ctx) {
		if i%1024 == 1023 && l.interrupted() {
			return out
		}
		v, ok := decode(content, inst)
		if !ok {
			continue
		}
		key := kind + "\x00" + inst.name
		if prev, dup := l.declared[key]; dup {
			l.diags = append(l.diags, errorDiag(b.DefRange, "Duplicate "+kind+" name",
				fmt.Sprintf("%s %q is already declared at %s (names come from block labels, or from each.key with for_each); rename one.", kind, inst.name, prev)))
			continue
		}
		l.declared[key] = b.DefRange
		out = append(out, v)
	}
	return out
}
