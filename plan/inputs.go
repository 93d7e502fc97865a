package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CollectInputs records a plan's inputs: policyFiles are the paths of the
// policy's own files that were read, varFiles and vars the -var-file and
// -var flags exactly as given. Only the names of -var flags are kept; the
// values enter VarsDigest and nothing else.
func CollectInputs(policyFiles, varFiles, vars []string) (*Inputs, error) {
	in := &Inputs{PolicyFiles: map[string]string{}}
	for _, p := range policyFiles {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("recording the plan's inputs: %w", err)
		}
		sum := sha256.Sum256(b)
		in.PolicyFiles[filepath.Base(p)] = hex.EncodeToString(sum[:])
	}
	digest, err := VarsDigest(varFiles, vars)
	if err != nil {
		return nil, err
	}
	in.VarsDigest = digest
	for _, f := range varFiles {
		in.VarFiles = append(in.VarFiles, VarFile{Path: f, Resolved: absPath(f)})
	}
	for _, kv := range vars {
		name, _, _ := strings.Cut(kv, "=")
		in.Vars = append(in.Vars, strings.TrimSpace(name))
	}
	return in, nil
}

// VarsDigest is "sha256:" and the hex SHA-256 over the contents of
// varFiles and the -var flags vars ("name=value"), in order, so two runs
// with the same values have the same digest wherever the files live.
func VarsDigest(varFiles, vars []string) (string, error) {
	h := sha256.New()
	for _, f := range varFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("recording the plan's inputs: reading -var-file %s: %w", f, err)
		}
		fmt.Fprintf(h, "var-file\x00%d\x00", len(b))
		h.Write(b)
	}
	for _, kv := range vars {
		fmt.Fprintf(h, "var\x00%d\x00%s", len(kv), kv)
	}
	return checksumPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// absPath is p made absolute (p itself if that fails).
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// relInTree is target relative to dir (both made absolute), slash-separated,
// when the two share a directory other than the filesystem root — "under
// one tree", such as one checkout — and "" otherwise: a path that climbs
// to the root says nothing about where a moved copy would be.
func relInTree(dir, target string) string {
	dir, target = filepath.Clean(absPath(dir)), filepath.Clean(absPath(target))
	rel, err := filepath.Rel(dir, target)
	if err != nil {
		return ""
	}
	up := 0
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if part != ".." {
			break
		}
		up++
	}
	depth := 0
	for d := dir; filepath.Dir(d) != d; d = filepath.Dir(d) {
		depth++
	}
	if up >= depth {
		return ""
	}
	return filepath.ToSlash(rel)
}

// withSavedPaths is p as a plan file at planFile records it: with the
// policy directory and each var file also relative to the plan file's
// directory when they are under one tree (relInTree), so roce-apply
// finds them from another checkout. p is not changed. Only plans with
// recorded inputs (made by roce-plan -out) get them.
func withSavedPaths(p *Plan, planFile string) *Plan {
	if p == nil || p.Inputs == nil {
		return p
	}
	base := filepath.Dir(absPath(planFile))
	out, in := *p, *p.Inputs
	out.PolicyDirRelative = ""
	if p.PolicyDir != "" {
		out.PolicyDirRelative = relInTree(base, p.PolicyDir)
	}
	in.VarFiles = make([]VarFile, len(p.Inputs.VarFiles))
	for i, vf := range p.Inputs.VarFiles {
		vf.Relative = relInTree(base, vf.Resolved)
		in.VarFiles[i] = vf
	}
	out.Inputs = &in
	return &out
}

// Origin is where a saved plan is applied from: the plan file as named
// now and the policy directory read now. A saved plan's relative paths
// are resolved against them (see SavedPolicyDir and FlagDiffs).
type Origin struct {
	PlanFile  string
	PolicyDir string
	// policyDirThen is the plan's recorded (absolute) policy directory.
	policyDirThen string
}

// Origin is the Origin of p read from planFile with its policy read from
// policyDir now.
func (p *Plan) Origin(planFile, policyDir string) Origin {
	return Origin{PlanFile: planFile, PolicyDir: policyDir, policyDirThen: p.PolicyDir}
}

// SavedPolicyDir is the policy directory roce-apply reads for the saved
// plan p read from planFile: dirFlag (-dir) when given; else the recorded
// directory relative to the plan file, when it exists; else the recorded
// absolute one. When neither exists the error names both places and the
// -dir flag to use.
func (p *Plan) SavedPolicyDir(planFile, dirFlag string) (string, error) {
	if dirFlag != "" {
		return dirFlag, nil
	}
	var tried []string
	if p.PolicyDirRelative != "" {
		d := filepath.Join(filepath.Dir(planFile), filepath.FromSlash(p.PolicyDirRelative))
		if isDir(d) {
			return d, nil
		}
		tried = append(tried, absPath(d)+" ("+p.PolicyDirRelative+" relative to the plan file)")
	}
	if p.PolicyDir != "" {
		if isDir(p.PolicyDir) {
			return p.PolicyDir, nil
		}
		tried = append(tried, p.PolicyDir+" (where it was when the plan was made)")
	}
	if len(tried) == 0 {
		return "", fmt.Errorf("plan file %s does not name its policy directory; give roce-apply -dir DIR with the policy directory it was made from: roce-apply -dir DIR %s", planFile, planFile)
	}
	return "", fmt.Errorf("the policy directory of plan %s is in neither place the plan records:\n  - %s\n"+
		"Give roce-apply the policy directory the plan was made from with -dir DIR, e.g. roce-apply -dir fabric %s",
		planFile, strings.Join(tried, "\n  - "), planFile)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// candidates are the places a recorded var file may be now, in order:
// relative to the plan file, at the same place relative to the policy
// directory, and where it was at plan time.
func (o Origin) candidates(vf VarFile) []string {
	var out []string
	if vf.Relative != "" && o.PlanFile != "" {
		out = append(out, filepath.Join(filepath.Dir(absPath(o.PlanFile)), filepath.FromSlash(vf.Relative)))
	}
	if o.policyDirThen != "" && o.PolicyDir != "" {
		if rel := relInTree(o.policyDirThen, vf.Resolved); rel != "" {
			out = append(out, filepath.Join(absPath(o.PolicyDir), filepath.FromSlash(rel)))
		}
	}
	return append(out, vf.Resolved)
}

// matches says whether the var file given now (made absolute) is the
// recorded vf by one of its candidates. Only the place is compared: the
// contents are compared through VarsDigest.
func (o Origin) matches(vf VarFile, given string) bool {
	for _, c := range o.candidates(vf) {
		if filepath.Clean(c) == given {
			return true
		}
	}
	return false
}

// found is the first candidate of vf that exists, or "".
func (o Origin) found(vf VarFile) string {
	for _, c := range o.candidates(vf) {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c
		}
	}
	return ""
}

// FlagDiffs compares the -var-file and -var flags given now with those the
// plan was made with and says, one line each, what differs: a var file
// not given now (and whether it is missing from disk), one given now that
// was not used, a -var name set at plan time and not now, or the other
// way round. A var file given now is the one the plan used when it is at
// the place the plan recorded, relative to the plan file or relative to
// the policy directory (o), so the same relative path works from another
// checkout. When the flags match it compares VarsDigest and says the
// values differ. Nothing is printed of any value.
func (in *Inputs) FlagDiffs(o Origin, varFiles, vars []string) []string {
	var out []string
	usedNow := make([]bool, len(varFiles))
	for _, vf := range in.VarFiles {
		given := false
		for i, f := range varFiles {
			if !usedNow[i] && o.matches(vf, absPath(f)) {
				usedNow[i], given = true, true
				break
			}
		}
		if given {
			continue
		}
		line := "the plan was made with -var-file " + vf.Path
		if vf.Resolved != vf.Path {
			line += " (" + vf.Resolved + ")"
		}
		if at := o.found(vf); at == "" {
			line += ", missing now (looked for " + strings.Join(o.candidates(vf), ", ") + ")"
		} else {
			line += ", not given now (it is at " + displayPath(at) + ")"
		}
		out = append(out, line)
	}
	for i, f := range varFiles {
		if !usedNow[i] {
			out = append(out, "-var-file "+f+" is given now but was not used at plan time")
		}
	}
	names := func(kvs []string) map[string]bool {
		m := map[string]bool{}
		for _, kv := range kvs {
			n, _, _ := strings.Cut(kv, "=")
			m[strings.TrimSpace(n)] = true
		}
		return m
	}
	now, then := names(vars), map[string]bool{}
	for _, n := range in.Vars {
		then[n] = true
		if !now[n] {
			out = append(out, "variable "+n+" was set with -var at plan time and is not set now")
		}
	}
	for _, n := range sortedKeys(now) {
		if !then[n] {
			out = append(out, "variable "+n+" is set with -var now but was not at plan time")
		}
	}
	if len(out) > 0 {
		return out
	}
	if d, err := VarsDigest(varFiles, vars); err != nil {
		out = append(out, err.Error())
	} else if d != in.VarsDigest {
		out = append(out, "the same -var-file and -var flags are given, but the var files' contents, their order or the -var values differ from plan time")
	}
	return out
}

// PolicyDiffs compares the policy files read now (see CollectInputs) with
// those the plan was made from and names each changed, added or removed
// file.
func (in *Inputs) PolicyDiffs(now *Inputs) []string {
	var out []string
	for _, n := range sortedKeys(in.PolicyFiles) {
		d, ok := now.PolicyFiles[n]
		switch {
		case !ok:
			out = append(out, "policy file "+n+" was removed since plan time")
		case d != in.PolicyFiles[n]:
			out = append(out, "policy file "+n+" changed since plan time")
		}
	}
	for _, n := range sortedKeys(now.PolicyFiles) {
		if _, ok := in.PolicyFiles[n]; !ok {
			out = append(out, "policy file "+n+" was added since plan time")
		}
	}
	return out
}

// ApplyFlags is the -var-file and -var part of a roce-apply command line
// that repeats the plan's inputs (var values shown as NAME=...): each var
// file where it is found now from o (relative to the current directory
// when under it), else as recorded.
func (in *Inputs) ApplyFlags(o Origin) string {
	var b strings.Builder
	for _, vf := range in.VarFiles {
		at := o.found(vf)
		if at == "" {
			at = vf.Resolved
		}
		b.WriteString(" -var-file " + displayPath(at))
	}
	for _, n := range in.Vars {
		b.WriteString(" -var " + n + "=...")
	}
	return b.String()
}

// displayPath is p relative to the current directory when it is under
// it, else p.
func displayPath(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel
		}
	}
	return p
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
