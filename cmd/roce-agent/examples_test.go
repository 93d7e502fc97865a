package main

import (
	"os"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics/agentproto"
)

// The DaemonSet example carries an agent request in a ConfigMap; it must be
// a request this agent accepts.
func TestDaemonSetExampleRequestDecodes(t *testing.T) {
	b, err := os.ReadFile("../../examples/fleet-runners/kubernetes-daemonset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var body []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "  apply.json: |"):
			in = true
		case in && strings.HasPrefix(l, "    "):
			body = append(body, l)
		case in:
			in = false
		}
	}
	if len(body) == 0 {
		t.Fatal("no apply.json in the ConfigMap")
	}
	req, perr := agentproto.DecodeRequest(strings.NewReader(strings.Join(body, "\n")))
	if perr != nil {
		t.Fatalf("example request rejected: %v", perr)
	}
	if req.Op != agentproto.OpApply || len(req.Desired.NICs) != 1 || req.Desired.NICs[0].DCB.PFCEnabled != 8 {
		t.Errorf("example request %+v", req)
	}
}
