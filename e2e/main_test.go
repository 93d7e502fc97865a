// Package e2e drives the real binaries (roce-plan, roce-apply, roce-verify,
// roce-agent) against the lab fabric — NX-OS simulators over SSH, gNMI
// targets over gRPC/TLS, hosts in network namespaces — exactly as a user
// would from a shell.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/internal/lab"
)

var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "roce-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	repo := repoRoot()
	build := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "./cmd/...")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the binaries: %v\n%s", err, out)
		os.Exit(1)
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	os.Setenv("ROCE_AGENT", filepath.Join(dir, "roce-agent"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// startLab copies examples/lab to a temporary directory and starts it
// in-process, so the test can reach into the simulators to inject faults.
func startLab(t *testing.T) *lab.Lab {
	t.Helper()
	dir := labCopy(t)
	ctx, cancel := context.WithCancel(context.Background())
	l, err := lab.Up(ctx, dir, lab.Options{Hosts: lab.IsRoot()})
	if err != nil {
		cancel()
		t.Fatalf("starting the lab: %v", err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("stopping the lab: %v", err)
		}
		cancel()
	})
	return l
}

type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// roce runs one of the binaries with the lab's variables file.
func roce(t *testing.T, l *lab.Lab, stdin string, name string, args ...string) result {
	t.Helper()
	return runBinary(t, "", stdin, name, append([]string{"-var-file", l.VarFile()}, args...)...)
}

// runInDir runs a roce binary in cwd with exactly args (no -var-file added).
func runInDir(t *testing.T, cwd, name string, args ...string) result {
	t.Helper()
	return runBinary(t, cwd, "", name, args...)
}

// runBinary runs bin/NAME with args in cwd ("" = this process's), stdin
// given, colour off, and a three-minute limit.
func runBinary(t *testing.T, cwd, stdin, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, name), args...)
	cmd.Dir = cwd
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", name, err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if strings.HasPrefix(rel, lab.StateDir) || strings.HasPrefix(rel, ".roce") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// labCopy copies examples/lab to a temporary directory and returns it.
func labCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lab")
	if err := copyTree(filepath.Join(repoRoot(), "examples", "lab"), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// repoRoot is the checkout's top directory (the parent of e2e/).
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}
