package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// Every relative link in the README, docs/ and the examples' READMEs leads
// somewhere: the file exists and, with #anchor, so does the heading (as
// GitHub derives anchors from headings) or an explicit <a id>.
func TestDocLinksResolve(t *testing.T) {
	repo := repoRoot()
	var files []string
	for _, g := range []string{"README.md", "docs/*.md", "examples/*/README.md", "examples/README.md", "nexus/README.md"} {
		m, _ := filepath.Glob(filepath.Join(repo, g))
		files = append(files, m...)
	}
	linkRe := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := stripCode(string(b))
		for _, m := range linkRe.FindAllStringSubmatch(text, -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			target, anchor, _ := strings.Cut(link, "#")
			path := f
			if target != "" {
				path = filepath.Join(filepath.Dir(f), target)
			}
			checked++
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %q: %v", rel(repo, f), link, err)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !hasAnchor(t, path, anchor) {
				t.Errorf("%s: link %q: %s has no heading or anchor %q", rel(repo, f), link, rel(repo, path), anchor)
			}
		}
	}
	if checked < 30 {
		t.Fatalf("only %d links checked; the scan is broken", checked)
	}
}

// stripCode drops fenced blocks and inline code, where ](x) is not a link.
func stripCode(s string) string {
	s = regexp.MustCompile("(?s)```.*?```").ReplaceAllString(s, "")
	return regexp.MustCompile("`[^`\n]*`").ReplaceAllString(s, "")
}

func hasAnchor(t *testing.T, path, anchor string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if strings.Contains(text, `id="`+anchor+`"`) || strings.Contains(text, `name="`+anchor+`"`) {
		return true
	}
	seen := map[string]int{}
	// Headings keep their inline code's text; only fenced blocks go.
	for _, line := range strings.Split(regexp.MustCompile("(?s)```.*?```").ReplaceAllString(text, ""), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		// GitHub: lower case, drop punctuation except - and _, spaces to -.
		var a strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				a.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				a.WriteRune(r)
			}
		}
		id := a.String()
		if n := seen[id]; n > 0 {
			seen[id]++
			id += "-" + strconv.Itoa(n)
		} else {
			seen[id] = 1
		}
		if id == anchor {
			return true
		}
	}
	return false
}
