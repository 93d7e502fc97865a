package nics

import (
	"github.com/rocefabric/roce/internal/testenv"

	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/vishvananda/netns"
)

// newNetns creates a network namespace roce-t-<rand> holding a veth pair
// v0/v1 (both up) and removes it when the test ends. Needs root.
func newNetns(t *testing.T) string {
	t.Helper()
	name, run := testenv.Netns(t, "roce-t")
	run("-n", name, "link", "add", "v0", "type", "veth", "peer", "name", "v1")
	run("-n", name, "link", "set", "v0", "up")
	run("-n", name, "link", "set", "v1", "up")
	return name
}

// inNetns runs fn on a locked OS thread switched into the namespace. fn
// must not start goroutines that do netlink work.
func inNetns(t *testing.T, name string, fn func()) {
	t.Helper()
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		runtime.UnlockOSThread()
		t.Fatalf("netns.Get: %v", err)
	}
	defer orig.Close()
	ns, err := netns.GetFromName(name)
	if err != nil {
		runtime.UnlockOSThread()
		t.Fatalf("netns %s: %v", name, err)
	}
	defer ns.Close()
	if err := netns.Set(ns); err != nil {
		runtime.UnlockOSThread()
		t.Fatalf("enter netns %s: %v", name, err)
	}
	defer func() {
		// Only hand the thread back to the scheduler when it is back in
		// the original namespace; otherwise let it die with the goroutine.
		if err := netns.Set(orig); err == nil {
			runtime.UnlockOSThread()
		}
	}()
	fn()
}

// treeBytes maps every regular file under root (except the lab's emulated
// kernel state, compared semantically instead) to mode + content.
func treeBytes(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == filepath.FromSlash(labStateDir) {
				return filepath.SkipDir
			}
			m[rel+"/"] = "dir"
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m[rel] = info.Mode().String() + " " + string(b)
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}
	return m
}

func diffTrees(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			out = append(out, "removed "+k)
		} else if w != v {
			out = append(out, "changed "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "added "+k)
		}
	}
	return out
}
