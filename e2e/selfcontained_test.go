package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The product stands alone: no source file, message, document or example
// refers a user to a file outside the repository (a sibling checkout, a
// machine path). What a user needs is in docs/, with public sources.
func TestNothingNamesPathsOutsideTheRepository(t *testing.T) {
	repo := repoRoot()
	bad := regexp.MustCompile(`\.\./shared\b|\bshared/reference\b|\breference §|/work/[a-z]`)
	self := filepath.Join("e2e", "selfcontained_test.go")
	n := 0
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		if d.IsDir() {
			// VCS data, build output, scratch space and runtime state are
			// not the product.
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || rel == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".hcl", ".sh", ".yml", ".yaml", ".json", ".txt", ".cfg", ".xsd":
		default:
			if d.Name() != "Makefile" {
				return nil
			}
		}
		if rel == self {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for i, line := range strings.Split(string(b), "\n") {
			if m := bad.FindString(line); m != "" {
				t.Errorf("%s:%d names %q, outside the repository: %s", rel, i+1, m, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 200 {
		t.Fatalf("only %d files scanned; the walk is broken", n)
	}
}
