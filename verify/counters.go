package verify

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/telemetry"
)

// DefaultPauseStormPPS is the pause-frame rate on one port and priority
// (received + sent, per second, averaged over a probe round) reported as a
// pause storm. It is a heuristic: a healthy lossless port under a
// saturating probe pauses in bursts, while a port that keeps pausing at
// this rate for a whole round is effectively stuck (a PFC storm), the
// state a switch PFC watchdog would act on.
const DefaultPauseStormPPS = 100000

// Check names.
const (
	CheckTelemetry      = "telemetry"
	CheckPFCOperational = "pfc-operational"
	CheckLosslessDrops  = "lossless-drops"
	CheckPauseStorm     = "pause-storm"
	CheckSequence       = "sequence-errors"
	CheckCoverage       = "coverage"
	CheckBaseline       = "baseline"
	CheckVersions       = "versions"
)

// deviceScope says which ports and classes of a device a round checks.
type deviceScope struct {
	Addr    string
	Ports   []string // ports to check; empty = every reported port
	Classes []*policies.Lossless
}

// counterInput is one device's snapshots around one round.
type counterInput struct {
	Scope         deviceScope
	Round         int
	Before, After *telemetry.Device
	Seconds       float64 // time between the snapshots
	StormPPS      float64
}

// delta is after-before for a cumulative counter; a counter that went
// backwards was cleared during the round, so everything since counts.
func delta(before, after uint64) uint64 {
	if after >= before {
		return after - before
	}
	return after
}

func portsByName(d *telemetry.Device) map[string]*telemetry.Port {
	m := map[string]*telemetry.Port{}
	if d == nil {
		return m
	}
	for i := range d.Ports {
		m[strings.ToLower(d.Ports[i].Name)] = &d.Ports[i]
	}
	return m
}

// selectPorts returns the after-snapshot ports in scope, and the scoped
// names the device did not report.
func selectPorts(scope deviceScope, after *telemetry.Device) (ports []*telemetry.Port, missing []string) {
	if len(scope.Ports) == 0 {
		for i := range after.Ports {
			ports = append(ports, &after.Ports[i])
		}
		return ports, nil
	}
	byName := portsByName(after)
	for _, n := range scope.Ports {
		if p, ok := byName[strings.ToLower(n)]; ok {
			ports = append(ports, p)
		} else {
			missing = append(missing, n)
		}
	}
	return ports, missing
}

// pauseOn returns the pause frames (rx+tx) for priority prio, falling back
// to the port totals when the device has no per-priority counters.
func pauseOn(p *telemetry.Port, prio int) uint64 {
	if p == nil {
		return 0
	}
	if prio < len(p.RxPause) || prio < len(p.TxPause) {
		var n uint64
		if prio < len(p.RxPause) {
			n += p.RxPause[prio]
		}
		if prio < len(p.TxPause) {
			n += p.TxPause[prio]
		}
		return n
	}
	return p.RxPauseTotal + p.TxPauseTotal
}

// counterChecks compares one device's snapshots for one round.
func counterChecks(in counterInput) []Check {
	addr := in.Scope.Addr
	if in.After == nil {
		return nil // the telemetry error is reported by the caller
	}
	ports, missing := selectPorts(in.Scope, in.After)
	before := portsByName(in.Before)
	isHost := strings.HasPrefix(addr, "host.")
	var out []Check

	for _, class := range in.Scope.Classes {
		mk := func(name string) Check {
			return Check{Name: name, Device: addr, Class: class.Name, Round: in.Round, Status: StatusPass}
		}

		// PFC operational on the class priority. A class matching all
		// traffic uses link-level pause, not PFC.
		pfc := mk(CheckPFCOperational)
		switch {
		case class.Match.Kind == policies.MatchAll:
			pfc.Status, pfc.Message = StatusSkip, "class matches all traffic: link-level pause, not PFC"
		case len(ports) == 0:
			pfc.Status, pfc.Message = StatusError, "device reported none of the ports to check"
		default:
			var bad []string
			for _, p := range ports {
				switch {
				case !p.PFCOperational:
					bad = append(bad, p.Name+" (PFC not operational, mode "+orDash(p.PFCMode)+")")
				case p.PFCPriorities&(1<<uint(class.Priority)) == 0:
					bad = append(bad, fmt.Sprintf("%s (priority %d not in PFC bitmap 0x%02x)", p.Name, class.Priority, p.PFCPriorities))
				}
			}
			if len(bad) > 0 {
				pfc.Status = StatusFail
				pfc.Message = "PFC not operational for priority " + itoa(class.Priority) + " on " + strings.Join(bad, ", ")
			} else {
				pfc.Message = fmt.Sprintf("PFC operational for priority %d on %d port(s)", class.Priority, len(ports))
			}
		}
		if len(missing) > 0 {
			if pfc.Status == StatusPass {
				pfc.Status = StatusError
			}
			pfc.Message += "; not reported by the device: " + strings.Join(missing, ", ")
		}
		out = append(out, pfc)

		if in.Before == nil {
			continue // counters need both snapshots
		}

		drops := mk(CheckLosslessDrops)
		storm := mk(CheckPauseStorm)
		seq := mk(CheckSequence)
		var dropMsgs, portWideMsgs, stormMsgs, seqMsgs, cnpMsgs []string
		var maxRate float64
		maxPort := ""
		changed := discardsKindChange(in.Before, in.After)
		for _, p := range ports {
			b := before[strings.ToLower(p.Name)]
			var bp telemetry.Port
			if b != nil {
				bp = *b
			}
			if d := delta(bp.LosslessDiscards, p.LosslessDiscards); changed != "" || d == 0 {
				// two kinds of count, or none moved: no rise to name
			} else if in.After.DiscardsPortWide != "" {
				portWideMsgs = append(portWideMsgs, fmt.Sprintf("%s +%d", p.Name, d))
			} else {
				dropMsgs = append(dropMsgs, fmt.Sprintf("%s %d lossless discards", p.Name, d))
			}
			for _, name := range []string{telemetry.CounterRxErrors, telemetry.CounterRxDiscardsPrio(class.Priority)} {
				if d := delta(bp.Counters[name], p.Counters[name]); d > 0 {
					dropMsgs = append(dropMsgs, fmt.Sprintf("%s %s +%d", p.Name, name, d))
				}
			}
			pauses := delta(pauseOn(b, class.Priority), pauseOn(p, class.Priority))
			if in.Seconds > 0 {
				rate := float64(pauses) / in.Seconds
				if rate > maxRate {
					maxRate, maxPort = rate, p.Name
				}
				if rate > in.StormPPS {
					stormMsgs = append(stormMsgs, fmt.Sprintf("%s %.0f pause frames/s on priority %d", p.Name, rate, class.Priority))
				}
			}
			for _, name := range []string{telemetry.CounterPauseStormErrors, telemetry.CounterPauseStormWarnings} {
				if d := delta(bp.Counters[name], p.Counters[name]); d > 0 {
					stormMsgs = append(stormMsgs, fmt.Sprintf("%s %s +%d", p.Name, name, d))
				}
			}
			if isHost {
				for _, name := range []string{telemetry.CounterOutOfSequence, telemetry.CounterPSNErrors} {
					if d := delta(bp.Counters[name], p.Counters[name]); d > 0 {
						seqMsgs = append(seqMsgs, fmt.Sprintf("%s %s +%d", p.Name, name, d))
					}
				}
				for _, name := range []string{telemetry.CounterCNPSent, telemetry.CounterCNPHandled} {
					if d := delta(bp.Counters[name], p.Counters[name]); d > 0 {
						cnpMsgs = append(cnpMsgs, fmt.Sprintf("%s %s +%d", p.Name, name, d))
					}
				}
			}
		}
		drops.Status, drops.Message = lossDropsVerdict(in.After, changed, len(ports), dropMsgs, portWideMsgs)
		out = append(out, drops)

		if len(stormMsgs) > 0 {
			storm.Status = StatusFail
			storm.Message = fmt.Sprintf("pause storm (threshold %.0f frames/s): %s", in.StormPPS, strings.Join(stormMsgs, ", "))
		} else if maxPort != "" {
			storm.Message = fmt.Sprintf("highest pause rate %.0f frames/s on %s (threshold %.0f)", maxRate, maxPort, in.StormPPS)
		} else {
			storm.Message = "no pause frames"
		}
		out = append(out, storm)

		if isHost {
			if len(seqMsgs) > 0 {
				seq.Status = StatusFail
				seq.Message = "packets lost or reordered on the lossless path: " + strings.Join(seqMsgs, ", ")
			} else {
				seq.Message = "no out-of-sequence or PSN errors"
			}
			if len(cnpMsgs) > 0 {
				sort.Strings(cnpMsgs)
				seq.Message += "; ECN/DCQCN active: " + strings.Join(cnpMsgs, ", ")
			}
			out = append(out, seq)
		}
	}
	return out
}

// discardsKindChange says how the round's two snapshots counted the
// ports' LosslessDiscards differently (the lossless class's own, port-wide,
// or not read), so that no difference of the two means anything; "" when
// they agree, or when the end's were not read (lossDropsVerdict says so).
func discardsKindChange(before, after *telemetry.Device) string {
	if before == nil || after.DiscardsUnread != "" {
		return ""
	}
	kind := func(d *telemetry.Device, at string) string {
		if d.DiscardsPortWide != "" {
			return "port-wide at " + at + " (" + d.DiscardsPortWide + ")"
		}
		return "the lossless class's own at " + at
	}
	switch {
	case before.DiscardsUnread != "":
		return "the discard counters were not read at the round's start: " + before.DiscardsUnread
	case (before.DiscardsPortWide != "") != (after.DiscardsPortWide != ""):
		return "the discard counters were " + kind(before, "the round's start") + " but " + kind(after, "its end")
	}
	return ""
}

// lossDropsVerdict is the lossless-drops check's status and message for
// one device: drops counts that name the lossless class, portWide the
// rises of port-wide discard counters (every class) that stand in for it
// when the device's per-class counters could not be read, changed why
// the two snapshots' discard counts cannot be compared
// (discardsKindChange), nPorts the ports checked.
func lossDropsVerdict(after *telemetry.Device, changed string, nPorts int, drops, portWide []string) (Status, string) {
	var st Status
	var msg string
	switch {
	case len(drops) > 0:
		st, msg = StatusFail, "drops on the lossless class: "+strings.Join(drops, ", ")
		if after.DiscardsUnread != "" {
			msg += "; the lossless discard counters were not read: " + after.DiscardsUnread
		}
		if changed != "" {
			msg += "; the discard counts themselves are unknown for the round: " + changed
		}
	case after.DiscardsUnread != "":
		st, msg = StatusError, "the lossless discard counters were not read, so drops are unknown: "+after.DiscardsUnread
	case changed != "":
		return StatusError, "drops are unknown for the round: " + changed + ", so the two cannot be compared; run roce-verify again to compare two reads of one kind (docs/verify.md#lossless-drops)"
	case len(portWide) > 0:
		next := "read the port's per-class queue drops on the switch"
		if cmd := after.DiscardsPerClassCommand; cmd != "" {
			port, _, _ := strings.Cut(portWide[0], " ") // "Ethernet3/1 +5"
			next += " (e.g. `" + strings.ReplaceAll(cmd, "PORT", port) + "`)"
		}
		return StatusWarn, "port-wide discards (input + output, every class on the port) rose: " + strings.Join(portWide, ", ") +
			"; the switch's per-class counters were not read, so these may be drops of a lossy class on the same port rather than of the lossless one (" +
			after.DiscardsPortWide + "). Next: " + next + " and see docs/verify.md#lossless-drops"
	case after.DiscardsPortWide != "":
		return StatusPass, fmt.Sprintf("no discards on %d port(s) during the round: the counters are port-wide (input + output, every class), "+
			"read because the switch's per-class counters were not (%s); none moved, so the lossless class dropped nothing there", nPorts, after.DiscardsPortWide)
	default:
		st, msg = StatusPass, "no drops on the lossless class"
	}
	if len(portWide) > 0 {
		msg += "; port-wide discards (every class) also rose: " + strings.Join(portWide, ", ")
	}
	return st, msg
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
