package nxos

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// modules7000 is a 7000 with an F-series card in slot 2 and an M-series
// card in slot 3, like nexus/testdata/start/nexus7000.
var modules7000 = []nexus.Module{
	{Slot: 1, Ports: 0, Type: "Supervisor Module-2", Model: "N7K-SUP2E", Status: "active *"},
	{Slot: 2, Ports: 48, Type: "1/10 Gbps Ethernet Module", Model: "N7K-F248XP-25E", Status: "ok"},
	{Slot: 3, Ports: 48, Type: "10/100/1000 Mbps Ethernet Module", Model: "N7K-M148GT-11L", Status: "ok"},
}

// classes are the lossless classes the tests apply, by match mode.
func classes() map[string][]*policies.Lossless {
	return map[string][]*policies.Lossless{
		"cos":      {{Name: "rdma", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{4}}, Priority: 4, MTU: 9216, BandwidthPercent: 40}},
		"udp_port": {{Name: "rocev2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791}, Priority: 4, MTU: 9216}},
		// cos5: the realistic 5000 already classifies CoS 4 (VMOTION); a
		// lossless class on CoS 4 there is refused as an overlap.
		"cos5": {{Name: "rdma", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{5}}, Priority: 5, MTU: 9216, BandwidthPercent: 40}},
		// udp_dscp26: RoCE v2 the hosts mark with DSCP 26, the fix a cos
		// class on the realistic 7000 is refused with (MARK-IN re-marks
		// other DSCPs on a managed port, overlap_realistic7000_test.go).
		"udp_dscp26": {{Name: "rocev2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 4, MTU: 9216, BandwidthPercent: 40}},
		// scale: the scale benchmark's class (internal/scale's policy).
		"scale": {{Name: "rocev2", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, Priority: 4, MTU: 9214, BandwidthPercent: 50}},
	}
}

// rig is one simulated switch and the provider target pointed at it, with
// the trust and credentials a user's policy would carry.
type rig struct {
	srv    *nxsim.Server
	target *Target
	sw     *policies.Switch
}

type rigOpts struct {
	kind, start, mode string
	vdc               string
	ifaces            []string
	faults            nxsim.Faults
	trust             func(sw *policies.Switch, srv *nxsim.Server)
	modules           []nexus.Module // a 7000's cards; nil = modules7000
}

func readStart(t testing.TB, kind, start string) string {
	t.Helper()
	if start == "" {
		return ""
	}
	prefix := map[string]string{"nexus5000": "n5k-", "nexus7000": "n7k-"}[kind]
	b, err := os.ReadFile(filepath.Join("testdata", "start", prefix+start+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newRig(t testing.TB, o rigOpts) *rig {
	t.Helper()
	if o.mode == "" {
		o.mode = "cos"
	}
	opts := nxsim.Options{
		Hostname: "sw1", Platform: o.kind, StartupConfig: readStart(t, o.kind, o.start),
		Users: map[string]string{"netops": "pw-123"}, Faults: o.faults, VDC: o.vdc,
	}
	if o.ifaces == nil {
		o.ifaces = []string{"Ethernet1/1", "Ethernet1/2"}
	}
	if o.kind == "nexus7000" {
		opts.Modules = modules7000
		if o.modules != nil {
			opts.Modules = o.modules
		}
		opts.Version = "6.2(14)"
		if o.ifaces[0] == "Ethernet1/1" {
			o.ifaces = []string{"Ethernet2/1", "Ethernet2/2"}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := nxsim.Listen(ctx, "127.0.0.1:0", opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = srv.Close()
	})
	sw := &policies.Switch{
		Name: "sw1", Platform: o.kind, Address: srv.Addr(), Credentials: "lab",
		Interfaces: o.ifaces, FCoE: strings.Contains(o.start, "fcoe") || o.start == "realistic" || o.start == "scale",
		HostKey: string(ssh.MarshalAuthorizedKey(srv.Switch().HostKey())),
	}
	if o.trust != nil {
		sw.HostKey = ""
		o.trust(sw, srv)
	}
	fab := &policies.Fabric{
		Dir:         t.TempDir(),
		Lossless:    classes()[o.mode],
		Switches:    []*policies.Switch{sw},
		Credentials: map[string]*policies.Credentials{"lab": {Name: "lab", Username: "netops", PasswordEnv: "NXOS_PW"}},
	}
	env := plan.Env{
		Fabric:  fab,
		Getenv:  func(k string) (string, bool) { return map[string]string{"NXOS_PW": "pw-123"}[k], k == "NXOS_PW" },
		Timeout: 10 * time.Second,
	}
	tg, err := newTarget(env, sw)
	if err != nil {
		t.Fatal(err)
	}
	tg.backoff = []time.Duration{10 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond}
	tg.home = ""
	return &rig{srv: srv, target: tg, sw: sw}
}

func (r *rig) plan(t testing.TB) *plan.TargetPlan {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tp, err := r.target.Plan(ctx)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	return tp
}

func (r *rig) apply(t testing.TB, tp *plan.TargetPlan) (*plan.ApplyResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := r.target.Apply(ctx, tp)
	if res == nil {
		t.Fatal("Apply returned a nil result")
	}
	return res, err
}

// applyRejecting applies tp with the switch refusing the line bad: the
// apply must report rolled-back with an error, and leave the running config
// as it was and no checkpoint behind. It returns the result and the error.
func (r *rig) applyRejecting(t testing.TB, tp *plan.TargetPlan, bad string) (*plan.ApplyResult, error) {
	t.Helper()
	before := r.srv.Switch().RunningConfig()
	r.srv.Switch().SetFaults(nxsim.Faults{RejectCommand: bad})
	res, err := r.apply(t, tp)
	if res.Status != plan.StatusRolledBack || err == nil {
		t.Fatalf("status %s err %v, want rolled-back\n%s", res.Status, err, transcriptText(res.Transcript))
	}
	if after := r.srv.Switch().RunningConfig(); after != before {
		t.Errorf("running config changed:\n--- before\n%s\n--- after\n%s", before, after)
	}
	if cps := r.srv.Switch().Checkpoints(); len(cps) != 0 {
		t.Errorf("checkpoints left: %v", cps)
	}
	return res, err
}

// transcriptText joins a transcript for failure messages.
func transcriptText(ex []plan.Exchange) string {
	var b strings.Builder
	for _, e := range ex {
		b.WriteString("> " + e.Command + "\n")
		if e.Response != "" {
			b.WriteString(e.Response + "\n")
		}
	}
	return b.String()
}

// applyByHand configures the switch through another session, as another
// operator would.
func applyByHand(t testing.TB, r *rig, lines []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := openConn(t, ctx, r)
	defer c.close()
	if _, err := c.configure(lines); err != nil {
		t.Fatalf("configure by hand: %v", err)
	}
}

// roundTrips is the switch's turn count once no client is connected: the
// logout of the plan or apply before (written without waiting for an
// answer) is then counted, so it never lands in the next measurement.
func (r *rig) roundTrips(t testing.TB) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.srv.Switch().WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	return r.srv.Switch().RoundTrips()
}

// editRunning replaces the switch's running configuration with edit of it.
func (r *rig) editRunning(t testing.TB, edit func(string) string) {
	t.Helper()
	sw := r.srv.Switch()
	if err := sw.ReplaceRunningConfig(edit(sw.RunningConfig())); err != nil {
		t.Fatal(err)
	}
}

// planRefusal plans and returns why the target could not be planned: the
// error, or the plan's own error ("" when it planned).
func (r *rig) planRefusal(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tp, err := r.target.Plan(ctx)
	switch {
	case err != nil:
		return err.Error()
	case tp != nil:
		return tp.Error
	}
	return ""
}
