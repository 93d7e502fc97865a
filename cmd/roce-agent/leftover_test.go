package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocefabric/roce/nics/agentproto"
	"github.com/rocefabric/roce/nics/perftest"
)

// listenEnv turns this test binary into a stand-in listener: a copy named
// ib_write_bw plays a perftest server left over by a crashed run (the real
// binary exits at once on a kernel without RDMA), a copy with another name
// plays an unrelated program on another port.
const listenEnv = "ROCE_AGENT_TEST_LISTEN"

func TestMain(m *testing.M) {
	if port := os.Getenv(listenEnv); port != "" {
		ln, err := net.Listen("tcp", "127.0.0.1:"+port)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("listening")
		for {
			c, err := ln.Accept()
			if err != nil {
				os.Exit(0)
			}
			c.Close()
		}
	}
	code := m.Run()
	if hookAgent.dir != "" {
		os.RemoveAll(hookAgent.dir)
	}
	os.Exit(code)
}

// standIn starts a copy of this test binary named name, listening on a
// free port, and returns the process, its port and a channel closed when
// it has exited.
func standIn(t *testing.T, dir, name string) (*exec.Cmd, int, chan struct{}) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, name)
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), listenEnv+"="+strconv.Itoa(port))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Read the readiness line before anything else drains stdout: a second
	// reader could swallow it and leave this one blocked for ever.
	br := bufio.NewReader(out)
	type readLine struct {
		s   string
		err error
	}
	first := make(chan readLine, 1)
	go func() { s, err := br.ReadString('\n'); first <- readLine{s, err} }()
	var line readLine
	select {
	case line = <-first:
	case <-time.After(30 * time.Second):
		line = readLine{err: fmt.Errorf("no readiness line within 30s")}
	}
	done := make(chan struct{})
	go func() { <-first; _, _ = io.Copy(io.Discard, br); _ = cmd.Wait(); close(done) }()
	first <- line // hand the reader over to the drain goroutine
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // the process this test started, by its handle
		<-done
	})
	if line.err != nil || strings.TrimSpace(line.s) != "listening" {
		t.Fatalf("%s did not start listening on %d: %q %v", name, port, line.s, line.err)
	}
	return cmd, port, done
}

func probeServer(t *testing.T, root string, port int) *agentproto.Response {
	t.Helper()
	req := agentproto.Request{Version: agentproto.Version, Op: agentproto.OpProbe, Probe: &agentproto.ProbeRequest{
		Options: perftest.Options{GIDIndex: -1, TCPPort: port, Timeout: 5 * time.Second}}}
	b, _ := json.Marshal(req)
	return Handle(context.Background(), root, strings.NewReader(string(b)))
}

func TestProbeStopsALeftoverPerftestServerAndNothingElse(t *testing.T) {
	dir := t.TempDir()
	leftover, lport, gone := standIn(t, dir, perftest.ToolWriteBW)
	other, oport, _ := standIn(t, dir, "not_perftest_listener")
	root := labRoot(t)

	resp := probeServer(t, root, lport)
	if resp.Probe == nil {
		t.Fatalf("no probe result: %+v", resp.Error)
	}
	<-gone // the agent waited for it to exit; its Wait has returned
	if ws, ok := leftover.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("leftover server ended with %v, want killed by SIGKILL", leftover.ProcessState)
	}
	if len(resp.Probe.Leftovers) != 1 {
		t.Fatalf("leftovers %+v, want the one ib_write_bw", resp.Probe.Leftovers)
	}
	l := resp.Probe.Leftovers[0]
	if !l.Killed || l.PID != leftover.Process.Pid || l.Exe != perftest.ToolWriteBW || l.Port != lport {
		t.Errorf("leftover %+v, want pid %d %s killed", l, leftover.Process.Pid, perftest.ToolWriteBW)
	}
	if resp.Probe.Result == nil || !strings.Contains(strings.Join(resp.Probe.Result.Notes, "\n"), "stopped a leftover ib_write_bw server (pid "+strconv.Itoa(leftover.Process.Pid)+")") {
		t.Errorf("probe result does not report it: %+v", resp.Probe.Result)
	}

	// A program that is not perftest, on another probe's port, is left
	// alone and reported.
	resp = probeServer(t, root, oport)
	if resp.Probe == nil || len(resp.Probe.Leftovers) != 1 {
		t.Fatalf("other port: %+v %+v", resp.Error, resp.Probe)
	}
	l = resp.Probe.Leftovers[0]
	if l.Killed || l.PID != other.Process.Pid || l.Exe != "not_perftest_listener" || !strings.Contains(l.Note, "not a perftest tool") {
		t.Errorf("non-perftest listener %+v", l)
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the non-perftest listener is gone: %v", err)
	}
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(oport))
	if err != nil {
		t.Errorf("the non-perftest listener no longer accepts: %v", err)
	} else {
		c.Close()
	}

	// The client side never reaps: it only connects.
	req := agentproto.Request{Version: agentproto.Version, Op: agentproto.OpProbe, Probe: &agentproto.ProbeRequest{
		Options: perftest.Options{GIDIndex: -1, TCPPort: oport, Server: "127.0.0.1", Timeout: 5 * time.Second}}}
	b, _ := json.Marshal(req)
	if r := Handle(context.Background(), root, strings.NewReader(string(b))); r.Probe == nil || len(r.Probe.Leftovers) != 0 {
		t.Errorf("client side looked for leftovers: %+v", r.Probe)
	}
}
