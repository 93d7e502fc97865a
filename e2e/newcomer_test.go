package e2e

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/rocefabric/roce/nexus/nxsim"
)

// The newcomer's path (README → tutorial → examples) shows transcripts and
// output excerpts that no command block runs. These tests hold them to
// what the tools do.

// fencedBlocks returns the body of every ```lang block of doc whose body
// contains marker.
func fencedBlocks(t *testing.T, doc, lang, marker string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), doc))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```"+regexp.QuoteMeta(lang)+"\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		if strings.Contains(m[1], marker) {
			out = append(out, m[1])
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no ```%s block with %q", doc, lang, marker)
	}
	return out
}

// nxsimPrompt is a line of a switch session: the prompt (hostname and
// mode) and what follows it.
var nxsimPrompt = regexp.MustCompile(`^([A-Za-z0-9_-]+(?:\([a-z0-9-]+\))?)# ?(.*)$`)

// README.md, "Try a simulated Nexus by hand": the simulator the README
// starts takes the README's password, prints the fingerprint of the key
// ssh sees, and its session accepts every line of the README's transcript
// at the prompt (mode) the transcript shows; the class-map it creates is in
// the running config until the rollback removes it.
func TestNewcomerReadmeNexusSession(t *testing.T) {
	var start string
	for _, block := range fencedBlocks(t, "README.md", "sh", "roce-lab nxos") {
		for _, line := range strings.Split(block, "\n") {
			if strings.HasPrefix(line, "bin/roce-lab nxos ") {
				start = commandOnly(line)
			}
		}
	}
	if start == "" || !strings.Contains(start, "--listen 127.0.0.1:") {
		t.Fatalf("README.md: no `bin/roce-lab nxos ... --listen 127.0.0.1:PORT` line (%q)", start)
	}
	// The README's port may be taken here: the same command on a free one.
	args := strings.Fields(regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(start, "127.0.0.1:0"))[1:]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "roce-lab"), args...)
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "NXSIM_PASSWORD=") {
			env = append(env, e)
		}
	}
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// "listening on ADDR", then "host key TYPE SHA256:...".
	addr, fingerprint := "", ""
	sc := bufio.NewScanner(stdout)
	for (addr == "" || fingerprint == "") && sc.Scan() {
		line := sc.Text()
		if _, a, ok := strings.Cut(line, "listening on "); ok {
			addr = strings.TrimSpace(a)
		}
		if f := regexp.MustCompile(`^host key \S+ (SHA256:\S+)`).FindStringSubmatch(line); f != nil {
			fingerprint = f[1]
		}
	}
	if addr == "" || fingerprint == "" {
		t.Fatalf("%s did not print its address and host key fingerprint (address %q, fingerprint %q)", start, addr, fingerprint)
	}
	go func() { _, _ = bufio.NewReader(stdout).WriteTo(new(bytes.Buffer)) }()

	type step struct{ prompt, command string }
	var steps []step
	for _, line := range strings.Split(fencedBlocks(t, "README.md", "text", "switch# ")[0], "\n") {
		if m := nxsimPrompt.FindStringSubmatch(line); m != nil {
			steps = append(steps, step{m[1], m[2]})
		}
	}
	if len(steps) < 5 {
		t.Fatalf("README.md: the switch transcript has only %d lines", len(steps))
	}
	lines := make([]string, len(steps))
	for i, s := range steps {
		lines[i] = s.command
	}
	// The README says the password is "admin" unless changed.
	out, key := typeAt(t, addr, "admin", lines)
	if got := ssh.FingerprintSHA256(key); got != fingerprint {
		t.Errorf("the simulator printed host key %s, but ssh is shown %s", fingerprint, got)
	}

	// Split the session at its prompts: each README line must be typed at
	// the prompt the README shows, and none may be refused.
	type answer struct{ prompt, command, output string }
	var got []answer
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r", ""), "\n") {
		if m := nxsimPrompt.FindStringSubmatch(line); m != nil {
			got = append(got, answer{prompt: m[1], command: strings.TrimSpace(m[2])})
		} else if len(got) > 0 {
			got[len(got)-1].output += line + "\n"
		}
	}
	var shows []string
	for i, s := range steps {
		if i >= len(got) {
			t.Fatalf("the session ended before README line %q:\n%s", s.command, out)
		}
		g := got[i]
		if g.prompt != s.prompt || g.command != s.command {
			t.Errorf("README shows %q at %s#, the switch prompted %s# for %q", s.command, s.prompt, g.prompt, g.command)
		}
		if strings.Contains(g.output, "% Invalid") || strings.Contains(g.output, "ERROR") {
			t.Errorf("the switch refused README line %q:\n%s", s.command, g.output)
		}
		if s.command == "show running-config ipqos" {
			shows = append(shows, g.output)
		}
	}
	// The README: the second show lists the new class-map, the third (after
	// the rollback) no longer does.
	var class string
	for _, s := range steps {
		if strings.HasPrefix(s.command, "class-map ") {
			class = s.command
		}
	}
	if len(shows) != 3 || class == "" {
		t.Fatalf("the README transcript must show the running config three times around one class-map (shows %d, class-map %q)", len(shows), class)
	}
	if strings.Contains(shows[0], class) || !strings.Contains(shows[1], class) || strings.Contains(shows[2], class) {
		t.Errorf("want %q only in the second show running-config ipqos:\n--- first\n%s--- second\n%s--- third\n%s", class, shows[0], shows[1], shows[2])
	}
}

// typeAt logs into an NX-OS simulator at addr as admin and types lines at
// its prompt on a terminal, each once the switch has prompted for it, as a
// person does, then exit; it returns what the terminal showed and the host
// key the server presented.
func typeAt(t *testing.T, addr, password string, lines []string) (string, ssh.PublicKey) {
	t.Helper()
	var key ssh.PublicKey
	c, err := ssh.Dial("tcp", addr, &ssh.ClientConfig{
		User: "admin",
		Auth: []ssh.AuthMethod{ssh.Password(password)},
		HostKeyCallback: func(_ string, _ net.Addr, k ssh.PublicKey) error {
			key = k
			return nil
		},
		Timeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatalf("ssh admin@%s with password %q: %v", addr, password, err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var (
		mu  sync.Mutex
		out bytes.Buffer
	)
	screen := func() string { mu.Lock(); defer mu.Unlock(); return out.String() }
	r, w := io.Pipe()
	s.Stdout, s.Stderr = w, w
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	in, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("vt100", 80, 200, ssh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	prompts := regexp.MustCompile(`(?m)^[A-Za-z0-9_-]+(?:\([a-z0-9-]+\))?# `)
	for i, line := range append(lines, "exit") {
		deadline := time.Now().Add(20 * time.Second)
		for len(prompts.FindAllString(screen(), -1)) < i+1 {
			if time.Now().After(deadline) {
				t.Fatalf("no prompt for %q from %s; the terminal so far:\n%s", line, addr, screen())
			}
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatalf("typing %q: %v\n%s", line, err, screen())
		}
	}
	done := make(chan error, 1)
	go func() { done <- s.Wait(); w.Close() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the session on %s did not end after exit; so far:\n%s", addr, screen())
	}
	return screen(), key
}

// docs/tutorial.md, step 3: the verify report after the NX-OS upgrade has
// the excerpt the tutorial shows as consecutive lines (a line ending in
// "..." is a prefix of the report's). Step 4: a verify of the canary
// switch and its one host runs no probe, and says so.
func TestNewcomerTutorialVerifyExcerpt(t *testing.T) {
	l, baseline := upgradeLab(t)
	if r := roceLab(t, "upgrade", "-lab", l.Dir, "switch.n7k-1", "5.1(5)"); r.code != 0 {
		t.Fatalf("roce-lab upgrade\n%s", r)
	}
	v := roce(t, l, "", "roce-verify", "-baseline", baseline, l.Dir)
	if v.code != 3 {
		t.Fatalf("verify after the upgrade: want exit 3\n%s", v)
	}
	var got []string
	for _, line := range strings.Split(v.stdout, "\n") {
		got = append(got, strings.TrimSpace(line))
	}
	want := strings.Split(strings.TrimSpace(fencedBlocks(t, "docs/tutorial.md", "text", "FAIL  rocev2")[0]), "\n")
	// matches: the report's line i is the excerpt's line w.
	matches := func(i int, w string) bool {
		w = strings.TrimSpace(w)
		if p, cut := strings.CutSuffix(w, "..."); cut {
			return strings.HasPrefix(got[i], strings.TrimSpace(p))
		}
		return got[i] == w
	}
	// The excerpt is one run of consecutive report lines.
	found := false
	for start := range got {
		n := 0
		for n < len(want) && start+n < len(got) && matches(start+n, want[n]) {
			n++
		}
		found = found || n == len(want)
	}
	if !found {
		t.Errorf("docs/tutorial.md shows these lines of the verify report, but the report has no such run of consecutive lines:\n%s\n--- the report\n%s", strings.Join(want, "\n"), v.stdout)
	}

	// Step 4, "Canary, then the rest": verify of one switch and its one
	// host passes without a probe, its coverage check skipped and saying so.
	one := roce(t, l, "", "roce-verify", "-target", "switch.n5k-1", "-target", "host.h1", l.Dir)
	if one.code != 0 || !strings.Contains(one.stdout, "SKIP  coverage") || !strings.Contains(one.stdout, "a probe needs two") {
		t.Errorf("verify of one switch and one host: want exit 0 and the coverage check skipped (a probe needs two hosts)\n%s", one)
	}
}

// leaf1Sim serves a simulated Nexus 5000 named leaf1 for the test, with
// the password the first-switch example reads from $NEXUS_PASSWORD.
func leaf1Sim(t *testing.T) *nxsim.Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := nxsim.Listen(ctx, "127.0.0.1:0", nxsim.Options{Platform: "nexus5000", Hostname: "leaf1", Users: map[string]string{"admin": "rehearsal"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	t.Setenv("NEXUS_PASSWORD", "rehearsal")
	return srv
}

// firstSwitchCheckout makes a checkout at root as a CI job sees it:
// examples/first-switch in fabric/ with srv's host key in
// fabric/known_hosts, and site.vars (leaf1's address) at the root.
func firstSwitchCheckout(t *testing.T, root string, srv *nxsim.Server) {
	t.Helper()
	repo := repoRoot()
	if err := copyTree(filepath.Join(repo, "examples", "first-switch"), filepath.Join(root, "fabric")); err != nil {
		t.Fatal(err)
	}
	line := knownhosts.Line([]string{knownhosts.Normalize(srv.Addr())}, srv.Switch().HostKey())
	if err := os.WriteFile(filepath.Join(root, "fabric", "known_hosts"), []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "site.vars"), []byte("leaf1_address = \""+srv.Addr()+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// movedCheckout is the checkout at root somewhere else (the apply job's
// runner): root is renamed, so its absolute paths no longer exist.
func movedCheckout(t *testing.T, root string) string {
	t.Helper()
	to := root + "-apply"
	if err := os.Rename(root, to); err != nil {
		t.Fatal(err)
	}
	return to
}

// docs/plan-json.md#saved-plan-file, examples/ci/README.md: a plan made in
// one checkout and applied from another (the pull request's plan artifact
// on the apply job's runner) finds its policy directory and var file
// relative to the plan file, with no -dir; the same relative -var-file
// matches; without it roce-apply names the file where it is now; it still
// refuses a policy changed since the plan; and when the policy is in
// neither recorded place the error names both and -dir.
func TestNewcomerPlanAppliedFromAnotherCheckout(t *testing.T) {
	srv := leaf1Sim(t)
	planIn := func(root string) {
		t.Helper()
		firstSwitchCheckout(t, root, srv)
		if r := runInDir(t, root, "roce-plan", "-var-file", "site.vars", "-target", "switch.leaf1", "-out", "plan.roce", "fabric"); r.code != 0 {
			t.Fatalf("roce-plan in %s\n%s", root, r)
		}
	}

	pr := filepath.Join(t.TempDir(), "pr")
	planIn(pr)
	apply := movedCheckout(t, pr)
	// Without the var file: named where it is now, and the command to use.
	r := runInDir(t, apply, "roce-apply", "plan.roce")
	for _, w := range []string{"not given now (it is at site.vars)", "roce-apply -var-file site.vars plan.roce"} {
		if r.code != 1 || !strings.Contains(r.stderr, w) {
			t.Errorf("roce-apply plan.roce without -var-file from another checkout: want exit 1 and %q\n%s", w, r)
		}
	}
	// The same relative -var-file, and the plan file named from the
	// parent directory: both resolved against the plan file.
	parent := filepath.Dir(apply)
	r = runInDir(t, parent, "roce-apply", "-var-file", filepath.Join(filepath.Base(apply), "site.vars"), filepath.Join(filepath.Base(apply), "plan.roce"))
	if r.code != 0 || strings.Contains(r.stderr, "given now but was not used") {
		t.Fatalf("roce-apply -var-file pr-apply/site.vars pr-apply/plan.roce from another checkout: want it applied\n%s", r)
	}

	// A policy changed since the plan is still refused.
	pr2 := filepath.Join(t.TempDir(), "pr")
	planIn(pr2)
	apply2 := movedCheckout(t, pr2)
	main := filepath.Join(apply2, "fabric", "main.hcl")
	b, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, []byte(strings.Replace(string(b), "bandwidth_percent = 40", "bandwidth_percent = 30", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runInDir(t, apply2, "roce-apply", "-var-file", "site.vars", "plan.roce")
	if r.code != 1 || !strings.Contains(r.stderr, "changed since this plan was made") {
		t.Fatalf("roce-apply with a policy changed since the plan: want it refused\n%s", r)
	}

	// The policy in neither place: both named, and -dir; -dir then works
	// (and still compares the policy).
	if err := os.Rename(filepath.Join(apply2, "fabric"), filepath.Join(apply2, "policy")); err != nil {
		t.Fatal(err)
	}
	r = runInDir(t, apply2, "roce-apply", "-var-file", "site.vars", "plan.roce")
	for _, w := range []string{filepath.Join(apply2, "fabric"), filepath.Join(pr2, "fabric"), "-dir DIR"} {
		if r.code != 1 || !strings.Contains(r.stderr, w) {
			t.Errorf("roce-apply with the policy in neither recorded place: want exit 1 and %q\n%s", w, r)
		}
	}
	r = runInDir(t, apply2, "roce-apply", "-var-file", "site.vars", "-dir", "policy", "plan.roce")
	if r.code != 1 || !strings.Contains(r.stderr, "changed since this plan was made") {
		t.Fatalf("roce-apply -dir policy: want the policy read there (and refused as changed)\n%s", r)
	}
}

// docs/lab.md: roce-lab down removes lab.vars and the host trees and
// keeps the log, the last password, known_hosts and PKI in .lab/.
func TestNewcomerLabDownKeepsItsLog(t *testing.T) {
	dir := labCopy(t)
	if r := roceLab(t, "up", "-d", dir); r.code != 0 {
		t.Fatalf("roce-lab up -d\n%s", r)
	}
	state := filepath.Join(dir, ".lab")
	if _, err := os.Stat(filepath.Join(state, "lab.vars")); err != nil {
		_ = roceLab(t, "down", dir)
		t.Fatalf("a running lab has no lab.vars: %v", err)
	}
	if r := roceLab(t, "down", dir); r.code != 0 {
		t.Fatalf("roce-lab down\n%s", r)
	}
	for _, gone := range []string{"lab.vars", "hosts"} {
		if _, err := os.Stat(filepath.Join(state, gone)); !os.IsNotExist(err) {
			t.Errorf("after roce-lab down, .lab/%s is still there (%v)", gone, err)
		}
	}
	for _, kept := range []string{"lab.log", "password", "known_hosts", "pki"} {
		if _, err := os.Stat(filepath.Join(state, kept)); err != nil {
			t.Errorf("docs/lab.md says roce-lab down keeps .lab/%s: %v", kept, err)
		}
	}
}

// docs/tutorial.md, step 2: the apply report says "not saved" under each
// gNMI switch, naming its own save command, and under no Nexus switch,
// which roce-apply saves.
func TestNewcomerApplyReportOnSaving(t *testing.T) {
	l := startLab(t)
	r := roce(t, l, "", "roce-apply", "-auto-approve", l.Dir)
	if r.code != 0 {
		t.Fatalf("apply\n%s", r)
	}
	// Each target's line, then its indented warnings.
	warnings := map[string]string{}
	target := ""
	for _, line := range strings.Split(r.stdout, "\n") {
		if m := regexp.MustCompile(`^((?:switch|host)\.\S+): `).FindStringSubmatch(line); m != nil {
			target = m[1]
		} else if strings.HasPrefix(line, "  ") && target != "" {
			warnings[target] += line + "\n"
		}
	}
	for _, sw := range []string{"switch.eos-1", "switch.sonic-1", "switch.srl-1"} {
		if !strings.Contains(warnings[sw], "not saved") || !strings.Contains(warnings[sw], "save it with") {
			t.Errorf("%s: want a 'not saved' warning naming the save command\n%s", sw, r.stdout)
		}
	}
	for _, sw := range []string{"switch.n5k-1", "switch.n7k-1"} {
		if strings.Contains(warnings[sw], "not saved") {
			t.Errorf("%s: roce-apply saves a Nexus switch, yet the report says not saved\n%s", sw, r.stdout)
		}
	}
}
