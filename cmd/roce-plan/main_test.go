package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
)

func runPlan(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValidate(t *testing.T) {
	bad := t.TempDir()
	write(t, bad, "fabric.hcl", `lossless "roce" {
  udp_port = 4791
  priority = 3
}

credentials "sw" {
  username = "admin"
  password = "hunter2"
}
`)
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string
		stderr   []string
		noStderr []string
	}{
		{"valid example", []string{"validate", "../../examples/cos"}, 0,
			[]string{"is valid", "lossless class"}, nil, nil},
		{"errors print HCL diagnostics with source and caret", []string{"validate", bad}, 1, nil,
			// The snippet shows the line with the value masked, never the password.
			[]string{"Error: ", "fabric.hcl line 8", `password = *********`, "^", "password_env"}, []string{"hunter2"}},
		{"too many directories", []string{"validate", "a", "b"}, 1, nil, []string{"at most one policy directory"}, nil},
		{"missing directory", []string{"validate", filepath.Join(bad, "nope")}, 1, nil, []string{"nope"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runPlan(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errs)
			}
			for _, w := range tc.stdout {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			for _, w := range tc.noStderr {
				if strings.Contains(errs, w) {
					t.Errorf("stderr shows %q:\n%s", w, errs)
				}
			}
		})
	}
}

func TestFmt(t *testing.T) {
	dir := t.TempDir()
	messy := "lossless \"roce\" {\n  cos=[3]\n    mtu =   9216\n}\n"
	p := write(t, dir, "main.hcl", messy)

	code, out, errs := runPlan(t, "fmt", "-check", dir)
	if code != 1 || !strings.Contains(out, "main.hcl") || !strings.Contains(errs, "not in canonical form") {
		t.Fatalf("fmt -check on a messy file: exit %d\n%s\n%s", code, out, errs)
	}
	if b, _ := os.ReadFile(p); string(b) != messy {
		t.Fatal("fmt -check changed the file")
	}
	if code, out, errs = runPlan(t, "fmt", dir); code != 0 {
		t.Fatalf("fmt: exit %d\n%s\n%s", code, out, errs)
	}
	b, _ := os.ReadFile(p)
	if !strings.Contains(string(b), "cos = [3]") || !strings.Contains(string(b), "mtu = 9216") {
		t.Fatalf("fmt did not canonicalise:\n%s", b)
	}
	if code, out, errs = runPlan(t, "fmt", "-check", dir); code != 0 || out != "" {
		t.Fatalf("fmt -check after fmt: exit %d\n%s\n%s", code, out, errs)
	}
}

func TestPlanFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-json", "-markdown", "."}, "exclusive"},
		{[]string{"-no-such-flag"}, "flag provided but not defined"},
		{[]string{"-log-level", "loud", "../../examples/cos"}, "-log-level"},
		{[]string{"-target", "leaf1", "../../examples/cos"}, "switch.NAME or host.NAME"},
	}
	for _, tc := range tests {
		code, _, errs := runPlan(t, tc.args...)
		if code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant it to contain %q", tc.args, code, errs, tc.want)
		}
	}
	if code, _, errs := runPlan(t, "-h"); code != 0 || !strings.Contains(errs, "detailed-exitcode") {
		t.Errorf("-h: exit %d\n%s", code, errs)
	}
}

// An interrupted apply in the policy's journal stops roce-plan (exit 1)
// with the target, its state and the command that recovers it.
func TestPlanRefusesWhileAnApplyIsInterrupted(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "fabric.hcl", "lossless \"roce\" {\n  udp_port = 4791\n  priority = 3\n}\n")
	j, err := plan.CreateJournal(plan.JournalDir(plan.DefaultLockPath(dir)), "roce-apply test")
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Begin(&plan.TargetPlan{Address: "switch.leaf9", Kind: "nexus7000"}); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runPlan(t, dir)
	if code != 1 || out != "" || !strings.Contains(errs, "switch.leaf9 (nexus7000)") || !strings.Contains(errs, "never finished") || !strings.Contains(errs, "roce-apply -recover "+dir) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	// The journal beside a -lock-file is the one read.
	lock := filepath.Join(t.TempDir(), "shared", "apply.lock")
	if code, _, errs := runPlan(t, "-lock-file", lock, dir); code != 0 {
		t.Fatalf("another lock file has another (empty) journal: exit %d\n%s", code, errs)
	}
}

// A target that cannot be read is reported once, in the plan, not a second
// time as a log line at the default log level.
func TestUnreadableTargetReportedOnce(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "fabric.hcl", `lossless "roce" {
  udp_port = 4791
  priority = 3
}

credentials "sw" {
  username     = "admin"
  password_env = "ROCE_TEST_UNREADABLE_PASSWORD"
}

switch "leaf1" {
  platform        = "nexus5000"
  address         = "127.0.0.1:1"
  credentials     = "sw"
  insecure_skip_verify = true
  interfaces      = ["Ethernet1/1"]
}
`)
	t.Setenv("ROCE_TEST_UNREADABLE_PASSWORD", "x")
	code, out, errs := runPlan(t, "-connect-timeout", "5s", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	all := out + errs
	if n := strings.Count(all, "connection refused"); n != 1 {
		t.Fatalf("the read error is printed %d times, want once\nstdout:\n%s\nstderr:\n%s", n, out, errs)
	}
	// The transport warning: once at validation, once in the plan, no log line.
	if n := strings.Count(all, "SSH host key NOT verified"); n != 2 || strings.Contains(errs, "level=WARN") {
		t.Fatalf("the host-key warning is printed %d times (want 2, no log line)\nstdout:\n%s\nstderr:\n%s", n, out, errs)
	}
	if !strings.Contains(errs, "roce-plan: switch.leaf1: unreadable") {
		t.Fatalf("no progress line off a terminal\nstderr:\n%s", errs)
	}
}
