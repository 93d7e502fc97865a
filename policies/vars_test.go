package policies

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// varsPolicy routes var.site into a switch address and var.ports into its
// interfaces, so the resolved values are visible in the Fabric.
const varsPolicy = `variable "site" {
  type    = string
  default = "default.example"
}
variable "ports" {
  type    = list(string)
  default = ["Ethernet1/1"]
}
variable "mtu" {
  type    = number
  default = 9216
}
lossless "roce" {
  cos = 4
  mtu = var.mtu
}
credentials "c" {
  username     = "admin"
  password_env = "PW"
}
switch "s" {
  platform    = "nexus5000"
  address     = var.site
  credentials = "c"
  interfaces  = var.ports
}
host "h" {
  local = true
  nic "eth0" {
    vlan = 10
  }
}
`

func TestVariablePrecedence(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("main.hcl", varsPolicy)
	fileA := write("a.vars", "site = \"file-a.example\"\n")
	fileB := write("b.vars", "site = \"file-b.example\"\nports = [\"Ethernet1/1-2\"]\n")

	env := map[string]string{"ROCE_VAR_site": "env.example", "ROCE_VAR_mtu": "9000"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }

	tests := []struct {
		name      string
		opts      LoadOptions
		wantSite  string
		wantPorts []string
		wantMTU   int
	}{
		{"defaults", LoadOptions{Getenv: noEnv}, "default.example", []string{"Ethernet1/1"}, 9216},
		{"environment over default", LoadOptions{Getenv: getenv}, "env.example", []string{"Ethernet1/1"}, 9000},
		{"var-file over environment", LoadOptions{Getenv: getenv, VarFiles: []string{fileA}}, "file-a.example", []string{"Ethernet1/1"}, 9000},
		{"later var-file wins", LoadOptions{Getenv: getenv, VarFiles: []string{fileA, fileB}}, "file-b.example", []string{"Ethernet1/1", "Ethernet1/2"}, 9000},
		{"-var over var-file", LoadOptions{Getenv: getenv, VarFiles: []string{fileB}, Vars: []string{"site=cli.example"}}, "cli.example", []string{"Ethernet1/1", "Ethernet1/2"}, 9000},
		{"later -var wins", LoadOptions{Getenv: noEnv, Vars: []string{"site=one", "site=two"}}, "two", []string{"Ethernet1/1"}, 9216},
		{"-var list parsed as HCL", LoadOptions{Getenv: noEnv, Vars: []string{`ports=["Eth1/5", "Eth1/7"]`, "mtu=4200"}}, "default.example", []string{"Ethernet1/5", "Ethernet1/7"}, 4200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, _, diags := Load(dir, tc.opts)
			if diags.HasErrors() {
				t.Fatalf("Load: %s", describeDiags(diags))
			}
			sw := f.SwitchByName("s")
			if sw.Address != tc.wantSite {
				t.Errorf("site = %q, want %q", sw.Address, tc.wantSite)
			}
			if !reflect.DeepEqual(sw.Interfaces, tc.wantPorts) {
				t.Errorf("ports = %v, want %v", sw.Interfaces, tc.wantPorts)
			}
			if got := f.Lossless[0].MTU; got != tc.wantMTU {
				t.Errorf("mtu = %d, want %d", got, tc.wantMTU)
			}
		})
	}
}

func TestVariableErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(varsPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	badFile := filepath.Join(dir, "bad.vars")
	if err := os.WriteFile(badFile, []byte("mtu = \"big\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts LoadOptions
		want string
		pos  string
	}{
		{"-var without =", LoadOptions{Vars: []string{"site"}}, `-var "site" must be written name=value`, ""},
		{"env value of wrong type", LoadOptions{Getenv: func(k string) (string, bool) { return "lots", k == "ROCE_VAR_mtu" }}, "var.mtu (from environment variable ROCE_VAR_mtu) must be number", "main.hcl:9:1"},
		{"var-file value of wrong type", LoadOptions{VarFiles: []string{badFile}}, "var.mtu (from " + badFile + ") must be number", "bad.vars:1:7"},
		{"missing var-file", LoadOptions{VarFiles: []string{filepath.Join(dir, "missing.vars")}}, "missing.vars", ""},
		{"bad list syntax", LoadOptions{Vars: []string{"ports=[Eth1/1"}}, `"[Eth1/1" is not a valid list(string) expression`, "main.hcl:5:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.opts.Getenv == nil {
				tc.opts.Getenv = noEnv
			}
			f, _, diags := Load(dir, tc.opts)
			if f != nil || !diags.HasErrors() {
				t.Fatalf("want an error, got fabric=%v diags=%v", f != nil, diags)
			}
			d := findDiag(diags, tc.want)
			if d == nil {
				t.Fatalf("no diagnostic contains %q; got:\n%s", tc.want, describeDiags(diags))
			}
			if tc.pos != "" && diagPos(d) != tc.pos {
				t.Errorf("at %q, want %q", diagPos(d), tc.pos)
			}
		})
	}
}
