package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/agentproto"
	"github.com/rocefabric/roce/nics/perftest"
)

// Handle decodes one request from r, runs it against the host under root
// and returns the response. Malformed or unknown-version requests are
// answered before the host is opened, so they change nothing.
func Handle(ctx context.Context, root string, r io.Reader) *agentproto.Response {
	return handle(ctx, root, r, nil)
}

// handle is Handle with the kill tests' pause hook (nil in production; see
// hold_testhooks.go, compiled only with the rocetesthooks build tag).
func handle(ctx context.Context, root string, r io.Reader, hold func(string)) *agentproto.Response {
	resp := &agentproto.Response{Version: agentproto.Version}
	req, perr := agentproto.DecodeRequest(r)
	if perr != nil {
		resp.Error = perr
		return resp
	}
	resp.Op = req.Op
	// Refuse anything outside what roce manages before opening the host:
	// a request (or a tampered plan) naming another file, or a device name
	// that would lead a sysfs/configfs path elsewhere, changes nothing.
	if err := checkRequest(req); err != nil {
		return fail(resp, agentproto.ErrCodeRefused, fmt.Errorf("%w; nothing was read or changed", err))
	}
	sys, err := nics.Open(root)
	if err != nil {
		resp.Error = &agentproto.Error{Code: agentproto.ErrCodeFailed, Message: err.Error()}
		return resp
	}
	if agentproto.ServeState(ctx, sys, req, hold, resp) {
		return resp
	}
	switch req.Op {
	case agentproto.OpCounters:
		d, err := sys.Counters(ctx, req.NICs)
		if err != nil {
			return fail(resp, agentproto.ErrCodeFailed, err)
		}
		resp.Counters = d
	case agentproto.OpProbe:
		pr, err := probe(ctx, sys, req.Probe)
		resp.Probe = pr
		if err != nil {
			return fail(resp, agentproto.ErrCodeFailed, err)
		}
	}
	resp.OK = true
	return resp
}

// checkRequest applies the agent's allow-list (nics.CheckManaged) to every
// path or name a request carries.
func checkRequest(req *agentproto.Request) error {
	if err := nics.CheckManaged(req.Desired); err != nil {
		return err
	}
	for _, r := range req.NICs {
		if err := nics.CheckNICRef(r); err != nil {
			return fmt.Errorf("counters: %w", err)
		}
	}
	if p := req.Probe; p != nil {
		if p.NIC.Netdev != "" {
			if err := nics.CheckNICRef(p.NIC); err != nil {
				return fmt.Errorf("probe: %w", err)
			}
		}
		if p.GIDNetdev != "" {
			if err := nics.CheckNetdevName(p.GIDNetdev); err != nil {
				return fmt.Errorf("probe gid_netdev: %w", err)
			}
		}
		if d := p.Options.Device; d != "" {
			if err := nics.CheckRDMADeviceName(d); err != nil {
				return fmt.Errorf("probe device: %w", err)
			}
		}
		if err := checkProbeOptions(p.Options); err != nil {
			return fmt.Errorf("probe: %w", err)
		}
	}
	return nil
}

// checkProbeOptions holds a probe to a perftest tool and its typed
// options: no arguments beside the executable, no free-form extra
// arguments (perftest has options that write files), and a server address
// that can't be read as an option.
func checkProbeOptions(o perftest.Options) error {
	if o.Tool != "" && !perftest.IsKnownTool(o.Tool) {
		return fmt.Errorf("tool %q is not a perftest tool (%s): %w", o.Tool, strings.Join(perftest.KnownTools(), ", "), nics.ErrNotManaged)
	}
	if len(o.Command) > 0 {
		if err := perftest.CheckExecutable(o.Command[0]); err != nil {
			return fmt.Errorf("%v: %w", err, nics.ErrNotManaged)
		}
		if len(o.Command) > 1 {
			return fmt.Errorf("command %q carries arguments; a probe's options are typed fields, never a command line: %w", o.Command, nics.ErrNotManaged)
		}
	}
	if len(o.ExtraArgs) > 0 {
		return fmt.Errorf("extra arguments %q: a probe's options are typed fields, never free-form arguments: %w", o.ExtraArgs, nics.ErrNotManaged)
	}
	if sv := o.Server; sv != "" {
		if strings.HasPrefix(sv, "-") || len(sv) > 253 || strings.IndexFunc(sv, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
			return fmt.Errorf("server %q is not an address or host name: %w", sv, nics.ErrNotManaged)
		}
	}
	return nil
}

func fail(resp *agentproto.Response, code string, err error) *agentproto.Response {
	resp.OK = false
	resp.Error = &agentproto.Error{Code: code, Message: err.Error()}
	return resp
}

// isPerftestTool reports whether a probe may run the executable: the agent
// runs only protocol-defined operations, so a probe command override must
// still be a perftest tool, by the one allow-list in nics/perftest (a bare
// tool name or an absolute path to one; no relative path, no other program).
func isPerftestTool(exe string) bool {
	return perftest.CheckExecutable(exe) == nil
}

// procDir is the proc tree to scan for leftover servers: <root>/proc when
// the root carries one (tests use a fake tree), else the real /proc, whose
// net/tcp shows the network namespace the agent runs in (lab hosts are
// namespaces). Whatever the tree, a process is signalled only after the
// real /proc confirms it is a perftest tool.
func procDir(root string) string {
	if root != "" && root != "/" {
		p := filepath.Join(root, "proc")
		if _, err := os.Stat(filepath.Join(p, "net", "tcp")); err == nil {
			return p
		}
	}
	return "/proc"
}

func probe(ctx context.Context, sys *nics.System, p *agentproto.ProbeRequest) (*agentproto.ProbeResult, error) {
	o := p.Options
	if len(o.Command) > 0 && !isPerftestTool(o.Command[0]) {
		return nil, fmt.Errorf("probe command %q is not a perftest tool (ib_write_bw, ib_send_bw, ib_read_bw)", o.Command[0])
	}
	if p.NIC.Netdev != "" && o.Device == "" {
		dev := p.NIC.RDMADevice
		if dev == "" {
			d, err := nics.ResolveRDMADevice(sys.Root, p.NIC.Netdev)
			if err != nil {
				return nil, err
			}
			dev = d
		}
		o.Device = dev
	}
	if o.IBPort == 0 {
		o.IBPort = p.NIC.Port
	}
	if o.GIDIndex < 0 && !o.RDMACM && p.GIDAddress != "" {
		port := o.IBPort
		if port == 0 {
			port = 1
		}
		nd := p.GIDNetdev
		if nd == "" {
			nd = p.NIC.Netdev
		}
		mode := p.RoCEMode
		if mode == "" {
			mode = "v2"
		}
		idx, err := nics.ResolveGIDIndex(sys.Root, o.Device, port, nd, p.GIDAddress, mode)
		if err != nil {
			return nil, err
		}
		o.GIDIndex = idx
	}
	out := &agentproto.ProbeResult{GIDIndex: o.GIDIndex}
	var notes []string
	if o.IsServer() {
		// A perftest server left by an earlier crashed run would keep the
		// port and make this server fail to bind: stop it (and only it).
		port := o.TCPPort
		if port == 0 {
			port = perftest.DefaultTCPPort
		}
		ls, err := perftest.Reaper{Proc: procDir(sys.Root)}.Reap(ctx, port)
		if err != nil {
			notes = append(notes, fmt.Sprintf("could not look for leftover servers on TCP port %d: %v", port, err))
		}
		out.Leftovers = ls
		for _, l := range ls {
			notes = append(notes, l.String())
		}
	}
	res, err := perftest.Run(ctx, o)
	if len(notes) > 0 {
		if res == nil {
			res = &perftest.Result{}
		}
		res.Notes = append(notes, res.Notes...)
	}
	out.Result = res
	var f *perftest.Failure
	if errors.As(err, &f) {
		out.Failure = f
	}
	return out, err
}
