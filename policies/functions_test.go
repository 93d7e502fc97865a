package policies

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

func TestFunctions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "motd.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "outside.txt"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(filepath.Dir(dir), "outside.txt"), filepath.Join(dir, "link-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("motd.txt", filepath.Join(dir, "link-in")); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) (string, bool) {
		v, ok := map[string]string{"ROCE_SITE": "lab", "SITE": "lab"}[k]
		return v, ok
	}
	ctx := &hcl.EvalContext{Functions: functions(dir, getenv)}
	tests := []struct {
		expr    string
		want    string // the value rendered by renderValue
		wantErr string
	}{
		{expr: `cidrhost("10.0.0.0/24", 5)`, want: "10.0.0.5"},
		{expr: `cidrhost("10.0.0.0/24", -1)`, want: "10.0.0.255"},
		{expr: `cidrhost("10.0.1.7/24", 0)`, want: "10.0.1.0"},
		{expr: `cidrhost("fd00::/64", 17)`, want: "fd00::11"},
		{expr: `cidrhost("10.0.0.0/30", 4)`, wantErr: "does not fit in 2 host bits"},
		{expr: `cidrhost("10.0.0.0", 1)`, wantErr: "invalid CIDR prefix"},
		{expr: `cidrsubnet("10.0.0.0/16", 8, 3)`, want: "10.0.3.0/24"},
		{expr: `cidrsubnet("10.64.0.0/16", 15, 5)`, want: "10.64.0.10/31"},
		{expr: `cidrsubnet("10.0.0.0/16", 8, 256)`, wantErr: "netnum must be"},
		{expr: `cidrsubnet("10.0.0.0/30", 8, 0)`, wantErr: "newbits must be"},
		{expr: `cidrnetmask("10.0.0.0/20")`, want: "255.255.240.0"},
		{expr: `cidrnetmask("0.0.0.0/0")`, want: "0.0.0.0"},
		{expr: `cidrnetmask("fd00::/64")`, wantErr: "only applies to IPv4"},
		{expr: `join(",", [for n in range(3) : tostring(n)])`, want: "0,1,2"},
		{expr: `join(",", [for n in range(5, 1) : tostring(n)])`, want: "5,4,3,2"},
		{expr: `join(",", [for n in range(0, 10, 4) : tostring(n)])`, want: "0,4,8"},
		{expr: `length(range(2000))`, want: "2000"},
		{expr: `range(1e9)`, wantErr: "more than the limit"},
		{expr: `range(0, 5, 0)`, wantErr: "step must not be zero"},
		{expr: `format("leaf%02d", 7)`, want: "leaf07"},
		{expr: `length(toset(["a", "b", "a"]))`, want: "2"},
		{expr: `merge({a = 1}, {b = 2}).b`, want: "2"},
		{expr: `lookup({a = "x"}, "b", "dflt")`, want: "dflt"},
		{expr: `upper(lower("MiX"))`, want: "MIX"},
		{expr: `coalesce(null, "b")`, want: "b"},
		{expr: `max(3, 9, 2) + min(4, 1)`, want: "10"},
		{expr: `join("-", split(",", "a,b"))`, want: "a-b"},
		{expr: `length(concat([1], [2, 3]))`, want: "3"},
		{expr: `join(",", keys({x = 1, y = 2}))`, want: "x,y"},
		{expr: `env("ROCE_SITE")`, want: "lab"},
		{expr: `env("ROCE_MISSING", "fallback")`, want: "fallback"},
		{expr: `env("ROCE_MISSING")`, wantErr: "environment variable ROCE_MISSING is not set"},
		{expr: `env("SITE")`, wantErr: "may read only environment variables whose names start with ROCE_"},
		{expr: `env("NEXUS_PASSWORD", "x")`, wantErr: "may read only environment variables"},
		{expr: `file("../outside.txt")`, wantErr: "outside the policy directory"},
		{expr: `file("/etc/hostname")`, wantErr: "outside the policy directory"},
		{expr: `file("/nonexistent/secret")`, wantErr: "/nonexistent/secret is outside the policy directory"},
		{expr: `file("../nonexistent")`, wantErr: "../nonexistent is outside the policy directory"},
		{expr: `file("/proc/self/environ")`, wantErr: "outside the policy directory"},
		{expr: `file("link-out")`, wantErr: "outside the policy directory"},
		{expr: `file("link-in")`, want: "hello\n"},
		{expr: `file("motd.txt")`, want: "hello\n"},
		{expr: `file("absent.txt")`, wantErr: "absent.txt"},
		{expr: `file(".")`, wantErr: "is not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			expr, diags := hclsyntax.ParseExpression([]byte(tc.expr), "test.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			v, diags := expr.Value(ctx)
			if tc.wantErr != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.wantErr) {
					t.Fatalf("got %#v, %v; want error containing %q", v, diags, tc.wantErr)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			v, _ = v.Unmark()
			if got := renderValue(v); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func renderValue(v cty.Value) string {
	switch v.Type() {
	case cty.String:
		return v.AsString()
	case cty.Number:
		return v.AsBigFloat().Text('f', -1)
	}
	return v.GoString()
}
