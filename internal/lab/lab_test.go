package lab

import (
	"github.com/rocefabric/roce/internal/testenv"

	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/policies"
)

// copyLab copies examples/lab (without any running lab's state) to a temp dir.
func copyLab(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "..", "examples", "lab")
	dst := filepath.Join(t.TempDir(), "lab")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if rel == StateDir || rel == ".roce" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func loadWithVars(t *testing.T, l *Lab) *policies.Fabric {
	t.Helper()
	fab, src, diags := policies.Load(l.Dir, policies.LoadOptions{VarFiles: []string{l.VarFile()}, Getenv: func(string) (string, bool) { return "", false }})
	if diags.HasErrors() {
		var b strings.Builder
		_ = src.WriteDiagnostics(&b, diags, false)
		t.Fatalf("the lab policy with its inventory does not load:\n%s", b.String())
	}
	return fab
}

// Without namespaces (no root) the hosts are simulated: present in the
// policy, no namespace, and their root marks every link as emulated, so
// nothing can reach this machine's own interfaces.
func TestUpWithoutNamespacesSimulatesHosts(t *testing.T) {
	dir := copyLab(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := Up(ctx, dir, Options{Hosts: false})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	fab := loadWithVars(t, l)
	if len(fab.Hosts) != 4 {
		t.Fatalf("want the 4 lab hosts as simulated hosts, got %d", len(fab.Hosts))
	}
	for _, h := range fab.Hosts {
		if h.Netns != "" {
			t.Errorf("host %s has namespace %q without root", h.Name, h.Netns)
		}
		if !nics.IsEmulatedLinks(h.Root) {
			t.Errorf("host %s: root %s is not marked as fully emulated", h.Name, h.Root)
		}
		if ns := nics.LabNetns(h.Root); ns != "" {
			t.Errorf("host %s: a simulated host's tree names namespace %q", h.Name, ns)
		}
	}
	if len(fab.Switches) != 5 || len(l.Switches) != 5 {
		t.Fatalf("want 5 switches in the policy and the lab, got %d and %d", len(fab.Switches), len(l.Switches))
	}
	for _, sw := range fab.Switches {
		if sw.Address != l.Switches[sw.Name] {
			t.Errorf("switch %s: policy address %q, lab listens on %q", sw.Name, sw.Address, l.Switches[sw.Name])
		}
	}
	var b strings.Builder
	l.Describe(&b)
	if strings.Count(b.String(), "SIMULATED host") != 4 {
		t.Errorf("Describe does not label the simulated hosts:\n%s", b.String())
	}
	st, err := ReadState(dir)
	if err != nil || !st.Ready || !strings.HasPrefix(st.Hosts, "simulated") {
		t.Fatalf("state = %+v, %v", st, err)
	}
	root := fab.Hosts[0].Root
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.VarFile()); !os.IsNotExist(err) {
		t.Errorf("inventory still there after Close: %v", err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("host tree %s still there after Close: a stale lab marker could be mistaken for a live lab host", root)
	}
}

// Without roce-lab's inventory the lab policy has no hosts at all, so it
// can never be pointed at this machine's own namespace by accident.
func TestLabPolicyHasNoHostsWithoutTheLab(t *testing.T) {
	fab, _, diags := policies.Load(copyLab(t), policies.LoadOptions{Getenv: func(string) (string, bool) { return "", false }})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(fab.Hosts) != 0 {
		t.Fatalf("the lab policy declares %d hosts without a running lab", len(fab.Hosts))
	}
}

// With root, every host is a namespace wired to the lab bridge, seeded as a
// lab host; Close removes the namespaces.
func TestUpWithHostNamespaces(t *testing.T) {
	testenv.Root(t, "network namespaces")
	dir := copyLab(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := Up(ctx, dir, Options{Hosts: true})
	if err != nil {
		t.Fatal(err)
	}
	fab := loadWithVars(t, l)
	if len(fab.Hosts) != 4 {
		t.Fatalf("want 4 lab hosts, got %d", len(fab.Hosts))
	}
	for _, h := range fab.Hosts {
		if h.Netns == "" || h.Netns != l.Netns[h.Name] {
			t.Errorf("host %s: netns %q, lab made %q", h.Name, h.Netns, l.Netns[h.Name])
		}
		out, err := exec.Command("ip", "-n", h.Netns, "-o", "link", "show", "eth0").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "eth0") {
			t.Errorf("host %s: eth0 missing in %s: %v %s", h.Name, h.Netns, err, out)
		}
		if _, err := os.Stat(filepath.Join(h.Root, ".roce-lab")); err != nil {
			t.Errorf("host %s: root not seeded as a lab host: %v", h.Name, err)
		}
		// The tree names its namespace: its agent acts there and nowhere else.
		if got := nics.LabNetns(h.Root); got != l.Netns[h.Name] {
			t.Errorf("host %s: tree names namespace %q, lab made %q", h.Name, got, l.Netns[h.Name])
		}
		if err := nics.CheckLabNetns(h.Root, nics.HostNetns{}); err == nil || !strings.Contains(err.Error(), "runs in another one") {
			t.Errorf("host %s: its tree is usable outside its namespace: %v", h.Name, err)
		}
	}
	// Leave state behind in a host tree, as an earlier lab's apply would.
	stale := filepath.Join(fab.Hosts[0].Root, "stale-from-last-lab")
	if err := os.WriteFile(stale, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	namespaces := l.Netns
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command("ip", "netns", "list").CombinedOutput()
	for _, ns := range namespaces {
		if strings.Contains(string(out), ns) {
			t.Errorf("namespace %s left after Close", ns)
		}
	}
	// The next lab starts with fresh hosts.
	l2, err := Up(ctx, dir, Options{Hosts: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("a new lab reused the previous lab's host tree (%v)", err)
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		path, dir string
		want      bool
	}{
		{"/a/.lab/hosts/h1", "/a/.lab", true},
		{"/a/.lab", "/a/.lab", false},
		{"/a/.lab/../etc", "/a/.lab", false},
		{"/etc", "/a/.lab", false},
		{"/a/.labx/h", "/a/.lab", false},
	} {
		if got := within(tc.path, tc.dir); got != tc.want {
			t.Errorf("within(%q, %q) = %v, want %v", tc.path, tc.dir, got, tc.want)
		}
	}
}

func TestUpRefusesAnInvalidLabPolicy(t *testing.T) {
	dir := copyLab(t)
	if err := os.WriteFile(filepath.Join(dir, "broken.hcl"), []byte("switch \"x\" {\n  platform = \"nexus9000\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Up(context.Background(), dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "broken.hcl") {
		t.Fatalf("want an error naming broken.hcl, got %v", err)
	}
}
