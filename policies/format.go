package policies

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// Format rewrites every *.hcl in dir in canonical layout (hclwrite: aligned
// equals signs, two-space indent, normalised spacing). With check=true it
// writes nothing and returns the files that would change, for CI. A file
// that does not parse is an error naming it, and no file is rewritten, so a
// half-formatted directory never results.
func Format(dir string, check bool) (changed []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("formatting policy directory %s: %w", dir, err)
	}
	type rewrite struct {
		path string
		out  []byte
		mode os.FileMode
	}
	var todo []rewrite
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".hcl") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		path := filepath.Join(dir, n)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("formatting %s: %w", path, err)
		}
		// hclwrite.Format works on tokens and would happily reformat a file
		// with syntax errors; refuse those, as terraform fmt does.
		if _, diags := hclparse.NewParser().ParseHCL(src, path); diags.HasErrors() {
			return nil, fmt.Errorf("formatting %s: the file does not parse, fix it first (roce-plan validate shows where): %s", path, diags.Error())
		}
		out := hclwrite.Format(src)
		if !bytes.Equal(src, out) {
			fi, err := os.Stat(path)
			if err != nil {
				return nil, fmt.Errorf("formatting %s: %w", path, err)
			}
			todo = append(todo, rewrite{path: path, out: out, mode: fi.Mode().Perm()})
			changed = append(changed, path)
		}
	}
	if check {
		return changed, nil
	}
	for _, r := range todo {
		if err := writeFileAtomic(r.path, r.out, r.mode); err != nil {
			return changed, fmt.Errorf("formatting %s: %w", r.path, err)
		}
	}
	return changed, nil
}

// writeFileAtomic replaces path through a temporary file in the same
// directory, so an interrupted fmt never leaves a truncated policy.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
