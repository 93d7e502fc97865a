package policies

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// valueMark is a go-cty mark carried by a value through evaluation, as
// Terraform marks sensitive values: every operation and function result
// that uses a marked value is marked too.
type valueMark string

const (
	// markSensitive: the value came from env(), from file() of a secret,
	// or from a variable declared sensitive = true. It may only reach a
	// credentials block; anywhere else it would be printed or sent to a
	// device, so the policy is refused at that attribute.
	markSensitive valueMark = "sensitive"
	// markEnvironment: the value came from the environment of the process
	// running roce (env() or ROCE_VAR_*). Settings that lower transport
	// trust refuse such values: they must be written in the policy, where a
	// reviewer sees them.
	markEnvironment valueMark = "environment"
)

// Redacted is what every output shows in place of a sensitive value.
const Redacted = "(sensitive)"

// minScrubLen is the shortest sensitive value scrubbed from diagnostic
// text: shorter strings ("1", "on") occur everywhere, and replacing them
// would garble the messages without protecting a real secret.
const minScrubLen = 4

// hasMark reports whether v, or any value inside it, carries m.
func hasMark(v cty.Value, m valueMark) bool {
	if !v.ContainsMarked() {
		return false
	}
	_, pvm := v.UnmarkDeepWithPaths()
	for _, pm := range pvm {
		if _, ok := pm.Marks[m]; ok {
			return true
		}
	}
	return false
}

// secretAttrNames are attribute names whose source text is never shown in a
// diagnostic snippet, wherever they are written (a literal password in a
// credentials block is refused, and the error must not echo it).
var secretAttrNames = map[string]bool{
	"password": true, "passwd": true, "secret": true, "token": true, "key": true,
	"private_key": true, "passphrase": true, "community": true,
}

// redactSecretAttrs records, for the snippet printer, the source ranges of
// every attribute named like a secret, at any depth of the file.
func (l *loader) redactSecretAttrs(f *hcl.File) {
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return
	}
	var walk func(b *hclsyntax.Body)
	walk = func(b *hclsyntax.Body) {
		for name, a := range b.Attributes {
			if secretAttrNames[strings.ToLower(name)] {
				l.src.redact(a.Expr.Range())
			}
		}
		for _, blk := range b.Blocks {
			walk(blk.Body)
		}
	}
	walk(body)
}

// noteSecret remembers a sensitive string so diagnostics and saved plans can
// be checked never to contain it.
func (l *loader) noteSecret(s string) {
	if len(s) < minScrubLen {
		return
	}
	if l.secrets == nil {
		l.secrets = map[string]bool{}
	}
	l.secrets[s] = true
}

// noteSecretsIn remembers every string inside a sensitive value.
func (l *loader) noteSecretsIn(v cty.Value) {
	v, _ = v.UnmarkDeep()
	if !v.IsWhollyKnown() || v.IsNull() {
		return
	}
	switch {
	case v.Type() == cty.String:
		l.noteSecret(v.AsString())
	case v.Type().IsPrimitiveType():
	case v.CanIterateElements():
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if k.Type() == cty.String {
				l.noteSecret(k.AsString())
			}
			l.noteSecretsIn(e)
		}
	}
}

// secretList returns the noted secrets, longest first (so a secret that
// contains another is replaced whole).
func (l *loader) secretList() []string {
	out := make([]string, 0, len(l.secrets))
	for s := range l.secrets {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

// scrubDiagnostics makes diagnostics safe to print: every noted secret (and
// its common encodings) in a summary or detail becomes (sensitive), and the
// "with var.x as ..." context HCL prints under a snippet is dropped when an
// expression refers to a marked value.
func scrubDiagnostics(diags hcl.Diagnostics, secrets []string) hcl.Diagnostics {
	if len(diags) == 0 {
		return diags
	}
	var forms []string
	for _, s := range secrets {
		forms = append(forms, SecretForms(s)...)
	}
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		c := *d
		c.Summary = scrubString(c.Summary, forms)
		c.Detail = scrubString(c.Detail, forms)
		if c.Expression != nil && c.EvalContext != nil && refersToMarked(c.Expression, c.EvalContext) {
			c.Expression, c.EvalContext = nil, nil
		}
		out[i] = &c
	}
	return out
}

func scrubString(s string, forms []string) string {
	for _, f := range forms {
		if f != "" && strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, Redacted)
		}
	}
	return s
}

// refersToMarked reports whether any variable expr refers to is, or holds,
// a marked value.
func refersToMarked(expr hcl.Expression, ctx *hcl.EvalContext) bool {
	for _, t := range expr.Variables() {
		v, diags := t.TraverseAbs(ctx)
		if diags.HasErrors() {
			// Fall back to the root object: if it holds a mark anywhere,
			// assume this path might.
			root, ok := lookupRoot(ctx, t.RootName())
			if ok && root.ContainsMarked() {
				return true
			}
			continue
		}
		if v.ContainsMarked() {
			return true
		}
	}
	return false
}

func lookupRoot(ctx *hcl.EvalContext, name string) (cty.Value, bool) {
	for c := ctx; c != nil; c = c.Parent() {
		if v, ok := c.Variables[name]; ok {
			return v, true
		}
	}
	return cty.NilVal, false
}

// SecretForms returns s and the encodings in which it could land in a plan,
// a report or a log without appearing verbatim: JSON-escaped, base64 (std
// and URL, padded or not), hex, and trimmed of surrounding white space.
// Used to scrub diagnostics and by the saved-plan guard.
func SecretForms(s string) []string {
	if len(s) < minScrubLen {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(f string) {
		if len(f) >= minScrubLen && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	add(s)
	add(strings.TrimSpace(s))
	if j, err := json.Marshal(s); err == nil {
		add(strings.Trim(string(j), `"`))
	}
	if q := strconv.Quote(s); len(q) >= 2 {
		add(q[1 : len(q)-1])
	}
	add(base64.StdEncoding.EncodeToString([]byte(s)))
	add(base64.RawStdEncoding.EncodeToString([]byte(s)))
	add(base64.URLEncoding.EncodeToString([]byte(s)))
	add(base64.RawURLEncoding.EncodeToString([]byte(s)))
	add(hex.EncodeToString([]byte(s)))
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// SensitiveValues returns the sensitive strings the policy evaluated
// (env() results, secret files read with file(), sensitive variables), so
// a CLI can refuse to save a plan containing any of them. It never
// includes the credentials' own secrets; ResolveCredentials reads those.
func (f *Fabric) SensitiveValues() []string {
	return append([]string(nil), f.sensitive...)
}

// sensitiveFunctions wraps every function so that an error raised while one
// of its arguments is sensitive never quotes that argument: the message
// names the function and says the value is hidden. Results keep the marks
// of their arguments, as go-cty does for unmarked-aware functions.
//
// Unmarking walks every element of every argument, twice per call; a
// policy that calls length() on a 1,000-element list for each of 10,000
// hosts spent most of its load time there. marks says whether a marked
// value exists yet in this load: until one does, no argument can carry a
// mark and the functions are called directly (nil: always unmark).
func sensitiveFunctions(marks *markTracker, fns map[string]function.Function) map[string]function.Function {
	out := make(map[string]function.Function, len(fns))
	for name, fn := range fns {
		out[name] = wrapSensitive(name, fn, marks)
	}
	return out
}

// markTracker records that a marked value was made. Every place that
// marks a value in a load (sensitive and environment variables, env(),
// file() of a secret) calls saw before the value can reach a function.
type markTracker struct{ seen atomic.Bool }

// saw records a marked value; a nil tracker records nothing.
func (t *markTracker) saw() {
	if t != nil {
		t.seen.Store(true)
	}
}

// mayExist reports whether a marked value may exist (always, untracked).
func (t *markTracker) mayExist() bool {
	return t == nil || t.seen.Load()
}

func wrapSensitive(name string, fn function.Function, tracker *markTracker) function.Function {
	params := fn.Params()
	spec := &function.Spec{Description: fn.Description()}
	for _, p := range params {
		p.AllowMarked = true
		spec.Params = append(spec.Params, p)
	}
	if vp := fn.VarParam(); vp != nil {
		c := *vp
		c.AllowMarked = true
		spec.VarParam = &c
	}
	unmark := func(args []cty.Value) ([]cty.Value, cty.ValueMarks, bool) {
		plain := make([]cty.Value, len(args))
		marks := cty.ValueMarks{}
		sensitive := false
		for i, a := range args {
			u, pvm := a.UnmarkDeepWithPaths()
			for _, pm := range pvm {
				for m := range pm.Marks {
					marks[m] = struct{}{}
					if m == markSensitive {
						sensitive = true
					}
				}
			}
			plain[i] = u
		}
		return plain, marks, sensitive
	}
	hide := func(err error, sensitive bool) error {
		if err == nil || !sensitive {
			return err
		}
		return fmt.Errorf("%s() failed on a sensitive argument; the value and the error that would quote it are hidden", name)
	}
	spec.Type = func(args []cty.Value) (cty.Type, error) {
		if !tracker.mayExist() {
			return fn.ReturnTypeForValues(args)
		}
		plain, _, sensitive := unmark(args)
		t, err := fn.ReturnTypeForValues(plain)
		return t, hide(err, sensitive)
	}
	spec.Impl = func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if !tracker.mayExist() {
			return fn.Call(args)
		}
		plain, marks, sensitive := unmark(args)
		v, err := fn.Call(plain)
		if err != nil {
			return cty.NilVal, hide(err, sensitive)
		}
		return v.WithMarks(marks), nil
	}
	return function.New(spec)
}
