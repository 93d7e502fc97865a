package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/agentproto"
)

// The agent is the second layer against a tampered plan or a forged
// request: it writes only the files it manages and builds sysfs/configfs
// paths only from plain device names. Anything else is refused before the
// host is opened, naming the path, and nothing is written.
func TestAgentRefusesPathsOutsideItsAllowList(t *testing.T) {
	memlock := func(path string) *nics.HostState {
		return &nics.HostState{Files: []nics.FileState{{Path: path, Format: nics.FormatLines, Exists: true,
			Lines: []string{"* soft memlock unlimited"}}}}
	}
	cases := []struct {
		name    string
		req     agentproto.Request
		mention string
	}{
		{"apply foreign file", agentproto.Request{Op: agentproto.OpApply, Desired: memlock("/etc/pwned-by-plan.conf")}, "/etc/pwned-by-plan.conf"},
		{"apply dot-dot file", agentproto.Request{Op: agentproto.OpApply, Desired: memlock(nics.FileMemlock + "/../../../pwned-by-plan.conf")}, "pwned-by-plan.conf"},
		{"read foreign file", agentproto.Request{Op: agentproto.OpRead, Desired: memlock("/etc/shadow")}, "/etc/shadow"},
		{"rdma_cm device escapes configfs", agentproto.Request{Op: agentproto.OpApply, Desired: &nics.HostState{
			RDMACM: []nics.RDMACMState{{Device: "../../../../etc", Port: 1, Method: nics.RDMACMConfigfs, ToS: 104, Prec2SL: -1}}}}, "../../../../etc"},
		{"netdev escapes sysfs", agentproto.Request{Op: agentproto.OpApply, Desired: &nics.HostState{
			NICs: []nics.NICState{{Netdev: "../v0", Port: 1, Exists: true}}}}, "../v0"},
		{"counters device escapes", agentproto.Request{Op: agentproto.OpCounters, NICs: []nics.NICRef{{Netdev: "v0", RDMADevice: "mlx5_0/../../x"}}}, "mlx5_0/../../x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := labRoot(t)
			before := snapshotTree(t, root)
			c.req.Version = agentproto.Version
			b, _ := json.Marshal(c.req)
			resp := Handle(context.Background(), root, strings.NewReader(string(b)))
			if resp.OK || resp.Error == nil || resp.Error.Code != agentproto.ErrCodeRefused {
				t.Fatalf("not refused: %+v %+v", resp.Error, resp.Apply)
			}
			if !strings.Contains(resp.Error.Message, c.mention) || !strings.Contains(resp.Error.Message, "not managed by roce") {
				t.Errorf("error does not name %q: %s", c.mention, resp.Error.Message)
			}
			if resp.Apply != nil || resp.Read != nil {
				t.Errorf("refused request still answered with state: %+v %+v", resp.Apply, resp.Read)
			}
			if !sameTree(before, snapshotTree(t, root)) {
				t.Errorf("the host tree changed")
			}
			if _, err := os.Stat(filepath.Join(root, "etc/pwned-by-plan.conf")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("file written: %v", err)
			}
		})
	}

	// Every file roce renders is on the list, so a genuine apply passes.
	root := labRoot(t)
	req := agentproto.Request{Version: agentproto.Version, Op: agentproto.OpApply, Desired: memlock(nics.FileMemlock)}
	b, _ := json.Marshal(req)
	resp := Handle(context.Background(), root, strings.NewReader(string(b)))
	if !resp.OK {
		t.Fatalf("managed file refused: %+v", resp.Error)
	}
	if _, err := os.Stat(filepath.Join(root, nics.FileMemlock)); err != nil {
		t.Errorf("managed file not written: %v", err)
	}
}
