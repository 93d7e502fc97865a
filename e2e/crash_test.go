package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocefabric/roce/internal/lab"
	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
)

// The kill-9 matrix (docs/apply-safety.md): roce-apply is killed with
// SIGKILL at many points of a push — aimed between commands by counting
// the lines the simulator has handled, and at random instants. After
// every kill roce-plan must report the interruption (and exit 1) exactly
// when the journal holds one, roce-apply -recover must leave the device
// fully before or fully after (read from the simulator itself, not from
// the tool's words) with no roce checkpoint left, and roce-plan must work
// again.

// crashLatency slows every simulator answer so kill points fall between
// commands, not after the whole push.
const crashLatency = 8 * time.Millisecond

// started is a roce binary running in the background.
type started struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	code           int
}

// startRoce starts a binary with the lab's variables file and env.
func startRoce(t *testing.T, l *lab.Lab, env []string, name string, args ...string) *started {
	t.Helper()
	full := append([]string{"-var-file", l.VarFile()}, args...)
	s := &started{cmd: exec.Command(filepath.Join(binDir, name), full...), done: make(chan struct{})}
	s.cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), env...)
	s.cmd.Stdout, s.cmd.Stderr = &s.stdout, &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		err := s.cmd.Wait()
		s.code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			s.code = ee.ExitCode()
		}
		close(s.done)
	}()
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		<-s.done
	})
	return s
}

// killWhen sends SIGKILL as soon as cond holds (polled), or lets the
// process finish; it reports whether the process was killed.
func (s *started) killWhen(t *testing.T, cond func() bool) bool {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	tick := time.NewTicker(500 * time.Microsecond)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return false
		case <-deadline:
			t.Fatalf("roce-apply neither finished nor reached the kill point\n%s\n%s", s.stdout.String(), s.stderr.String())
		case <-tick.C:
			if cond() {
				_ = s.cmd.Process.Signal(syscall.SIGKILL)
				<-s.done
				return true
			}
		}
	}
}

// journalDir is the apply journal of a lab policy directory.
func journalDir(dir string) string { return plan.JournalDir(plan.DefaultLockPath(dir)) }

// roceCheckpoints lists the checkpoints roce left on a switch.
func roceCheckpoints(sw *nxsim.Switch) []string {
	var out []string
	for _, n := range sw.Checkpoints() {
		if strings.HasPrefix(n, "roce-") {
			out = append(out, n)
		}
	}
	return out
}

// afterKill checks what must hold after a kill (or a finished run), runs
// -recover, and returns the switch's config afterwards.
func afterKill(t *testing.T, l *lab.Lab, point string, killed bool, addr string) {
	t.Helper()
	ins, err := plan.ReadJournal(journalDir(l.Dir))
	if err != nil {
		t.Fatalf("%s: the journal does not read: %v", point, err)
	}
	if !killed && len(ins) > 0 {
		t.Fatalf("%s: roce-apply finished by itself but left %d interrupted target(s) in the journal", point, len(ins))
	}
	r := roce(t, l, "", "roce-plan", "-target", addr, l.Dir)
	if len(ins) > 0 {
		if r.code != 1 || !strings.Contains(r.stderr, "interrupted") || !strings.Contains(r.stderr, addr) || !strings.Contains(r.stderr, "roce-apply -recover") {
			t.Fatalf("%s: roce-plan must name the interrupted %s and exit 1\n%s", point, addr, r)
		}
		a := roce(t, l, "", "roce-apply", "-json", "-auto-approve", "-target", addr, l.Dir)
		if a.code != 1 || !strings.Contains(a.stderr, "interrupted") || !strings.Contains(a.stderr, "Nothing was applied") {
			t.Fatalf("%s: roce-apply must refuse while %s is interrupted\n%s", point, addr, a)
		}
		var report struct {
			Kind  string `json:"kind"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal([]byte(a.stdout), &report); err != nil || report.Kind != "roce-apply-report" || !strings.Contains(report.Error, addr) {
			t.Fatalf("%s: with -json, a refused apply must still print only a JSON report naming the cause (%v)\n%s", point, err, a)
		}
	} else if r.code != 0 {
		t.Fatalf("%s: nothing interrupted, but roce-plan fails\n%s", point, r)
	}
	rec := roce(t, l, "", "roce-apply", "-recover", l.Dir)
	if rec.code != 0 {
		t.Fatalf("%s: roce-apply -recover\n%s", point, rec)
	}
	if len(ins) > 0 && !strings.Contains(rec.stdout, addr) {
		t.Fatalf("%s: the recovery report does not name %s\n%s", point, addr, rec)
	}
	if left, _ := plan.ReadJournal(journalDir(l.Dir)); len(left) > 0 {
		t.Fatalf("%s: -recover succeeded but the journal still lists %d target(s)", point, len(left))
	}
	if files, _ := filepath.Glob(filepath.Join(journalDir(l.Dir), "*.jsonl")); len(files) > 0 {
		t.Fatalf("%s: settled journal files are left behind: %v", point, files)
	}
}

func TestCrashMatrixNexus(t *testing.T) {
	l := startLab(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 13))
	for _, name := range []string{"n5k-1", "n7k-1"} {
		t.Run(name, func(t *testing.T) {
			addr := "switch." + name
			sw := l.Sims[name].Switch()
			before := sw.RunningConfig()
			planFile := filepath.Join(t.TempDir(), "plan.roce")
			if r := roce(t, l, "", "roce-plan", "-target", addr, "-out", planFile, l.Dir); r.code != 0 {
				t.Fatalf("plan\n%s", r)
			}
			// One clean run measures the push: lines handled and time.
			sw.SetFaults(nxsim.Faults{Latency: crashLatency})
			t0 := time.Now()
			if r := roce(t, l, "", "roce-apply", planFile); r.code != 0 {
				t.Fatalf("clean apply\n%s", r)
			}
			took, total := time.Since(t0), sw.LinesHandled()
			after := sw.RunningConfig()
			if after == before {
				t.Fatal("the clean apply changed nothing")
			}

			// Kill points: aimed at evenly spread line counts (between
			// commands, thanks to the latency), and random instants.
			type point struct {
				name  string
				lines int
				delay time.Duration
			}
			var points []point
			const aimed = 6
			for k := 1; k <= aimed; k++ {
				n := k * total / (aimed + 1)
				points = append(points, point{name: "after line " + itoa(n) + "/" + itoa(total), lines: n})
			}
			for k := 0; k < 2; k++ {
				d := time.Duration(rng.Int64N(int64(took)))
				points = append(points, point{name: "at " + d.Round(time.Millisecond).String(), delay: d})
			}
			interrupted := 0
			for _, p := range points {
				if err := sw.ReplaceRunningConfig(before); err != nil {
					t.Fatal(err)
				}
				sw.SetFaults(nxsim.Faults{Latency: crashLatency})
				start := time.Now()
				run := startRoce(t, l, nil, "roce-apply", planFile)
				cond := func() bool { return sw.LinesHandled() >= p.lines }
				if p.lines == 0 {
					cond = func() bool { return time.Since(start) >= p.delay }
				}
				killed := run.killWhen(t, cond)
				sw.SetFaults(nxsim.Faults{})
				if ins, _ := plan.ReadJournal(journalDir(l.Dir)); len(ins) > 0 {
					interrupted++
				}
				afterKill(t, l, p.name, killed, addr)
				got := sw.RunningConfig()
				if got != before && got != after {
					t.Fatalf("kill %s: after recovery the switch is neither exactly as before nor exactly as planned:\n%s", p.name, got)
				}
				if cps := roceCheckpoints(sw); len(cps) > 0 {
					t.Fatalf("kill %s: roce checkpoints left on the switch: %v", p.name, cps)
				}
				want := 2
				if got == after {
					want = 0
				}
				if r := roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", addr, l.Dir); r.code != want {
					t.Fatalf("kill %s: plan after recovery: want exit %d\n%s", p.name, want, r)
				}
			}
			if interrupted < aimed/2 {
				t.Fatalf("only %d of %d kills left an interrupted apply: the kill points miss the push", interrupted, len(points))
			}
			t.Logf("%s: %d kills (%d interrupted mid-push, push = %d lines, %s); every one recovered to exactly before or after", name, len(points), interrupted, total, took.Round(time.Millisecond))

			// Then a normal apply converges and the next plan is empty.
			if err := sw.ReplaceRunningConfig(before); err != nil {
				t.Fatal(err)
			}
			if r := roce(t, l, "", "roce-apply", "-auto-approve", "-target", addr, l.Dir); r.code != 0 {
				t.Fatalf("normal apply after the matrix\n%s", r)
			}
			if r := roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", addr, l.Dir); r.code != 0 {
				t.Fatalf("plan after the normal apply must be empty\n%s", r)
			}
			// Nothing to change: -json still prints only a JSON report.
			r := roce(t, l, "", "roce-apply", "-json", "-auto-approve", "-target", addr, l.Dir)
			var report struct {
				Results []struct{ Status string } `json:"results"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &report); r.code != 0 || err != nil || len(report.Results) != 1 || report.Results[0].Status != plan.StatusUnchanged {
				t.Fatalf("-json with nothing to change must print a JSON report with the target unchanged (%v)\n%s", err, r)
			}
		})
	}
}

// Eleven applies killed mid-push in a row on one switch whose checkpoint
// table already holds nine checkpoints of someone else's, each time with
// the journal lost (a CI runner that vanished with its workspace): the
// stale roce checkpoints are cleaned, the operator's are never touched,
// and a normal apply then succeeds. A full table is refused before
// anything is pushed.
func TestElevenInterruptedApplies(t *testing.T) {
	l := startLab(t)
	sw := l.Sims["n5k-1"].Switch()
	before := sw.RunningConfig()
	var theirs []string
	for i := 1; i <= 9; i++ {
		n := "ops-before-change-" + itoa(i)
		if err := sw.CreateCheckpoint(n, "operator"); err != nil {
			t.Fatal(err)
		}
		theirs = append(theirs, n)
	}
	planFile := filepath.Join(t.TempDir(), "plan.roce")
	if r := roce(t, l, "", "roce-plan", "-target", "switch.n5k-1", "-out", planFile, l.Dir); r.code != 0 {
		t.Fatalf("plan\n%s", r)
	}
	// Without a journal nothing says the old checkpoints' runs are dead:
	// make every roce checkpoint count as stale at once.
	env := []string{"ROCE_NXOS_STALE_CHECKPOINT_AFTER=1ns"}
	for i := 1; i <= 11; i++ {
		if err := sw.ReplaceRunningConfig(before); err != nil {
			t.Fatal(err)
		}
		sw.SetFaults(nxsim.Faults{Latency: crashLatency})
		run := startRoce(t, l, env, "roce-apply", planFile)
		// Kill once the checkpoint exists and the push has begun.
		killed := run.killWhen(t, func() bool {
			return len(roceCheckpoints(sw)) > 0 && sw.RunningConfig() != before
		})
		sw.SetFaults(nxsim.Faults{})
		if !killed {
			t.Fatalf("run %d finished before it could be killed mid-push\n%s", i, run.stderr.String())
		}
		if err := os.RemoveAll(journalDir(l.Dir)); err != nil {
			t.Fatal(err)
		}
		if got := len(sw.Checkpoints()); got > 10 {
			t.Fatalf("run %d: %d checkpoints", i, got)
		}
	}
	if err := sw.ReplaceRunningConfig(before); err != nil {
		t.Fatal(err)
	}
	run := startRoce(t, l, env, "roce-apply", planFile)
	<-run.done
	if run.code != 0 {
		t.Fatalf("the apply after eleven interrupted ones failed\n%s\n%s", run.stdout.String(), run.stderr.String())
	}
	if got := sw.Checkpoints(); strings.Join(got, ",") != strings.Join(theirs, ",") {
		t.Fatalf("checkpoints after the apply: %v, want exactly the operator's %v", got, theirs)
	}

	// A full table of someone else's checkpoints: refused before anything
	// is pushed, with what to do.
	if err := sw.CreateCheckpoint("ops-before-change-10", "operator"); err != nil {
		t.Fatal(err)
	}
	if err := sw.ReplaceRunningConfig(before); err != nil {
		t.Fatal(err)
	}
	r := roce(t, l, "", "roce-apply", "-auto-approve", "-target", "switch.n5k-1", l.Dir)
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "10 checkpoints, the NX-OS maximum") || !strings.Contains(r.stdout+r.stderr, "no checkpoint NAME") {
		t.Fatalf("a full checkpoint table must be refused with what to do\n%s", r)
	}
	if sw.RunningConfig() != before {
		t.Fatal("something was pushed although the checkpoint table was full")
	}
}

// Two roce-apply runs from two copies of the policy (two lock files, as
// from two laptops) against one switch, started together: whatever each
// reports, a success is only ever reported when the switch is fully as
// planned, and the switch ends fully before or fully after.
func TestConcurrentAppliesFromTwoCheckouts(t *testing.T) {
	l := startLab(t)
	sw := l.Sims["n5k-1"].Switch()
	before := sw.RunningConfig()
	other := filepath.Join(t.TempDir(), "checkout-b")
	if err := copyTree(l.Dir, other); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(filepath.Join(l.Dir, lab.StateDir, "password"), filepath.Join(other, lab.StateDir, "password")); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(filepath.Join(l.Dir, lab.StateDir, "known_hosts"), filepath.Join(other, lab.StateDir, "known_hosts")); err != nil {
		t.Fatal(err)
	}
	var after string
	for round := 0; round < 4; round++ {
		if err := sw.ReplaceRunningConfig(before); err != nil {
			t.Fatal(err)
		}
		sw.SetFaults(nxsim.Faults{Latency: crashLatency})
		a := startRoce(t, l, nil, "roce-apply", "-auto-approve", "-target", "switch.n5k-1", l.Dir)
		time.Sleep(time.Duration(round) * 40 * time.Millisecond) // different overlaps
		b := startRoce(t, l, nil, "roce-apply", "-auto-approve", "-target", "switch.n5k-1", other)
		<-a.done
		<-b.done
		sw.SetFaults(nxsim.Faults{})
		got := sw.RunningConfig()
		again := roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", "switch.n5k-1", l.Dir)
		fully := again.code == 0
		if got != before && !fully {
			t.Fatalf("round %d: the switch is neither as before nor as planned (exits %d and %d)\n%s\n%s", round, a.code, b.code, a.stderr.String(), b.stderr.String())
		}
		for i, s := range []*started{a, b} {
			if s.code == 0 && !fully {
				t.Fatalf("round %d: run %c reported success but the switch is not as planned\n%s\n%s", round, 'A'+i, s.stdout.String(), s.stderr.String())
			}
		}
		if fully {
			after = got
		}
		if cps := roceCheckpoints(sw); len(cps) > 0 {
			t.Fatalf("round %d: roce checkpoints left: %v", round, cps)
		}
		t.Logf("round %d: exits %d and %d; switch %s", round, a.code, b.code, map[bool]string{true: "as planned", false: "as before"}[fully])
	}
	_ = after
}

// A switch that accepts TCP but never answers is reported within the
// connect timeout, naming the device and the stage; a plan that could not
// read it is incomplete, refused by -out unless -allow-partial, and then
// the file names it and roce-apply lists it before applying the rest.
func TestDeadListenerAndPartialPlan(t *testing.T) {
	l := startLab(t)
	varFile := deadVarFile(t, l, filepath.Join(t.TempDir(), "dead.vars"), "n5k-1", l.Sims["n5k-1"].Addr())
	run := func(stdin string, name string, args ...string) result {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, filepath.Join(binDir, name), append([]string{"-var-file", varFile}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return result{code: code, stdout: out.String(), stderr: errb.String()}
	}
	sel := []string{"-target", "switch.n5k-1", "-target", "switch.n7k-1", "-connect-timeout", "2s"}
	planFile := filepath.Join(t.TempDir(), "plan.roce")
	start := time.Now()
	r := run("", "roce-plan", append(sel, "-out", planFile, l.Dir)...)
	took := time.Since(start)
	if r.code != 1 || !strings.Contains(r.stderr, "switch.n5k-1") || !strings.Contains(r.stdout+r.stderr, "SSH handshake") || !strings.Contains(r.stdout+r.stderr, "no answer within 2s") {
		t.Fatalf("a dead listener must be reported naming the switch and the stage\n%s", r)
	}
	if took > time.Minute {
		t.Fatalf("the dead listener took %s to report, far past the 2s connect timeout", took)
	}
	if !strings.Contains(r.stderr, "not saving the plan") || !strings.Contains(r.stderr, "-allow-partial") {
		t.Fatalf("an incomplete plan must be refused by -out\n%s", r)
	}
	if _, err := os.Stat(planFile); !os.IsNotExist(err) {
		t.Fatalf("the incomplete plan was saved anyway (%v)", err)
	}
	r = run("", "roce-plan", append(sel, "-out", planFile, "-allow-partial", l.Dir)...)
	if r.code != 0 || !strings.Contains(r.stderr, "PARTIAL") {
		t.Fatalf("-allow-partial must save the plan and say it is partial\n%s", r)
	}
	p, err := plan.ReadPlanFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Excluded) != 1 || p.Excluded[0].Address != "switch.n5k-1" || len(p.Targets) != 1 || p.Targets[0].Address != "switch.n7k-1" {
		t.Fatalf("the partial plan must hold n7k-1 and name n5k-1 as excluded: targets %d, excluded %+v", len(p.Targets), p.Excluded)
	}
	n7kBefore := l.Sims["n7k-1"].Switch().RunningConfig()
	r = run("no\n", "roce-apply", planFile)
	if r.code != 1 || !strings.Contains(r.stdout, "PARTIAL plan") || !strings.Contains(r.stdout, "switch.n5k-1") || !strings.Contains(r.stdout, "cancelled") {
		t.Fatalf("roce-apply must name the excluded targets and ask\n%s", r)
	}
	if l.Sims["n7k-1"].Switch().RunningConfig() != n7kBefore {
		t.Fatal("a cancelled partial apply changed n7k-1")
	}
	r = run("yes\n", "roce-apply", "-json", planFile)
	if r.code != 0 || !strings.HasPrefix(strings.TrimSpace(r.stdout), "{") || !strings.Contains(r.stderr, "switch.n5k-1") {
		t.Fatalf("answering yes applies the rest; -json keeps stdout JSON\n%s", r)
	}

	// A gNMI switch that accepts TCP and never answers (TLS stalls).
	deadVarFile(t, l, varFile, "eos-1", l.Targets["eos-1"].Addr())
	r = run("", "roce-plan", "-target", "switch.eos-1", "-connect-timeout", "2s", l.Dir)
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "switch.eos-1: could not be read: connect to") || !strings.Contains(r.stdout+r.stderr, "no answer within 2s") {
		t.Fatalf("a dead gNMI listener must be reported naming the switch and the stage\n%s", r)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o600)
}

// deadVarFile writes to path the lab's variable file with the address addr
// of switch name replaced by a listenSilent one, and returns path.
func deadVarFile(t *testing.T, l *lab.Lab, path, name, addr string) string {
	t.Helper()
	ln, err := listenSilent(t)
	if err != nil {
		t.Fatal(err)
	}
	vars, err := os.ReadFile(l.VarFile())
	if err != nil {
		t.Fatal(err)
	}
	dead := strings.Replace(string(vars), addr, ln, 1)
	if dead == string(vars) {
		t.Fatalf("the lab vars do not hold %s's address %s:\n%s", name, addr, vars)
	}
	if err := os.WriteFile(path, []byte(dead), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// listenSilent accepts TCP connections on loopback and never answers:
// a hung switch, or something that is not SSH on that port.
func listenSilent(t *testing.T) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String(), nil
}
