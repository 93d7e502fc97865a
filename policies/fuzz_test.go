package policies

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// FuzzLoad feeds arbitrary bytes to the loader as a policy file: whatever
// the input, Load must return (never panic), and a fabric comes back only
// without errors.
func FuzzLoad(f *testing.F) {
	for _, tc := range badCases {
		f.Add([]byte(tc.src))
	}
	for _, ex := range []string{"ethertype", "all-traffic", "cos", "dscp", "mixed"} {
		if b, err := os.ReadFile(filepath.Join("..", "examples", ex, "main.hcl")); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`locals { a = local.b
 b = local.a }`))
	f.Add([]byte(`host "h" { for_each = { for i in range(3) : tostring(i) => i } local = true nic "e" { vlan = each.value + 1 } }`))
	f.Fuzz(func(t *testing.T, src []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.hcl"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		fab, srcs, diags := Load(dir, LoadOptions{Getenv: noEnv})
		if srcs == nil {
			t.Fatal("Load returned nil Sources")
		}
		if diags.HasErrors() && fab != nil {
			t.Fatal("Load returned a fabric together with errors")
		}
		if !diags.HasErrors() && fab == nil {
			t.Fatal("Load returned neither a fabric nor an error")
		}
	})
}

// FuzzExpandInterfaces: the interface-range parser never panics, and what
// it returns is canonical and duplicate-free.
func FuzzExpandInterfaces(f *testing.F) {
	for _, s := range []string{"Ethernet1/1-32", "eth1/1,Eth2/3-4", "Ethernet101/1/1-4", "e1/9999-1", "Ethernet1/1,Ethernet1/1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		out, err := ExpandInterfaces(spec)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, n := range out {
			if seen[n] {
				t.Fatalf("%q: duplicate %s", spec, n)
			}
			seen[n] = true
			again, err := ExpandInterfaces(n)
			if err != nil || len(again) != 1 || again[0] != n {
				t.Fatalf("%q: expanded name %q is not canonical (%v, %v)", spec, n, again, err)
			}
		}
	})
}

// FuzzParseIntSet: cos/dscp selections never panic, and a successful parse
// is sorted, de-duplicated and within range.
func FuzzParseIntSet(f *testing.F) {
	for _, s := range []string{"3", "0-2,5", "7-0", "1,,2", " 4 - 6 ", "63", "-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := parseIntSet(cty.StringVal(s), maxDSCP)
		if err != nil {
			return
		}
		for i, n := range out {
			if n < 0 || n > maxDSCP || (i > 0 && out[i-1] >= n) {
				t.Fatalf("%q: bad result %v", s, out)
			}
		}
	})
}
