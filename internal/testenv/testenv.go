// Package testenv decides what a test does when this machine lacks
// something the project's own Makefile provides (`make deps-test` installs
// perftest, xmllint, ssh, gcc and the kernel headers; CI runs as root). On a developer machine the test skips and
// says what to install. Under CI (CI set in the environment) it fails
// instead: there a missing tool means the install step broke, and a skip
// would hide that.
//
// Skips for what the kernel itself refuses ("operation not supported") do
// not belong here: those are facts about the kernel, not install steps.
package testenv

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// InCI reports whether the tests run in CI.
func InCI() bool { return os.Getenv("CI") != "" }

// missing skips locally and fails in CI.
func missing(t testing.TB, msg string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s — CI must provide it (see `make deps-test`)", msg)
	}
	t.Skip(msg)
}

// Tool returns the path of a program the tests need; install says how to
// get it.
func Tool(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, name+" not installed ("+install+")")
	}
	return p
}

// File requires a file the tests read (a header, reference material).
func File(t testing.TB, path, install string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		missing(t, path+" not present ("+install+"): "+err.Error())
	}
}

// Root requires root (network namespaces, netlink changes).
func Root(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		missing(t, "needs root: "+why)
	}
}

// Netns creates a network namespace named prefix-<8 random hex digits>,
// removed when the test ends, and returns its name with a runner for
// `ip ARGS...` that fails the test on error (links are added with
// ip("-n", name, "link", "add", ...)). Needs root.
func Netns(t testing.TB, prefix string) (name string, ip func(args ...string)) {
	t.Helper()
	Root(t, "network namespaces")
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name = prefix + "-" + hex.EncodeToString(b)
	ip = func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ip("netns", "add", name)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", name).Run() })
	return name, ip
}
