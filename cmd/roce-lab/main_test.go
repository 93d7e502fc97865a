package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Every command answers -h with what it does and examples, exit 0, and
// "roce-lab -version" names the program and its build.
func TestHelpAndVersion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-h"}, []string{"Usage:", "Examples:", "roce-lab status", "Exit codes"}},
		{[]string{"help", "down"}, []string{"Usage: roce-lab down", "Examples:"}},
		{[]string{"up", "-h"}, []string{"Usage: roce-lab up", "Examples:", "-log-level"}},
		{[]string{"down", "-h"}, []string{"Usage: roce-lab down", "Examples:", "roce-lab down examples/lab"}},
		{[]string{"status", "-h"}, []string{"Usage: roce-lab status", "Examples:", "-json"}},
		{[]string{"upgrade", "-h"}, []string{"Usage: roce-lab upgrade", "Examples:", "-lab"}},
		{[]string{"nxos", "-h"}, []string{"Examples:", "-platform", "-listen"}},
		{[]string{"gnmi", "-h"}, []string{"Examples:", "-profile", "-tls-dir"}},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), tc.args, &out, &errb)
		if code != 0 {
			t.Errorf("roce-lab %v: exit %d\n%s", tc.args, code, errb.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("roce-lab %v: help lacks %q:\n%s", tc.args, w, errb.String())
			}
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-version"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "roce-lab ") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("roce-lab -version: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// status without a lab says so (text) or fails naming the next step (-json).
func TestStatusWithoutLab(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"status", dir}, &out, &errb); code != 0 || !strings.Contains(out.String(), "No lab runs from") {
		t.Errorf("status: exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), []string{"status", "-json", dir}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "roce-lab up -d") || out.Len() != 0 {
		t.Errorf("status -json: exit %d\n%s%s", code, out.String(), errb.String())
	}
}

// The simulators' -version is roce-lab's build version, as on every
// binary; the simulated OS release is -os-version, and the old use of
// -version with a release says so instead of starting a simulator.
func TestSimulatorVersionFlags(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"nxos", "-version"}, 0, "roce-lab ", ""},
		{[]string{"gnmi", "--version"}, 0, "roce-lab ", ""},
		{[]string{"nxos", "-platform", "nexus7000", "-version", "5.1(3)"}, 1, "", "the simulated OS version is -os-version 5.1(3)"},
		{[]string{"gnmi", "-version=4.36.1F"}, 1, "", "the simulated OS version is -os-version 4.36.1F"},
		{[]string{"nxos", "-h"}, 0, "", "-os-version"},
		{[]string{"gnmi", "-h"}, 0, "", "-os-version"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), tc.args, &out, &errb)
		if code != tc.code || !strings.HasPrefix(out.String(), tc.stdout) || !strings.Contains(errb.String(), tc.stderr) {
			t.Errorf("roce-lab %v: exit %d (want %d), stdout %q (want prefix %q), stderr %q (want %q)", tc.args, code, tc.code, out.String(), tc.stdout, errb.String(), tc.stderr)
		}
		if tc.stdout != "" && strings.Count(out.String(), "\n") != 1 {
			t.Errorf("roce-lab %v: want one line, got %q", tc.args, out.String())
		}
	}
}
