package lab

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/nics"
)

// The lab's control channel: a unix socket in the lab's state directory
// (owner-only, like the rest of it) on which `roce-lab upgrade` asks the
// running lab process to upgrade one of its simulators. One JSON request
// per connection, one JSON reply.

// ControlSocket is the socket's name below DIR/.lab.
const ControlSocket = "control.sock"

// OpStatus is the control request's op asking for the lab's Status.
const OpStatus = "status"

// UpgradeRequest asks for one device upgrade, or with Op "status" for the
// lab's Status.
type UpgradeRequest struct {
	// Op is "" (an upgrade) or OpStatus.
	Op string `json:"op,omitempty"`
	// Target is "switch.NAME" or "host.NAME".
	Target string `json:"target"`
	// Version is the switch release (e.g. "5.1(5)"), or for a host the NIC
	// firmware version ("" with Driver: a driver reload only).
	Version string `json:"version,omitempty"`
	// Driver: a host's driver is reloaded without a firmware change.
	Driver bool `json:"driver,omitempty"`
	// Unsaved: a switch is upgraded without saving its running
	// configuration first, so the reload boots the one saved last.
	Unsaved bool `json:"unsaved,omitempty"`
}

// UpgradeReply says what changed.
type UpgradeReply struct {
	Target  string   `json:"target"`
	From    string   `json:"from,omitempty"`
	To      string   `json:"to,omitempty"`
	Changes []string `json:"changes,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// ServeControl listens on DIR/.lab/control.sock until ctx ends or the
// returned stop is called.
func (l *Lab) ServeControl(ctx context.Context) (stop func() error, err error) {
	path, err := controlPath(l.Dir)
	if err != nil {
		return nil, err
	}
	_ = os.Remove(path) // a socket left by a lab that was killed
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("lab control socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("lab control socket %s: %w", path, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go l.handleControl(ctx, c)
		}
	}()
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	return func() error {
		err := ln.Close()
		<-done
		_ = os.Remove(path)
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		return err
	}, nil
}

func (l *Lab) handleControl(ctx context.Context, c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	var req UpgradeRequest
	rep := UpgradeReply{}
	if err := json.NewDecoder(bufio.NewReader(c)).Decode(&req); err != nil {
		rep.Error = "bad request: " + err.Error()
	} else {
		switch req.Op {
		case OpStatus:
			_ = json.NewEncoder(c).Encode(l.Status())
			return
		case "":
			rep = l.Upgrade(ctx, req)
		default:
			rep.Error = fmt.Sprintf("unknown op %q: this lab answers upgrades and %q", req.Op, OpStatus)
		}
	}
	_ = json.NewEncoder(c).Encode(rep)
}

// Upgrade applies one upgrade to a running simulator.
func (l *Lab) Upgrade(ctx context.Context, req UpgradeRequest) UpgradeReply {
	rep := UpgradeReply{Target: req.Target}
	if err := ctx.Err(); err != nil {
		rep.Error = err.Error()
		return rep
	}
	kind, name, _ := strings.Cut(req.Target, ".")
	switch kind {
	case "switch":
		sim := l.Sims[name]
		if sim == nil {
			if _, ok := l.Targets[name]; ok {
				rep.Error = fmt.Sprintf("%s is a gNMI target; the lab models upgrades of its NX-OS switches and hosts only", req.Target)
			} else {
				rep.Error = fmt.Sprintf("the lab has no switch %q (switches: %s)", name, strings.Join(sortedNames(l.Switches), ", "))
			}
			return rep
		}
		if req.Version == "" || req.Driver {
			rep.Error = "a switch upgrade needs the release to install, e.g. roce-lab upgrade switch." + name + " '5.1(5)'"
			return rep
		}
		res, err := sim.Switch().Upgrade(req.Version, nxsim.UpgradeOptions{SaveFirst: !req.Unsaved})
		if err != nil {
			rep.Error = err.Error()
			return rep
		}
		rep.From, rep.To, rep.Changes = res.From, res.To, res.Changes
		if len(rep.Changes) == 0 {
			rep.Changes = []string{"no modelled default change between these releases: only the version strings changed"}
		}
	case "host":
		root := ""
		if l.hosts != nil {
			root = l.hosts.roots[name]
		}
		if root == "" {
			rep.Error = fmt.Sprintf("the lab runs no host %q (lab hosts exist only while the lab runs them)", name)
			return rep
		}
		if req.Unsaved {
			rep.Error = "-unsaved is for switches (their running configuration); a host keeps its files across a driver reload"
			return rep
		}
		if !req.Driver && req.Version == "" {
			rep.Error = "a host upgrade needs a firmware version, or 'driver' for a driver reload"
			return rep
		}
		if devs, err := nics.LabRDMADevices(root); err == nil && len(devs) > 0 && req.Version != "" {
			if b, err := os.ReadFile(filepath.Join(root, "sys", "class", "infiniband", devs[0], "fw_ver")); err == nil {
				rep.From = strings.TrimSpace(string(b))
			}
			rep.To = req.Version
		}
		ch, err := nics.LabNICReset(root, req.Version)
		rep.Changes = ch
		if err != nil {
			rep.Error = err.Error()
			return rep
		}
		// The netdev comes back: udev runs the DCB rule roce-apply installed
		// (if it did), which re-applies the persisted DCB settings.
		re, err := nics.LabReapplyDCB(ctx, root)
		rep.Changes = append(rep.Changes, re...)
		if err != nil {
			rep.Error = "after the reload, re-applying the persisted DCB settings failed: " + err.Error()
			return rep
		}
		// The RDMA device comes back too: udev runs roce's rdma_cm rule (if
		// installed), which re-applies the persisted ToS and RoCE mode.
		re, err = nics.LabReapplyRDMACM(ctx, root)
		rep.Changes = append(rep.Changes, re...)
		if err != nil {
			rep.Error = "after the reload, re-applying the persisted rdma_cm defaults failed: " + err.Error()
			return rep
		}
		why := "driver reload"
		if req.Version != "" {
			why = "NIC firmware update to " + req.Version + " (driver reload)"
		}
		l.mu.Lock()
		if l.hostResets == nil {
			l.hostResets = map[string]lastReset{}
		}
		l.hostResets[name] = lastReset{at: time.Now(), reason: why}
		l.mu.Unlock()
	default:
		rep.Error = fmt.Sprintf("target %q: want switch.NAME or host.NAME", req.Target)
	}
	return rep
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// RequestUpgrade asks the lab running from dir to apply req.
func RequestUpgrade(ctx context.Context, dir string, req UpgradeRequest) (*UpgradeReply, error) {
	c, err := dialControl(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := json.NewEncoder(c).Encode(req); err != nil {
		return nil, fmt.Errorf("sending the upgrade to the lab: %w", err)
	}
	var rep UpgradeReply
	if err := json.NewDecoder(c).Decode(&rep); err != nil {
		return nil, fmt.Errorf("reading the lab's answer: %w", err)
	}
	if rep.Error != "" {
		return &rep, fmt.Errorf("upgrading %s: %s", req.Target, rep.Error)
	}
	return &rep, nil
}

// dialControl connects to the control socket of the lab running from dir,
// bounded by ctx's deadline.
func dialControl(ctx context.Context, dir string) (net.Conn, error) {
	path, err := controlPath(dir)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("reaching the lab running from %s (%v): is it up? start it with: roce-lab up -d %s", dir, err, dir)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	return c, nil
}

// controlPath is the socket's absolute path; unix socket paths are short.
func controlPath(dir string) (string, error) {
	p, err := filepath.Abs(filepath.Join(dir, StateDir, ControlSocket))
	if err != nil {
		return "", err
	}
	if len(p) >= 104 {
		if rel, err := filepath.Rel(mustWD(), p); err == nil && len(rel) < 104 {
			return rel, nil
		}
		return "", fmt.Errorf("the lab directory path is too long for its control socket (%d bytes; unix sockets take about 100): run the lab from a shorter path", len(p))
	}
	return p, nil
}

func mustWD() string {
	wd, _ := os.Getwd()
	return wd
}
