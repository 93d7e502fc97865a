package policies

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// envVarPrefix is the environment prefix for variable values, like
// Terraform's TF_VAR_.
const envVarPrefix = "ROCE_VAR_"

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "type"}, {Name: "default"}, {Name: "description"}, {Name: "sensitive"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "error_message", Required: true}},
}

// variable is one declared input variable.
type variable struct {
	name        string
	ty          cty.Type
	def         cty.Value // cty.NilVal when there is no default
	validations []*hcl.Block
	decl        hcl.Range
	sensitive   bool // sensitive = true: the value is marked sensitive
}

// assigned is a value for a variable and where it came from.
type assigned struct {
	val    cty.Value
	from   string     // "default", "environment variable ROCE_VAR_x", "-var", file name
	rng    *hcl.Range // where in a var file, if any
	hasVal bool
}

// variables decodes the variable blocks and resolves each value with
// Terraform's precedence: default < ROCE_VAR_name < -var-file (in order)
// < -var (in order). It returns the var.* object.
func (l *loader) variables(blocks hcl.Blocks) cty.Value {
	decls := map[string]*variable{}
	var order []string
	for _, b := range blocks {
		v := l.decodeVariable(b)
		if v == nil {
			continue
		}
		if prev, ok := decls[v.name]; ok {
			l.diags = append(l.diags, errorDiag(b.LabelRanges[0], "Duplicate variable",
				fmt.Sprintf("variable %q is already declared at %s; remove one.", v.name, prev.decl)))
			continue
		}
		decls[v.name] = v
		order = append(order, v.name)
	}

	vals := map[string]*assigned{}
	for _, n := range order {
		a := &assigned{from: "its default"}
		if decls[n].def != cty.NilVal {
			a.val, a.hasVal = decls[n].def, true
		}
		vals[n] = a
	}
	// Environment: lowest precedence after defaults.
	for _, n := range order {
		if raw, ok := l.opts.Getenv(envVarPrefix + n); ok {
			from := "environment variable " + envVarPrefix + n
			if v, ok := l.parseRawVar(decls[n], raw, from); ok {
				// Marked so settings that lower transport trust can refuse
				// a value that only the environment set.
				l.marks.saw()
				*vals[n] = assigned{val: v.Mark(markEnvironment), from: from, hasVal: true}
			}
		}
	}
	for _, path := range l.opts.VarFiles {
		l.readVarFile(path, decls, vals)
	}
	for _, kv := range l.opts.Vars {
		name, raw, ok := strings.Cut(kv, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid -var option",
				Detail: fmt.Sprintf("-var %q must be written name=value.", kv)})
			continue
		}
		d, declared := decls[name]
		if !declared {
			l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Value for undeclared variable",
				Detail: fmt.Sprintf("-var %s=...: the policy declares no variable %q. Add a variable %q block or fix the name.", name, name, name)})
			continue
		}
		if v, ok := l.parseRawVar(d, raw, "-var"); ok {
			*vals[name] = assigned{val: v, from: "-var", hasVal: true}
		}
	}

	out := map[string]cty.Value{}
	for _, n := range order {
		d, a := decls[n], vals[n]
		if !a.hasVal {
			l.diags = append(l.diags, errorDiag(d.decl, "No value for required variable",
				fmt.Sprintf("variable %q has no default. Set it with -var %s=..., a -var-file, or the environment variable %s%s.", n, n, envVarPrefix, n)))
			out[n] = cty.DynamicVal
			continue
		}
		v, err := convert.Convert(a.val, d.ty)
		if err != nil {
			diag := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid value for variable",
				Detail: fmt.Sprintf("var.%s (from %s) must be %s: %v.", n, a.from, typeexpr.TypeString(d.ty), err), Subject: a.rng}
			if a.rng == nil {
				diag.Subject = d.decl.Ptr()
			}
			l.diags = append(l.diags, diag)
			out[n] = cty.DynamicVal
			continue
		}
		if d.sensitive {
			l.noteSecretsIn(v)
			l.marks.saw()
			v = v.Mark(markSensitive)
		}
		out[n] = v
		l.checkValidations(d, v, a.from)
	}
	return cty.ObjectVal(out)
}

func (l *loader) decodeVariable(b *hcl.Block) *variable {
	content, diags := b.Body.Content(variableSchema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	v := &variable{name: b.Labels[0], ty: cty.DynamicPseudoType, def: cty.NilVal, decl: b.DefRange, validations: content.Blocks}
	if !hclsyntax.ValidIdentifier(v.name) {
		l.diags = append(l.diags, errorDiag(b.LabelRanges[0], "Invalid variable name",
			fmt.Sprintf("%q is not a valid name; use letters, digits, underscores and dashes, starting with a letter.", v.name)))
		return nil
	}
	if a, ok := content.Attributes["sensitive"]; ok {
		sv, diags := a.Expr.Value(nil)
		l.diags = append(l.diags, diags...)
		if sv, err := convert.Convert(sv, cty.Bool); err != nil || sv.IsNull() || !sv.IsKnown() {
			l.diags = append(l.diags, errorDiag(a.Expr.Range(), "Invalid sensitive value",
				fmt.Sprintf("variable %q: sensitive must be true or false.", v.name)))
		} else {
			v.sensitive = sv.True()
		}
	}
	if a, ok := content.Attributes["default"]; ok && v.sensitive {
		l.src.redact(a.Expr.Range())
	}
	if a, ok := content.Attributes["type"]; ok {
		ty, diags := typeexpr.TypeConstraint(a.Expr)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			return nil
		}
		v.ty = ty
	}
	if a, ok := content.Attributes["default"]; ok {
		val, diags := a.Expr.Value(nil)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			return nil
		}
		if !val.IsNull() {
			cv, err := convert.Convert(val, v.ty)
			if err != nil {
				l.diags = append(l.diags, errorDiag(a.Expr.Range(), "Invalid default value for variable",
					fmt.Sprintf("variable %q: the default must be %s: %v.", v.name, typeexpr.TypeString(v.ty), err)))
				return nil
			}
			v.def = cv
		}
	}
	return v
}

// parseRawVar turns a -var or environment string into a value: taken
// literally for primitive types (so -var name=leaf01 needs no quotes), and
// parsed as an HCL expression for lists, maps and objects, as Terraform does.
func (l *loader) parseRawVar(d *variable, raw, from string) (cty.Value, bool) {
	if d.ty.IsPrimitiveType() {
		return cty.StringVal(raw), true
	}
	expr, diags := hclsyntax.ParseExpression([]byte(raw), "<value for var."+d.name+">", hcl.Pos{Line: 1, Column: 1})
	if !diags.HasErrors() {
		var v cty.Value
		v, diags = expr.Value(nil)
		if !diags.HasErrors() {
			return v, true
		}
	}
	if d.ty == cty.DynamicPseudoType {
		return cty.StringVal(raw), true
	}
	l.diags = append(l.diags, errorDiag(d.decl, "Invalid value for variable",
		fmt.Sprintf("var.%s (from %s): %q is not a valid %s expression: %s.", d.name, from, raw, typeexpr.TypeString(d.ty), diags[0].Summary)))
	return cty.NilVal, false
}

// varFileNextStep is what to do about a -var-file that cannot be read. A
// lab's variable file (under a .lab directory) exists only while the lab
// runs, so a missing one usually means the lab is down.
func varFileNextStep(path string, err error) string {
	if !errors.Is(err, fs.ErrNotExist) {
		return "Check that it is a file you can read."
	}
	els := strings.Split(filepath.ToSlash(filepath.Clean(path)), "/")
	for i, el := range els {
		if el == ".lab" {
			lab := filepath.FromSlash(strings.Join(els[:i], "/"))
			if lab == "" {
				lab = "."
			}
			return fmt.Sprintf("The lab writes this file when it starts: is it up? Start it with `roce-lab up -d %s`.", lab)
		}
	}
	return "Check the path (a relative one is read from the current directory)."
}

// readVarFile applies a .tfvars-style file of name = value attributes.
// Values are constants: no variables or functions, as in Terraform.
func (l *loader) readVarFile(path string, decls map[string]*variable, vals map[string]*assigned) {
	src, err := readLimited(path, maxPolicyFileBytes)
	if err != nil {
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read variable file",
			Detail: fmt.Sprintf("Reading -var-file %s: %v. %s", path, err, varFileNextStep(path, err))})
		return
	}
	if d := checkNesting(src, path); d != nil {
		l.diags = append(l.diags, d)
		return
	}
	f, diags := parseHCL(src, path)
	l.diags = append(l.diags, diags...)
	if f == nil {
		return
	}
	l.src.add(path, "var-file:"+path, f)
	l.redactSecretAttrs(f)
	if diags.HasErrors() {
		return
	}
	attrs, diags := f.Body.JustAttributes()
	l.diags = append(l.diags, diags...)
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := attrs[n]
		if _, ok := decls[n]; !ok {
			l.diags = append(l.diags, warningDiag(a.NameRange, "Value for undeclared variable",
				fmt.Sprintf("%s sets %q, but the policy declares no such variable; it is ignored.", path, n)))
			continue
		}
		v, diags := a.Expr.Value(nil)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		rng := a.Expr.Range()
		if decls[n].sensitive {
			l.src.redact(rng)
		}
		*vals[n] = assigned{val: v, from: path, rng: &rng, hasVal: true}
	}
}

// checkValidations evaluates each validation block with only var.<name>
// in scope, as Terraform does.
func (l *loader) checkValidations(d *variable, v cty.Value, from string) {
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{d.name: v})},
		Functions: l.functions(),
	}
	for _, vb := range d.validations {
		content, diags := vb.Body.Content(validationSchema)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		cond := content.Attributes["condition"]
		res, diags := cond.Expr.Value(ctx)
		l.diags = append(l.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		res, _ = res.UnmarkDeep()
		res, err := convert.Convert(res, cty.Bool)
		if err != nil || res.IsNull() || !res.IsKnown() {
			l.diags = append(l.diags, errorDiag(cond.Expr.Range(), "Invalid validation condition",
				fmt.Sprintf("variable %q: the condition must be true or false.", d.name)))
			continue
		}
		if res.True() {
			continue
		}
		msg := "the value is not valid"
		mv, mdiags := content.Attributes["error_message"].Expr.Value(nil)
		if !mdiags.HasErrors() && mv.Type() == cty.String && mv.IsKnown() && !mv.IsNull() {
			msg = mv.AsString()
		}
		l.diags = append(l.diags, errorDiag(cond.Expr.Range(), "Invalid value for variable",
			fmt.Sprintf("var.%s (from %s): %s", d.name, from, msg)))
	}
}
