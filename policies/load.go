package policies

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rocefabric/roce/platforms"
	"github.com/zclconf/go-cty/cty/function"
)

// LoadOptions carries what a CLI passes besides the policy directory.
type LoadOptions struct {
	Vars     []string                    // "-var name=value" values, in order
	VarFiles []string                    // "-var-file" paths (HCL attribute files, like .tfvars)
	Getenv   func(string) (string, bool) // env lookup for ROCE_VAR_*, env(); nil = os.LookupEnv
	Caps     platforms.Table             // nil = platforms.Default()
	// Context, when set, stops the load between steps once it is done (a
	// SIGINT or SIGTERM): Load then returns an "Interrupted" error and no
	// fabric. nil = never interrupted.
	Context context.Context
}

// topSchema is the set of blocks a policy file may contain.
var topSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "locals"},
		{Type: "lossless", LabelNames: []string{"name"}},
		{Type: "switch", LabelNames: []string{"name"}},
		{Type: "host", LabelNames: []string{"name"}},
		{Type: "credentials", LabelNames: []string{"name"}},
		{Type: "probe"},
		{Type: "rollout"},
	},
}

// loader holds the state of one Load: nothing outlives the call.
type loader struct {
	dir    string
	absDir string // dir made absolute, for resolving relative paths in the policy
	opts   LoadOptions
	src    *Sources
	diags  hcl.Diagnostics
	// declared remembers switch and host names (by kind) to refuse duplicates.
	declared map[string]hcl.Range
	// ranges records attribute positions per decoded object (*Lossless,
	// *Switch, *Host, *NIC, *Credentials) for semantic validation.
	ranges map[any]attrRanges
	funcs  map[string]function.Function // built on first use
	// envNames and secretFiles come from the credentials settings written
	// in the policy (password_env, key_env; password_file, key_file): the
	// variables env() may read besides ROCE_*, and the files whose file()
	// contents are sensitive.
	envNames    map[string]bool
	secretFiles map[string]bool
	// secrets are the sensitive strings seen while evaluating, scrubbed from
	// every diagnostic and handed to the Fabric for the saved-plan guard.
	secrets map[string]bool
	// stopped is set once the context was found done (and reported).
	stopped bool
	// marks records whether any marked (sensitive or environment) value
	// was made during this load; until one is, functions skip unmarking.
	marks markTracker
	// forEach holds the ranges of blocks expanded with for_each, so a
	// problem repeated once per instance can be reported as that.
	forEach []hcl.Range
}

// Load parses every *.hcl in dir, evaluates variables, locals, for_each and
// functions, decodes and validates. On any error-severity diagnostic the
// returned *Fabric is nil, so a broken policy is never partially used;
// warnings come back with a valid Fabric. Sources is always non-nil so the
// caller can print the diagnostics with their source lines.
func Load(dir string, opts LoadOptions) (*Fabric, *Sources, hcl.Diagnostics) {
	if opts.Getenv == nil {
		opts.Getenv = os.LookupEnv
	}
	if opts.Caps == nil {
		opts.Caps = platforms.Default()
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		absDir = dir
	}
	l := &loader{dir: dir, absDir: absDir, opts: opts, src: newSources(), ranges: map[any]attrRanges{},
		envNames: map[string]bool{}, secretFiles: map[string]bool{}}
	f := l.load()
	if !l.diags.HasErrors() {
		l.interrupted() // a signal during the last step still refuses the result
	}
	diags := scrubDiagnostics(collapseRepeats(l.diags, l.forEach), l.secretList())
	if diags.HasErrors() {
		return nil, l.src, diags
	}
	f.sensitive = l.secretList()
	return f, l.src, diags
}

// interrupted reports (once, as an error diagnostic) whether the load's
// context is done.
func (l *loader) interrupted() bool {
	if l.stopped {
		return true
	}
	if l.opts.Context == nil || l.opts.Context.Err() == nil {
		return false
	}
	l.stopped = true
	l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Interrupted",
		Detail: fmt.Sprintf("Loading the policy was stopped (%v) before it finished; nothing was planned or changed.", context.Cause(l.opts.Context))})
	return true
}

func (l *loader) load() *Fabric {
	bodies := l.parseDir()
	if l.diags.HasErrors() {
		return nil
	}
	var blocks hcl.Blocks
	for _, b := range bodies {
		content, diags := b.Content(topSchema)
		l.diags = append(l.diags, diags...)
		blocks = append(blocks, content.Blocks...)
	}
	if l.checkBlockCount(blocks) || l.interrupted() {
		return nil
	}
	l.scanCredentialSettings(bodies)
	vars := l.variables(blocks.OfType("variable"))
	if l.interrupted() {
		return nil
	}
	need, all := localRefs(blocks)
	locals := l.locals(blocks.OfType("locals"), vars, need, all)
	if l.diags.HasErrors() || l.interrupted() {
		return nil
	}
	ctx := l.evalContext(vars, locals)

	f := &Fabric{Dir: l.absDir, Credentials: map[string]*Credentials{}}
	for _, b := range blocks.OfType("credentials") {
		l.decodeCredentials(b, ctx, f)
	}
	for _, b := range blocks.OfType("lossless") {
		l.decodeLossless(b, ctx, f)
	}
	for i, b := range blocks.OfType("switch") {
		if i%256 == 0 && l.interrupted() {
			return nil
		}
		l.decodeSwitchBlock(b, ctx, f)
	}
	for i, b := range blocks.OfType("host") {
		if i%256 == 0 && l.interrupted() {
			return nil
		}
		l.decodeHostBlock(b, ctx, f)
	}
	f.Probe = l.decodeProbe(single(l, blocks.OfType("probe")), ctx)
	f.Rollout = l.decodeRollout(single(l, blocks.OfType("rollout")), ctx)
	if l.diags.HasErrors() || l.interrupted() {
		// Semantic checks on half-decoded objects would only add noise.
		return nil
	}
	l.validate(f)
	return f
}

// parseDir reads and parses every *.hcl file in the directory, sorted by
// name so diagnostics and digests are stable.
func (l *loader) parseDir() []hcl.Body {
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read policy directory",
			Detail: fmt.Sprintf("Reading %s: %v. Pass the directory that holds the *.hcl policy files.", l.dir, err)})
		return nil
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".hcl") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No policy files",
			Detail: fmt.Sprintf("%s holds no *.hcl files. Pass the directory that holds the policy, or see examples/.", l.dir)})
		return nil
	}
	if len(names) > maxPolicyFiles {
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Too many policy files",
			Detail: fmt.Sprintf("%s holds %d *.hcl files, more than the limit of %d.", l.dir, len(names), maxPolicyFiles)})
		return nil
	}
	var bodies []hcl.Body
	total := 0
	for _, n := range names {
		if l.interrupted() {
			return nil
		}
		path := filepath.Join(l.dir, n)
		src, err := readLimited(path, maxPolicyFileBytes)
		if err != nil {
			l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read policy file",
				Detail: fmt.Sprintf("Reading %s: %v.", path, err)})
			continue
		}
		if total += len(src); total > maxPolicyBytes {
			l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Policy too large",
				Detail: fmt.Sprintf("The *.hcl files of %s add up to more than %d bytes.", l.dir, maxPolicyBytes)})
			return nil
		}
		if d := checkNesting(src, path); d != nil {
			l.diags = append(l.diags, d)
			continue
		}
		f, diags, ok := l.parse(src, path)
		if !ok {
			return nil
		}
		l.diags = append(l.diags, diags...)
		l.src.add(path, n, f)
		if f != nil {
			l.redactSecretAttrs(f)
		}
		if f != nil && f.Body != nil {
			bodies = append(bodies, f.Body)
		}
	}
	return bodies
}

// parse parses one file. With a context it parses in a goroutine and
// returns (ok = false, an Interrupted error recorded) as soon as the
// context is done, so a signal during a long parse is honoured at once;
// an abandoned parse in pieces stops after the piece it is in (see
// parseSplitFile); one of a whole file (under a megabyte, or a file the
// scanner does not cut) only reads src and ends on its own.
func (l *loader) parse(src []byte, path string) (*hcl.File, hcl.Diagnostics, bool) {
	ctx := l.opts.Context
	if ctx == nil {
		f, diags := parseHCL(src, path)
		return f, diags, true
	}
	type parsed struct {
		f     *hcl.File
		diags hcl.Diagnostics
	}
	done := make(chan parsed, 1)
	go func() {
		if f, diags, stopped := parseSplitFile(ctx, src, path, defaultSplit); !stopped {
			done <- parsed{f, diags}
		}
	}()
	select {
	case p := <-done:
		return p.f, p.diags, true
	case <-ctx.Done():
		l.interrupted()
		return nil, nil, false
	}
}

// parseHCL parses one file of native HCL syntax: a file of a megabyte or
// more in pieces in parallel (parse_split.go), with exactly the result of
// one hclsyntax.ParseConfig call. hclsyntax directly, not hclparse.Parser:
// every file is read and parsed once per Load, so the parser's cache of
// files by name would only hold memory.
func parseHCL(src []byte, path string) (*hcl.File, hcl.Diagnostics) {
	f, diags, _ := parseSplitFile(context.Background(), src, path, defaultSplit)
	return f, diags
}

// single returns the only block of a kind, or nil; a second one is an error.
func single(l *loader, blocks hcl.Blocks) *hcl.Block {
	if len(blocks) == 0 {
		return nil
	}
	for _, b := range blocks[1:] {
		l.diags = append(l.diags, errorDiag(b.DefRange, "Duplicate "+b.Type+" block",
			fmt.Sprintf("A policy has at most one %s block; the first is at %s. Merge them.", b.Type, blocks[0].DefRange)))
	}
	return blocks[0]
}

func (l *loader) record(obj any, r *reader) {
	l.ranges[obj] = r.ranges
}

// at returns where attribute name of obj was written, or fallback.
func (l *loader) at(obj any, name string, fallback hcl.Range) hcl.Range {
	if r, ok := l.ranges[obj][name]; ok {
		return r
	}
	return fallback
}
