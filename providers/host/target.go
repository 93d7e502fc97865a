package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/agentproto"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/telemetry"
)

// Target is one host as the plan engine sees it.
type Target struct {
	name     string
	endpoint string
	fab      *policies.Fabric
	h        *policies.Host
	client   *Client
}

var (
	_ plan.Target      = (*Target)(nil)
	_ telemetry.Source = (*Target)(nil)
)

// New is the plan.HostFactory: it builds the transport (local subprocess or
// SSH) without connecting yet.
func New(env plan.Env, h *policies.Host) (plan.Target, error) {
	if h == nil {
		return nil, errors.New("host provider: nil host")
	}
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) (string, bool) { return "", false }
	}
	addr := "host." + h.Name
	agentPath, err := locateAgent(getenv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", addr, err)
	}
	root := h.Root
	if root == "" {
		root = "/"
	}
	if h.Local && !filepath.IsAbs(root) && env.Fabric != nil && env.Fabric.Dir != "" {
		// A relative root in a policy means relative to the policy directory.
		root = filepath.Join(env.Fabric.Dir, root)
	}
	t := &Target{name: h.Name, fab: env.Fabric, h: h}
	if h.Local {
		if _, err := checkLocalHost(addr, h, root, nics.HostNetns{}); err != nil {
			return nil, err // a lab host outside its lab namespace
		}
		t.endpoint = "local"
		if h.Netns != "" {
			t.endpoint = "netns " + h.Netns
		}
		t.client = &Client{host: addr, r: newLocalRunner(agentPath, h.Netns, root)}
		return t, nil
	}
	if h.Address == "" {
		return nil, fmt.Errorf("%s: no address and not local", addr)
	}
	cfg, auth, err := sshConfig(env.Fabric, h, getenv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", addr, err)
	}
	bin, err := os.ReadFile(agentPath)
	if err != nil {
		return nil, fmt.Errorf("%s: read agent binary: %w", addr, err)
	}
	hostport := h.Address
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		hostport = net.JoinHostPort(hostport, "22")
	}
	t.endpoint = "ssh://" + cfg.User + "@" + hostport
	t.client = &Client{host: addr, r: &sshRunner{addr: hostport, config: cfg, auth: auth, agent: bin, digest: fileDigest(bin), netns: h.Netns, root: root,
		arch: elfMachine(bin), sudo: cfg.User != "root"}}
	return t, nil
}

// Address is "host.NAME".
func (t *Target) Address() string { return "host." + t.name }

// Agent is the low-level agent client (roce-verify's probes).
func (t *Target) Agent() *Client { return t.client }

// Close closes the transport.
func (t *Target) Close() error { return t.client.Close() }

// Plan computes the desired state, asks the agent to resolve and read it,
// and diffs. The payload is the resolved desired state apply will send.
func (t *Target) Plan(ctx context.Context) (*plan.TargetPlan, error) {
	tp := &plan.TargetPlan{Address: t.Address(), Kind: "host", Endpoint: t.endpoint, Changes: []plan.Change{}}
	desired, err := nics.Desired(t.fab, t.h)
	if err != nil {
		return tp, err
	}
	resp, err := t.client.Call(ctx, agentproto.Request{Op: agentproto.OpRead, Desired: desired})
	if err != nil {
		return tp, err
	}
	if resp.Read == nil || resp.Read.Current == nil || resp.Read.Resolved == nil {
		return tp, fmt.Errorf("%s: agent read answered without state", t.Address())
	}
	rd := resp.Read
	tp.Changes = nics.Diff(rd.Current, rd.Resolved)
	if tp.Changes == nil {
		tp.Changes = []plan.Change{}
	}
	tp.Fingerprint = rd.Fingerprint
	tp.Facts = rd.Facts
	if rd.Facts["backend.dcb"] == nics.BackendLab {
		tp.Warnings = append(tp.Warnings, "lab host: DCB, VLAN devices and RDMA sysfs/configfs are emulated (lab-emulated backend); MTU and addresses are real netlink")
	}
	for _, c := range t.classNotes() {
		tp.Warnings = append(tp.Warnings, c)
	}
	payload, err := json.Marshal(rd.Resolved)
	if err != nil {
		return tp, fmt.Errorf("%s: encode payload: %w", t.Address(), err)
	}
	tp.Payload = payload
	if err := t.markThisMachine(ctx, tp, rd.Resolved); err != nil {
		return tp, err
	}
	for i := range tp.Changes {
		if tp.Changes[i].Note == "" && len(rd.Notes) > 0 && strings.HasPrefix(tp.Changes[i].Address, "file:") {
			for _, n := range rd.Notes {
				if strings.HasPrefix(n, strings.TrimPrefix(tp.Changes[i].Address, "file:")) {
					tp.Changes[i].Note = n
				}
			}
		}
	}
	return tp, nil
}

// classNotes warns about classes the NIC side can only approximate.
func (t *Target) classNotes() []string {
	var out []string
	for _, c := range t.fab.Lossless {
		if c.Match.Kind == policies.MatchAll {
			out = append(out, fmt.Sprintf("class %s is all-traffic: NICs get PFC on every priority; switches using 802.3x link-level flow control need ethtool -A on the hosts, which roce does not manage yet", c.Name))
		}
	}
	return out
}

// Apply sends the plan's desired state with its fingerprint; the agent
// re-reads, refuses a stale plan, applies as one transaction and restores
// on failure. The result is never nil.
func (t *Target) Apply(ctx context.Context, tp *plan.TargetPlan) (*plan.ApplyResult, error) {
	return t.apply(ctx, tp, 0)
}

func (t *Target) apply(ctx context.Context, tp *plan.TargetPlan, failAfter int) (*plan.ApplyResult, error) {
	start := time.Now()
	res := &plan.ApplyResult{Address: t.Address(), Status: plan.StatusFailed}
	defer func() { res.Duration = time.Since(start) }()
	if tp == nil || len(tp.Payload) == 0 {
		res.Status = plan.StatusRefused
		res.Error = "no host payload in the plan"
		return res, fmt.Errorf("%s: %s", t.Address(), res.Error)
	}
	var desired nics.HostState
	if err := json.Unmarshal(tp.Payload, &desired); err != nil {
		res.Status = plan.StatusRefused
		res.Error = "plan payload is not a host state: " + err.Error()
		return res, fmt.Errorf("%s: %s", t.Address(), res.Error)
	}
	// The payload is what the plan showed, but a saved plan is a file: it
	// must still be exactly what the policy renders for this host (plus
	// the host facts the agent resolved at plan time), or nothing is sent.
	// The agent's allow-list (nics.CheckManaged) is the second layer.
	policyState, err := nics.Desired(t.fab, t.h)
	if err != nil {
		res.Status = plan.StatusRefused
		res.Error = "the policy no longer renders this host (" + err.Error() + "); nothing was sent: fix the policy and re-run roce-plan"
		return res, fmt.Errorf("%s: %s", t.Address(), res.Error)
	}
	if err := nics.CheckResolved(policyState, &desired); err != nil {
		res.Status = plan.StatusRefused
		res.Error = "the plan's host payload is not what the policy renders now; re-run roce-plan (" + err.Error() + "); nothing was sent"
		return res, fmt.Errorf("%s: %s", t.Address(), res.Error)
	}
	if err := t.checkThisMachineApply(ctx, tp, &desired); err != nil {
		res.Status = plan.StatusRefused
		res.Error = err.Error()
		return res, err
	}
	resp, err := t.client.Call(ctx, agentproto.Request{Op: agentproto.OpApply, Desired: &desired, Fingerprint: tp.Fingerprint, FailAfterStep: failAfter})
	if resp != nil && resp.Apply != nil {
		rep := resp.Apply
		res.Status = rep.Status
		for _, s := range rep.Steps {
			res.Transcript = append(res.Transcript, plan.Exchange{Command: s.Name + ": " + s.Detail, Response: s.Error, Failed: s.Error != ""})
		}
		for _, s := range rep.Restore {
			res.Transcript = append(res.Transcript, plan.Exchange{Command: "restore " + s.Name + ": " + s.Detail, Response: s.Error, Failed: s.Error != ""})
		}
	}
	if err != nil {
		res.Error = err.Error()
		var ae *agentproto.Error
		if errors.As(err, &ae) && ae.Code == agentproto.ErrCodeStale {
			res.Status = plan.StatusStale
			return res, fmt.Errorf("%s: %w", t.Address(), plan.ErrStale)
		}
		if resp != nil && resp.Error != nil && resp.Error.Code == agentproto.ErrCodeRefused {
			res.Status = plan.StatusRefused
		}
		return res, err
	}
	return res, nil
}

// Telemetry reads versions and counters through the agent.
func (t *Target) Telemetry(ctx context.Context) (*telemetry.Device, error) {
	var refs []nics.NICRef
	for _, n := range t.h.NICs {
		refs = append(refs, nics.NICRef{Netdev: n.Netdev, RDMADevice: n.RDMADevice, Port: n.Port})
	}
	resp, err := t.client.Call(ctx, agentproto.Request{Op: agentproto.OpCounters, NICs: refs})
	if err != nil {
		return nil, err
	}
	if resp.Counters == nil {
		return nil, fmt.Errorf("%s: agent counters answered without data", t.Address())
	}
	d := resp.Counters
	d.Address, d.Kind = t.Address(), "host"
	return d, nil
}
