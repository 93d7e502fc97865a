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

	// deps[n]: the locals n refers to; whole: n refers to the bare local
	// object; users[d]: the locals that refer to d.
	deps := make(map[string][]string, len(order))
	whole := map[string]bool{}
	users := make(map[string][]string, len(order))
	indeg := make(map[string]int, len(order))
	for _, n := range order {
		seen := map[string]bool{}
		for _, t := range pending[n].Expr.Variables() {
			if t.RootName() != "local" {
				continue
			}
			if len(t) < 2 {
				whole[n] = true
				continue
			}
			a, ok := t[1].(hcl.TraverseAttr)
			if !ok || seen[a.Name] {
				continue
			}
			if _, declared := pending[a.Name]; !declared {
				continue // reported as an unknown attribute when evaluated
			}
			seen[a.Name] = true
			deps[n] = append(deps[n], a.Name)
			users[a.Name] = append(users[a.Name], n)
			indeg[n]++
		}
	}

	done := make(map[string]cty.Value, len(order))
	queue := make([]string, 0, len(order))
	for _, n := range order {
		if indeg[n] == 0 {
			queue = append(queue, n)
		}
	}
	for i := 0; i < len(queue); i++ {
		if i%1024 == 0 && l.interrupted() {
			return cty.DynamicVal
		}
		n := queue[i]
		scope := make(map[string]cty.Value, len(deps[n]))
		for _, d := range deps[n] {
			scope[d] = done[d]
		}
		if whole[n] {
			for k, v := range done {
				scope[k] = v
			}
		}
		v, diags := pending[n].Expr.Value(l.evalContext(vars, cty.ObjectVal(scope)))
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			v = cty.DynamicVal
		}
		done[n] = v
		for _, u := range users[n] {
			if indeg[u]--; indeg[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	if len(done) < len(order) {
		var cyc []string
		for _, n := range order {
			if _, ok := done[n]; !ok {
				cyc = append(cyc, n)
			}
		}
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
