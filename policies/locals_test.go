package policies

import (
	"strings"
	"testing"
)

// TestLocalsScopes: each local sees the locals it names (also when many
// name the same one), and the rest of the policy sees the locals it names,
// or all of them when it uses the local object as a whole.
func TestLocalsScopes(t *testing.T) {
	tests := []struct {
		name, locals, cos string
		want              int
	}{
		{"chain out of order", "  c = local.b + 1\n  a = 1\n  b = local.a + 1\n", "local.c + 1", 4},
		{"fan-out from one local", "  base = 2\n  x = local.base + 1\n  y = local.base + 2\n  z = local.base * 2\n", "local.z", 4},
		{"two locals named together", "  p = 1\n  q = 3\n  s = local.p + local.q\n", "local.s", 4},
		{"whole object outside locals", "  p = 1\n  q = 3\n", "length([for k, v in local : k]) + 2", 4},
		{"index into the object", "  p = 1\n  q = 3\n", "local[\"q\"] + 1", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "locals {\n" + tc.locals + "}\nlossless \"roce\" {\n  cos = " + tc.cos + "\n}\n" + tailAll
			f, _, diags, _ := loadString(t, src)
			if f == nil {
				t.Fatalf("did not load:\n%s", describeDiags(diags))
			}
			if got := f.Lossless[0].Match.CoS; len(got) != 1 || got[0] != tc.want {
				t.Errorf("cos = %v, want [%d]", got, tc.want)
			}
		})
	}
}

// TestLocalsBadReferences: a local that uses the local object as a whole
// is refused where it does (it would depend on every other local, so n of
// them would take n² steps), and the locals that use it still evaluate
// without further errors; an undeclared local and a cycle name theirs.
func TestLocalsBadReferences(t *testing.T) {
	tests := []struct {
		name, locals, want, pos string
		count                   int // diagnostics containing want
	}{
		{"whole object", "  a = 1\n  b = length(local)\n", "local.b refers to the local object as a whole", "main.hcl:3:14", 1},
		{"whole object in a for expression", "  a = 1\n  b = [for k, v in local : k]\n  c = local.b\n", "local.b refers to the local object as a whole", "main.hcl:3:20", 1},
		{"undeclared", "  a = 1\n  b = local.a + local.nope\n", `This object does not have an attribute named "nope"`, "main.hcl:3:22", 1},
		{"block inside locals", "  a = 1\n  x {\n  }\n", `Unexpected "x" block`, "main.hcl:3:3", 1},
		{"defined in two blocks", "  a = 1\n}\nlocals {\n  b = 2\n  a = 3\n", "main.hcl:2,3-4; remove one", "main.hcl:6:3", 1},
		{"cycle of three", "  a = local.c\n  b = local.a\n  c = local.b\n  d = 4\n", "depends on itself through local.a, local.b, local.c", "main.hcl:2:3", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "locals {\n" + tc.locals + "}\n" + losslessCoS4 + tailAll
			f, _, diags, _ := loadString(t, src)
			if f != nil {
				t.Fatal("loaded")
			}
			d := findDiag(diags, tc.want)
			if d == nil {
				t.Fatalf("no diagnostic contains %q:\n%s", tc.want, describeDiags(diags))
			}
			if got := diagPos(d); got != tc.pos {
				t.Errorf("at %s, want %s", got, tc.pos)
			}
			if n := strings.Count(describeDiags(diags), tc.want); n != tc.count || len(diags) != tc.count {
				t.Errorf("%d diagnostics, %d of them with %q, want %d:\n%s", len(diags), n, tc.want, tc.count, describeDiags(diags))
			}
		})
	}
}
