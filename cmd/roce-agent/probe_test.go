package main

import (
	"github.com/rocefabric/roce/internal/testenv"

	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/agentproto"
	"github.com/rocefabric/roce/nics/perftest"
)

// The probe resolves the RDMA device and the GID index on the host side,
// then runs perftest. This kernel has no RDMA, so ib_write_bw fails with
// the no-device class — which is what the agent must report, with the
// resolved GID index and the argv it used.
func TestProbeResolvesDeviceAndGIDThenRunsPerftest(t *testing.T) {
	testenv.Tool(t, perftest.ToolWriteBW, "make deps-test installs Debian's perftest")
	root := t.TempDir()
	spec := nics.LabSpec{NICs: []nics.LabNIC{{Netdev: "ens1f0", RDMADevice: "mlx5_3", GIDs: []nics.LabGID{{Netdev: "ens1f0.100", IP: "10.10.0.11"}}}}}
	if err := nics.SeedLab(root, spec); err != nil {
		t.Fatal(err)
	}
	req := agentproto.Request{Version: agentproto.Version, Op: agentproto.OpProbe, Probe: &agentproto.ProbeRequest{
		Options:    perftest.Options{GIDIndex: -1, Server: "127.0.0.1", SL: 3, Timeout: 20 * time.Second},
		NIC:        nics.NICRef{Netdev: "ens1f0"},
		GIDNetdev:  "ens1f0.100",
		GIDAddress: "10.10.0.11",
	}}
	b, _ := json.Marshal(req)
	resp := Handle(context.Background(), root, strings.NewReader(string(b)))
	if resp.Probe == nil {
		t.Fatalf("no probe result: %+v", resp.Error)
	}
	if resp.Probe.GIDIndex != 3 {
		t.Errorf("GID index %d, want 3 (v2 entry of 10.10.0.11 on ens1f0.100)", resp.Probe.GIDIndex)
	}
	if resp.Probe.Result == nil || !strings.Contains(strings.Join(resp.Probe.Result.Argv, " "), "-d mlx5_3") ||
		!strings.Contains(strings.Join(resp.Probe.Result.Argv, " "), "-x 3") {
		t.Errorf("argv does not carry the resolved device and GID: %+v", resp.Probe.Result)
	}
	if resp.OK {
		t.Skip("this machine has an RDMA device; the no-device path can't be checked here")
	}
	if resp.Probe.Failure == nil || resp.Probe.Failure.Class != perftest.ClassNoDevice {
		t.Errorf("failure %+v, want class %s", resp.Probe.Failure, perftest.ClassNoDevice)
	}
}

func TestProbeUnknownGIDIsAnError(t *testing.T) {
	root := t.TempDir()
	if err := nics.SeedLab(root, nics.LabSpec{NICs: []nics.LabNIC{{Netdev: "ens1f0", RDMADevice: "mlx5_0"}}}); err != nil {
		t.Fatal(err)
	}
	in := `{"version":1,"op":"probe","probe":{"options":{"GIDIndex":-1,"Server":"127.0.0.1"},"nic":{"netdev":"ens1f0"},"gid_address":"10.9.9.9"}}`
	resp := Handle(context.Background(), root, strings.NewReader(in))
	if resp.OK || resp.Error == nil || !strings.Contains(resp.Error.Message, "no RoCE v2 GID for 10.9.9.9") {
		t.Fatalf("%+v", resp.Error)
	}
}
