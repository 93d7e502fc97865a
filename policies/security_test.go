package policies

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// marker is the secret every exfiltration attempt tries to get out; it must
// never appear in any diagnostic, snippet or value.
const marker = "Zx9-MARKER-s3cr3t"

func markerEnv(extra map[string]string) func(string) (string, bool) {
	env := map[string]string{
		"ROCE_SECRET":    marker,
		"NEXUS_PASSWORD": marker,
		"ROCE_VAR_pw":    marker,
		"HOME":           "/home/" + marker,
	}
	for k, v := range extra {
		env[k] = v
	}
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

// securityCases are policies written as an attacker would: each tries to
// move the marker into something roce prints or sends to a device.
var securityCases = []struct {
	name  string
	src   string
	files map[string]string // extra files in the policy directory
	opts  LoadOptions
	want  string // substring of the error's summary + detail
	pos   string // where the error points
}{
	{
		name: "env in address",
		src:  "switch \"s\" {\n  platform = \"nexus5000\"\n  address = env(\"ROCE_SECRET\")\n  credentials = \"c\"\n}\n" + losslessCoS4 + tailCreds,
		want: "Sensitive value in address", pos: "main.hcl:3:13",
	},
	{
		name: "env through a local and a function",
		src:  "locals {\n  a = upper(env(\"ROCE_SECRET\"))\n}\nswitch \"s\" {\n  platform = \"nexus5000\"\n  address = \"${local.a}.example\"\n  credentials = \"c\"\n}\n" + losslessCoS4 + tailCreds,
		want: "Sensitive value in address", pos: "main.hcl:6:13",
	},
	{
		name: "one bit at a time through a conditional",
		src:  "switch \"s\" {\n  platform = \"nexus5000\"\n  address = substr(env(\"ROCE_SECRET\"), 0, 1) == \"Z\" ? \"a.example\" : \"b.example\"\n  credentials = \"c\"\n}\n" + losslessCoS4 + tailCreds,
		want: "Sensitive value in address", pos: "main.hcl:3:13",
	},
	{
		name: "env as a for_each key",
		src:  "switch \"s\" {\n  for_each = toset([env(\"ROCE_SECRET\")])\n  platform = \"nexus5000\"\n  address = \"192.0.2.1\"\n  credentials = \"c\"\n}\n" + losslessCoS4 + tailCreds,
		want: "Sensitive value in for_each", pos: "main.hcl:2:14",
	},
	{
		name: "env as a for_each map",
		src:  "host \"h\" {\n  for_each = { (env(\"ROCE_SECRET\")) = 1 }\n  local = true\n  nic \"eth0\" {\n    vlan = 10\n  }\n}\n" + losslessCoS4,
		want: "Sensitive value in for_each", pos: "main.hcl:2:14",
	},
	{
		name: "sensitive each.value in a NIC address",
		src:  "variable \"pw\" {\n  sensitive = true\n  default = \"" + marker + "\"\n}\nhost \"h\" {\n  for_each = { a = var.pw }\n  local = true\n  nic \"eth0\" {\n    rdma_device = each.value\n  }\n}\n" + losslessCoS4,
		want: "Sensitive value in rdma_device", pos: "main.hcl:9:19",
	},
	{
		name: "sensitive variable from the environment",
		src:  "variable \"pw\" {\n  type = string\n  sensitive = true\n}\nswitch \"s\" {\n  platform = \"nexus5000\"\n  address = var.pw\n  credentials = \"c\"\n}\n" + losslessCoS4 + tailCreds,
		want: "Sensitive value in address", pos: "main.hcl:7:13",
	},
	{
		name:  "file() of a password file",
		src:   "credentials \"f\" {\n  username = \"admin\"\n  password_file = \"pw.txt\"\n}\nswitch \"s\" {\n  platform = \"nexus5000\"\n  address = trimspace(file(\"pw.txt\"))\n  credentials = \"f\"\n}\n" + losslessCoS4,
		files: map[string]string{"pw.txt": marker + "\n"},
		want:  "Sensitive value in address", pos: "main.hcl:7:13",
	},
	{
		name:  "file() of a private key",
		src:   "switch \"s\" {\n  platform = \"nexus5000\"\n  address = file(\"id\")\n  credentials = \"c\"\n}\n" + losslessCoS4 + tailCreds,
		files: map[string]string{"id": "-----BEGIN OPENSSH PRIVATE KEY-----\n" + marker + "\n-----END OPENSSH PRIVATE KEY-----\n"},
		want:  "Sensitive value in address", pos: "main.hcl:3:13",
	},
	{
		name: "env() of a variable no credentials block names",
		src:  "switch \"s\" {\n  platform = \"nexus5000\"\n  address = env(\"HOME\")\n  credentials = \"c\"\n}\n" + losslessCoS4 + tailCreds,
		want: "may read only environment variables whose names start with ROCE_", pos: "main.hcl:3:18",
	},
	{
		name: "env() of a credentials variable, into an address",
		src:  "credentials \"n\" {\n  username = \"admin\"\n  password_env = \"NEXUS_PASSWORD\"\n}\nswitch \"s\" {\n  platform = \"nexus5000\"\n  address = env(\"NEXUS_PASSWORD\")\n  credentials = \"n\"\n}\n" + losslessCoS4,
		want: "Sensitive value in address", pos: "main.hcl:7:13",
	},
	{
		name: "function error quoting a secret",
		src:  "switch \"s\" {\n  platform = \"nexus5000\"\n  address = cidrhost(env(\"ROCE_SECRET\"), 1)\n  credentials = \"c\"\n}\n" + losslessCoS4 + tailCreds,
		want: "cidrhost() failed on a sensitive argument", pos: "main.hcl:3:13",
	},
	{
		name: "regex error quoting a secret",
		src:  "locals {\n  x = regex(env(\"ROCE_SECRET\"), \"[\")\n}\n" + losslessCoS4 + tailAll,
		want: "regex() failed on a sensitive argument", pos: "main.hcl:2:7",
	},
	{
		name: "tonumber of a secret",
		src:  "locals {\n  x = tonumber(env(\"ROCE_SECRET\"))\n}\n" + losslessCoS4 + tailAll,
		want: "tonumber() failed on a sensitive argument", pos: "main.hcl:2:7",
	},
	{
		name: "HCL's with-context showing an object that holds a secret",
		src:  "locals {\n  o = { pw = env(\"ROCE_SECRET\"), n = 1 }\n  x = local.o + 1\n}\n" + losslessCoS4 + tailAll,
		want: "Unsuitable value for left operand", pos: "main.hcl:3:7",
	},
	{
		name: "file() of /etc/shadow",
		src:  "locals {\n  x = file(\"/etc/shadow\")\n}\n" + losslessCoS4 + tailAll,
		want: "outside the policy directory", pos: "main.hcl:2:13",
	},
	{
		name: "file() of /proc/self/environ",
		src:  "locals {\n  x = file(\"/proc/self/environ\")\n}\n" + losslessCoS4 + tailAll,
		want: "outside the policy directory", pos: "main.hcl:2:13",
	},
	{
		name: "file() escaping with ..",
		src:  "locals {\n  x = file(\"../../../../../etc/passwd\")\n}\n" + losslessCoS4 + tailAll,
		want: "outside the policy directory", pos: "main.hcl:2:13",
	},
	{
		name: "literal password echoed in a snippet",
		src:  "credentials \"x\" {\n  username = \"admin\"\n  password = \"" + marker + "\"\n}\n" + losslessCoS4 + tailAll,
		want: "Literal password in policy", pos: "main.hcl:3:3",
	},
	{
		name: "password in a block that has no such attribute",
		src:  "switch \"s\" {\n  platform = \"nexus5000\"\n  address = \"192.0.2.1\"\n  credentials = \"c\"\n  password = \"" + marker + "\"\n}\n" + losslessCoS4 + tailCreds,
		want: "Unsupported argument", pos: "main.hcl:5:3",
	},
	{
		name: "sensitive default echoed in a type error",
		src:  "variable \"pw\" {\n  type = number\n  sensitive = true\n  default = \"" + marker + "\"\n}\n" + losslessCoS4 + tailAll,
		want: "the default must be number", pos: "main.hcl:4:13",
	},
	{
		name: "plaintext gNMI from ROCE_VAR_",
		src:  "variable \"pt\" {\n  type = bool\n  default = false\n}\nswitch \"g\" {\n  platform = \"gnmi\"\n  profile = \"sonic\"\n  address = \"192.0.2.1:9339\"\n  tls {\n    plaintext = var.pt\n  }\n}\n" + losslessCoS4,
		opts: LoadOptions{Getenv: markerEnv(map[string]string{"ROCE_VAR_pt": "true"})},
		want: "can't be switched on from the environment", pos: "main.hcl:10:5",
	},
	{
		name: "skip verify from ROCE_VAR_",
		src:  "variable \"sv\" {\n  default = false\n}\nswitch \"g\" {\n  platform = \"gnmi\"\n  profile = \"sonic\"\n  address = \"192.0.2.1:9339\"\n  tls {\n    insecure_skip_verify = var.sv\n  }\n}\n" + losslessCoS4,
		opts: LoadOptions{Getenv: markerEnv(map[string]string{"ROCE_VAR_sv": "true"})},
		want: "can't be switched on from the environment", pos: "main.hcl:9:5",
	},
	// Functions skip unmarking until a marked value exists in the load
	// (markTracker); each source of a mark must still make a later
	// function hide its error, after functions already ran unmarked.
	{
		name: "function error on env()'s default, after unmarked calls",
		src:  "locals {\n  n = length([1, 2])\n}\nswitch \"s\" {\n  platform = \"nexus5000\"\n  address = cidrhost(env(\"ROCE_UNSET\", \"not-a-prefix\"), local.n)\n  credentials = \"c\"\n}\n" + losslessCoS4 + tailCreds,
		want: "cidrhost() failed on a sensitive argument", pos: "main.hcl:6:13",
	},
	{
		name:  "function error on file() of a credentials file, after unmarked calls",
		src:   "locals {\n  n = length([1, 2])\n}\ncredentials \"f\" {\n  username = \"admin\"\n  password_file = \"pw\"\n}\nswitch \"s\" {\n  platform = \"nexus5000\"\n  address = cidrhost(file(\"pw\"), local.n)\n  credentials = \"f\"\n}\n" + losslessCoS4,
		files: map[string]string{"pw": marker},
		want:  "cidrhost() failed on a sensitive argument", pos: "main.hcl:10:13",
	},
	{
		name: "function error on a sensitive variable's default",
		src:  "variable \"token\" {\n  type = string\n  sensitive = true\n  default = \"" + marker + "\"\n}\nlocals {\n  n = length([1, 2])\n}\nswitch \"s\" {\n  platform = \"nexus5000\"\n  address = cidrhost(var.token, local.n)\n  credentials = \"c\"\n}\n" + losslessCoS4 + tailCreds,
		want: "cidrhost() failed on a sensitive argument", pos: "main.hcl:11:13",
	},
	{
		name: "SSH host key checking off from ROCE_VAR_",
		src:  "variable \"sv\" {\n  type = bool\n  default = false\n}\nswitch \"s\" {\n  platform = \"nexus5000\"\n  address = \"192.0.2.1\"\n  credentials = \"c\"\n  insecure_skip_verify = var.sv\n}\n" + losslessCoS4 + tailCreds,
		opts: LoadOptions{Getenv: markerEnv(map[string]string{"ROCE_VAR_sv": "true"})},
		want: "can't be switched on from the environment", pos: "main.hcl:9:3",
	},
}

func TestSecurityRefusals(t *testing.T) {
	for _, tc := range securityCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, content string) {
				t.Helper()
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write("main.hcl", tc.src)
			for n, c := range tc.files {
				write(n, c)
			}
			opts := tc.opts
			if opts.Getenv == nil {
				opts.Getenv = markerEnv(nil)
			}
			f, src, diags := Load(dir, opts)
			if f != nil || !diags.HasErrors() {
				t.Fatalf("want an error and no fabric; got fabric=%v diags:\n%s", f != nil, describeDiags(diags))
			}
			d := findDiag(diags, tc.want)
			if d == nil {
				t.Fatalf("no diagnostic contains %q; got:\n%s", tc.want, describeDiags(diags))
			}
			if got := diagPos(d); got != tc.pos {
				t.Errorf("diagnostic %q at %q, want %q", d.Summary, got, tc.pos)
			}
			assertNoMarker(t, src, diags)
		})
	}
}

// assertNoMarker prints the diagnostics every way a CLI can (with and
// without colour, and diags.Error()) and fails if the marker, or an
// encoding of it, shows.
func assertNoMarker(t *testing.T, src *Sources, diags hcl.Diagnostics) {
	t.Helper()
	var plain, color bytes.Buffer
	if err := src.WriteDiagnostics(&plain, diags, false); err != nil {
		t.Fatal(err)
	}
	if err := src.WriteDiagnostics(&color, diags, true); err != nil {
		t.Fatal(err)
	}
	all := plain.String() + color.String() + diags.Error() + describeDiags(diags) + fmt.Sprintf("%#v", diags)
	for _, form := range SecretForms(marker) {
		if strings.Contains(all, form) {
			t.Fatalf("the output contains the secret (as %q):\n%s", form, plain.String())
		}
	}
}

func TestLiteralPasswordSnippetRedacted(t *testing.T) {
	dir := t.TempDir()
	src := "credentials \"x\" {\n  username = \"admin\"\n  password = \"" + marker + "\"\n}\n" + losslessCoS4 + tailAll
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, s, diags := Load(dir, LoadOptions{Getenv: noEnv})
	var b bytes.Buffer
	if err := s.WriteDiagnostics(&b, diags, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, marker) {
		t.Fatalf("snippet echoes the password:\n%s", out)
	}
	// The snippet still shows the line, with the value replaced.
	if !strings.Contains(out, `3:   password = (sensitive)`) {
		t.Errorf("want the redacted source line in the snippet; got:\n%s", out)
	}
	// The digest still covers the real bytes.
	if s.Digest() == "" {
		t.Error("empty digest")
	}
}

// TestSensitiveInCredentialsIsFine: env() and sensitive variables may feed
// a credentials block, and their values come back for the saved-plan guard.
func TestSensitiveInCredentialsIsFine(t *testing.T) {
	dir := t.TempDir()
	src := `variable "user" {
  sensitive = true
  default   = "admin-` + marker + `"
}
credentials "c" {
  username     = var.user
  password_env = "NEXUS_PASSWORD"
}
locals {
  pw = env("NEXUS_PASSWORD")
}
` + losslessCoS4 + tailN5K
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, diags := Load(dir, LoadOptions{Getenv: markerEnv(nil)})
	if diags.HasErrors() {
		t.Fatal(describeDiags(diags))
	}
	got := strings.Join(f.SensitiveValues(), "\n")
	if !strings.Contains(got, marker) || !strings.Contains(got, "admin-"+marker) {
		t.Errorf("SensitiveValues = %q, want the env() value and the sensitive variable", f.SensitiveValues())
	}
}

func TestSecretForms(t *testing.T) {
	forms := SecretForms("pa\"ss\nword")
	for _, want := range []string{"pa\"ss\nword", `pa\"ss\nword`, "cGEic3MKd29yZA==", "7061227373", "cGEic3MKd29yZA"} {
		found := false
		for _, f := range forms {
			if strings.Contains(f, want) || f == want {
				found = true
			}
		}
		if !found {
			t.Errorf("SecretForms misses %q; got %q", want, forms)
		}
	}
	if SecretForms("") != nil || len(SecretForms("ab")) != 0 {
		t.Error("short values must not be scrubbed")
	}
}

// TestInputLimits: hostile shapes get a clear error at file:line, never a
// crash (a Go stack overflow cannot be recovered).
func TestInputLimits(t *testing.T) {
	deep := strings.Repeat("[", 200_000)
	tests := []struct {
		name, src, want, pos string
	}{
		{"200 KB of brackets", "locals {\n  x = " + deep + "\n}\n", "nested too deeply", "main.hcl:2:106"},
		{"deep braces", "locals {\n  x = " + strings.Repeat("{a=", 50_000) + "\n}\n", "nested too deeply", ""},
		{"deep interpolation", "locals {\n  x = \"" + strings.Repeat("${\"", 50_000) + "\n}\n", "nested too deeply", ""},
		{"unary run", "locals {\n  x = " + strings.Repeat("!", 200_000) + "true\n}\n", "operators in a row", ""},
		{"negation run", "locals {\n  x = " + strings.Repeat("- ", 100_000) + "1\n}\n", "operators in a row", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			f, _, diags := Load(dir, LoadOptions{Getenv: noEnv})
			if f != nil {
				t.Fatal("loaded a hostile policy")
			}
			d := findDiag(diags, tc.want)
			if d == nil {
				t.Fatalf("no diagnostic contains %q; got:\n%s", tc.want, describeDiags(diags))
			}
			if tc.pos != "" && diagPos(d) != tc.pos {
				t.Errorf("at %s, want %s", diagPos(d), tc.pos)
			}
		})
	}
}

func TestNestingWithinLimitParses(t *testing.T) {
	dir := t.TempDir()
	// Comments and string text are not nesting: separator lines, brackets
	// in descriptions and unbalanced openers in comments all load.
	src := "# " + strings.Repeat("-", 150) + "\n// " + strings.Repeat("(", 150) + "\n/* " + strings.Repeat("[", 150) + " */\n" +
		"variable \"v\" {\n  default = \"" + strings.Repeat("-", 150) + strings.Repeat("{", 150) + "\\\"(\"\n}\n" +
		"locals {\n  x = " + strings.Repeat("[", 50) + "1" + strings.Repeat("]", 50) + "\n  y = \"${length(local.x)}-${\"a\"}\"\n}\n" + losslessCoS4 + tailAll
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, diags := Load(dir, LoadOptions{Getenv: noEnv}); diags.HasErrors() {
		t.Fatal(describeDiags(diags))
	}
}

func TestLoadInterrupted(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(losslessCoS4+tailAll), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f, _, diags := Load(dir, LoadOptions{Getenv: noEnv, Context: ctx})
	if f != nil || findDiag(diags, "Interrupted") == nil {
		t.Fatalf("want an Interrupted error and no fabric; got fabric=%v\n%s", f != nil, describeDiags(diags))
	}
}

// TestLocalsOrderAndCycle keeps the dependency-ordered evaluation honest:
// chains in any order resolve, a bare `local` reference still works, and a
// cycle is reported at each member.
func TestLocalsOrderAndCycle(t *testing.T) {
	dir := t.TempDir()
	src := "locals {\n  z = local.y + 1\n  y = local.x * 2\n  x = 3\n}\n" +
		"locals {\n  a = local.b\n  b = local.a\n}\n" + losslessCoS4 + tailAll
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, diags := Load(dir, LoadOptions{Getenv: noEnv})
	var cyc []string
	for _, d := range diags {
		if d.Summary == "Cycle in local values" {
			cyc = append(cyc, diagPos(d))
		} else if d.Severity == hcl.DiagError {
			t.Errorf("unexpected error: %s: %s", d.Summary, d.Detail)
		}
	}
	if strings.Join(cyc, ",") != "main.hcl:7:3,main.hcl:8:3" {
		t.Errorf("cycle errors at %v, want a and b", cyc)
	}

	dir = t.TempDir()
	src = "locals {\n  z = local.y + 1\n  y = local.x * 2\n  x = 3\n}\nlossless \"roce\" {\n  cos = local.z - 3\n}\n" + tailAll
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, diags := Load(dir, LoadOptions{Getenv: noEnv})
	if diags.HasErrors() {
		t.Fatal(describeDiags(diags))
	}
	if got := f.Lossless[0].Match.CoS; len(got) != 1 || got[0] != 4 {
		t.Errorf("cos = %v, want [4] (z = (3*2)+1 - 3)", got)
	}
}

// TestTransportWarnings: turning transport security off, written in the
// policy, loads but warns at the setting, naming the switch; the same
// sentences come back for providers to put in the plan.
func TestTransportWarnings(t *testing.T) {
	dir := t.TempDir()
	src := losslessCoS4 + tailCreds + `
switch "g" {
  platform = "gnmi"
  profile  = "sonic"
  address  = "192.0.2.1:9339"
  tls {
    plaintext = true
  }
}
switch "v" {
  platform = "gnmi"
  profile  = "sonic"
  address  = "192.0.2.2:9339"
  tls {
    insecure_skip_verify = true
  }
}
switch "n" {
  platform             = "nexus5000"
  address              = "192.0.2.3"
  credentials          = "c"
  insecure_skip_verify = true
}
switch "ok" {
  platform = "gnmi"
  profile  = "sonic"
  address  = "192.0.2.4:9339"
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, diags := Load(dir, LoadOptions{Getenv: noEnv})
	if diags.HasErrors() {
		t.Fatal(describeDiags(diags))
	}
	want := map[string]string{ // position -> start of the warning
		"main.hcl:16:5": "switch.g: gNMI WITHOUT TLS",
		"main.hcl:24:5": "switch.v: TLS certificate NOT verified",
		"main.hcl:31:3": "switch.n: SSH host key NOT verified",
	}
	got := map[string]string{}
	for _, d := range diags {
		if d.Summary == "Transport security off" {
			got[diagPos(d)] = d.Detail
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d transport warnings, want %d:\n%s", len(got), len(want), describeDiags(diags))
	}
	for pos, prefix := range want {
		if !strings.HasPrefix(got[pos], prefix) {
			t.Errorf("at %s: got %q, want it to start with %q", pos, got[pos], prefix)
		}
	}
	if ws := f.TransportWarnings(); len(ws) != 3 || !strings.HasPrefix(ws[0], "switch.g:") {
		t.Errorf("Fabric.TransportWarnings = %q", ws)
	}
}

// TestHostileNames: names that would reach a device or a path raw are
// refused at validate, per platform, at the attribute or block.
func TestHostileNames(t *testing.T) {
	long := strings.Repeat("E", 5000)
	gnmi := func(profile, ifc string) string {
		return "switch \"g\" {\n  platform = \"gnmi\"\n  profile = \"" + profile + "\"\n  address = \"192.0.2.1:9339\"\n  interfaces = [" + ifc + "]\n}\n" + losslessDSCP
	}
	tests := []struct {
		name, src, want, pos string
	}{
		{"sonic wildcard", gnmi("sonic", `"*"`), `interface name "*" holds a wildcard`, "main.hcl:5:3"},
		{"arista newline", gnmi("arista", `"Ether\nnet1"`), `control character`, "main.hcl:5:3"},
		{"arista trailing newline", gnmi("arista", `"Ethernet1\n"`), `control character`, "main.hcl:5:3"},
		{"srlinux nonexistent", gnmi("srlinux", `"Ethernet0"`), `is not a gnmi/srlinux port name`, "main.hcl:5:3"},
		{"sonic nonexistent", gnmi("sonic", `"eth0"`), `is not a gnmi/sonic port name`, "main.hcl:5:3"},
		{"openconfig 5000 chars", gnmi("srlinux", `"`+long+`"`), `longer than 64`, "main.hcl:5:3"},
		{"openconfig path injection", gnmi("sonic", `"Ethernet0]/config[x=y"`), `wildcard`, "main.hcl:5:3"},
		{"nexus command injection", "switch \"n\" {\n  platform = \"nexus5000\"\n  address = \"192.0.2.1\"\n  credentials = \"c\"\n  interfaces = [\"Ethernet1/1 ; reload\"]\n}\n" + losslessCoS4 + tailCreds, "is not an NX-OS Ethernet interface", "main.hcl:5:3"},
		{"nexus newline", "switch \"n\" {\n  platform = \"nexus5000\"\n  address = \"192.0.2.1\"\n  credentials = \"c\"\n  interfaces = [\"Ethernet1/1\\nreload\"]\n}\n" + losslessCoS4 + tailCreds, "control character", "main.hcl:5:3"},
		{"host name with a newline", "host \"h\" {\n  for_each = toset([\"ok\\nswitch.x\"])\n  local = true\n  nic \"eth0\" {\n    vlan = 10\n  }\n}\n" + losslessCoS4, "Invalid host name", "main.hcl:1:1"},
		{"netdev escaping sysfs", "host \"h\" {\n  local = true\n  nic \"../../etc\" {\n    vlan = 10\n  }\n}\n" + losslessCoS4, "holds '/', ':'", "main.hcl:3:3"},
		{"VLAN device too long", "host \"h\" {\n  local = true\n  nic \"ens1f0np0abc\" {\n    vlan = 1000\n  }\n}\n" + losslessCoS4, "VLAN device name too long", "main.hcl:4:5"},
		{"rdma device", "host \"h\" {\n  local = true\n  nic \"eth0\" {\n    rdma_device = \"mlx5_0/../x\"\n  }\n}\n" + losslessCoS4, "would not be a single /sys path element", "main.hcl:4:5"},
		{"class name", "lossless \"ro ce\" {\n  cos = 4\n}\n" + tailAll, "Invalid class name", "main.hcl:1:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			f, src, diags := Load(dir, LoadOptions{Getenv: noEnv})
			if f != nil {
				t.Fatal("a hostile name loaded")
			}
			d := findDiag(diags, tc.want)
			if d == nil {
				t.Fatalf("no diagnostic contains %q; got:\n%s", tc.want, describeDiags(diags))
			}
			if diagPos(d) != tc.pos {
				t.Errorf("at %s, want %s", diagPos(d), tc.pos)
			}
			_ = src
			if strings.Contains(describeDiags(diags), long) {
				t.Error("the messages quote the whole 5,000-character name")
			}
		})
	}
}

const losslessDSCP = `
lossless "roce" {
  udp_port = 4791
  dscp     = [26]
  priority = 3
}
`
