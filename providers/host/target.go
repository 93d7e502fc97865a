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
	_ plan.Recoverer   = (*Target)(nil)
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
		return tp, plan.RenderConflict(err)
	}
	resp, err := t.client.Call(ctx, agentproto.Request{Op: agentproto.OpRead, Desired: desired})
	if err != nil {
		return tp, err
	}
	if resp.Read == nil || resp.Read.Current == nil || resp.Read.Resolved == nil {
		return tp, fmt.Errorf("%s: agent read answered without state", t.Address())
	}
	if tx := resp.Transaction; tx != nil {
		// The host may be half applied: diffing it would show ordinary
		// changes as if nothing had happened.
		return tp, fmt.Errorf("%s: %w: %s", t.Address(), nics.ErrInterrupted, tx)
	}
	rd := resp.Read
	tp.Changes = nics.Diff(rd.Current, rd.Resolved)
	if tp.Changes == nil {
		tp.Changes = []plan.Change{}
	}
	tp.Fingerprint = rd.Fingerprint
	tp.Facts = rd.Facts
	if w := labHostWarning(rd.Facts, t.h.Netns); w != "" {
		tp.Warnings = append(tp.Warnings, w)
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
	// Write-ahead: the journal knows the request may reach the host before
	// it is sent. The agent keeps its own transaction record on the host;
	// Recover asks it to finish or undo whatever this left.
	rec := plan.RecorderFrom(ctx)
	if err := rec.Record("agent-apply", map[string]string{"endpoint": t.endpoint, "fingerprint": tp.Fingerprint}); err != nil {
		res.Status = plan.StatusRefused
		res.Error = "could not record the apply in the journal (" + err.Error() + "); nothing was sent"
		return res, fmt.Errorf("%s: %s", t.Address(), res.Error)
	}
	resp, err := t.client.Call(ctx, agentproto.Request{Op: agentproto.OpApply, Desired: &desired, Fingerprint: tp.Fingerprint, FailAfterStep: failAfter})
	defer func() {
		d := map[string]string{"status": res.Status}
		if resp != nil && resp.Apply != nil && resp.Apply.Fingerprint != "" {
			d["fingerprint_after"] = resp.Apply.Fingerprint
		}
		if rerr := rec.Record("agent-outcome", d); rerr != nil {
			res.Error = joinErr(res.Error, "the outcome could not be journalled: "+rerr.Error())
		}
	}()
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
		if resp != nil && resp.Error != nil {
			switch resp.Error.Code {
			case agentproto.ErrCodeRefused, agentproto.ErrCodeBusy:
				res.Status = plan.StatusRefused
			case agentproto.ErrCodeInterrupted:
				// An earlier apply left the host unfinished; nothing changed now.
				res.Status = plan.StatusRefused
				return res, fmt.Errorf("%s: %w: %s", t.Address(), nics.ErrInterrupted, resp.Error.Message)
			}
		}
		return res, err
	}
	return res, nil
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Recover asks the agent to finish the host's unfinished transaction: it
// confirms the interrupted apply when every step ran and the host reads
// back as desired (applied), otherwise restores the snapshot it recorded
// before the first change and verifies it (rolled-back), then removes its
// record. The host's own record is the authority, so e may come from a
// journal that knows less (the apply request may never have arrived). A
// host without a record was never left half applied: the engine's read
// back says whether it is as before or as planned. The result is never
// nil.
func (t *Target) Recover(ctx context.Context, e *plan.JournalEntry) (*plan.ApplyResult, error) {
	start := time.Now()
	res := &plan.ApplyResult{Address: t.Address(), Status: plan.StatusFailed}
	defer func() { res.Duration = time.Since(start) }()
	resp, err := t.client.Call(ctx, agentproto.Request{Op: agentproto.OpRecover})
	if resp != nil && resp.Recover != nil {
		rep := resp.Recover
		for _, s := range rep.Restore {
			res.Transcript = append(res.Transcript, plan.Exchange{Command: "restore " + s.Name + ": " + s.Detail, Response: s.Error, Failed: s.Error != ""})
		}
		for _, n := range rep.Notes {
			res.Transcript = append(res.Transcript, plan.Exchange{Command: "recover", Response: n})
		}
		switch rep.Status {
		case plan.StatusApplied:
			res.Status = plan.StatusApplied
			res.Error = "the host's transaction had completed every step; confirmed"
		case plan.StatusRolledBack:
			res.Status = plan.StatusRolledBack
			res.Error = "the host was restored from the snapshot its agent recorded before the first change"
			if tx := rep.Transaction; tx != nil {
				res.Error += fmt.Sprintf(" (interrupted at step %d of %d)", tx.Reached, tx.Steps)
			}
		case plan.StatusUnchanged:
			// No record: the agent never started, or reached an outcome.
			res.Status = plan.StatusRolledBack
			res.Error = "no unfinished transaction on the host (the apply never reached it, or the agent finished it)"
			if e != nil && e.Reached("agent-outcome") {
				res.Error = "no unfinished transaction on the host; the agent had answered " + e.LastDetail("status")
			}
		}
	}
	if err != nil {
		res.Status = plan.StatusFailed
		res.Error = joinErr(res.Error, err.Error())
		if resp != nil && resp.Error != nil && resp.Error.Code == agentproto.ErrCodeBusy {
			res.Error = joinErr(res.Error, "another roce-agent is working on the host; run roce-apply -recover again when it has finished")
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

// labHostWarning says what is emulated on a lab host ("" on a real one).
// The text is the same on every lab host of a kind, with no host or
// namespace name, so a plan prints it once for all of them ("on 4 hosts:
// …", plan.RenderText) instead of once per host (issue #18); each host's
// namespace is in its policy block and its -verbose facts.
func labHostWarning(facts map[string]string, netns string) string {
	if facts["backend.dcb"] != nics.BackendLab {
		return ""
	}
	links := "MTU and addresses are real netlink"
	switch {
	case strings.HasPrefix(facts["backend.netlink"], nics.BackendLab):
		links = "MTU and addresses are emulated too (no real interface)"
	case netns != "":
		links += ", inside the host's own network namespace"
	}
	return "lab host: DCB, VLAN devices and RDMA sysfs/configfs are emulated (lab-emulated backend); " + links
}
