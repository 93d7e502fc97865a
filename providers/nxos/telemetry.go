package nxos

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/telemetry"
)

var _ telemetry.Source = (*Target)(nil)

// Telemetry reads versions and the lossless state of the managed ports:
// `show version`, `show interface priority-flow-control` and `show queuing
// interface`, and `show interface` for the port MTU on a 7000 and, on any
// platform, for the port-wide discards when the queuing output is in a
// layout roce does not read (docs/nxos.md#queuing-7000), for roce-verify.
func (t *Target) Telemetry(ctx context.Context) (*telemetry.Device, error) {
	if t.sw.Capture != "" {
		return nil, fmt.Errorf("%s: %w", t.Address(), errOffline)
	}
	dl, _, err := t.dialer()
	if err != nil {
		return nil, err
	}
	c, err := dl.open(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: connect to %s: %w", t.Address(), t.sw.Address, withNextStep(t.env.Fabric, t.sw, err))
	}
	defer c.close()
	out, err := c.command("show version")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Address(), err)
	}
	v, err := nexus.ParseShowVersion(out)
	if err != nil {
		return nil, fmt.Errorf("%s: parse show version: %w", t.Address(), err)
	}
	dev := &telemetry.Device{
		Address:  t.Address(),
		Kind:     t.sw.Platform,
		Versions: map[string]string{"os": v.OS, "image": v.Image, "platform": v.Platform},
	}
	if out, err = c.command("show interface priority-flow-control"); err != nil {
		return nil, fmt.Errorf("%s: %w", t.Address(), err)
	}
	rows, err := nexus.ParseShowPFC(out)
	if err != nil {
		return nil, fmt.Errorf("%s: parse show interface priority-flow-control: %w", t.Address(), err)
	}
	var queues []nexus.QueuingInterface
	unread := "" // why the per-class discards were not read
	if len(t.ifaces) > 0 {
		cmd := "show queuing interface " + interfaceList(t.ifaces)
		if out, err = c.command(cmd); err != nil {
			return nil, fmt.Errorf("%s: %w", t.Address(), err)
		}
		if queues, unread, err = readQueues(cmd, out); err != nil {
			return nil, fmt.Errorf("%s: %w", t.Address(), err)
		}
	}
	dev.Ports = portsOf(t.ifaces, rows, queues)
	if len(t.ifaces) == 0 || (!t.platform.Is7000() && unread == "") {
		dev.DiscardsUnread = unread
		return dev, nil
	}
	// A 7000 reads `show interface` anyway, for the port MTU; another
	// platform only for the port-wide discards.
	cmd := "show interface " + interfaceList(t.ifaces)
	if out, err = c.command(cmd); err != nil {
		return nil, fmt.Errorf("%s: %w", t.Address(), err)
	}
	st, err := nexus.ParseShowInterface(out)
	if err != nil && t.platform.Is7000() {
		return nil, fmt.Errorf("%s: parse %s: %w", t.Address(), cmd, err)
	}
	if err != nil {
		err = fmt.Errorf("parse %s: %w", cmd, err)
	}
	if t.platform.Is7000() {
		// A 7000 Layer 2 port frames at its own MTU, 1500 by default
		// (docs/nxos.md#port-mtu): the class MTU alone would hide it.
		lowerToPortMTU(dev.Ports, st)
	}
	if unread != "" {
		dev.DiscardsPortWide, dev.DiscardsUnread = portWideDiscards(dev.Ports, st, err, unread)
		if dev.DiscardsPortWide != "" {
			dev.DiscardsPerClassCommand = perClassDropsCommand
		}
	}
	return dev, nil
}

// perClassDropsCommand prints one port's drops per queuing class on NX-OS
// (`queue dropped pkts`, docs/nxos.md#show-policy-map-interface; the 7000
// form of its output is UNCONFIRMED): the next step a report names when
// only port-wide discards could be read (telemetry.Device).
const perClassDropsCommand = "show policy-map interface PORT type queuing"

// portWideDiscards sets each port's LosslessDiscards to the input plus
// output discards `show interface` printed for it (st, or stErr when that
// output could not be read), standing in for the per-class counters that
// could not be read (unread says why). It returns the reason for
// telemetry.Device.DiscardsPortWide, or, when a port's counters are
// missing too, none and the reason for DiscardsUnread: then no port's
// count is kept, so none passes for a lossless-class count.
func portWideDiscards(ports []telemetry.Port, st []nexus.InterfaceStatus, stErr error, unread string) (portWide, stillUnread string) {
	if stErr != nil {
		return "", unread + "; nor the port-wide ones: " + stErr.Error()
	}
	byName := map[string]nexus.InterfaceStatus{}
	for _, s := range st {
		byName[s.Name] = s
	}
	var missing []string
	for _, p := range ports {
		if _, ok := byName[p.Name]; !ok {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) > 0 {
		return "", unread + "; nor the port-wide ones: show interface printed no " + strings.Join(missing, ", ")
	}
	for i := range ports {
		s := byName[ports[i].Name]
		ports[i].LosslessDiscards = s.InDiscards + s.OutDiscards
	}
	return unread, ""
}

// readQueues parses the answer to cmd (`show queuing interface …`). Output
// in a layout roce does not read leaves the queues unknown, said in
// unread, rather than failing the whole read: the PFC state and pause
// counters read before it still count, and roce-verify reports the
// discards as not read instead of as zero.
func readQueues(cmd, out string) (queues []nexus.QueuingInterface, unread string, err error) {
	queues, err = nexus.ParseShowQueuing(out)
	var layout *nexus.QueuingLayoutError
	switch {
	case errors.As(err, &layout):
		return nil, fmt.Sprintf("`%s`: %s, docs/nxos.md#queuing-7000", cmd, layout.Short()), nil
	case errors.Is(err, nexus.ErrQueuingLayout):
		return nil, fmt.Sprintf("parse %s: %v", cmd, err), nil
	case err != nil:
		return nil, "", fmt.Errorf("parse %s: %w", cmd, err)
	}
	return queues, "", nil
}

// lowerToPortMTU makes each port's MTU the smaller of its no-drop class
// MTU and the MTU `show interface` prints for the port, so roce-verify
// reports a port that drops the frames its class carries.
func lowerToPortMTU(ports []telemetry.Port, st []nexus.InterfaceStatus) {
	for i := range ports {
		for _, s := range st {
			if s.Name == ports[i].Name && s.MTU > 0 && (ports[i].MTU == 0 || s.MTU < ports[i].MTU) {
				ports[i].MTU = s.MTU
			}
		}
	}
}

// portsOf joins the PFC rows and queuing groups of the managed ports.
func portsOf(ifaces []string, rows []nexus.PFCStatus, queues []nexus.QueuingInterface) []telemetry.Port {
	pfc := map[string]nexus.PFCStatus{}
	for _, r := range rows {
		pfc[r.Interface] = r
	}
	q := map[string]nexus.QueuingInterface{}
	for _, qi := range queues {
		q[qi.Interface] = qi
	}
	ports := make([]telemetry.Port, 0, len(ifaces))
	for _, n := range ifaces {
		p := telemetry.Port{Name: n}
		if r, ok := pfc[n]; ok {
			p.PFCMode = strings.ToLower(r.Mode)
			p.PFCOperational = r.Oper
			p.PFCPriorities = r.VLBitmap
			p.RxPauseTotal, p.TxPauseTotal = r.RxPPP, r.TxPPP
		}
		for _, g := range q[n].Groups {
			if g.DropType != "no-drop" {
				continue
			}
			p.LosslessDiscards += g.Discards
			if g.MTU > p.MTU {
				p.MTU = g.MTU
			}
		}
		ports = append(ports, p)
	}
	return ports
}
