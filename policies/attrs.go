package policies

import (
	"fmt"
	"math/big"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/gocty"
)

// attrRanges remembers where each attribute of one decoded object was
// written, so semantic validation can point at the offending attribute
// rather than at the whole block.
type attrRanges map[string]hcl.Range

// reader evaluates the attributes of one block body into Go values,
// collecting diagnostics that name the block and point at the attribute.
// A null value counts as absent, as in Terraform, so for_each templates can
// leave optional settings unset with null.
type reader struct {
	what   string // e.g. `switch "leaf01"`, used as message prefix
	attrs  hcl.Attributes
	ctx    *hcl.EvalContext
	diags  *hcl.Diagnostics
	ranges attrRanges
	// allowSensitive lets sensitive values through (credentials blocks,
	// whose values are never printed or rendered to a device).
	allowSensitive bool
	// fromEnv remembers the attributes whose value came from the
	// environment (env() or ROCE_VAR_*), for settings that must not.
	fromEnv map[string]bool
}

func newReader(what string, attrs hcl.Attributes, ctx *hcl.EvalContext, diags *hcl.Diagnostics) *reader {
	return &reader{what: what, attrs: attrs, ctx: ctx, diags: diags, ranges: attrRanges{}}
}

// has reports whether the attribute is written (even if its value is null).
func (r *reader) has(name string) bool {
	_, ok := r.attrs[name]
	return ok
}

// rangeOf returns where the attribute is written, or fallback.
func (r *reader) rangeOf(name string, fallback hcl.Range) hcl.Range {
	if a, ok := r.attrs[name]; ok {
		return a.Range
	}
	return fallback
}

// value evaluates name converted to ty; ok is false when the attribute is
// absent, null, or wrong (a diagnostic has then been added).
func (r *reader) value(name string, ty cty.Type, want string) (cty.Value, bool) {
	a, ok := r.attrs[name]
	if !ok {
		return cty.NilVal, false
	}
	r.ranges[name] = a.Range
	v, diags := a.Expr.Value(r.ctx)
	*r.diags = append(*r.diags, diags...)
	if diags.HasErrors() {
		return cty.NilVal, false
	}
	if v.IsNull() {
		return cty.NilVal, false
	}
	if !v.IsWhollyKnown() {
		r.errorAt(a.Expr.Range(), "Value not known", fmt.Sprintf("%s: %s must be known when the policy is loaded.", r.what, name))
		return cty.NilVal, false
	}
	if hasMark(v, markEnvironment) {
		if r.fromEnv == nil {
			r.fromEnv = map[string]bool{}
		}
		r.fromEnv[name] = true
	}
	if !r.allowSensitive && hasMark(v, markSensitive) {
		r.errorAt(a.Expr.Range(), "Sensitive value in "+name,
			fmt.Sprintf("%s: %s would be printed in plans and reports or sent to the device, but its value is sensitive (it comes from env(), from file() of a secret, or from a variable declared sensitive = true). roce never shows a sensitive value; write the value in the policy or pass it with a non-sensitive variable.", r.what, name))
		return cty.NilVal, false
	}
	v, _ = v.UnmarkDeep()
	cv, err := convert.Convert(v, ty)
	if err != nil {
		r.errorAt(a.Expr.Range(), "Incorrect attribute value type",
			fmt.Sprintf("%s: %s must be %s; got %s.", r.what, name, want, friendlyType(v.Type())))
		return cty.NilVal, false
	}
	return cv, true
}

func (r *reader) str(name string, dst *string) bool {
	v, ok := r.value(name, cty.String, "a string")
	if ok {
		*dst = v.AsString()
	}
	return ok
}

// trustSetting reads a boolean that lowers transport trust (plaintext,
// insecure_skip_verify): true must be written in the policy, where a
// reviewer sees it, so a value from the environment is refused.
func (r *reader) trustSetting(name string, dst *bool) bool {
	var v bool
	if !r.boolean(name, &v) {
		return false
	}
	if r.fromEnv[name] && v {
		r.attrError(name, "Transport trust from the environment",
			fmt.Sprintf("%s: %s = true comes from the environment (env() or a ROCE_VAR_ variable). Turning off transport security must be written in the policy for the switch it applies to, where a reviewer sees it; it can't be switched on from the environment.", r.what, name))
		return false
	}
	*dst = v
	return true
}

func (r *reader) boolean(name string, dst *bool) bool {
	v, ok := r.value(name, cty.Bool, "true or false")
	if ok {
		*dst = v.True()
	}
	return ok
}

// integer reads a whole number within [lo, hi].
func (r *reader) integer(name string, dst *int, lo, hi int) bool {
	v, ok := r.value(name, cty.Number, "a whole number")
	if !ok {
		return false
	}
	bf := v.AsBigFloat()
	if !bf.IsInt() {
		r.attrError(name, "Invalid value", fmt.Sprintf("%s: %s = %s must be a whole number.", r.what, name, bf.Text('g', -1)))
		return false
	}
	n, acc := bf.Int64()
	if acc != big.Exact || n < int64(lo) || n > int64(hi) {
		r.attrError(name, "Value out of range", fmt.Sprintf("%s: %s = %s is outside %d-%d.", r.what, name, bf.Text('f', 0), lo, hi))
		return false
	}
	*dst = int(n)
	return true
}

func (r *reader) float(name string, dst *float64) bool {
	v, ok := r.value(name, cty.Number, "a number")
	if ok {
		*dst, _ = v.AsBigFloat().Float64()
	}
	return ok
}

func (r *reader) strList(name string, dst *[]string) bool {
	v, ok := r.value(name, cty.List(cty.String), "a list of strings")
	if !ok {
		return false
	}
	var out []string
	if err := gocty.FromCtyValue(v, &out); err != nil {
		r.attrError(name, "Incorrect attribute value type", fmt.Sprintf("%s: %s must be a list of strings without nulls.", r.what, name))
		return false
	}
	*dst = out
	return true
}

// duration reads a Go duration string such as "10s" or "1m30s".
func (r *reader) duration(name string, dst *time.Duration) bool {
	var s string
	if !r.str(name, &s) {
		return false
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		r.attrError(name, "Invalid duration", fmt.Sprintf("%s: %s = %q is not a duration; write it like \"10s\", \"1m30s\" or \"500ms\".", r.what, name, s))
		return false
	}
	*dst = d
	return true
}

func (r *reader) attrError(name, summary, detail string) {
	rng := r.attrs[name].Range
	r.errorAt(rng, summary, detail)
}

func (r *reader) errorAt(rng hcl.Range, summary, detail string) {
	*r.diags = append(*r.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr()})
}

// friendlyType names a cty type the way a policy author writes values.
func friendlyType(t cty.Type) string {
	switch {
	case t == cty.String:
		return "a string"
	case t == cty.Number:
		return "a number"
	case t == cty.Bool:
		return "a bool"
	case t.IsListType() || t.IsTupleType():
		return "a list"
	case t.IsSetType():
		return "a set"
	case t.IsMapType() || t.IsObjectType():
		return "an object"
	}
	return t.FriendlyName()
}

func errorDiag(rng hcl.Range, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr()}
}

func warningDiag(rng hcl.Range, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: detail, Subject: rng.Ptr()}
}
