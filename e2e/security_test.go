package e2e

// The security suite of issue 14, run against the real binaries: a policy
// written by an attacker (a pull request's branch) tries to get a secret
// into any output, to run a program, to crash or hang roce, and to send
// hostile names to a device. Every attempt must end in an error naming
// file:line, with the secret nowhere in stdout, stderr, -json, -markdown,
// JUnit, a saved plan or a debug log.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// secretMarker is put in the environment and in files; no output may hold
// it in any encoding.
const secretMarker = "Qv7-EXFIL-marker-91x"

func markerForms() []string {
	return []string{
		secretMarker,
		base64.StdEncoding.EncodeToString([]byte(secretMarker)),
		base64.RawURLEncoding.EncodeToString([]byte(secretMarker)),
		hex.EncodeToString([]byte(secretMarker)),
	}
}

const secLossless = `
lossless "roce" {
  cos = 4
}
credentials "sw" {
  username     = "admin"
  password_env = "NEXUS_PASSWORD"
}
`

// secRun runs a binary with the marker in its environment (and nothing
// from the lab), returning what it printed.
func secRun(t *testing.T, env []string, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, name), args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "ROCE_SECRET="+secretMarker, "NEXUS_PASSWORD="+secretMarker, "HOME_SECRET="+secretMarker)
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", name, err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

func writePolicyDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestExfiltration tries every function and attribute that could carry a
// secret out, through every output of every command.
func TestExfiltration(t *testing.T) {
	attempts := []struct {
		name  string
		files map[string]string
		want  string // in stderr: the refusal, with file:line
	}{
		{"env in an address", map[string]string{"main.hcl": secLossless + `
switch "s" {
  platform    = "nexus5000"
  address     = "${env("ROCE_SECRET")}.example"
  credentials = "sw"
}
`}, "main.hcl line 12"},
		{"credentials variable in a for_each key", map[string]string{"main.hcl": secLossless + `
switch "s" {
  for_each    = toset([env("NEXUS_PASSWORD")])
  platform    = "nexus5000"
  address     = "192.0.2.1"
  credentials = "sw"
}
`}, "Sensitive value in for_each"},
		{"password file into an interface list", map[string]string{"pw": secretMarker + "\n", "main.hcl": `
lossless "roce" {
  cos = 4
}
credentials "f" {
  username      = "admin"
  password_file = "pw"
}
switch "s" {
  platform    = "nexus5000"
  address     = "192.0.2.1"
  credentials = "f"
  interfaces  = [trimspace(file("pw"))]
}
`}, "Sensitive value in interfaces"},
		{"sensitive variable from ROCE_VAR_ in a VDC", map[string]string{"main.hcl": secLossless + `
variable "v" {
  type      = string
  sensitive = true
}
switch "s" {
  platform    = "nexus7000"
  address     = "192.0.2.1"
  credentials = "sw"
  vdc         = var.v
}
`}, "Sensitive value in vdc"},
		{"function error quoting the secret", map[string]string{"main.hcl": secLossless + `
locals {
  n = tonumber(env("ROCE_SECRET"))
}
`}, "tonumber() failed on a sensitive argument"},
		{"regex error quoting the secret", map[string]string{"main.hcl": secLossless + `
locals {
  n = regex("(", env("ROCE_SECRET"))
}
`}, "main.hcl line"},
		{"env of a variable no credentials block names", map[string]string{"main.hcl": secLossless + `
locals {
  n = env("HOME_SECRET")
}
`}, "may read only environment variables whose names start with ROCE_"},
		{"the process environment", map[string]string{"main.hcl": secLossless + `
locals {
  n = file("/proc/self/environ")
}
`}, "outside the policy directory"},
		{"a symlink out of the policy directory", map[string]string{"main.hcl": secLossless + `
locals {
  n = file("link")
}
`}, "outside the policy directory"},
		{"literal password", map[string]string{"main.hcl": `
lossless "roce" {
  cos = 4
}
credentials "sw" {
  username = "admin"
  password = "` + secretMarker + `"
}
`}, "Literal password in policy"},
	}
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte(secretMarker), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, a := range attempts {
		t.Run(a.name, func(t *testing.T) {
			dir := writePolicyDir(t, a.files)
			if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			env := []string{"ROCE_VAR_v=" + secretMarker}
			runs := []struct {
				bin  string
				args []string
			}{
				{"roce-plan", []string{"validate", dir}}, // validate logs nothing: it has no -log-level
				{"roce-plan", []string{"-log-level", "debug", "-out", filepath.Join(out, "plan.roce"), dir}},
				{"roce-plan", []string{"-json", "-log-level", "debug", "-log-format", "json", dir}},
				{"roce-plan", []string{"-markdown", dir}},
				{"roce-apply", []string{"-log-level", "debug", dir}},
				{"roce-verify", []string{"-format", "json", "-log-level", "debug", dir}},
				{"roce-verify", []string{"-format", "junit", "-out", filepath.Join(out, "report.xml"), dir}},
				{"roce-verify", []string{"-format", "markdown", dir}},
			}
			var all strings.Builder
			for _, r := range runs {
				res := secRun(t, env, r.bin, r.args...)
				if res.code == 0 {
					t.Errorf("%s %v accepted the policy:\n%s", r.bin, r.args, res)
				}
				if !strings.Contains(res.stderr, a.want) {
					t.Errorf("%s %v: stderr lacks %q:\n%s", r.bin, r.args, a.want, res.stderr)
				}
				all.WriteString(res.stdout + res.stderr)
			}
			entries, _ := os.ReadDir(out)
			for _, e := range entries {
				b, _ := os.ReadFile(filepath.Join(out, e.Name()))
				all.Write(b)
			}
			for _, f := range markerForms() {
				if strings.Contains(all.String(), f) {
					t.Fatalf("an output holds the secret (as %q):\n%s", f, all.String())
				}
			}
		})
	}
}

// TestProbeCommandRefused: a policy cannot name a program to run, neither
// on the hosts nor here.
func TestProbeCommandRefused(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	dir := writePolicyDir(t, map[string]string{"main.hcl": secLossless + `
probe {
  threshold_gbps = 1
  command        = ["sh", "-c", "touch ` + ran + `"]
}
`})
	for _, args := range [][]string{
		{"-local-probes", "-allow-this-machine", dir},
		{dir},
	} {
		res := secRun(t, nil, "roce-verify", args...)
		if res.code != 1 || !strings.Contains(res.stderr, "Probe command not allowed") || !strings.Contains(res.stderr, "main.hcl line 12") {
			t.Errorf("roce-verify %v: want exit 1 refusing the command at main.hcl line 12:\n%s", args, res)
		}
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the policy's probe command ran")
	}
	res := secRun(t, []string{"CI=true"}, "roce-verify", "-local-probes", dir)
	if res.code != 1 || !strings.Contains(res.stderr, "refused without -allow-this-machine") {
		t.Errorf("-local-probes without consent in CI: want a refusal:\n%s", res)
	}
}

// TestTransportWarnings: plaintext gNMI written in the policy is warned
// about on validate and in the plan (text and JSON), naming the switch;
// from the environment alone it is refused.
func TestTransportWarnings(t *testing.T) {
	policy := `
lossless "roce" {
  udp_port = 4791
  dscp     = [26]
  priority = 3
}
variable "plain" {
  type    = bool
  default = false
}
switch "g1" {
  platform   = "gnmi"
  profile    = "sonic"
  address    = "127.0.0.1:1"
  interfaces = ["Ethernet0"]
  tls {
    plaintext = %s
  }
}
`
	dir := writePolicyDir(t, map[string]string{"main.hcl": fmt.Sprintf(policy, "true")})
	res := secRun(t, nil, "roce-plan", "validate", dir)
	if res.code != 0 || !strings.Contains(res.stderr, "switch.g1: gNMI WITHOUT TLS") {
		t.Errorf("validate: want success with a warning naming switch.g1:\n%s", res)
	}
	res = secRun(t, nil, "roce-plan", "-json", "-timeout", "10s", dir)
	if !strings.Contains(res.stdout, `switch.g1: gNMI WITHOUT TLS`) || !strings.Contains(res.stderr, "switch.g1: gNMI WITHOUT TLS") {
		t.Errorf("plan -json: want the warning in the JSON and on stderr:\n%s", res)
	}

	dir = writePolicyDir(t, map[string]string{"main.hcl": fmt.Sprintf(policy, "var.plain")})
	res = secRun(t, []string{"ROCE_VAR_plain=true"}, "roce-plan", "validate", dir)
	if res.code != 1 || !strings.Contains(res.stderr, "can't be switched on from the environment") || !strings.Contains(res.stderr, "main.hcl line 17") {
		t.Errorf("plaintext from ROCE_VAR_: want a refusal at main.hcl line 17:\n%s", res)
	}
}

// TestHostileInput: inputs that crashed or hung roce get a clear error.
func TestHostileInput(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"200 KB of brackets", "locals {\n  x = " + strings.Repeat("[", 200_000) + "\n}\n", "nested too deeply"},
		{"200 KB of negations", "locals {\n  x = " + strings.Repeat("!", 200_000) + "true\n}\n", "operators in a row"},
		{"gNMI interface wildcard", `
lossless "roce" {
  udp_port = 4791
  dscp     = [26]
  priority = 3
}
switch "g" {
  platform   = "gnmi"
  profile    = "sonic"
  address    = "127.0.0.1:1"
  interfaces = ["*"]
}
`, `interface name "*" holds a wildcard`},
		{"gNMI interface of 5,000 characters", `
lossless "roce" {
  udp_port = 4791
  dscp     = [26]
  priority = 3
}
switch "g" {
  platform   = "gnmi"
  profile    = "srlinux"
  address    = "127.0.0.1:1"
  interfaces = ["` + strings.Repeat("e", 5000) + `"]
}
`, "longer than 64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writePolicyDir(t, map[string]string{"main.hcl": tc.src})
			for _, args := range [][]string{{"validate", dir}, {dir}} {
				res := secRun(t, nil, "roce-plan", args...)
				if res.code != 1 || !strings.Contains(res.stderr, tc.want) || strings.Contains(res.stderr, "goroutine ") {
					t.Errorf("roce-plan %v: want exit 1 with %q:\n%.3000s", args[:len(args)-1], tc.want, res.String())
				}
			}
		})
	}
}

// TestSIGTERMDuringEvaluation: a signal while a large policy is being
// evaluated stops roce-plan promptly with "Interrupted" (a real process,
// a real signal).
func TestSIGTERMDuringEvaluation(t *testing.T) {
	var src strings.Builder
	src.WriteString("locals {\n  l0 = 0\n")
	for i := 1; i < 200_000; i++ {
		fmt.Fprintf(&src, "  l%d = local.l%d + 1\n", i, i-1)
	}
	src.WriteString("}\n" + secLossless)
	dir := writePolicyDir(t, map[string]string{"main.hcl": src.String()})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(filepath.Join(binDir, "roce-plan"), "validate", dir)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Loading 200,000 locals takes seconds; the signal lands while
			// the policy is parsed or evaluated.
			time.Sleep(500 * time.Millisecond)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("want exit 1 after %v, got %v\n%s", sig, err, errb.String())
			}
			if !strings.Contains(errb.String(), "Interrupted") {
				t.Errorf("stderr does not say the load was interrupted:\n%s", errb.String())
			}
		})
	}
}

// TestSecretsInAValidPolicy: a policy that uses secrets the right way (a
// sensitive variable and env() feeding a credentials block) plans, saves,
// renders and applies (against an unreachable switch) without the secret
// in any output.
func TestSecretsInAValidPolicy(t *testing.T) {
	dir := writePolicyDir(t, map[string]string{"main.hcl": `
lossless "roce" {
  udp_port = 4791
  dscp     = [26]
  priority = 3
}
variable "user" {
  type      = string
  sensitive = true
}
credentials "g" {
  username     = var.user
  password_env = "NEXUS_PASSWORD"
}
switch "g1" {
  platform    = "gnmi"
  profile     = "sonic"
  address     = "127.0.0.1:1"
  credentials = "g"
  interfaces  = ["Ethernet0"]
}
`})
	out := t.TempDir()
	planFile := filepath.Join(out, "plan.roce")
	env := []string{"ROCE_VAR_user=" + secretMarker}
	var all strings.Builder
	for _, r := range []struct {
		bin  string
		args []string
	}{
		{"roce-plan", []string{"validate", dir}}, // validate logs nothing: it has no -log-level
		{"roce-plan", []string{"-log-level", "debug", "-timeout", "5s", "-allow-partial", "-out", planFile, dir}},
		{"roce-plan", []string{"-json", "-timeout", "5s", dir}},
		{"roce-plan", []string{"-markdown", "-timeout", "5s", dir}},
		{"roce-apply", []string{"-log-level", "debug", "-log-format", "json", "-timeout", "5s", "-auto-approve", planFile}},
		{"roce-verify", []string{"-format", "json", "-timeout", "5s", dir}},
	} {
		res := secRun(t, env, r.bin, r.args...)
		all.WriteString(res.stdout + res.stderr)
	}
	if b, err := os.ReadFile(planFile); err == nil {
		all.Write(b)
	} else {
		t.Errorf("the plan was not saved: %v\n%s", err, all.String())
	}
	if !strings.Contains(all.String(), "switch.g1") {
		t.Fatalf("the outputs never mention the switch; the runs did not get far enough:\n%s", all.String())
	}
	for _, f := range markerForms() {
		if strings.Contains(all.String(), f) {
			t.Fatalf("an output holds the secret (as %q):\n%s", f, all.String())
		}
	}
}
