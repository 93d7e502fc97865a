package policies

import (
	"cmp"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// localDef is one attribute of a locals block.
type localDef struct {
	name      string
	expr      hcl.Expression
	nameRange hcl.Range
}

// localDefs collects the attributes of every locals block in the order
// they are written (blocks in file order, attributes by position), with an
// index by name, reporting blocks inside a locals block and names defined
// twice (the first definition is kept).
func (l *loader) localDefs(blocks hcl.Blocks) ([]localDef, map[string]int32) {
	// A block's attributes come from a map: small keys pointing at them
	// are sorted back into source order, and each definition is built
	// once, in that order.
	type key struct {
		block, byte int32 // files are at most 64 MiB
		syn         *hclsyntax.Attribute
		gen         *hcl.Attribute
	}
	var keys []key
	for bi, b := range blocks {
		// The parser's own attribute map, when the body has no blocks:
		// JustAttributes would copy every attribute into a second map.
		if sb, ok := b.Body.(*hclsyntax.Body); ok && len(sb.Blocks) == 0 {
			keys = slices.Grow(keys, len(sb.Attributes))
			for _, a := range sb.Attributes {
				keys = append(keys, key{block: int32(bi), byte: int32(a.NameRange.Start.Byte), syn: a})
			}
			continue
		}
		attrs, diags := b.Body.JustAttributes()
		l.diags = append(l.diags, diags...)
		for _, a := range attrs {
			keys = append(keys, key{block: int32(bi), byte: int32(a.NameRange.Start.Byte), gen: a})
		}
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.block, b.block), cmp.Compare(a.byte, b.byte)) })
	def := func(k key) localDef {
		if k.syn != nil {
			return localDef{name: k.syn.Name, expr: k.syn.Expr, nameRange: k.syn.NameRange}
		}
		return localDef{name: k.gen.Name, expr: k.gen.Expr, nameRange: k.gen.NameRange}
	}
	if len(keys) > maxLocals {
		l.diags = append(l.diags, errorDiag(def(keys[maxLocals]).nameRange, "Too many local values",
			fmt.Sprintf("The policy defines %d local values, more than the limit of %d; this is the first one over.", len(keys), maxLocals)))
		return nil, nil
	}
	defs := make([]localDef, 0, len(keys))
	index := make(map[string]int32, len(keys))
	for _, k := range keys {
		d := def(k)
		if prev, dup := index[d.name]; dup {
			l.diags = append(l.diags, errorDiag(d.nameRange, "Duplicate local value",
				fmt.Sprintf("local.%s is already defined at %s; remove one.", d.name, defs[prev].nameRange)))
			continue
		}
		index[d.name] = int32(len(defs))
		defs = append(defs, d)
	}
	return defs, index
}

// localRefs returns the local values the blocks other than locals and
// variable blocks refer to, or all = true when one of them uses the local
// object as a whole (or a body is not native HCL syntax, where the
// references cannot be listed): the scope of those blocks then needs every
// local, and otherwise only these.
func localRefs(blocks hcl.Blocks) (names map[string]bool, all bool) {
	names = map[string]bool{}
	var walk func(b *hclsyntax.Body) bool
	walk = func(b *hclsyntax.Body) bool {
		for _, a := range b.Attributes {
			for _, t := range a.Expr.Variables() {
				if t.RootName() != "local" {
					continue
				}
				if len(t) < 2 {
					return false
				}
				step, ok := t[1].(hcl.TraverseAttr)
				if !ok {
					return false
				}
				names[step.Name] = true
			}
		}
		for _, blk := range b.Blocks {
			if !walk(blk.Body) {
				return false
			}
		}
		return true
	}
	for _, b := range blocks {
		if b.Type == "locals" || b.Type == "variable" {
			continue
		}
		sb, ok := b.Body.(*hclsyntax.Body)
		if !ok || !walk(sb) {
			return nil, true
		}
	}
	return names, false
}

// locals evaluates every attribute of every locals block and returns the
// local object the rest of the policy is evaluated with: the locals named
// in need, or every local when all is set. Locals may refer to each other
// in any order; they are evaluated in dependency order (Kahn's algorithm),
// each in a scope holding only the locals it refers to, so the work is
// linear in the number of locals and references. What is left when
// nothing more can be evaluated is a cycle.
func (l *loader) locals(blocks hcl.Blocks, vars cty.Value, need map[string]bool, all bool) cty.Value {
	defs, index := l.localDefs(blocks)
	n := len(defs)

	// The references as edges (from the local that refers, to the local
	// it refers to), then both directions in compressed form: deps[i] are
	// dep[depAt[i]:depAt[i+1]], users[d] are user[userAt[d]:userAt[d+1]].
	// Flat slices keep this linear with a handful of allocations.
	edges, whole := localEdges(defs, index)
	depAt, dep := make([]int32, n+1), make([]int32, len(edges))
	userAt, user := make([]int32, n+1), make([]int32, len(edges))
	for _, e := range edges {
		depAt[e.from+1]++
		userAt[e.to+1]++
	}
	for i := range n {
		depAt[i+1] += depAt[i]
		userAt[i+1] += userAt[i]
	}
	depFill, userFill := slices.Clone(depAt[:n]), slices.Clone(userAt[:n])
	for _, e := range edges {
		dep[depFill[e.from]] = e.to
		depFill[e.from]++
		user[userFill[e.to]] = e.from
		userFill[e.to]++
	}
	edges, depFill, userFill = nil, nil, nil

	vals := make([]cty.Value, n)
	evaluated := make([]bool, n)
	indeg := make([]int32, n)
	queue := make([]int32, 0, n)
	for i := range n {
		if indeg[i] = depAt[i+1] - depAt[i]; indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	// One scope, reused: locals are evaluated one at a time, each seeing
	// only the locals it refers to.
	ctx := l.evalContext(vars, cty.EmptyObjectVal)
	scope := map[string]cty.Value{}
	alone := map[int32]cty.Value{}
	for qi := 0; qi < len(queue); qi++ {
		if qi%1024 == 0 && l.interrupted() {
			return cty.DynamicVal
		}
		i := queue[qi]
		if at, bare := whole[i]; bare {
			l.diags = append(l.diags, errorDiag(at, "Invalid reference",
				fmt.Sprintf("local.%s refers to the local object as a whole; refer to one value, local.<name>, as in Terraform.", defs[i].name)))
			vals[i] = cty.DynamicVal
		} else {
			vals[i] = l.evalLocal(defs[i].expr, ctx, vars, localScope(dep[depAt[i]:depAt[i+1]], defs, vals, userAt, scope, alone))
		}
		evaluated[i] = true
		for _, u := range user[userAt[i]:userAt[i+1]] {
			if indeg[u]--; indeg[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	var cyc []string
	for i, d := range defs {
		if !evaluated[i] {
			cyc = append(cyc, d.name)
		}
	}
	if len(cyc) > 0 {
		through := cyc
		if len(through) > 10 {
			through = append(append([]string(nil), cyc[:10]...), fmt.Sprintf("... (%d more)", len(cyc)-10))
		}
		for i, d := range defs {
			if !evaluated[i] {
				l.diags = append(l.diags, errorDiag(d.nameRange, "Cycle in local values",
					fmt.Sprintf("local.%s depends on itself through %s; break the cycle.", d.name, "local."+strings.Join(through, ", local."))))
				vals[i] = cty.DynamicVal
			}
		}
	}
	// The scope of the rest of the policy: only the locals it names (an
	// object of a million locals costs more than evaluating them).
	if all {
		out := make(map[string]cty.Value, n)
		for i, d := range defs {
			out[d.name] = vals[i]
		}
		return cty.ObjectVal(out)
	}
	out := make(map[string]cty.Value, len(need))
	for name := range need {
		if i, ok := index[name]; ok {
			out[name] = vals[i]
		}
	}
	return cty.ObjectVal(out)
}

// localEdge is a reference from local from to local to (indexes in defs).
type localEdge struct{ from, to int32 }

// localEdges lists the references between locals: for each local, in
// order, the declared locals it names (each once), and in whole the
// locals that use the bare local object, where they do (refused, as
// Terraform does: such a local would depend on every other one, and a
// policy of n of them would take n² steps). References to undeclared
// locals are left out: they are reported when evaluated. The expressions
// are walked in parallel, in ranges of locals whose results are put back
// in order, so the result is the same as one walk's.
func localEdges(defs []localDef, index map[string]int32) ([]localEdge, map[int32]hcl.Range) {
	const per = 16 << 10 // locals per range
	n := len(defs)
	type part struct {
		edges []localEdge
		whole map[int32]hcl.Range
	}
	parts := make([]part, (n+per-1)/per)
	walk := func(p int, lastUser []int32) {
		out := part{whole: map[int32]hcl.Range{}}
		for i := p * per; i < min(n, (p+1)*per); i++ {
			for _, t := range defs[i].expr.Variables() {
				if t.RootName() != "local" {
					continue
				}
				if len(t) < 2 {
					if _, seen := out.whole[int32(i)]; !seen {
						out.whole[int32(i)] = t.SourceRange()
					}
					continue
				}
				a, ok := t[1].(hcl.TraverseAttr)
				if !ok {
					continue
				}
				to, declared := index[a.Name]
				if !declared || lastUser[to] == int32(i)+1 {
					continue
				}
				lastUser[to] = int32(i) + 1 // i+1 once defs[i] listed to
				out.edges = append(out.edges, localEdge{int32(i), to})
			}
		}
		parts[p] = out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(parts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lastUser := make([]int32, n)
			for p := int(next.Add(1) - 1); p < len(parts); p = int(next.Add(1) - 1) {
				walk(p, lastUser)
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, p := range parts {
		total += len(p.edges)
	}
	edges := make([]localEdge, 0, total)
	whole := map[int32]hcl.Range{}
	for _, p := range parts {
		edges = append(edges, p.edges...)
		maps.Copy(whole, p.whole)
	}
	return edges, whole
}

// localScope is the local object one local is evaluated with: only the
// locals it refers to (deps). A local that others refer to alone gets its
// one-attribute object built once (in alone); scope is a reused map.
func localScope(deps []int32, defs []localDef, vals []cty.Value, userAt []int32, scope map[string]cty.Value, alone map[int32]cty.Value) cty.Value {
	if len(deps) == 1 && userAt[deps[0]+1]-userAt[deps[0]] > 1 {
		d := deps[0]
		obj, ok := alone[d]
		if !ok {
			obj = cty.ObjectVal(map[string]cty.Value{defs[d].name: vals[d]})
			alone[d] = obj
		}
		return obj
	}
	clear(scope)
	for _, d := range deps {
		scope[defs[d].name] = vals[d]
	}
	return cty.ObjectVal(scope)
}

// evalLocal evaluates one local's expression in ctx with obj as the local
// object; on an error the value is unknown (the error is recorded).
func (l *loader) evalLocal(expr hcl.Expression, ctx *hcl.EvalContext, vars, obj cty.Value) cty.Value {
	ctx.Variables["local"] = obj
	v, diags := expr.Value(ctx)
	if len(diags) > 0 {
		// The shared scope changes with the next local; a diagnostic
		// keeps its own copy for the "with local.x as ..." context.
		own := l.evalContext(vars, obj)
		for _, d := range diags {
			if d.EvalContext == ctx {
				d.EvalContext = own
			}
		}
	}
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return cty.DynamicVal
	}
	return v
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
		l.funcs = functionsFor(funcEnv{dir: l.absDir, getenv: l.opts.Getenv, envNames: l.envNames, secretFiles: l.secretFiles, note: l.noteSecret, marks: &l.marks})
	}
	return l.funcs
}
