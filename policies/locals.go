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
// to each other in any order; they are evaluated in dependency order
// (Kahn's algorithm), each in a scope holding only the locals it refers to,
// so the work is linear in the number of locals and references. What is
// left when nothing more can be evaluated is a cycle.
func (l *loader) locals(blocks hcl.Blocks, vars cty.Value) cty.Value {
	pending := map[string]*hcl.Attribute{}
	var order []string
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
			order = append(order, n)
		}
	}
	if len(order) > maxLocals {
		l.diags = append(l.diags, errorDiag(pending[order[maxLocals]].NameRange, "Too many local values",
			fmt.Sprintf("The policy defines %d local values, more than the limit of %d.", len(order), maxLocals)))
		return cty.EmptyObjectVal
	}
	sort.Strings(order)
	index := make(map[string]int32, len(order))
	for i, n := range order {
		index[n] = int32(i)
	}

	// deps[i]: the locals order[i] refers to; whole[i]: it refers to the
	// bare local object; users[d]: the locals that refer to order[d].
	// Slices indexed by position keep this linear with few allocations.
	deps := make([][]int32, len(order))
	users := make([][]int32, len(order))
	indeg := make([]int32, len(order))
	whole := make([]bool, len(order))
	lastUser := make([]int32, len(order)) // i+1 once order[i] listed d
	for i, n := range order {
		for _, t := range pending[n].Expr.Variables() {
			if t.RootName() != "local" {
				continue
			}
			if len(t) < 2 {
				whole[i] = true
				continue
			}
			a, ok := t[1].(hcl.TraverseAttr)
			if !ok {
				continue
			}
			d, declared := index[a.Name]
			if !declared || lastUser[d] == int32(i)+1 {
				continue // an unknown local is reported when evaluated
			}
			lastUser[d] = int32(i) + 1
			deps[i] = append(deps[i], d)
			users[d] = append(users[d], int32(i))
			indeg[i]++
		}
	}

	vals := make([]cty.Value, len(order))
	evaluated := make([]bool, len(order))
	queue := make([]int32, 0, len(order))
	for i := range order {
		if indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	// One scope, reused: locals are evaluated one at a time, each seeing
	// only the locals it refers to.
	ctx := l.evalContext(vars, cty.EmptyObjectVal)
	for qi := 0; qi < len(queue); qi++ {
		if qi%1024 == 0 && l.interrupted() {
			return cty.DynamicVal
		}
		i := queue[qi]
		scope := make(map[string]cty.Value, len(deps[i]))
		for _, d := range deps[i] {
			scope[order[d]] = vals[d]
		}
		if whole[i] {
			for j, ok := range evaluated {
				if ok {
					scope[order[j]] = vals[j]
				}
			}
		}
		ctx.Variables["local"] = cty.ObjectVal(scope)
		v, diags := pending[order[i]].Expr.Value(ctx)
		if len(diags) > 0 {
			// The shared scope changes with the next local; a diagnostic
			// keeps its own copy for the "with local.x as ..." context.
			own := l.evalContext(vars, ctx.Variables["local"])
			for _, d := range diags {
				if d.EvalContext == ctx {
					d.EvalContext = own
				}
			}
		}
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			v = cty.DynamicVal
		}
		vals[i], evaluated[i] = v, true
		for _, u := range users[i] {
			if indeg[u]--; indeg[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	done := make(map[string]cty.Value, len(order))
	var cyc []string
	for i, n := range order {
		if evaluated[i] {
			done[n] = vals[i]
		} else {
			cyc = append(cyc, n)
		}
	}
	if len(cyc) > 0 {
		through := cyc
		if len(through) > 10 {
			through = append(append([]string(nil), cyc[:10]...), fmt.Sprintf("... (%d more)", len(cyc)-10))
		}
		for _, n := range cyc {
			l.diags = append(l.diags, errorDiag(pending[n].NameRange, "Cycle in local values",
				fmt.Sprintf("local.%s depends on itself through %s; break the cycle.", n, "local."+strings.Join(through, ", local."))))
			done[n] = cty.DynamicVal
		}
	}
	return cty.ObjectVal(done)
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
		l.funcs = functionsFor(funcEnv{dir: l.absDir, getenv: l.opts.Getenv, envNames: l.envNames, secretFiles: l.secretFiles, note: l.noteSecret})
	}
	return l.funcs
}
