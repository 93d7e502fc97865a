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

// FlagDiffs compares the -var-file and -var flags given now with those the
// plan was made with and says, one line each, what differs: a var file
// not given now (and whether it is missing from disk), one given now that
// was not used, a -var name set at plan time and not now, or the other
// way round. When the flags match it compares VarsDigest and says the
// values differ. Nothing is printed of any value.
func (in *Inputs) FlagDiffs(varFiles, vars []string) []string {
	var out []string
	given := map[string]bool{}
	for _, f := range varFiles {
		given[absPath(f)] = true
	}
	used := map[string]bool{}
	for _, vf := range in.VarFiles {
		used[vf.Resolved] = true
		if given[vf.Resolved] {
			continue
		}
		line := "the plan was made with -var-file " + vf.Path
		if vf.Resolved != vf.Path {
			line += " (" + vf.Resolved + ")"
		}
		if _, err := os.Stat(vf.Resolved); err != nil {
			line += ", missing now"
		} else {
			line += ", not given now"
		}
		out = append(out, line)
	}
	for _, f := range varFiles {
		if !used[absPath(f)] {
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
// that repeats the plan's inputs (var values shown as NAME=...).
func (in *Inputs) ApplyFlags() string {
	var b strings.Builder
	for _, vf := range in.VarFiles {
		b.WriteString(" -var-file " + vf.Resolved)
	}
	for _, n := range in.Vars {
		b.WriteString(" -var " + n + "=...")
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
