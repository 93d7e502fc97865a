package policies

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// Pieces appended after a case's own text, so the positions asserted in a
// case depend only on the lines the case writes itself.
const (
	tailCreds = `
credentials "c" {
  username     = "admin"
  password_env = "PW"
}
`
	tailN5K = `
switch "s1" {
  platform    = "nexus5000"
  address     = "192.0.2.1"
  credentials = "c"
}
`
	tailHost = `
host "h1" {
  address     = "192.0.2.10"
  credentials = "c"
  nic "eth0" {
    vlan = 10
  }
}
`
	tailAll = tailCreds + tailN5K + tailHost
)

type badCase struct {
	name string
	src  string
	opts LoadOptions
	want string // substring of summary + detail
	pos  string // file:line:col of the diagnostic's subject
}

var badCases = []badCase{
	{
		name: "literal password",
		src: `credentials "x" {
  username = "admin"
  password = "hunter2"
}
lossless "roce" {
  cos = 4
}
` + tailAll,
		want: "Put it in an environment variable and use password_env, or in a file and use password_file",
		pos:  "main.hcl:3:3",
	},
	{
		name: "priority above 7",
		src: `lossless "roce" {
  udp_port = 4791
  priority = 9
}
` + tailAll,
		want: "priority = 9 is outside 0-7",
		pos:  "main.hcl:3:3",
	},
	{
		name: "two classes on one priority",
		src: `lossless "a" {
  cos = 4
}
lossless "b" {
  dscp     = 26
  priority = 4
}
` + tailAll,
		want: `lossless "a" and lossless "b" both use priority 4`,
		pos:  "main.hcl:6:3",
	},
	{
		name: "class on FCoE CoS 3 on a Nexus 5000 keeping FCoE",
		src: `lossless "roce" {
  cos = 3
}
switch "s" {
  platform    = "nexus5000"
  address     = "192.0.2.1"
  credentials = "c"
  fcoe        = true
}
` + tailCreds + tailHost,
		want: "uses CoS 3, which FCoE uses on nexus5000, and switch s keeps FCoE",
		pos:  "main.hcl:2:3",
	},
	{
		name: "FCoE collision through priority",
		src: `lossless "roce" {
  udp_port = 4791
  priority = 3
}
switch "s" {
  platform    = "nexus5000"
  address     = "192.0.2.1"
  credentials = "c"
  fcoe        = true
}
` + tailCreds + tailHost,
		want: "uses CoS 3, which FCoE uses",
		pos:  "main.hcl:3:3",
	},
	{
		name: "all traffic on a Nexus 5000 keeping FCoE",
		src: `lossless "everything" {
  all      = true
  priority = 0
}
switch "s" {
  platform    = "nexus5000"
  address     = "192.0.2.1"
  credentials = "c"
  fcoe        = true
}
` + tailCreds + tailHost,
		want: "which nexus5000 renders as link-level flow control (flowcontrol send/receive on) with PFC off on every managed port, since the two are exclusive per port; but switch s keeps FCoE (fcoe = true), which needs PFC on CoS 3",
		pos:  "main.hcl:2:3",
	},
	{
		name: "all traffic on a Nexus 7000 keeping FCoE",
		src: `switch "s" {
  platform    = "nexus7000"
  address     = "192.0.2.1"
  credentials = "c"
  fcoe        = true
}
lossless "everything" {
  all      = true
  priority = 0
}
` + tailCreds + tailHost,
		want: "set fcoe = false if the switch carries no FCoE",
		pos:  "main.hcl:8:3",
	},
	{
		name: "Nexus 7000 priority no template makes no-drop",
		src: `lossless "roce" {
  udp_port = 4791
  priority = 5
}
switch "s" {
  platform    = "nexus7000"
  address     = "192.0.2.1"
  credentials = "c"
}
` + tailCreds + tailHost,
		want: `lossless "roce" uses priority 5, but no network-qos template of nexus7000 makes CoS 5 no-drop (switch s); the templates make no-drop: default-nq-7e-policy: 3; default-nq-6e-policy: 3,4; default-nq-4e-policy: 1,2,3,4. Pick a priority one of them covers (CoS 1,2,3,4)`,
		pos:  "main.hcl:3:3",
	},
	{
		name: "Nexus 7000 CoS class no template makes no-drop",
		src: `lossless "roce" {
  cos = 6
}
switch "s" {
  platform    = "nexus7000"
  address     = "192.0.2.1"
  credentials = "c"
  fcoe        = true
}
` + tailCreds + tailHost,
		want: "makes CoS 6 no-drop together with FCoE's CoS 3 (fcoe = true)",
		pos:  "main.hcl:2:3",
	},
	{
		name: "too many no-drop classes",
		src: `lossless "a" {
  cos = 4
}
lossless "b" {
  cos = 5
}
switch "s" {
  platform    = "nexus5000"
  address     = "192.0.2.1"
  credentials = "c"
  lossless    = ["a", "b"]
}
host "h" {
  local = true
  nic "eth0" {
    vlan     = 10
    lossless = "a"
  }
}
` + tailCreds,
		want: "carries 2 no-drop classes (a, b), but nexus5000 takes at most 1",
		pos:  "main.hcl:11:3",
	},
	{
		name: "class MTU outside platform range",
		src: `lossless "roce" {
  cos = 4
  mtu = 9500
}
` + tailAll,
		want: "mtu = 9500, but nexus5000 takes 1500-9216",
		pos:  "main.hcl:3:3",
	},
	{
		name: "NIC MTU below 4192",
		src: `host "h" {
  local = true
  nic "eth0" {
    vlan = 10
    mtu  = 1500
  }
}
lossless "roce" {
  cos = 4
}
` + tailCreds + tailN5K,
		want: "RoCE path MTU 4096 needs a netdev MTU of at least 4192",
		pos:  "main.hcl:5:5",
	},
	{
		name: "match mode the platform cannot express",
		src: `lossless "roce" {
  udp_port = 4791
  priority = 3
}
switch "leaf" {
  platform = "gnmi"
  profile  = "arista"
  address  = "192.0.2.5:6030"
}
host "h" {
  local = true
  nic "eth0" {}
}
`,
		want: "matches by udp_port, but gnmi/arista cannot classify by UDP port; it is carried by switch leaf. Add dscp = [...]",
		pos:  "main.hcl:2:3",
	},
	{
		name: "ethertype on a platform without it",
		src: `lossless "roce" {
  ethertype = "0x8915"
  priority  = 3
}
switch "leaf" {
  platform = "gnmi"
  profile  = "sonic"
  address  = "192.0.2.5:8080"
}
host "h" {
  local = true
  nic "eth0" {}
}
`,
		want: "matches by ethertype, but gnmi/sonic cannot classify by Ethertype",
		pos:  "main.hcl:2:3",
	},
	{
		name: "openconfig profile has no PFC",
		src: `lossless "roce" {
  dscp     = 26
  priority = 3
}
switch "leaf" {
  platform = "gnmi"
  profile  = "openconfig"
  address  = "192.0.2.5:6030"
}
host "h" {
  local = true
  nic "eth0" {}
}
`,
		want: "Use profile = \"arista\", \"sonic\" or \"srlinux\", whose vendor models add PFC",
		pos:  "main.hcl:7:3",
	},
	{
		name: "NIC without VLAN where the class needs PCP",
		src: `lossless "roce" {
  cos = 4
}
host "h" {
  local = true
  nic "ens1f0" {
    address = "10.0.0.1/24"
  }
}
` + tailCreds + tailN5K,
		want: `recognised by the 802.1p priority in a VLAN tag on s1; untagged frames carry no priority. Give nic "ens1f0" a vlan`,
		pos:  "main.hcl:6:3",
	},
	{
		name: "duplicate names after for_each",
		src: `switch "leaves" {
  for_each    = toset(["s1", "s2"])
  platform    = "nexus5000"
  address     = each.key
  credentials = "c"
}
lossless "roce" {
  cos = 4
}
` + tailAll,
		want: `switch "s1" is already declared at`,
		pos:  "main.hcl:16:1",
	},
	{
		name: "unknown credentials reference",
		src: `switch "s" {
  platform    = "nexus5000"
  address     = "192.0.2.1"
  credentials = "cc"
}
lossless "roce" {
  cos = 4
}
` + tailCreds + tailHost,
		want: `credentials = "cc", but there is no credentials "cc" { } block; did you mean "c"?`,
		pos:  "main.hcl:4:3",
	},
	{
		name: "unknown class on a NIC",
		src: `host "h" {
  local = true
  nic "eth0" {
    vlan     = 10
    lossless = "rdma"
  }
}
lossless "roce" {
  cos = 4
}
` + tailCreds + tailN5K,
		want: `lossless = "rdma", but there is no lossless "rdma" { } block`,
		pos:  "main.hcl:5:5",
	},
	{
		name: "unknown class on a switch",
		src: `switch "s" {
  platform    = "nexus5000"
  address     = "192.0.2.1"
  credentials = "c"
  lossless    = ["roce", "storage"]
}
lossless "roce" {
  cos = 4
}
` + tailCreds + tailHost,
		want: `lossless lists "storage", but there is no lossless "storage" { } block`,
		pos:  "main.hcl:5:3",
	},
	{
		name: "unknown switch on a host",
		src: `host "h" {
  local  = true
  switch = "leaf9"
  nic "eth0" {
    vlan = 10
  }
}
lossless "roce" {
  cos = 4
}
` + tailCreds + tailN5K,
		want: `switch = "leaf9", but there is no switch "leaf9"`,
		pos:  "main.hcl:3:3",
	},
	{
		name: "two match kinds in one class",
		src: `lossless "roce" {
  cos  = 4
  dscp = 26
}
` + tailAll,
		want: "sets both cos and dscp; a class matches in exactly one way",
		pos:  "main.hcl:3:3",
	},
	{
		name: "no match",
		src: `lossless "roce" {
  priority = 3
}
` + tailAll,
		want: "selects no traffic. Set exactly one of",
		pos:  "main.hcl:1:1",
	},
	{
		name: "bad interface range",
		src: `switch "s" {
  platform    = "nexus5000"
  address     = "192.0.2.1"
  credentials = "c"
  interfaces  = ["Ethernet1/32-1"]
}
lossless "roce" {
  cos = 4
}
` + tailCreds + tailHost,
		want: "range end 1 is below its start 32",
		pos:  "main.hcl:5:3",
	},
	{
		name: "not an interface",
		src: `switch "s" {
  platform    = "nexus5000"
  address     = "192.0.2.1"
  credentials = "c"
  interfaces  = ["Gig0/1"]
}
lossless "roce" {
  cos = 4
}
` + tailCreds + tailHost,
		want: `"Gig0/1" is not an NX-OS Ethernet interface`,
		pos:  "main.hcl:5:3",
	},
	{
		name: "unknown platform",
		src: `switch "s" {
  platform = "nexus9000"
  address  = "192.0.2.1"
}
lossless "roce" {
  cos = 4
}
` + tailCreds + tailHost,
		want: `platform = "nexus9000"; use "nexus5000", "nexus7000" or "gnmi"`,
		pos:  "main.hcl:2:3",
	},
	{
		name: "unknown gNMI profile",
		src: `switch "s" {
  platform = "gnmi"
  profile  = "junos"
  address  = "192.0.2.1"
}
lossless "roce" {
  cos = 4
}
` + tailCreds + tailHost,
		want: `profile = "junos"; use "openconfig", "arista", "sonic" or "srlinux"`,
		pos:  "main.hcl:3:3",
	},
	{
		name: "unknown attribute",
		src: `lossless "roce" {
  cos    = 4
  colour = "red"
}
` + tailAll,
		want: `An argument named "colour" is not expected here`,
		pos:  "main.hcl:3:3",
	},
	{
		name: "type error",
		src: `lossless "roce" {
  udp_port = 4791
  priority = "high"
}
` + tailAll,
		want: `priority must be a whole number; got a string`,
		pos:  "main.hcl:3:14",
	},
	{
		name: "type error in a list",
		src: `switch "s" {
  platform    = "nexus5000"
  address     = "192.0.2.1"
  credentials = "c"
  interfaces  = "Ethernet1/1"
}
lossless "roce" {
  cos = 4
}
` + tailCreds + tailHost,
		want: `interfaces must be a list of strings; got a string`,
		pos:  "main.hcl:5:17",
	},
	{
		name: "variable validation failure",
		src: `variable "cos" {
  type    = number
  default = 4
  validation {
    condition     = var.cos != 3
    error_message = "CoS 3 belongs to FCoE."
  }
}
lossless "roce" {
  cos = var.cos
}
` + tailAll,
		opts: LoadOptions{Vars: []string{"cos=3"}},
		want: "var.cos (from -var): CoS 3 belongs to FCoE.",
		pos:  "main.hcl:5:21",
	},
	{
		name: "required variable without value",
		src: `variable "site" {
  type = string
}
lossless "roce" {
  cos = 4
}
` + tailAll,
		want: "Set it with -var site=..., a -var-file, or the environment variable ROCE_VAR_site",
		pos:  "main.hcl:1:1",
	},
	{
		name: "all-traffic class with another class",
		src: `lossless "everything" {
  all      = true
  priority = 0
}
lossless "roce" {
  cos = 4
}
` + tailAll,
		want: `lossless "everything" makes all traffic lossless, so lossless "roce" cannot be a separate class`,
		pos:  "main.hcl:2:3",
	},
	{
		name: "RoCE v2 NIC on an Ethertype class",
		src: `host "h" {
  local = true
  nic "eth0" {
    vlan      = 10
    roce_mode = "v2"
  }
}
lossless "rocev1" {
  ethertype = "0x8915"
  priority  = 3
}
` + tailCreds + tailN5K,
		want: `matches Ethertype 0x8915 (RoCE v1), but roce_mode = "v2"`,
		pos:  "main.hcl:5:5",
	},
	{
		name: "missing priority",
		src: `lossless "roce" {
  udp_port = 4791
}
` + tailAll,
		want: "needs priority = <0-7>",
		pos:  "main.hcl:1:1",
	},
	{
		name: "for_each over a list",
		src: `host "h" {
  for_each = ["a", "b"]
  local    = true
  nic "eth0" {
    vlan = 10
  }
}
lossless "roce" {
  cos = 4
}
` + tailCreds + tailN5K,
		want: "got a list. Wrap it in toset(...)",
		pos:  "main.hcl:2:14",
	},
	{
		name: "unknown function argument value",
		src: `locals {
  x = cidrhost("10.0.0.0/30", 9)
}
lossless "roce" {
  cos = 4
}
` + tailAll,
		want: "does not fit in 2 host bits",
		pos:  "main.hcl:2:31",
	},
	{
		name: "undeclared -var",
		src: `lossless "roce" {
  cos = 4
}
` + tailAll,
		opts: LoadOptions{Vars: []string{"nope=1"}},
		want: `the policy declares no variable "nope"`,
		pos:  "",
	},
}

func TestLoadBadInput(t *testing.T) {
	for _, tc := range badCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			opts := tc.opts
			opts.Getenv = noEnv
			f, _, diags := Load(dir, opts)
			if f != nil {
				t.Errorf("Load returned a fabric despite errors")
			}
			if !diags.HasErrors() {
				t.Fatalf("no error; diagnostics: %v", diags)
			}
			d := findDiag(diags, tc.want)
			if d == nil {
				t.Fatalf("no diagnostic contains %q; got:\n%s", tc.want, describeDiags(diags))
			}
			if d.Severity != hcl.DiagError {
				t.Errorf("diagnostic %q is a warning, want an error", d.Summary)
			}
			if got := diagPos(d); got != tc.pos {
				t.Errorf("diagnostic %q at %q, want %q", d.Summary, got, tc.pos)
			}
			if strings.Contains(describeDiags(diags), "hunter2") {
				t.Errorf("a diagnostic leaks the literal password")
			}
		})
	}
}

func findDiag(diags hcl.Diagnostics, want string) *hcl.Diagnostic {
	for _, d := range diags {
		if strings.Contains(d.Summary+": "+d.Detail, want) {
			return d
		}
	}
	return nil
}

// diagPos renders a diagnostic's subject as base-name:line:col, "" if none.
func diagPos(d *hcl.Diagnostic) string {
	if d.Subject == nil {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column)
}

func describeDiags(diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "  %s %s: %s: %s\n", diagPos(d), map[hcl.DiagnosticSeverity]string{hcl.DiagError: "error", hcl.DiagWarning: "warning"}[d.Severity], d.Summary, d.Detail)
	}
	return b.String()
}

func TestLoadBadInputMore(t *testing.T) {
	for _, tc := range moreBadCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			opts := tc.opts
			opts.Getenv = noEnv
			f, _, diags := Load(dir, opts)
			if f != nil || !diags.HasErrors() {
				t.Fatalf("want an error and no fabric; got fabric=%v diags:\n%s", f != nil, describeDiags(diags))
			}
			d := findDiag(diags, tc.want)
			if d == nil {
				t.Fatalf("no diagnostic contains %q; got:\n%s", tc.want, describeDiags(diags))
			}
			if d.Severity != hcl.DiagError {
				t.Errorf("diagnostic %q is a warning, want an error", d.Summary)
			}
			if got := diagPos(d); got != tc.pos {
				t.Errorf("diagnostic %q at %q, want %q", d.Summary, got, tc.pos)
			}
		})
	}
}
