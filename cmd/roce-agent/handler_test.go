package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/agentproto"
)

func labRoot(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	if err := nics.SeedLab(root, nics.LabSpec{NICs: []nics.LabNIC{{Netdev: "v0", RDMADevice: "mlx5_0"}}}); err != nil {
		t.Fatal(err)
	}
	return root
}

func snapshotTree(t testing.TB, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			m[p+"/"] = ""
			return nil
		}
		b, _ := os.ReadFile(p)
		m[p] = string(b)
		return nil
	})
	return m
}

func sameTree(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestHandleRejectsBadRequestsAndChangesNothing(t *testing.T) {
	cases := []struct {
		name, in, code string
	}{
		{"not json", `hello`, agentproto.ErrCodeMalformed},
		{"empty", ``, agentproto.ErrCodeMalformed},
		{"array", `[1,2]`, agentproto.ErrCodeMalformed},
		{"no version", `{"op":"read","desired":{}}`, agentproto.ErrCodeMalformed},
		{"future version", `{"version":2,"op":"apply","desired":{"files":[{"path":"/etc/x","format":"lines","lines":["a"]}]}}`, agentproto.ErrCodeVersion},
		{"version zero", `{"version":0,"op":"read","desired":{}}`, agentproto.ErrCodeVersion},
		{"unknown op", `{"version":1,"op":"reboot"}`, agentproto.ErrCodeUnknownOp},
		{"no op", `{"version":1}`, agentproto.ErrCodeMalformed},
		{"unknown field", `{"version":1,"op":"read","desired":{},"force":true}`, agentproto.ErrCodeMalformed},
		{"apply without desired", `{"version":1,"op":"apply"}`, agentproto.ErrCodeMalformed},
		{"trailing data", `{"version":1,"op":"counters"} {"version":1,"op":"apply"}`, agentproto.ErrCodeMalformed},
		{"wrong type", `{"version":1,"op":"apply","desired":{"nics":"v0"}}`, agentproto.ErrCodeMalformed},
		{"negative fault step", `{"version":1,"op":"apply","desired":{},"fail_after_step":-1}`, agentproto.ErrCodeMalformed},
		{"probe without probe", `{"version":1,"op":"probe"}`, agentproto.ErrCodeMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := labRoot(t)
			before := snapshotTree(t, root)
			resp := Handle(context.Background(), root, strings.NewReader(tc.in))
			if resp.OK || resp.Error == nil || resp.Error.Code != tc.code {
				t.Fatalf("response %+v, want error code %s", resp, tc.code)
			}
			if resp.Version != agentproto.Version {
				t.Errorf("response version %d", resp.Version)
			}
			if !sameTree(before, snapshotTree(t, root)) {
				t.Error("a rejected request changed the host tree")
			}
		})
	}
}

func TestFaultInjectionRefusedOnRealRoot(t *testing.T) {
	root := t.TempDir() // no lab marker: a real host as far as the agent knows
	in := `{"version":1,"op":"apply","desired":{"files":[{"path":"/etc/nccl.conf","format":"kv","exists":true,"entries":[{"key":"NCCL_IB_SL","value":"3"}]}]},"fail_after_step":1}`
	resp := Handle(context.Background(), root, strings.NewReader(in))
	if resp.OK || resp.Error == nil || resp.Error.Code != agentproto.ErrCodeRefused {
		t.Fatalf("response %+v", resp)
	}
	if _, err := os.Stat(filepath.Join(root, "etc/nccl.conf")); err == nil {
		t.Error("refused request wrote a file")
	}
}

func TestFilesOnlyApplyAndRead(t *testing.T) {
	root := t.TempDir()
	desired := &nics.HostState{Files: []nics.FileState{{Path: nics.FileNCCL, Format: nics.FormatKV, Exists: true, Entries: []nics.KV{{Key: "NCCL_IB_SL", Value: "3"}}}}}
	call := func(req agentproto.Request) *agentproto.Response {
		req.Version = agentproto.Version
		b, _ := json.Marshal(req)
		return Handle(context.Background(), root, strings.NewReader(string(b)))
	}
	r := call(agentproto.Request{Op: agentproto.OpRead, Desired: desired})
	if !r.OK || r.Read == nil {
		t.Fatalf("read: %+v", r.Error)
	}
	a := call(agentproto.Request{Op: agentproto.OpApply, Desired: r.Read.Resolved, Fingerprint: r.Read.Fingerprint})
	if !a.OK || a.Apply.Status != "applied" {
		t.Fatalf("apply: %+v %+v", a.Error, a.Apply)
	}
	// Same fingerprint again: the host moved, so the agent says stale.
	s := call(agentproto.Request{Op: agentproto.OpApply, Desired: r.Read.Resolved, Fingerprint: r.Read.Fingerprint})
	if s.OK || s.Error.Code != agentproto.ErrCodeStale {
		t.Fatalf("stale apply: %+v", s.Error)
	}
}

func TestProbeRefusesNonPerftestCommand(t *testing.T) {
	root := labRoot(t)
	in := `{"version":1,"op":"probe","probe":{"options":{"Command":["/bin/sh","-c","touch /tmp/pwned"],"GIDIndex":0},"nic":{"netdev":""}}}`
	resp := Handle(context.Background(), root, strings.NewReader(in))
	if resp.OK || resp.Error == nil || !strings.Contains(resp.Error.Message, "not a perftest tool") {
		t.Fatalf("response %+v", resp.Error)
	}
}

func TestBinaryVersionMismatch(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "roce-agent")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--root", t.TempDir())
	cmd.Stdin = strings.NewReader(`{"version":99,"op":"read","desired":{}}`)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agent exit: %v", err)
	}
	var resp agentproto.Response
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("response %q: %v", out, err)
	}
	if resp.OK || resp.Error.Code != agentproto.ErrCodeVersion || !strings.Contains(resp.Error.Message, "version 99") {
		t.Errorf("response %+v", resp.Error)
	}
}

func FuzzAgentRequest(f *testing.F) {
	f.Add([]byte(`{"version":1,"op":"read","desired":{}}`))
	f.Add([]byte(`{"version":1,"op":"apply","desired":{"nics":[{"netdev":"lo"}]},"fingerprint":"x"}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"op":"probe","probe":{"options":{},"nic":{}}}`))
	f.Add([]byte(`{"version":1,"op":"counters","nics":[{"netdev":"v0"}]}`))
	f.Add([]byte(`{"version":1,"op":"recover"}`))
	f.Add([]byte(`{"version":1,"op":"read","OP":"apply","desired":{}}`))
	f.Add([]byte(`{"version":1,"op":"read","op":"apply","desired":{}}`))
	f.Add([]byte(`{"version":1,"op":"apply","desired":{"files":[{"path":"/etc/modprobe.d/roce-rdma_cm.conf","format":"lines","exists":true,"lines":["install rdma_cm /bin/sh"]}]}}`))
	root := labRoot(f)
	before := snapshotTree(f, root)
	f.Fuzz(func(t *testing.T, in []byte) {
		req, perr := agentproto.DecodeRequest(strings.NewReader(string(in)))
		if perr == nil {
			// A well-formed request: it must name a known op and survive a
			// re-encode. It is not executed here — the fuzzer could craft a
			// valid apply against this machine's real netdevs.
			switch req.Op {
			case agentproto.OpRead, agentproto.OpApply, agentproto.OpProbe, agentproto.OpCounters, agentproto.OpRecover:
			default:
				t.Fatalf("decoder accepted op %q", req.Op)
			}
			b, err := json.Marshal(req)
			if err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			// What the strict decoder accepted, encoding/json reads the
			// same way (no duplicate or case-variant key picked another
			// value), and the re-encoding is accepted again, unchanged.
			var lenient agentproto.Request
			if err := json.Unmarshal(in, &lenient); err != nil {
				t.Fatalf("accepted, but encoding/json refuses it: %v", err)
			}
			if lb, _ := json.Marshal(lenient); string(lb) != string(b) {
				t.Fatalf("strict and lenient decoders disagree:\n%s\n%s", b, lb)
			}
			again, perr := agentproto.DecodeRequest(strings.NewReader(string(b)))
			if perr != nil {
				t.Fatalf("re-encoded request refused: %v", perr)
			}
			if b2, _ := json.Marshal(again); string(b2) != string(b) {
				t.Fatalf("round trip changed the request:\n%s\n%s", b, b2)
			}
			return
		}
		// Malformed: the full handler answers with an error and changes nothing.
		resp := Handle(context.Background(), root, strings.NewReader(string(in)))
		if resp.OK || resp.Error == nil || resp.Error.Code != perr.Code {
			t.Fatalf("handler %+v, decoder %+v", resp.Error, perr)
		}
		if !sameTree(before, snapshotTree(t, root)) {
			t.Fatal("a malformed request changed the host tree")
		}
	})
}
