package main

import (
	"github.com/rocefabric/roce/internal/testenv"

	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/internal/cli"
	"github.com/rocefabric/roce/verify"
)

// Through the real host provider and a freshly built roce-agent (local
// hosts with an empty root, i.e. no RDMA sysfs): the probe goes through the
// agent's probe operation and the report says the host has no RDMA device.
func TestCLIThroughRealAgentNoDevice(t *testing.T) {
	if testing.Short() {
		t.Skip("builds roce-agent")
	}
	goBin := testenv.Tool(t, "go", "the Go toolchain")
	agent := filepath.Join(t.TempDir(), "roce-agent")
	build := exec.Command(goBin, "build", "-o", agent, "../roce-agent")
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building roce-agent: %v\n%s", err, out)
	}
	t.Setenv("ROCE_AGENT", agent)

	dir := writePolicy(t, "30")
	for _, h := range []string{"a", "b"} {
		// An empty host root: the agent finds no RDMA device under it.
		if err := os.MkdirAll(filepath.Join(dir, "root-"+h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pol, _ := os.ReadFile(filepath.Join(dir, "main.hcl"))
	pol = bytes.Replace(pol, []byte("local  = true\n  switch = \"leaf1\""), []byte("local  = true\n  root   = \"root-a\"\n  switch = \"leaf1\""), 1)
	pol = bytes.Replace(pol, []byte("local  = true\n  switch = \"leaf2\""), []byte("local  = true\n  root   = \"root-b\"\n  switch = \"leaf2\""), 1)
	// gid_index unset: the agent must resolve it from the (missing) GID table.
	pol = bytes.ReplaceAll(pol, []byte("gid_index   = 3\n"), nil)
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), pol, 0o644); err != nil {
		t.Fatal(err)
	}

	reg := cli.Registry()
	reg.Switches = testRegistry("").Switches // switches are not under test here
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"-timeout", "30s", dir}, &out, &errb, reg)
	if code != verify.ExitError {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"no-device on host.a", "has no RDMA device mlx5_0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
