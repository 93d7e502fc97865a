package nxsim

import (
	"strconv"
	"strings"

	"github.com/rocefabric/roce/nexus"
)

// The operational state below is derived from the running config the way
// docs/nxos.md describe it: PFC is operationally on for the CoS
// values of the no-drop classes under `system qos`; in mode on whatever
// the peer says; in mode auto only when a no-drop class exists and DCBX
// agrees with the peer, i.e. the peer NIC's PFC-enabled CoS
// (Faults.PeerNoDropCoS; a port not listed has a peer that agrees) equal
// the switch's no-drop CoS; never with link-level flow control on, nor on a
// 7000 M-series port (docs/nxos.md).

// fcoeCoS is the CoS of class-fcoe and of the 7000 FCoE template class
// (docs/nxos.md).
const fcoeCoS = 3

// noDropCoS returns the bitmap of CoS values the attached network-qos
// policy makes no-drop.
func noDropCoS(cfg *nexus.Config) uint8 {
	nq := attached(cfg, "network-qos", "")
	if nq == nil {
		return 0
	}
	var bits uint8
	for _, c := range nq.Classes {
		pause := ""
		for _, a := range c.Actions {
			if strings.HasPrefix(strings.TrimSpace(a), "pause") {
				pause = strings.TrimSpace(a)
			}
		}
		if pause == "" {
			continue
		}
		if i := strings.Index(pause, "pfc-cos"); i >= 0 {
			bits |= nexus.CoSBits(strings.TrimSpace(pause[i+len("pfc-cos"):]))
			continue
		}
		bits |= classCoS(cfg, c.Name)
	}
	return bits
}

// classCoS finds the CoS values a network-qos class stands for: its own
// `match cos`, or the CoS the type qos policy sends to its qos-group.
func classCoS(cfg *nexus.Config, class string) uint8 {
	if class == "class-fcoe" {
		return 1 << fcoeCoS
	}
	cm := cfg.ClassMap("network-qos", class)
	if cm == nil {
		return templateClassCoS(class)
	}
	var bits uint8
	for _, l := range cm.Lines {
		f := strings.Fields(l)
		switch {
		case len(f) >= 3 && f[0] == "match" && f[1] == "cos":
			bits |= nexus.CoSBits(strings.Join(f[2:], ""))
		case len(f) == 3 && f[0] == "match" && f[1] == "qos-group":
			g, err := strconv.Atoi(f[2])
			if err == nil {
				bits |= groupCoS(cfg, g)
			}
		}
	}
	return bits
}

// templateClassCoS returns the CoS of a 7000 system class (c-nq-*) from
// the nexus template table, which has no class-map in the running config.
func templateClassCoS(class string) uint8 {
	var bits uint8
	for _, t := range nexus.NQTemplates() {
		for _, c := range t.Classes {
			if c.Name == class {
				for _, cos := range c.CoS {
					bits |= 1 << cos
				}
				return bits
			}
		}
	}
	return 0
}

// groupCoS returns the CoS values the system type qos policy classifies
// into qos-group g.
func groupCoS(cfg *nexus.Config, g int) uint8 {
	if g == 1 {
		return 1 << fcoeCoS
	}
	qp := attached(cfg, "qos", "input")
	if qp == nil {
		return 0
	}
	var bits uint8
	for _, c := range qp.Classes {
		if !hasAction(c, "set qos-group "+strconv.Itoa(g)) {
			continue
		}
		if cm := cfg.ClassMap("qos", c.Name); cm != nil {
			for _, l := range cm.Lines {
				f := strings.Fields(l)
				if len(f) >= 3 && f[0] == "match" && f[1] == "cos" {
					bits |= nexus.CoSBits(strings.Join(f[2:], ""))
				}
			}
		}
	}
	return bits
}

func hasAction(c *nexus.PolicyClass, action string) bool {
	for _, a := range c.Actions {
		if strings.TrimSpace(a) == action {
			return true
		}
	}
	return false
}

// attached returns the policy-map of type typ attached under system qos.
func attached(cfg *nexus.Config, typ, dir string) *nexus.Object {
	sq := cfg.SystemQoS()
	if sq == nil {
		return nil
	}
	for _, sp := range sq.ServicePolicies() {
		if sp.Type == typ && (dir == "" || sp.Direction == dir) {
			return cfg.PolicyMap(typ, sp.Name)
		}
	}
	return nil
}

// portState is the configured link-level QoS of one interface.
type portState struct {
	pfcMode string // "on" | "off" | "auto"
	llfc    bool   // flowcontrol send or receive on
}

func portStateOf(cfg *nexus.Config, name string) portState {
	ps := portState{pfcMode: "auto"}
	o := cfg.Interface(name)
	if o == nil {
		return ps
	}
	for _, l := range o.Lines {
		f := strings.Fields(l)
		switch {
		case len(f) == 3 && f[0] == "priority-flow-control" && f[1] == "mode":
			ps.pfcMode = f[2]
		case len(f) == 3 && f[0] == "flowcontrol" && f[2] == "on":
			ps.llfc = true
		}
	}
	return ps
}

// pfcRows builds `show interface priority-flow-control` for the ports.
// The caller holds sw.mu.
func (sw *Switch) pfcRows(cfg *nexus.Config) []nexus.PFCStatus {
	bits := noDropCoS(cfg)
	rows := make([]nexus.PFCStatus, 0, len(sw.interfaces))
	for _, name := range sw.interfaces {
		ps := portStateOf(cfg, name)
		row := nexus.PFCStatus{Interface: name, Mode: displayMode(ps.pfcMode)}
		if sw.pfcOper(name, ps, bits) {
			row.Oper, row.VLBitmap = true, bits
		}
		rows = append(rows, row)
	}
	return rows
}

// pfcOper reports whether PFC is operationally on at a port whose switch
// side makes bits no-drop. The caller holds sw.mu.
func (sw *Switch) pfcOper(name string, ps portState, bits uint8) bool {
	switch {
	case ps.llfc, sw.onMSeries(name):
		return false
	case ps.pfcMode == "on":
		return true
	case ps.pfcMode == "auto" && bits != 0:
		peer, ok := sw.faults.PeerNoDropCoS[name]
		if !ok {
			return true // a peer that agrees
		}
		var pb uint8
		for _, c := range peer {
			if c >= 0 && c <= 7 {
				pb |= 1 << c
			}
		}
		return pb == bits
	}
	return false
}

func displayMode(m string) string {
	switch m {
	case "on":
		return "On"
	case "off":
		return "Off"
	}
	return "Auto"
}

// onMSeries reports whether a port sits on a 7000 M-series card, which has
// no PFC (docs/nxos.md).
func (sw *Switch) onMSeries(name string) bool {
	slot, ok := nexus.InterfaceSlot(name)
	if !ok {
		return false
	}
	for _, m := range sw.modules {
		if m.Slot == slot {
			return m.Series == "M"
		}
	}
	return false
}

// Buffer sizes per class on a 5500 port, in bytes (docs/nxos.md, nxsim's
// `show queuing interface`): the first and third are real captures'; the
// jumbo no-drop and class-default sizes are the simulator's own
// (UNCONFIRMED). roce reads the drop type and MTU, never the size.
const (
	qsizeNoDropSmall = 79360  // no-drop class, MTU < 2240 (a 5000 capture, MTU 2158)
	qsizeNoDropJumbo = 90240  // no-drop class, MTU > 2240: UNCONFIRMED
	qsizeDrop        = 22720  // tail-drop class (a 5596 capture, MTU 1500)
	qsizeDefault     = 470080 // class-default: UNCONFIRMED
	defaultMTU       = 1500
)

// queuing builds `show queuing interface` for one port: TX groups from the
// system queuing policy, RX groups from the network-qos policy.
func (sw *Switch) queuing(cfg *nexus.Config, name string, bits uint8) nexus.QueuingInterface {
	qi := nexus.QueuingInterface{Interface: name}
	if q := attached(cfg, "queuing", "output"); q != nil {
		for _, c := range q.Classes {
			g := classGroup(cfg, "queuing", c.Name)
			bw := 0
			for _, a := range c.Actions {
				f := strings.Fields(a)
				if len(f) == 3 && f[0] == "bandwidth" && f[1] == "percent" {
					bw, _ = strconv.Atoi(f[2])
				}
			}
			qi.Groups = append(qi.Groups, nexus.QueuingGroup{QoSGroup: g, Direction: "TX", Bandwidth: bw})
		}
	} else {
		qi.Groups = append(qi.Groups, nexus.QueuingGroup{QoSGroup: 0, Direction: "TX", Bandwidth: 100})
	}
	ps := portStateOf(cfg, name)
	pfcOn := bits != 0 && sw.pfcOper(name, ps, bits)
	nq := attached(cfg, "network-qos", "")
	if nq == nil {
		qi.Groups = append(qi.Groups, nexus.QueuingGroup{QoSGroup: 0, Direction: "RX", DropType: "drop",
			MTU: defaultMTU, QSize: qsizeDefault, RxPause: "Inactive", TxPause: "Inactive"})
		return qi
	}
	for _, c := range nq.Classes {
		g := classGroup(cfg, "network-qos", c.Name)
		qg := nexus.QueuingGroup{QoSGroup: g, Direction: "RX", DropType: "drop", MTU: defaultMTU,
			QSize: qsizeDrop, RxPause: "Inactive", TxPause: "Inactive"}
		if c.Name == "class-default" {
			qg.QSize = qsizeDefault
		}
		for _, a := range c.Actions {
			f := strings.Fields(a)
			switch {
			case len(f) == 2 && f[0] == "mtu":
				qg.MTU, _ = strconv.Atoi(f[1])
			case len(f) >= 1 && f[0] == "pause" && pfcOn:
				qg.DropType = "no-drop"
			}
		}
		if qg.DropType == "no-drop" {
			qg.QSize = qsizeNoDropSmall
			if qg.MTU > 2240 {
				qg.QSize = qsizeNoDropJumbo
			}
		}
		qi.Groups = append(qi.Groups, qg)
	}
	return qi
}

// classGroup is the qos-group a queuing or network-qos class matches:
// class-default is 0, class-fcoe 1, otherwise its class-map's `match
// qos-group` (or -1 when it has none, as for 7000 template classes).
func classGroup(cfg *nexus.Config, typ, class string) int {
	switch class {
	case "class-default":
		return 0
	case "class-fcoe":
		return 1
	}
	if cm := cfg.ClassMap(typ, class); cm != nil {
		for _, l := range cm.Lines {
			f := strings.Fields(l)
			if len(f) == 3 && f[0] == "match" && f[1] == "qos-group" {
				if g, err := strconv.Atoi(f[2]); err == nil {
					return g
				}
			}
		}
	}
	return -1
}
