package gnmisim

import (
	"github.com/rocefabric/roce/internal/testenv"

	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// yangDir holds the vendors' YANG pinned per profile (models/, with
// sources and licences in its README).
func yangDir(t *testing.T) string {
	d := "models"
	testenv.File(t, d, "the simulator's models directory")
	return d
}

// yangNames collects every node name (container, list, leaf, leaf-list)
// declared in the .yang files under dir.
func yangNames(t *testing.T, dir string) map[string]bool {
	re := regexp.MustCompile(`(?m)^\s*(container|list|leaf|leaf-list)\s+([A-Za-z0-9_.-]+)\s*\{`)
	names := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yang") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			names[string(m[2])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// Every element name the simulator models is declared in the vendor's YANG.
// A quick check without yanglint; the full one (each leaf exists and is
// writable with the image's features and deviations) is
// TestWrittenLeavesAreWritableInTheModel in the gnmi package.
func TestSchemaLeavesExistInYANG(t *testing.T) {
	root := yangDir(t)
	cases := []struct {
		profile string
		dir     string
	}{
		{"openconfig", "openconfig"},
		{"arista", "arista"},
		{"srlinux", "srlinux"},
	}
	for _, tc := range cases {
		t.Run(tc.profile, func(t *testing.T) {
			names := yangNames(t, filepath.Join(root, tc.dir))
			if len(names) < 50 {
				t.Fatalf("only %d YANG names found under %s", len(names), tc.dir)
			}
			p, err := newProfile(tc.profile, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range p.cfg.nodes {
				for _, e := range n.pat {
					if e.name != "*" && !names[e.name] {
						t.Errorf("%s: element %q is not declared in %s YANG", n.pattern, e.name, tc.dir)
					}
				}
			}
		})
	}
}
