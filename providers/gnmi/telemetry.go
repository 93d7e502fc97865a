package gnmi

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
	"github.com/rocefabric/roce/providers/gnmi/profiles"
	"github.com/rocefabric/roce/telemetry"
)

var _ telemetry.Source = (*target)(nil)

// Telemetry reports the software version and, per interface, the PFC
// priorities configured and the pause counters the profile's state paths
// hold.
func (t *target) Telemetry(ctx context.Context) (*telemetry.Device, error) {
	if err := t.connect(ctx); err != nil {
		return nil, err
	}
	dev := &telemetry.Device{Address: t.Address(), Kind: t.kind(), Versions: map[string]string{"gnmi": t.caps.GetGNMIVersion()}}
	v, err := t.version(ctx)
	if err != nil {
		return nil, err
	}
	if v != "" {
		dev.Versions["os"] = v
	}
	for _, ifc := range t.sw.Interfaces {
		port := telemetry.Port{Name: ifc}
		origin, rx, tx := t.prof.PauseCounters(ifc)
		rxv, err := t.counters(ctx, origin, rx)
		if err != nil {
			return nil, err
		}
		txv, err := t.counters(ctx, origin, tx)
		if err != nil {
			return nil, err
		}
		if len(rx) > 1 {
			port.RxPause, port.TxPause = rxv, txv
		}
		for i := range rxv {
			port.RxPauseTotal += rxv[i]
		}
		for i := range txv {
			port.TxPauseTotal += txv[i]
		}
		bits, err := t.pfcBitmap(ctx, ifc)
		if err != nil {
			return nil, err
		}
		port.PFCPriorities = bits
		port.PFCOperational = bits != 0
		port.PFCMode = "off"
		if bits != 0 {
			port.PFCMode = "on"
		}
		dev.Ports = append(dev.Ports, port)
	}
	return dev, nil
}

func (t *target) counters(ctx context.Context, origin string, paths []string) ([]uint64, error) {
	out := make([]uint64, len(paths))
	for i, p := range paths {
		ls, err := t.getAll(ctx, origin, p)
		if err != nil {
			return nil, err
		}
		if len(ls) == 0 {
			continue
		}
		s, err := gpath.ScalarString(ls[0].Value)
		if err != nil {
			return nil, fmt.Errorf("%s: counter %s: %w", t.Address(), p, err)
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: counter %s = %q: not a counter", t.Address(), p, s)
		}
		out[i] = n
	}
	return out, nil
}

// pfcBitmap reads the configured PFC priorities of an interface.
func (t *target) pfcBitmap(ctx context.Context, ifc string) (uint8, error) {
	k := gpath.EscapeKey(ifc)
	one := func(origin, path string) (string, error) {
		ls, err := t.getAll(ctx, origin, path)
		if err != nil || len(ls) == 0 {
			return "", err
		}
		return gpath.ScalarString(ls[0].Value)
	}
	switch t.prof.Name() {
	case policies.ProfileArista:
		s, err := one("openconfig", "/qos/interfaces/interface[interface-id="+k+"]/output/pfc/config/priorities-no-drop")
		if err != nil || s == "" {
			return 0, err
		}
		n, err := strconv.ParseUint(s, 16, 8)
		if err != nil {
			return 0, fmt.Errorf("%s: priorities-no-drop %q on %s: %w", t.Address(), s, ifc, err)
		}
		b := uint8(n)
		if t.opts.Settings.AristaNoDropBitOrder == "msb0" {
			var r uint8
			for i := 0; i < 8; i++ {
				if b&(1<<i) != 0 {
					r |= 1 << (7 - i)
				}
			}
			b = r
		}
		return b, nil
	case policies.ProfileSONiC:
		origin, _ := t.prof.VersionPath()
		s, err := one(origin, profiles.SONiCConfigDB+"/PORT_QOS_MAP/"+ifc+"/pfc_enable")
		if err != nil || s == "" {
			return 0, err
		}
		var b uint8
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 0 || n > 7 {
				return 0, fmt.Errorf("%s: pfc_enable %q on %s: not a priority list", t.Address(), s, ifc)
			}
			b |= 1 << n
		}
		return b, nil
	case policies.ProfileSRLinux:
		origin, _ := t.prof.VersionPath()
		base := "/qos/interfaces/interface[interface-id=" + k + "]/pfc"
		ls, err := t.getAll(ctx, origin, base)
		if err != nil {
			return 0, err
		}
		enabled, prof := false, ""
		for _, l := range ls {
			switch l.Path[len(l.Path)-1].Name {
			case "pfc-enable":
				enabled = l.Value == true
			case "pfc-mapping-profile":
				prof, _ = l.Value.(string)
			}
		}
		if !enabled || prof == "" {
			return 0, nil
		}
		qs, err := t.getAll(ctx, origin, "/qos/pfc-mapping-profile[name="+gpath.EscapeKey(prof)+"]/received-traffic/unicast-mapping")
		if err != nil {
			return 0, err
		}
		var b uint8
		for _, l := range qs {
			if l.Path[len(l.Path)-1].Name == "pfc-pause-frame-priority" {
				s, _ := gpath.ScalarString(l.Value)
				if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 7 {
					b |= 1 << n
				}
			}
		}
		return b, nil
	}
	return 0, nil // upstream OpenConfig has no PFC leaves
}
