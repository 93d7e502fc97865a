package gnmisim

import (
	"github.com/rocefabric/roce/internal/testenv"

	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// yangDir holds the real YANG the schema tables are checked against. It is
// reference material outside the module: the product never reads it.
func yangDir(t *testing.T) string {
	d := os.Getenv("ROCE_YANG_DIR")
	if d == "" {
		// CI and developers have shared/ beside the checkout (repo/../shared).
		d = filepath.Join("..", "..", "..", "..", "shared", "reference", "yang")
	}
	testenv.File(t, d, "shared/ beside the checkout, or set ROCE_YANG_DIR")
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

// Every element name the simulator models is declared in the vendor's YANG
// (SONiC CONFIG_DB tables are not YANG-modelled here; see docs).
func TestSchemaLeavesExistInYANG(t *testing.T) {
	root := yangDir(t)
	cases := []struct {
		profile string
		dir     string
	}{
		{"openconfig", "public"},
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
