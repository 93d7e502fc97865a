package policies

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// locals evaluates every attribute of every locals block. Locals may refer
// to each other in any order; they are evaluated once their references are
// ready, and what is left when nothing more can be evaluated is a cycle.
func (l *loader) locals(blocks hcl.Blocks, vars cty.Value) cty.Value {
	pending := map[string]*hcl.Attribute{}
	for _, b := range blocks {
		attrs, diags := b.Body.JustAttributes()
		l.diags = append(l.diags, diags...)
		for n, a := range attrs {
			if prev, ok := pending[n]; ok {
				l.diags = append(l.diags, errorDiag(a.NameRange, "Duplicate local value",
					fmt.Sprintf("local.%s is already defined at %s; remove one.", n, prev.NameRange)))
				continue
			}
			pending[n] = a
		}
	}
	done := map[string]cty.Value{}
	for len(pending) > 0 {
		names := make([]string, 0, len(pending))
		for n := range pending {
			names = append(names, n)
		}
		sort.Strings(names)
		progress := false
		for _, n := range names {
			a := pending[n]
			if !localsReady(a.Expr, pending) {
				continue
			}
			ctx := l.evalContext(vars, cty.ObjectVal(done))
			v, diags := a.Expr.Value(ctx)
			l.diags = append(l.diags, diags...)
			if diags.HasErrors() {
				v = cty.DynamicVal
			}
			done[n] = v
			delete(pending, n)
			progress = true
		}
		if !progress {
			names = names[:0]
			for n := range pending {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				l.diags = append(l.diags, errorDiag(pending[n].NameRange, "Cycle in local values",
					fmt.Sprintf("local.%s depends on itself through %s; break the cycle.", n, "local."+strings.Join(names, ", local."))))
				done[n] = cty.DynamicVal
			}
			break
		}
	}
	return cty.ObjectVal(done)
}

// localsReady reports whether every local.X that expr refers to is no
// longer pending.
func localsReady(expr hcl.Expression, pending map[string]*hcl.Attribute) bool {
	for _, t := range expr.Variables() {
		if t.RootName() != "local" || len(t) < 2 {
			continue
		}
		if a, ok := t[1].(hcl.TraverseAttr); ok {
			if _, waiting := pending[a.Name]; waiting {
				return false
			}
		}
	}
	return true
}

// evalContext is the scope of every policy expression.
func (l *loader) evalContext(vars, locals cty.Value) *hcl.EvalContext {
	return &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": vars, "local": locals},
		Functions: l.functions(),
	}
}

// functions builds the function table once per Load.
func (l *loader) functions() map[string]function.Function {
	if l.funcs == nil {
		l.funcs = functions(l.absDir, l.opts.Getenv)
	}
	return l.funcs
}
