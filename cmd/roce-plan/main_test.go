package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	bad := badPolicy(t)
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

// With -json, a run that stops before it has a plan still prints one JSON
// document on stdout (format 2, kind roce-plan-error, errors with file and
// line where there is one) and exits 1 as without -json; the human
// message stays on stderr, and no secret is in either.
func TestJSONOnEarlyFailure(t *testing.T) {
	bad := badPolicy(t)
	good := "../../examples/cos"
	tests := []struct {
		name   string
		args   []string
		file   string // the first problem's file, "" for none
		line   int
		errHas string // in the document's error
		stderr string
	}{
		{"bad policy", []string{"-json", bad}, filepath.Join(bad, "fabric.hcl"), 8, "the policy in " + bad + " did not load", "fabric.hcl line 8"},
		{"bad flag", []string{"-json", "-bogus", good}, "", 0, "flag provided but not defined: -bogus", "-bogus"},
		{"bad flag before -json", []string{"-bogus", "-json", good}, "", 0, "-bogus", "-bogus"},
		{"unreadable var file", []string{"-json", "-var-file", filepath.Join(bad, "missing.vars"), good}, "", 0, "did not load", "missing.vars"},
		{"-json with -markdown", []string{"-json", "-markdown", good}, "", 0, "exclusive", "exclusive"},
		{"bad log level", []string{"-json", "-log-level", "loud", good}, "", 0, "-log-level", "-log-level"},
		{"unknown -target", []string{"-json", "-target", "switch.nope", good}, "", 0, "switch.nope", "switch.nope"},
		{"two directories", []string{"-json", good, good}, "", 0, "at most one policy directory", "at most one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runPlan(t, tc.args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errs)
			}
			var doc struct {
				FormatVersion int    `json:"format_version"`
				Kind          string `json:"kind"`
				Error         string `json:"error"`
				Errors        []plan.Problem
				Targets       any `json:"targets"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
			}
			if doc.FormatVersion != 2 || doc.Kind != plan.FailureKindPlan || doc.Targets != nil || len(doc.Errors) == 0 {
				t.Fatalf("want format 2, kind %s, errors and no plan:\n%s", plan.FailureKindPlan, out)
			}
			if !strings.Contains(doc.Error, tc.errHas) {
				t.Errorf("error %q lacks %q", doc.Error, tc.errHas)
			}
			if p := doc.Errors[0]; p.File != tc.file || p.Line != tc.line || p.Message == "" {
				t.Errorf("first problem %+v, want file %q line %d and a message", p, tc.file, tc.line)
			}
			if !strings.Contains(errs, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, errs)
			}
			if strings.Contains(out+errs, "hunter2") {
				t.Errorf("a secret is printed:\n%s\n%s", out, errs)
			}
		})
	}
	// Without -json stdout stays empty.
	if code, out, _ := runPlan(t, bad); code != 1 || out != "" {
		t.Errorf("without -json: exit %d, stdout %q", code, out)
	}
}

// badPolicy is a policy directory whose fabric.hcl has an error at line 8
// (a password written into the file) and the secret hunter2.
func badPolicy(t *testing.T) string {
	t.Helper()
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
	return bad
}
