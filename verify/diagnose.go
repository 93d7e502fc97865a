package verify

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/nics/perftest"
)

// Cause kinds, most specific first.
const (
	// CauseNoPause: a hop on the path does not pause the class's priority
	// (PFC off, or the priority missing from its no-drop set).
	CauseNoPause = "no-pause"
	// CauseNICMapping: a NIC does not put the class's traffic on its
	// priority (DSCP trust / priority mapping disagrees with the policy).
	CauseNICMapping = "nic-mapping"
	// CauseMTU: a hop's MTU is below the NICs'.
	CauseMTU = "mtu"
	// CauseQueueShare: a switch's egress queue share for the class changed
	// since the baseline, or capped the class under the lab's background
	// load.
	CauseQueueShare = "queue-share"
	// CauseDrops: a device on the path dropped lossless-class packets.
	CauseDrops = "drops"
	// CauseVersion: a device on the path runs another version than in the
	// baseline.
	CauseVersion = "version-changed"
)

// Cause is one likely cause of a failed probe.
type Cause struct {
	Kind   string `json:"kind"`
	Device string `json:"device"`
	Detail string `json:"detail"`
}

// String is the cause in one line.
func (c Cause) String() string { return c.Kind + " on " + c.Device + ": " + c.Detail }

// Diagnose names the likely causes of every probe that fell below its
// threshold or its baseline from what the run read: the emulated path's hops,
// the PFC and drop checks of the devices on the path, and the versions of
// those devices against the baseline. It fills Probe.Causes.
func Diagnose(r *Report, b *Baseline) {
	baselineFailed := map[string]bool{}
	for _, c := range r.Checks {
		if c.Name == CheckBaseline && c.Status == StatusFail {
			baselineFailed[c.Class+" "+c.Device] = true
		}
	}
	for i := range r.Probes {
		p := &r.Probes[i]
		p.Causes = nil
		// A bandwidth failure (threshold or baseline) is what the path
		// state explains; a probe that could not connect has its own cause.
		bandwidth := p.Status == StatusFail && p.Failure != nil && p.Failure.Class == perftest.ClassThreshold
		if !bandwidth && !baselineFailed[p.Class+" "+p.Server+","+p.Client] {
			continue
		}
		path := []string{p.Client, p.Server}
		for _, s := range []string{p.ClientSwitch, p.ServerSwitch} {
			if s != "" {
				path = append(path, "switch."+s)
			}
		}
		onPath := func(d string) bool {
			for _, x := range path {
				if x == d {
					return true
				}
			}
			return false
		}
		var causes []Cause
		seen := map[string]bool{}
		add := func(c Cause) {
			k := c.Kind + "|" + c.Device
			if c.Kind == CauseQueueShare {
				k += "|" + c.Detail // a capped share and its change since the baseline are two findings
			}
			if !seen[k] {
				seen[k] = true
				causes = append(causes, c)
			}
		}
		if e := p.Emulated; e != nil {
			mtu := 0
			for _, h := range e.Hops {
				if strings.HasPrefix(h.Device, "host.") && h.MTU > 0 && (mtu == 0 || h.MTU < mtu) {
					mtu = h.MTU
				}
			}
			for _, h := range e.Hops {
				if !h.Pauses {
					add(Cause{Kind: CauseNoPause, Device: h.Device, Detail: h.Detail})
				}
				if !h.MapsPriority {
					add(Cause{Kind: CauseNICMapping, Device: h.Device, Detail: h.Detail})
				}
				if h.MTU > 0 && mtu > 0 && h.MTU < mtu {
					add(Cause{Kind: CauseMTU, Device: h.Device, Detail: fmt.Sprintf("MTU %d is below the NICs' %d: larger frames are dropped", h.MTU, mtu)})
				}
				if e.Path.ShareBinds && h.SharePercent > 0 && h.SharePercent == leastShare(e.Hops) {
					add(Cause{Kind: CauseQueueShare, Device: h.Device, Detail: fmt.Sprintf("class %s's queue is guaranteed %d %% (%s) and other classes keep the link busy: the class gets %.2f Gb/s", p.Class, h.SharePercent, h.Share, e.Path.Gbps)})
				}
			}
		}
		for _, c := range r.Checks {
			// A lossless-drops warning (port-wide discards that rose, maybe
			// another class's) is still a lead worth naming for a slow probe.
			warnedDrops := c.Status == StatusWarn && c.Name == CheckLosslessDrops
			if (c.Status != StatusFail && !warnedDrops) || !onPath(c.Device) || (c.Class != "" && c.Class != p.Class) {
				continue
			}
			switch c.Name {
			case CheckPFCOperational:
				add(Cause{Kind: CauseNoPause, Device: c.Device, Detail: c.Message})
			case CheckLosslessDrops, CheckSequence:
				add(Cause{Kind: CauseDrops, Device: c.Device, Detail: c.Message})
			}
		}
		if b != nil {
			for _, d := range path {
				key := QueueShareKey(p.Class)
				was, now := b.Versions[d][key], r.Versions[d][key]
				switch {
				case was != "" && now != "" && was != now:
					verb := "changed"
					if pctOf(now) < pctOf(was) {
						verb = "fell"
					}
					add(Cause{Kind: CauseQueueShare, Device: d, Detail: fmt.Sprintf("queue share of class %s on %s %s from %s to %s since the baseline", p.Class, d, verb, spacePct(was), spacePct(now))})
				case was != "" && now == "":
					if h := emulatedHop(p, d); h != nil && h.SharePercent == 0 {
						add(Cause{Kind: CauseQueueShare, Device: d, Detail: fmt.Sprintf("queue share of class %s on %s was %s at the baseline and is not known now: %s", p.Class, d, spacePct(was), strings.TrimPrefix(h.Share, "unknown: "))})
					}
				}
				if diffs := versionDiffs(withoutShares(b.Versions[d]), withoutShares(r.Versions[d])); len(diffs) > 0 {
					add(Cause{Kind: CauseVersion, Device: d, Detail: strings.Join(diffs, "; ")})
				}
			}
		}
		sort.SliceStable(causes, func(i, j int) bool { return causeRank(causes[i].Kind) < causeRank(causes[j].Kind) })
		p.Causes = causes
	}
}

func causeRank(k string) int {
	switch k {
	case CauseNoPause:
		return 0
	case CauseNICMapping:
		return 1
	case CauseMTU:
		return 2
	case CauseQueueShare:
		return 3
	case CauseDrops:
		return 4
	}
	return 5
}

// emulatedHop is device's hop on an emulated probe's path, or nil.
func emulatedHop(p *Probe, device string) *EmulatedHop {
	if p.Emulated == nil {
		return nil
	}
	for i := range p.Emulated.Hops {
		if p.Emulated.Hops[i].Device == device {
			return &p.Emulated.Hops[i]
		}
	}
	return nil
}

// leastShare is the smallest known queue share among the hops.
func leastShare(hops []EmulatedHop) int {
	least := 0
	for _, h := range hops {
		if h.SharePercent > 0 && (least == 0 || h.SharePercent < least) {
			least = h.SharePercent
		}
	}
	return least
}

// pctOf reads "50%"; -1 when it is not a percentage.
func pctOf(s string) int {
	n, err := strconv.Atoi(strings.TrimSuffix(s, "%"))
	if err != nil {
		return -1
	}
	return n
}

// spacePct writes "50%" as "50 %".
func spacePct(s string) string {
	if strings.HasSuffix(s, "%") {
		return strings.TrimSuffix(s, "%") + " %"
	}
	return s
}

// withoutShares drops the queue-share keys from a device's versions: they
// have their own cause.
func withoutShares(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if !strings.HasPrefix(k, QueueShareKey("")) {
			out[k] = v
		}
	}
	return out
}

// versionDiffs lists the version keys of one device that changed since the
// baseline, sorted.
func versionDiffs(old, cur map[string]string) []string {
	if old == nil || cur == nil {
		return nil
	}
	var out []string
	for k, ov := range old {
		if nv, ok := cur[k]; ok && nv != ov {
			out = append(out, fmt.Sprintf("%s changed from %s to %s since the baseline", k, ov, nv))
		}
	}
	// The OS version first: it is what an upgrade changes on purpose.
	sort.Slice(out, func(i, j int) bool {
		oi, oj := strings.HasPrefix(out[i], "os "), strings.HasPrefix(out[j], "os ")
		if oi != oj {
			return oi
		}
		return out[i] < out[j]
	})
	return out
}
