package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/agentproto"
	"github.com/rocefabric/roce/plan"
)

// The kill tests run the real agent binary, built with the rocetesthooks
// tag so it can be told to stop at the Nth pause point (after the
// transaction record is written, before and after every step, before
// every restore step), SIGKILL it there and at random instants, and
// check on disk that recover leaves the host exactly as before or exactly
// as after the apply — and that the agent's word matches the disk.

const holdEnv = "ROCE_AGENT_TEST_HOLD" // hold_testhooks.go

// hookAgent is the agent built with the pause hook, once per test binary
// (removed by TestMain).
var hookAgent struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// buildHookAgent builds roce-agent with the pause hook.
func buildHookAgent(t *testing.T) string {
	t.Helper()
	hookAgent.once.Do(func() {
		hookAgent.dir, hookAgent.err = os.MkdirTemp("", "roce-agent-hooks-")
		if hookAgent.err != nil {
			return
		}
		hookAgent.bin = filepath.Join(hookAgent.dir, "roce-agent")
		if out, err := exec.Command("go", "build", "-tags", "rocetesthooks", "-o", hookAgent.bin, ".").CombinedOutput(); err != nil {
			hookAgent.err = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if hookAgent.err != nil {
		t.Fatal(hookAgent.err)
	}
	return hookAgent.bin
}

// agentRun is one agent process: its response, or that it was killed.
type agentRun struct {
	resp   *agentproto.Response
	killed bool
	point  string // the pause point it was killed at
	stderr string
}

// runAgent runs argv (the agent, maybe under ip netns exec) with req on
// stdin. hold > 0 stops it at that pause point and kills it there;
// killAfter > 0 kills it after that long whatever it is doing.
func runAgent(t *testing.T, argv []string, req agentproto.Request, hold int, killAfter time.Duration) agentRun {
	t.Helper()
	req.Version = agentproto.Version
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", holdEnv, hold))
	cmd.Stdin = bytes.NewReader(in)
	var out bytes.Buffer
	cmd.Stdout = &out
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var run agentRun
	var stderr strings.Builder
	if killAfter > 0 {
		time.Sleep(killAfter)
		_ = cmd.Process.Kill() // SIGKILL, this test's own child, by its handle
		run.killed = true
	}
	sc := bufio.NewScanner(errPipe)
	for sc.Scan() {
		line := sc.Text()
		stderr.WriteString(line + "\n")
		if p, ok := strings.CutPrefix(line, "roce-agent: holding at "); ok && !run.killed {
			_ = cmd.Process.Kill()
			run.killed, run.point = true, p
		}
	}
	werr := cmd.Wait()
	run.stderr = stderr.String()
	if run.killed && werr != nil {
		return run // killed before it answered (or after: see below)
	}
	run.killed = false
	if werr != nil {
		t.Fatalf("agent: %v\n%s", werr, run.stderr)
	}
	var resp agentproto.Response
	if err := json.Unmarshal(out.Bytes(), &resp); err != nil {
		t.Fatalf("agent response %q: %v\n%s", out.String(), err, run.stderr)
	}
	run.resp = &resp
	return run
}

// fileTree is every path under root with its type, mode and content.
func fileTree(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[rel] = "symlink " + target
		case d.IsDir():
			m[rel+"/"] = info.Mode().String()
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = info.Mode().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func treeDiff(a, b map[string]string) string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			out = append(out, "only before: "+k)
		} else if v != w {
			out = append(out, fmt.Sprintf("differs: %s (%q vs %q)", k, v, w))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "only after: "+k)
		}
	}
	return strings.Join(out, "; ")
}

// filesDesired is a files-only host state touching seven managed files,
// some existing (with foreign content to keep), some in directories that
// do not exist yet.
func filesDesired() *nics.HostState {
	return &nics.HostState{Files: []nics.FileState{
		{Path: nics.FileMemlock, Format: nics.FormatLines, Exists: true, Lines: []string{"* soft memlock unlimited", "* hard memlock unlimited"}},
		{Path: nics.FileMV2, Format: nics.FormatLines, Exists: true, Lines: []string{"10.10.0.11"}},
		{Path: nics.FileMVAPICH2, Format: nics.FormatKVSpaced, Exists: true, Entries: []nics.KV{{Key: "MV2_USE_RoCE", Value: "1"}, {Key: "MV2_DEFAULT_SERVICE_LEVEL", Value: "3"}, {Key: "MV2_DEFAULT_GID_INDEX", Value: "3"}}},
		{Path: nics.FileOpenMPI, Format: nics.FormatKVSpaced, Exists: true, Entries: []nics.KV{{Key: "btl_openib_ib_service_level", Value: "3"}, {Key: "btl_openib_ipaddr_include", Value: "10.10.0.0/24"}}},
		{Path: nics.FileUCX, Format: nics.FormatKV, Exists: true, Entries: []nics.KV{{Key: "UCX_IB_SL", Value: "3"}, {Key: "UCX_IB_TRAFFIC_CLASS", Value: "106"}, {Key: "UCX_NET_DEVICES", Value: "mlx5_0:1"}}},
		{Path: nics.FileNCCL, Format: nics.FormatKV, Exists: true, Entries: []nics.KV{{Key: "NCCL_IB_SL", Value: "3"}, {Key: "NCCL_IB_TC", Value: "106"}, {Key: "NCCL_IB_HCA", Value: "=mlx5_0:1"}}},
	}}
}

func seedFiles(t *testing.T, root string) {
	t.Helper()
	w := func(p, s string, mode os.FileMode) {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			t.Fatal(err)
		}
	}
	w("etc/nccl.conf", "# site settings\nNCCL_DEBUG=INFO\nNCCL_IB_SL=0\n", 0o640)
	w("etc/mv2.conf", "10.0.0.1\n", 0o644)
	w("etc/mvapich2.conf", "MV2_ENABLE_AFFINITY = 0\n", 0o600)
	if err := os.MkdirAll(filepath.Join(root, "etc/security/limits.d"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// killCase is one host the kill matrix runs against.
type killCase struct {
	argv    func(root string) []string
	seed    func(t *testing.T, root string)
	desired *nics.HostState
	// verify, when set, checks what the tree can't show (links in a
	// namespace): the state after recover must be the state before
	// (rolled-back) or after (applied); unchanged accepts either.
	verify func(t *testing.T, root, status string)
	// ignore, when set, leaves paths out of the byte-for-byte tree
	// comparison (the lab's emulated kernel state, which the agent's
	// read compares semantically: fingerprint and diff).
	ignore func(rel string) bool
}

// TestKillAnywhereFilesRecover kills the agent at every pause point of
// an apply of seven files on a temporary root, and at random instants.
func TestKillAnywhereFilesRecover(t *testing.T) {
	bin := buildHookAgent(t)
	runKillMatrix(t, killCase{
		argv:    func(root string) []string { return []string{bin, "--root", root} },
		seed:    seedFiles,
		desired: filesDesired(),
	}, 12)
}

func runKillMatrix(t *testing.T, kc killCase, randomKills int) {
	// before/after: one uninterrupted apply.
	tree := func(t *testing.T, root string) map[string]string {
		m := fileTree(t, root)
		if kc.ignore != nil {
			for k := range m {
				if kc.ignore(k) {
					delete(m, k)
				}
			}
		}
		return m
	}
	ref := t.TempDir()
	kc.seed(t, ref)
	beforeTree := tree(t, ref)
	rd := runAgent(t, kc.argv(ref), agentproto.Request{Op: agentproto.OpRead, Desired: kc.desired}, 0, 0)
	if !rd.resp.OK {
		t.Fatalf("read: %+v", rd.resp.Error)
	}
	resolved, fp := rd.resp.Read.Resolved, rd.resp.Read.Fingerprint
	if len(nics.Diff(rd.resp.Read.Current, resolved)) == 0 {
		t.Fatal("the test's desired state is already applied")
	}
	applyReq := agentproto.Request{Op: agentproto.OpApply, Desired: resolved, Fingerprint: fp}
	ap := runAgent(t, kc.argv(ref), applyReq, 0, 0)
	if !ap.resp.OK || ap.resp.Apply.Status != plan.StatusApplied {
		t.Fatalf("reference apply: %+v", ap.resp.Error)
	}
	afterTree := tree(t, ref)
	if kc.verify != nil {
		kc.verify(t, ref, plan.StatusApplied)
	}
	if treeDiff(beforeTree, afterTree) == "" {
		t.Fatal("the reference apply changed nothing")
	}

	check := func(t *testing.T, root, what string) {
		t.Helper()
		// 1. A read reports the interruption (or, when the kill came too
		//    late, nothing: then the host must be fully after).
		_, recErr := os.Stat(filepath.Join(root, nics.TxnRecordPath))
		r := runAgent(t, kc.argv(root), agentproto.Request{Op: agentproto.OpRead, Desired: kc.desired}, 0, 0)
		if !r.resp.OK {
			t.Fatalf("%s: read after the kill: %+v", what, r.resp.Error)
		}
		if (r.resp.Transaction != nil) != (recErr == nil) {
			t.Fatalf("%s: read reports transaction %+v, record on disk: %v", what, r.resp.Transaction, recErr == nil)
		}
		if r.resp.Transaction != nil {
			if r.resp.Transaction.InProgress {
				t.Fatalf("%s: a killed transaction reported in progress", what)
			}
			// 2. A new apply is refused and changes nothing.
			mid := tree(t, root)
			a := runAgent(t, kc.argv(root), applyReq, 0, 0)
			if a.resp.OK || a.resp.Error.Code != agentproto.ErrCodeInterrupted || a.resp.Transaction == nil {
				t.Fatalf("%s: apply over an unfinished transaction: %+v", what, a.resp.Error)
			}
			if d := treeDiff(mid, tree(t, root)); d != "" {
				t.Fatalf("%s: the refused apply changed the host: %s", what, d)
			}
		}
		// 3. Recover; the disk is fully before or fully after, as it says.
		rc := runAgent(t, kc.argv(root), agentproto.Request{Op: agentproto.OpRecover}, 0, 0)
		if !rc.resp.OK {
			t.Fatalf("%s: recover: %+v", what, rc.resp.Error)
		}
		now := tree(t, root)
		status := rc.resp.Recover.Status
		switch status {
		case plan.StatusRolledBack:
			if d := treeDiff(beforeTree, now); d != "" {
				t.Fatalf("%s: recover says rolled back, tree differs from before: %s", what, d)
			}
		case plan.StatusApplied:
			if d := treeDiff(afterTree, now); d != "" {
				t.Fatalf("%s: recover says applied, tree differs from after: %s", what, d)
			}
		case plan.StatusUnchanged:
			if recErr == nil {
				t.Fatalf("%s: recover found nothing, but a record was on disk", what)
			}
			if treeDiff(beforeTree, now) != "" && treeDiff(afterTree, now) != "" {
				t.Fatalf("%s: no record, and the tree is neither before nor after: %s", what, treeDiff(afterTree, now))
			}
		default:
			t.Fatalf("%s: recover status %q", what, status)
		}
		if kc.verify != nil {
			kc.verify(t, root, status)
		}
		// 4. Nothing left to recover; the host reads back clean.
		r = runAgent(t, kc.argv(root), agentproto.Request{Op: agentproto.OpRead, Desired: kc.desired}, 0, 0)
		if !r.resp.OK || r.resp.Transaction != nil {
			t.Fatalf("%s: read after recover: %+v %+v", what, r.resp.Error, r.resp.Transaction)
		}
		if status == plan.StatusRolledBack && r.resp.Read.Fingerprint != fp {
			t.Fatalf("%s: rolled back, but the fingerprint is %s, before the apply %s", what, r.resp.Read.Fingerprint, fp)
		}
		if status == plan.StatusApplied && len(nics.Diff(r.resp.Read.Current, r.resp.Read.Resolved)) > 0 {
			t.Fatalf("%s: applied, but a fresh read still has changes", what)
		}
	}

	points := 0
	for n := 1; ; n++ {
		root := t.TempDir()
		kc.seed(t, root)
		run := runAgent(t, kc.argv(root), applyReq, n, 0)
		if !run.killed {
			if !run.resp.OK {
				t.Fatalf("apply with hold %d past the last point: %+v", n, run.resp.Error)
			}
			break
		}
		points++
		what := fmt.Sprintf("killed at %s", run.point)
		if n%3 == 0 {
			// Kill the recovery too, at its first pause point, then
			// recover again.
			rc := runAgent(t, kc.argv(root), agentproto.Request{Op: agentproto.OpRecover}, 1, 0)
			if rc.killed {
				what += ", recover killed at " + rc.point
			}
		}
		check(t, root, what)
	}
	if points < 4 {
		t.Fatalf("only %d pause points in the apply", points)
	}
	t.Logf("%d pause points, each killed and recovered", points)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for i := 0; i < randomKills; i++ {
		root := t.TempDir()
		kc.seed(t, root)
		d := time.Duration(rng.IntN(4000)) * time.Microsecond
		run := runAgent(t, kc.argv(root), applyReq, 0, d)
		if run.killed {
			check(t, root, fmt.Sprintf("killed after %v", d))
		}
	}
}

// While one agent is inside a transaction, a second one (another
// controller) sees it in progress and its apply is refused as busy without
// touching the host; a recover waits for the first and, once that one is
// killed, settles its interrupted transaction.
func TestSecondAgentWhileOneApplies(t *testing.T) {
	bin := buildHookAgent(t)
	root := t.TempDir()
	seedFiles(t, root)
	argv := []string{bin, "--root", root}
	rd := runAgent(t, argv, agentproto.Request{Op: agentproto.OpRead, Desired: filesDesired()}, 0, 0)
	applyReq := agentproto.Request{Op: agentproto.OpApply, Desired: rd.resp.Read.Resolved, Fingerprint: rd.resp.Read.Fingerprint}

	req := applyReq
	req.Version = agentproto.Version
	in, _ := json.Marshal(req)
	first := exec.Command(bin, "--root", root)
	first.Env = append(os.Environ(), holdEnv+"=4")
	first.Stdin = bytes.NewReader(in)
	errPipe, err := first.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(errPipe)
	held := false
	for !held && sc.Scan() {
		held = strings.HasPrefix(sc.Text(), "roce-agent: holding at")
	}
	if !held {
		_ = first.Process.Kill()
		_ = first.Wait()
		t.Fatal("the first agent never reached its pause point")
	}
	mid := fileTree(t, root)

	r := runAgent(t, argv, agentproto.Request{Op: agentproto.OpRead, Desired: filesDesired()}, 0, 0)
	if !r.resp.OK || r.resp.Transaction == nil || !r.resp.Transaction.InProgress {
		t.Errorf("read during another agent's apply: %+v %+v", r.resp.Error, r.resp.Transaction)
	}
	r = runAgent(t, argv, applyReq, 0, 0)
	if r.resp.OK || r.resp.Error.Code != agentproto.ErrCodeBusy {
		t.Errorf("apply during another agent's apply: %+v", r.resp.Error)
	}
	if d := treeDiff(mid, fileTree(t, root)); d != "" {
		t.Errorf("the refused apply changed the host: %s", d)
	}

	// Recover waits for the running apply (a controller killed mid-apply
	// leaves its agent to finish): it is still waiting while the first
	// agent holds, and settles the transaction once that one is gone.
	rec := exec.Command(bin, "--root", root)
	rec.Stdin = strings.NewReader(`{"version":1,"op":"recover"}`)
	var recOut bytes.Buffer
	rec.Stdout = &recOut
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	recDone := make(chan error, 1)
	go func() { recDone <- rec.Wait() }()
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-recDone:
		t.Fatalf("recover did not wait for the running apply: %v %s", err, recOut.String())
	default:
	}
	_ = first.Process.Kill() // the process this test started, by its handle
	_ = first.Wait()
	if err := <-recDone; err != nil {
		t.Fatalf("recover: %v", err)
	}
	var rc agentproto.Response
	if err := json.Unmarshal(recOut.Bytes(), &rc); err != nil || !rc.OK || rc.Recover.Status != plan.StatusRolledBack {
		t.Fatalf("recover: %v %s", err, recOut.String())
	}
	if rd := runAgent(t, argv, agentproto.Request{Op: agentproto.OpRead, Desired: filesDesired()}, 0, 0); rd.resp.Transaction != nil {
		t.Fatalf("after recover: %+v", rd.resp.Transaction)
	}
}

// SIGTERM, SIGINT or SIGHUP (a dropped SSH session) in the middle of an
// apply: the agent stops before its next step, restores its snapshot,
// answers rolled-back and leaves no transaction behind.
func TestSignalMidApplyRollsBack(t *testing.T) {
	bin := buildHookAgent(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			root := t.TempDir()
			seedFiles(t, root)
			before := fileTree(t, root)
			argv := []string{bin, "--root", root}
			rd := runAgent(t, argv, agentproto.Request{Op: agentproto.OpRead, Desired: filesDesired()}, 0, 0)
			req := agentproto.Request{Version: agentproto.Version, Op: agentproto.OpApply, Desired: rd.resp.Read.Resolved, Fingerprint: rd.resp.Read.Fingerprint}
			in, _ := json.Marshal(req)
			cmd := exec.Command(bin, "--root", root)
			cmd.Env = append(os.Environ(), holdEnv+"=5", "ROCE_AGENT_TEST_HOLD_UNTIL_SIGNAL=1")
			cmd.Stdin = bytes.NewReader(in)
			var out bytes.Buffer
			cmd.Stdout = &out
			errPipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(errPipe)
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "roce-agent: holding at") {
					_ = cmd.Process.Signal(sig)
				}
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("agent: %v", err)
			}
			var resp agentproto.Response
			if err := json.Unmarshal(out.Bytes(), &resp); err != nil {
				t.Fatalf("response %q: %v", out.String(), err)
			}
			if resp.OK || resp.Apply == nil || resp.Apply.Status != plan.StatusRolledBack || !strings.Contains(resp.Error.Message, "context canceled") {
				t.Fatalf("response %+v %+v", resp.Error, resp.Apply)
			}
			if d := treeDiff(before, fileTree(t, root)); d != "" {
				t.Fatalf("host not as before: %s", d)
			}
		})
	}
}
