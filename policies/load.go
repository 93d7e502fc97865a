package policies

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/rocefabric/roce/platforms"
	"github.com/zclconf/go-cty/cty/function"
)

// LoadOptions carries what a CLI passes besides the policy directory.
type LoadOptions struct {
	Vars     []string                    // "-var name=value" values, in order
	VarFiles []string                    // "-var-file" paths (HCL attribute files, like .tfvars)
	Getenv   func(string) (string, bool) // env lookup for ROCE_VAR_*, env(); nil = os.LookupEnv
	Caps     platforms.Table             // nil = platforms.Default()
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
	parser *hclparse.Parser
	diags  hcl.Diagnostics
	// declared remembers switch and host names (by kind) to refuse duplicates.
	declared map[string]hcl.Range
	// ranges records attribute positions per decoded object (*Lossless,
	// *Switch, *Host, *NIC, *Credentials) for semantic validation.
	ranges map[any]attrRanges
	funcs  map[string]function.Function // built on first use
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
	l := &loader{dir: dir, absDir: absDir, opts: opts, src: newSources(), parser: hclparse.NewParser(), ranges: map[any]attrRanges{}}
	f := l.load()
	diags := collapseRepeats(l.diags)
	if diags.HasErrors() {
		return nil, l.src, diags
	}
	return f, l.src, diags
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
	vars := l.variables(blocks.OfType("variable"))
	locals := l.locals(blocks.OfType("locals"), vars)
	if l.diags.HasErrors() {
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
	for _, b := range blocks.OfType("switch") {
		l.decodeSwitchBlock(b, ctx, f)
	}
	for _, b := range blocks.OfType("host") {
		l.decodeHostBlock(b, ctx, f)
	}
	f.Probe = l.decodeProbe(single(l, blocks.OfType("probe")), ctx)
	f.Rollout = l.decodeRollout(single(l, blocks.OfType("rollout")), ctx)
	if l.diags.HasErrors() {
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
	var bodies []hcl.Body
	for _, n := range names {
		path := filepath.Join(l.dir, n)
		src, err := os.ReadFile(path)
		if err != nil {
			l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read policy file",
				Detail: fmt.Sprintf("Reading %s: %v.", path, err)})
			continue
		}
		f, diags := l.parser.ParseHCL(src, path)
		l.diags = append(l.diags, diags...)
		l.src.add(path, n, f)
		if f != nil && f.Body != nil {
			bodies = append(bodies, f.Body)
		}
	}
	return bodies
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
