package policies

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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

// fuzzSecret is in the environment of every FuzzLoadPolicy run.
const fuzzSecret = "Zq9xFUZZSECRETx42"

// FuzzLoadPolicy loads a whole policy directory (a policy file and a
// -var-file) with a secret in the environment: whatever the input, Load
// returns without panicking, a fabric comes back only without errors, and
// the secret never appears in the printed diagnostics unless the input
// itself spells it out.
func FuzzLoadPolicy(f *testing.F) {
	for _, tc := range securityCases {
		f.Add([]byte(tc.src), []byte(`pw = "x"`))
	}
	f.Add([]byte(`variable "pw" {
  sensitive = true
}
locals { a = "${var.pw}-${env("ROCE_SECRET")}" }
lossless "r" { cos = 4 }
host "h" {
  for_each = { (local.a) = 1 }
  local = true
  nic "eth0" { vlan = each.value }
}`), []byte(`pw = "y"`))
	f.Add([]byte(`locals { x = cidrhost(env("ROCE_SECRET"), 1) }`), []byte(``))
	f.Fuzz(func(t *testing.T, src, vars []byte) {
		if bytes.Contains(src, []byte(fuzzSecret)) || bytes.Contains(vars, []byte(fuzzSecret)) {
			return
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.hcl"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		varFile := filepath.Join(dir, "test.vars")
		if err := os.WriteFile(varFile, vars, 0o644); err != nil {
			t.Fatal(err)
		}
		getenv := func(k string) (string, bool) {
			if k == "ROCE_SECRET" || k == "NEXUS_PASSWORD" || k == "ROCE_VAR_pw" {
				return fuzzSecret, true
			}
			return "", false
		}
		fab, srcs, diags := Load(dir, LoadOptions{Getenv: getenv, VarFiles: []string{varFile}})
		if srcs == nil {
			t.Fatal("Load returned nil Sources")
		}
		if diags.HasErrors() == (fab != nil) {
			t.Fatalf("errors=%v but fabric=%v", diags.HasErrors(), fab != nil)
		}
		var b bytes.Buffer
		if err := srcs.WriteDiagnostics(&b, diags, false); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String()+diags.Error(), fuzzSecret) {
			t.Fatalf("the diagnostics show the secret:\n%s", b.String())
		}
	})
}
