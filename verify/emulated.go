package verify

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rocefabric/roce/nics"
	"github.com/rocefabric/roce/nics/perftest"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/telemetry"
)

// Emulation modes (Options.Emulation).
const (
	// EmulationAuto: lab hosts (started by roce-lab) probe on their
	// emulated RDMA device, unless a probe command substitutes perftest
	// (-probe-command, probe { command }); every other host runs perftest.
	EmulationAuto = ""
	// EmulationOff: every probe runs perftest, lab hosts too.
	EmulationOff = "off"
	// EmulationOn: every probe is emulated; a host that is not a lab host
	// is refused (the probe errors), never emulated.
	EmulationOn = "on"
)

// EmulatedLabel is how every report format marks an emulated probe.
const EmulatedLabel = "emulated"

// EmulatedModel names the model that produced an emulated result.
const EmulatedModel = "lab path model v1 (docs/verify.md#emulated)"

// ClassEmulationRefused is the failure class of a probe that asked for
// the emulated device on a host that is not a lab host.
const ClassEmulationRefused = "emulation-refused"

// EmulatedRun says where an emulated probe's numbers come from: the model
// and the path state it was fed.
type EmulatedRun struct {
	Label string          `json:"label"` // always "emulated"
	Model string          `json:"model"`
	Hops  []EmulatedHop   `json:"hops"`
	Path  PathModelResult `json:"path"`
}

// EmulatedHop is one device on the probe's path as the model saw it.
type EmulatedHop struct {
	Device string `json:"device"` // "host.NAME" | "switch.NAME"
	// Pauses: the hop pauses the class's priority (PFC operational with the
	// priority in its bitmap on every port read, or link-level pause).
	Pauses bool `json:"pauses"`
	// MapsPriority: a host NIC puts the class's traffic on its priority
	// (DSCP trust with the class's DSCP on it, for DSCP classes). Always
	// true for switches.
	MapsPriority bool   `json:"maps_priority"`
	MTU          int    `json:"mtu,omitempty"`
	Detail       string `json:"detail"`
	// SharePercent is a switch's egress queue share for the class's
	// priority (QueueShareReader); 0 when unknown, Share then says why.
	SharePercent int    `json:"share_percent,omitempty"`
	Share        string `json:"share,omitempty"`
}

// LabBackgroundFile, at a lab host's root, declares the share (0-1) of
// the link toward that host that other classes keep busy: the lab's
// background load, written by roce-lab from lab.json (`background_load`).
// Without it the lab's links carry the probe alone.
const LabBackgroundFile = ".roce-lab-background"

// QueueShareKey is the key under which a switch's queue share for a class
// is kept in the report's and the baseline's versions ("50%"), so a
// baseline comparison names a changed share.
func QueueShareKey(class string) string { return "queue_share." + class }

// LabHost reports whether h carries the lab's emulated RDMA device: a local
// host whose root is a lab host tree (nics.IsLab: the marker roce-lab
// writes). why says what is missing otherwise.
func LabHost(h *policies.Host) (ok bool, why string) {
	switch {
	case h == nil:
		return false, "no host"
	case !h.Local:
		return false, "host." + h.Name + " is reached over SSH, not a lab host"
	case h.Root == "":
		return false, "host." + h.Name + " has no root tree, so it is a real host"
	case !nics.IsLab(h.Root):
		return false, fmt.Sprintf("host.%s's root %s is not a lab host tree (no %s written by roce-lab)", h.Name, h.Root, nics.LabMarker)
	}
	return true, ""
}

// emulate reports whether a pair's probe runs on the emulated device.
func (r *runner) emulate(p Pair) bool {
	switch r.opts.Emulation {
	case EmulationOn:
		return true
	case EmulationOff:
		return false
	}
	if len(r.cfg.Command) > 0 {
		return false // the user substitutes perftest explicitly
	}
	a, _ := LabHost(p.Server.Host)
	b, _ := LabHost(p.Client.Host)
	return a && b
}

// runEmulated is runPair for the lab's emulated RDMA device: the result is
// PathModel fed by the path's state in the round's before-snapshots (host
// NICs and the switches the hosts hang off) and the NICs' DSCP mapping in
// the lab host trees, judged like a measurement. The counters a real
// fabric would show are added to the lab hosts' emulated RDMA counters, so
// the round's counter checks see them.
func (r *runner) runEmulated(ctx context.Context, class *policies.Lossless, p Pair, port int, snaps map[string]*telemetry.Device) (pr Probe) {
	pr = probeFor(class, p, port)
	start := time.Now()
	defer func() { pr.Seconds = roundSeconds(time.Since(start)) }()
	for _, e := range []Endpoint{p.Server, p.Client} {
		if ok, why := LabHost(e.Host); !ok {
			pr.Status = StatusError
			pr.Failure = &Reason{Class: ClassEmulationRefused, Host: e.Addr(),
				Hint:   "the emulated RDMA device exists only on lab hosts started by roce-lab; real hosts run perftest (drop -emulated on)",
				Detail: "refusing to emulate a probe on a host that is not a lab host: " + why}
			pr.Message = pr.Failure.Detail
			return pr
		}
	}
	if err := ctx.Err(); err != nil {
		pr.Status, pr.Message = StatusError, "interrupted: "+err.Error()
		return pr
	}
	so := sideOptions(r.cfg, class, p.Server.NIC, port)
	co := sideOptions(r.cfg, class, p.Client.NIC, port)
	co.Server = serverAddress(p.Server.Host, p.Server.NIC)
	pr.ServerArgv = append([]string{"(" + EmulatedLabel + ")"}, perftest.Argv(so)...)
	pr.ClientArgv = append([]string{"(" + EmulatedLabel + ")"}, perftest.Argv(co)...)

	hops, err := r.pathHops(class, p, snaps)
	if err != nil {
		pr.Status = StatusError
		pr.Failure = &Reason{Class: "agent", Host: pr.Client, Hint: "the emulated path model needs every hop's state: check the telemetry errors in the checks",
			Detail: "cannot model the path: " + err.Error()}
		pr.Message = pr.Failure.Detail
		pr.Emulated = &EmulatedRun{Label: EmulatedLabel, Model: EmulatedModel, Hops: hops}
		return pr
	}
	share := r.readShares(ctx, class, hops)
	background, err := labBackground(p.Server.Host)
	if err != nil {
		pr.Notes = append(pr.Notes, "background load not read, modelled as none: "+err.Error())
	}
	link, mtu, vlan := r.linkOf(p, snaps)
	lossy := 0
	mtuShort := false
	for _, h := range hops {
		if !h.Pauses || !h.MapsPriority {
			lossy++
		}
		if h.MTU > 0 && mtu > 0 && h.MTU < mtu {
			mtuShort = true
		}
	}
	in := PathModelInput{
		Ceiling: CeilingInput{LinkGbps: link, NetdevMTU: mtu, VLAN: vlan, RoCEv1: p.Server.NIC.RoCEMode == "v1",
			Tool: r.cfg.Tool, MessageSize: r.cfg.MessageSize},
		LossyHops:    lossy,
		Seconds:      r.cfg.Duration.Seconds(),
		SharePercent: share,
		Background:   background,
	}
	res := PathModel(in)
	if mtuShort {
		// Frames larger than a hop's MTU never pass it: nothing arrives.
		res = PathModelResult{Ceiling: res.Ceiling, Window: res.Window, LossRate: 1}
	}
	pr.Emulated = &EmulatedRun{Label: EmulatedLabel, Model: EmulatedModel, Hops: hops, Path: res}
	pr.Notes = append(pr.Notes, fmt.Sprintf("%s RDMA device (lab): no hardware ran; the bandwidth is the %s's answer for this path", strings.ToUpper(EmulatedLabel), EmulatedModel))

	size := r.cfg.MessageSize
	if size <= 0 {
		size = DefaultMessageSize
	}
	row := perftest.Row{Bytes: size, AvgGbps: res.Gbps}
	if in.Seconds > 0 && size > 0 {
		row.Iterations = uint64(res.Gbps * 1e9 / 8 * in.Seconds / float64(size))
		row.MsgRateMpps = res.Gbps * 1e9 / 8 / float64(size) / 1e6
	}
	client := sideResult{res: &perftest.Result{Rows: []perftest.Row{row}, AvgGbps: res.Gbps, Argv: pr.ClientArgv}}
	server := &sideResult{res: &perftest.Result{Argv: pr.ServerArgv}}
	r.judge(&pr, class, p, server, client, snaps)
	if err := addEmulatedCounters(p, res); err != nil {
		pr.Notes = append(pr.Notes, "could not add the emulated counters to the lab hosts: "+err.Error())
	}
	return pr
}

// readShares reads each switch hop's queue share for the class's priority
// and returns the smallest known one (0: none known). A source without
// QueueShareReader, or one that fails, leaves the hop's share unknown and
// says so.
func (r *runner) readShares(ctx context.Context, class *policies.Lossless, hops []EmulatedHop) int {
	least := 0
	for i := range hops {
		h := &hops[i]
		if !strings.HasPrefix(h.Device, "switch.") {
			continue
		}
		if class.Match.Kind == policies.MatchAll {
			h.Share = "all-traffic class: no queue share"
			continue
		}
		qs, ok := r.f.Switches[h.Device].(QueueShareReader)
		if !ok {
			h.Share = "unknown: this platform's queue share is not read"
			continue
		}
		pct, where, err := qs.QueueShare(ctx, class.Priority)
		switch {
		case err != nil:
			h.Share = "unknown: " + err.Error()
		case pct <= 0:
			h.Share = "unknown: " + where
		default:
			h.SharePercent, h.Share = pct, where
			if least == 0 || pct < least {
				least = pct
			}
		}
	}
	return least
}

// labBackground reads the lab's background load toward a lab host
// (LabBackgroundFile): 0 when the lab declares none.
func labBackground(h *policies.Host) (float64, error) {
	b, err := os.ReadFile(filepath.Join(h.Root, LabBackgroundFile))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil || v < 0 || v > 1 {
		return 0, fmt.Errorf("%s: %q is not a share between 0 and 1", filepath.Join(h.Root, LabBackgroundFile), strings.TrimSpace(string(b)))
	}
	return v, nil
}

// addQueueShares puts the queue shares the emulated probes read into the
// report's versions (QueueShareKey), so a baseline keeps them and a later
// run names a changed share. Each device's map is copied: it may be a
// telemetry snapshot's.
func addQueueShares(rep *Report) {
	for _, p := range rep.Probes {
		if p.Emulated == nil {
			continue
		}
		for _, h := range p.Emulated.Hops {
			if h.SharePercent <= 0 {
				continue
			}
			m := map[string]string{}
			for k, v := range rep.Versions[h.Device] {
				m[k] = v
			}
			m[QueueShareKey(p.Class)] = strconv.Itoa(h.SharePercent) + "%"
			rep.Versions[h.Device] = m
		}
	}
}

// pathHops reads each hop's state: the client's NIC, the switches the two
// hosts hang off (once each), the server's NIC.
func (r *runner) pathHops(class *policies.Lossless, p Pair, snaps map[string]*telemetry.Device) ([]EmulatedHop, error) {
	var hops []EmulatedHop
	var errs []string
	hostHop := func(e Endpoint) {
		h := EmulatedHop{Device: e.Addr(), MapsPriority: true}
		d := snaps[e.Addr()]
		var port *telemetry.Port
		if d != nil {
			for i := range d.Ports {
				if strings.EqualFold(d.Ports[i].Name, e.NIC.Netdev) {
					port = &d.Ports[i]
				}
			}
		}
		if port == nil {
			errs = append(errs, "no state from "+e.Addr()+" "+e.NIC.Netdev)
			h.Detail = "no state read"
			hops = append(hops, h)
			return
		}
		h.MTU = port.MTU
		h.Pauses, h.Detail = pauses(class, port)
		if ok, why := nicMapsClass(class, e); !ok {
			h.MapsPriority = false
			h.Detail += "; " + why
		}
		hops = append(hops, h)
	}
	switchHop := func(name string) {
		addr := "switch." + name
		h := EmulatedHop{Device: addr, MapsPriority: true}
		d := snaps[addr]
		if d == nil || len(d.Ports) == 0 {
			errs = append(errs, "no state from "+addr)
			h.Detail = "no state read"
			hops = append(hops, h)
			return
		}
		h.Pauses = true
		var reasons []string
		bad := map[string][]string{} // reason → ports
		for i := range d.Ports {
			ok, why := pauses(class, &d.Ports[i])
			if !ok {
				h.Pauses = false
				if bad[why] == nil {
					reasons = append(reasons, why)
				}
				bad[why] = append(bad[why], d.Ports[i].Name)
			}
			if m := d.Ports[i].MTU; m > 0 && (h.MTU == 0 || m < h.MTU) {
				h.MTU = m
			}
		}
		if h.Pauses {
			h.Detail = fmt.Sprintf("pauses priority %d on %d port(s)", class.Priority, len(d.Ports))
		} else {
			var parts []string
			for _, why := range reasons {
				parts = append(parts, fmt.Sprintf("%s on %d of %d port(s) (%s)", why, len(bad[why]), len(d.Ports), strings.Join(bad[why], ", ")))
			}
			h.Detail = strings.Join(parts, "; ")
		}
		hops = append(hops, h)
	}
	hostHop(p.Client)
	var sws []string
	for _, s := range []string{p.Client.Switch, p.Server.Switch} {
		if s != "" && !slices.Contains(sws, s) {
			sws = append(sws, s)
		}
	}
	for _, s := range sws {
		switchHop(s)
	}
	hostHop(p.Server)
	if len(errs) > 0 {
		return hops, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return hops, nil
}

// pauses says whether a port pauses the class's priority.
func pauses(class *policies.Lossless, p *telemetry.Port) (bool, string) {
	if class.Match.Kind == policies.MatchAll {
		return true, "all-traffic class: link-level pause assumed (not read)"
	}
	switch {
	case !p.PFCOperational:
		return false, fmt.Sprintf("PFC not operational (mode %s): priority %d is not paused", orDash(p.PFCMode), class.Priority)
	case p.PFCPriorities&(1<<uint(class.Priority)) == 0:
		return false, fmt.Sprintf("priority %d not in PFC bitmap 0x%02x: no-drop is off for the class", class.Priority, p.PFCPriorities)
	}
	return true, fmt.Sprintf("PFC on priority %d (bitmap 0x%02x)", class.Priority, p.PFCPriorities)
}

// nicMapsClass checks that a lab NIC puts the class's traffic on the
// class's priority, by its trust mode (policies fill it in): with DSCP
// trust the class's DSCP needs a DSCP APP entry for the priority, read
// from the lab host's emulated DCB state; with PCP trust the priority
// travels as the VLAN tag's PCP, so the NIC needs a VLAN. Otherwise RoCE
// leaves on a priority the lossless class does not cover.
func nicMapsClass(class *policies.Lossless, e Endpoint) (bool, string) {
	if class.Match.Kind == policies.MatchAll {
		return true, ""
	}
	if e.NIC.Trust != "dscp" {
		if e.NIC.VLAN == 0 {
			return false, fmt.Sprintf("PCP trust without a VLAN: untagged frames carry no priority %d", class.Priority)
		}
		return true, ""
	}
	apps, err := nics.LabDCBApps(e.Host.Root, e.NIC.Netdev)
	if err != nil {
		return false, "DSCP mapping not readable: " + err.Error()
	}
	for _, d := range class.Match.DSCP {
		found := false
		for _, a := range apps {
			if a.Selector == nics.AppSelDSCP && int(a.Protocol) == d && int(a.Priority) == class.Priority {
				found = true
			}
		}
		if !found {
			return false, fmt.Sprintf("the NIC does not map DSCP %d to priority %d (DSCP trust without its APP entry): RoCE leaves on another priority", d, class.Priority)
		}
	}
	return true, ""
}

// addEmulatedCounters adds what the hardware would count to the lab hosts'
// emulated RDMA counters: the receiver sees packets out of sequence, the
// sender gets sequence-error NAKs and ACK timeouts.
func addEmulatedCounters(p Pair, res PathModelResult) error {
	if res.NAKs == 0 && res.OutOfSequence == 0 && res.Timeouts == 0 {
		return nil
	}
	add := func(e Endpoint, c map[string]uint64) error {
		dev := e.NIC.RDMADevice
		if dev == "" {
			d, err := nics.ResolveRDMADevice(e.Host.Root, e.NIC.Netdev)
			if err != nil {
				return err
			}
			dev = d
		}
		return nics.LabAddCounters(e.Host.Root, dev, e.NIC.Port, c)
	}
	if err := add(p.Server, map[string]uint64{"hw_counters/out_of_sequence": res.OutOfSequence}); err != nil {
		return err
	}
	return add(p.Client, map[string]uint64{"hw_counters/packet_seq_err": res.NAKs, "hw_counters/local_ack_timeout_err": res.Timeouts})
}

// probeFor is a pair's probe before it runs: who, where, on which port.
func probeFor(class *policies.Lossless, p Pair, port int) Probe {
	return Probe{
		Class: class.Name, Round: p.Round,
		Server: p.Server.Addr(), Client: p.Client.Addr(),
		ServerNIC: p.Server.NIC.Netdev, ClientNIC: p.Client.NIC.Netdev,
		ServerSwitch: p.Server.Switch, ClientSwitch: p.Client.Switch,
		TCPPort: port,
	}
}
