package host

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/plan"
)

// countingRunner counts agent calls, so a test can prove nothing was sent.
type countingRunner struct {
	runner
	calls int
}

func (c *countingRunner) run(ctx context.Context, stdin []byte) ([]byte, []byte, error) {
	c.calls++
	return c.runner.run(ctx, stdin)
}

// A saved plan is a file: someone who can edit it (and recompute its
// checksum) must not be able to make apply write anything the policy does
// not render. The provider re-derives the host state from the policy and
// refuses a payload that differs, before any agent call.
func TestApplyRefusesTamperedPayloadWithoutCallingTheAgent(t *testing.T) {
	fab, h := inProcessHost(t, true)
	// Let the host resolve the RDMA device and the MTU, so the payload
	// carries host facts the check must accept.
	h.NICs[0].RDMADevice, h.NICs[0].MTU = "", 0
	tg, err := NewInProcess(plan.Env{Fabric: fab}, h)
	if err != nil {
		t.Fatal(err)
	}
	target := tg.(*Target)
	cr := &countingRunner{runner: target.client.r}
	target.client.r = cr
	ctx := context.Background()
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var payload nics.HostState
	if err := json.Unmarshal(tp.Payload, &payload); err != nil {
		t.Fatal(err)
	}
	if payload.NICs[0].RDMADevice != "mlx5_0" || payload.NICs[0].MTU < nics.MinRoCEMTU {
		t.Fatalf("payload did not resolve host facts: %+v", payload.NICs[0])
	}

	tamper := map[string]func(st *nics.HostState){
		"memlock path": func(st *nics.HostState) {
			for i := range st.Files {
				if st.Files[i].Path == nics.FileMemlock {
					st.Files[i].Path = "/etc/pwned-by-plan.conf"
				}
			}
		},
		"memlock line": func(st *nics.HostState) {
			for i := range st.Files {
				if st.Files[i].Path == nics.FileMemlock {
					st.Files[i].Lines = append(st.Files[i].Lines, "root hard nofile 1")
				}
			}
		},
		"extra file": func(st *nics.HostState) {
			st.Files = append(st.Files, nics.FileState{Path: nics.FileUCX, Format: nics.FormatKV, Exists: true,
				Entries: []nics.KV{{Key: "UCX_IB_SL", Value: "0"}}})
		},
		"service level": func(st *nics.HostState) {
			for i := range st.Files {
				for j := range st.Files[i].Entries {
					if st.Files[i].Entries[j].Key == "NCCL_IB_SL" {
						st.Files[i].Entries[j].Value = "0"
					}
				}
			}
		},
		"pfc bitmap":        func(st *nics.HostState) { st.NICs[0].DCB.PFCEnabled = 0xff },
		"mtu below floor":   func(st *nics.HostState) { st.NICs[0].MTU = 1500; st.NICs[0].VLAN.MTU = 1500 },
		"device escapes":    func(st *nics.HostState) { st.NICs[0].RDMADevice = "../../../etc" },
		"rdma_cm tos":       func(st *nics.HostState) { st.RDMACM[0].ToS = 0 },
		"gid index garbage": setGID("3; rm -rf /"),
	}
	for name, f := range tamper {
		t.Run(name, func(t *testing.T) {
			var st nics.HostState
			_ = json.Unmarshal(tp.Payload, &st)
			f(&st)
			bad := *tp
			bad.Payload, _ = json.Marshal(&st)
			before := cr.calls
			res, err := tg.Apply(ctx, &bad)
			if err == nil || res.Status != plan.StatusRefused {
				t.Fatalf("tampered payload applied: %v %+v", err, res)
			}
			if !strings.Contains(err.Error(), "the plan's host payload is not what the policy renders now; re-run roce-plan") {
				t.Errorf("error does not say what to do: %v", err)
			}
			if cr.calls != before {
				t.Errorf("the agent was called %d time(s) for a tampered payload", cr.calls-before)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(h.Root, "etc/pwned-by-plan.conf")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("tampered file path was written: %v", err)
	}

	// A changed policy is refused the same way: the plan no longer shows
	// what would be applied.
	fab.Lossless[0].Priority = 5
	before := cr.calls
	if res, err := tg.Apply(ctx, tp); err == nil || res.Status != plan.StatusRefused || cr.calls != before {
		t.Errorf("plan from an older policy: %v %+v (agent calls %d)", err, res, cr.calls-before)
	}
	fab.Lossless[0].Priority = 4

	// The untouched plan still applies.
	if res, err := tg.Apply(ctx, tp); err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("genuine plan: %v %+v", err, res)
	}
}

func setGID(v string) func(st *nics.HostState) {
	return func(st *nics.HostState) {
		for i := range st.Files {
			for j := range st.Files[i].Entries {
				if st.Files[i].Entries[j].GID != nil {
					st.Files[i].Entries[j].Value = v
				}
			}
		}
	}
}
