package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocefabric/roce/internal/testenv"
)

// What docs/tutorial.md writes at the top of the checkout (redirects, -out,
// -record-baseline, ssh-keygen -f and its .pub, the copied site) is ignored
// by git, so a newcomer who followed it has a clean `git status`.
func TestTutorialOutputsAreIgnored(t *testing.T) {
	repo := repoRoot()
	testenv.Tool(t, "git", "Debian's git")
	b, err := os.ReadFile(filepath.Join(repo, "docs", "tutorial.md"))
	if err != nil {
		t.Fatal(err)
	}
	written := regexp.MustCompile(`(?:>>? ?|-out |-record-baseline |ssh-keygen [^\n]*-f |cp -r \S+ )([A-Za-z0-9_.-][A-Za-z0-9_./-]*)`)
	var paths []string
	for _, m := range written.FindAllStringSubmatch(string(b), -1) {
		p := m[1]
		if strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "examples/") {
			continue
		}
		if strings.HasPrefix(m[0], "cp -r ") {
			p += "/" // a directory
		}
		paths = append(paths, p)
		if strings.Contains(m[0], "ssh-keygen") {
			paths = append(paths, p+".pub")
		}
	}
	if len(paths) < 5 {
		t.Fatalf("found only %v written by the tutorial: the pattern no longer matches it", paths)
	}
	t.Logf("written by the tutorial: %v", paths)
	for _, p := range paths {
		cmd := exec.Command("git", "check-ignore", "-q", "--no-index", p)
		cmd.Dir = repo
		if err := cmd.Run(); err != nil {
			t.Errorf("docs/tutorial.md writes %s, which .gitignore does not ignore (git check-ignore: %v)", p, err)
		}
	}
}
