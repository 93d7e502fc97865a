package policies

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/rocefabric/roce/platforms"
)

// validatePlatforms checks every class a switch carries against the
// switch's row of the capability table. All platform knowledge comes from
// platforms.Capabilities; this function only compares.
func (l *loader) validatePlatforms(f *Fabric) {
	g := newGroupedDiags()
	for _, sw := range f.Switches {
		caps, ok := l.opts.Caps.Lookup(sw.Platform, sw.Profile)
		if !ok {
			g.add("caps-"+sw.Platform+"/"+sw.Profile, hcl.DiagError, l.at(sw, "platform", sw.DeclRange), "No capabilities for platform", sw.Name, func(names string) string {
				return fmt.Sprintf("switch %s: the capability table has no row for %s; pick a supported platform/profile.", names, capsKey(sw))
			})
			continue
		}
		classes := f.LosslessFor(sw)
		if len(classes) == 0 {
			continue
		}
		if !caps.PFC {
			l.refuseNoPFC(g, sw, caps, classes)
			continue
		}
		l.checkSwitchClasses(g, sw, caps, classes)
		if caps.CodePointMaps {
			l.checkCodePoints(g, sw, caps, classes)
		}
	}
	l.diags = append(l.diags, g.diagnostics()...)
}

func (l *loader) checkSwitchClasses(g *groupedDiags, sw *Switch, caps platforms.Capabilities, classes []*Lossless) {
	noDrop, bandwidth := 0, 0
	var needCoS []int // priorities that must be no-drop
	for _, c := range classes {
		c := c
		kind := string(c.Match.Kind)
		matchAt := l.at(c, kind, c.DeclRange)
		if ok, why := caps.Supports(kind); !ok {
			switch {
			case c.Match.Kind == MatchUDPPort && len(c.Match.DSCP) > 0 && caps.MatchDSCP:
				// RoCE v2 marked with a DSCP: a DSCP-only platform can still
				// recognise it, by the DSCP alone.
				// One warning per class, whatever the mix of DSCP-only kinds.
				g.add("match-narrow-"+c.Name, hcl.DiagWarning, matchAt, "Class narrowed to its DSCP", sw.Name, func(names string) string {
					return fmt.Sprintf("lossless %q matches UDP port %d with dscp %s, but switch %s cannot classify by UDP port, so there it is recognised by DSCP %s alone: other traffic with that DSCP is lossless there too.", c.Name, c.Match.UDPPort, joinInts(c.Match.DSCP), names, joinInts(c.Match.DSCP))
				})
			case c.Match.Kind == MatchUDPPort && caps.MatchDSCP:
				g.add("match-"+c.Name+"-"+caps.Kind, hcl.DiagError, matchAt, "Match mode not supported", sw.Name, func(names string) string {
					return fmt.Sprintf("lossless %q matches by udp_port, but %s; it is carried by switch %s. Add dscp = [...] (the DSCP the hosts mark RoCE v2 with) so the class can be classified by DSCP there, or list only other classes in the switch's lossless = [...].", c.Name, why, names)
				})
			default:
				g.add("match-"+c.Name+"-"+caps.Kind, hcl.DiagError, matchAt, "Match mode not supported", sw.Name, func(names string) string {
					return fmt.Sprintf("lossless %q matches by %s, but %s; it is carried by switch %s. Use a match this platform has (e.g. cos or dscp), or list only other classes in the switch's lossless = [...].", c.Name, kind, why, names)
				})
			}
		}
		if c.Match.Kind == MatchUDPPort && len(c.Match.DSCP) > 0 && !caps.MatchDSCP {
			g.add("match-dscp-"+c.Name+"-"+caps.Kind, hcl.DiagError, l.at(c, "dscp", c.DeclRange), "Match mode not supported", sw.Name, func(names string) string {
				return fmt.Sprintf("lossless %q refines its UDP match with dscp, but %s cannot classify by DSCP (switch %s).", c.Name, caps.Kind, names)
			})
		}
		if c.MTU != 0 && (c.MTU < caps.MinMTU || c.MTU > caps.MaxMTU) {
			g.add("mtu-"+c.Name+"-"+caps.Kind, hcl.DiagError, l.at(c, "mtu", c.DeclRange), "MTU out of platform range", sw.Name, func(names string) string {
				return fmt.Sprintf("lossless %q: mtu = %d, but %s takes %d-%d (switch %s). Pick an MTU in that range.", c.Name, c.MTU, caps.Kind, caps.MinMTU, caps.MaxMTU, names)
			})
		}
		if err := caps.CheckClassObjects(c.Name, c.ECN != nil && caps.ECN); err != nil {
			g.add("objname-"+c.Name+"-"+caps.Kind, hcl.DiagError, c.DeclRange, "Class name too long or invalid for the platform", sw.Name, func(names string) string {
				return fmt.Sprintf("lossless %q: %v (switch %s). Rename the class, or carry it only on other switches.", c.Name, err, names)
			})
		}
		if c.ECN != nil && !caps.ECN {
			g.add("ecn-"+c.Name+"-"+caps.Kind, hcl.DiagError, l.at(c, "ecn", c.DeclRange), "ECN not supported", sw.Name, func(names string) string {
				return fmt.Sprintf("lossless %q has an ecn block, but %s cannot mark ECN on a class queue (switch %s). Remove the block or carry this class only on switches that can.", c.Name, caps.Kind, names)
			})
		}
		if c.PFCWatchdog != nil && !caps.PFCWatchdog {
			g.add("wd-"+c.Name+"-"+caps.Kind, hcl.DiagError, l.at(c, "pfc_watchdog", c.DeclRange), "PFC watchdog not supported", sw.Name, func(names string) string {
				return fmt.Sprintf("lossless %q has a pfc_watchdog block, but %s has no configurable PFC watchdog (switch %s). Remove the block or carry this class only on switches that have one.", c.Name, caps.Kind, names)
			})
		}
		if w := c.PFCWatchdog; w != nil && caps.PFCWatchdog {
			if err := caps.CheckWatchdog(w.DetectionMS, w.RestorationMS, w.Action); err != nil {
				g.add("wd-limits-"+c.Name+"-"+caps.Kind, hcl.DiagError, l.at(c, "pfc_watchdog", c.DeclRange), "PFC watchdog outside the platform's limits", sw.Name, func(names string) string {
					return fmt.Sprintf("lossless %q: pfc_watchdog: %v (switch %s). Pick values the platform takes.", c.Name, err, names)
				})
			}
		}
		if sw.FCoE && usesCoS(c, caps.FCoECoS) {
			attr := "priority"
			if c.Match.Kind == MatchCoS && !l.has(c, "priority") {
				attr = "cos"
			}
			g.add("fcoe-"+c.Name+"-"+caps.Kind, hcl.DiagError, l.at(c, attr, c.DeclRange), "Class collides with FCoE", sw.Name, func(names string) string {
				return fmt.Sprintf("lossless %q uses CoS %d, which FCoE uses on %s, and switch %s keeps FCoE (fcoe = true). Move the class to another priority, or set fcoe = false if the switch carries no FCoE.", c.Name, caps.FCoECoS, caps.Kind, names)
			})
		}
		if sw.FCoE && c.Match.Kind == MatchAll && caps.AllTrafficByLLFC && caps.FCoECoS != 0 {
			g.add("llfc-fcoe-"+c.Name+"-"+caps.Kind, hcl.DiagError, l.at(c, "all", c.DeclRange), "All-traffic class removes PFC for FCoE", sw.Name, func(names string) string {
				return fmt.Sprintf("lossless %q makes all traffic lossless, which %s renders as link-level flow control (flowcontrol send/receive on) with PFC off on every managed port, since the two are exclusive per port; but switch %s keeps FCoE (fcoe = true), which needs PFC on CoS %d, so FCoE would lose its no-drop pause. Use a class on the RoCE priority instead (e.g. cos = 4 or udp_port = 4791 with a priority other than %d), or set fcoe = false if the switch carries no FCoE.", c.Name, caps.Kind, names, caps.FCoECoS, caps.FCoECoS)
			})
		}
		if c.BandwidthPercent > 0 && caps.BandwidthNotRendered != "" {
			g.add("bw-unrendered-"+c.Name+"-"+caps.Kind, hcl.DiagWarning, l.at(c, "bandwidth_percent", c.DeclRange), "bandwidth_percent not applied", sw.Name, func(names string) string {
				return fmt.Sprintf("lossless %q: bandwidth_percent = %d will not be applied on switch %s (%s): %s. Remove it if only such switches carry the class, or expect the switch's default egress shares there.", c.Name, c.BandwidthPercent, names, caps.Kind, caps.BandwidthNotRendered)
			})
		}
		// With AllTrafficByLLFC the all-traffic class is link-level pause,
		// not a no-drop class, so it does not use up a class slot.
		if !(c.Match.Kind == MatchAll && caps.AllTrafficByLLFC) {
			noDrop++
			needCoS = append(needCoS, c.Priority)
		}
		bandwidth += c.BandwidthPercent
	}
	if len(needCoS) > 0 && caps.NoDropCoSSets != nil {
		l.checkNoDropCoS(g, sw, caps, classes, needCoS)
	}
	names := make([]string, len(classes))
	for i, c := range classes {
		names[i] = c.Name
	}
	at := l.at(sw, "lossless", sw.DeclRange)
	if noDrop > caps.MaxNoDropClasses {
		g.add("nodrop-"+caps.Kind+"-"+strings.Join(names, ","), hcl.DiagError, at, "Too many no-drop classes", sw.Name, func(sws string) string {
			return fmt.Sprintf("switch %s carries %d no-drop classes (%s), but %s takes at most %d. Name fewer classes in the switch's lossless = [...].", sws, noDrop, strings.Join(names, ", "), caps.Kind, caps.MaxNoDropClasses)
		})
	}
	if bandwidth > 100 {
		g.add("bw-"+strings.Join(names, ","), hcl.DiagError, at, "Bandwidth over 100%", sw.Name, func(sws string) string {
			return fmt.Sprintf("switch %s carries classes %s whose bandwidth_percent add up to %d%%; lower them to 100%% or less.", sws, strings.Join(names, ", "), bandwidth)
		})
	}
}

// checkNoDropCoS refuses priorities no template of the platform can make
// no-drop (together with the FCoE CoS when the switch keeps FCoE), at the
// class's priority. Per class first, so the message names the class; then
// the whole set when each fits alone but no one template takes them all.
func (l *loader) checkNoDropCoS(g *groupedDiags, sw *Switch, caps platforms.Capabilities, classes []*Lossless, need []int) {
	fcoe := []int{}
	if sw.FCoE && caps.FCoECoS != 0 {
		fcoe = append(fcoe, caps.FCoECoS)
	}
	sets := describeCoSSets(caps.NoDropCoSSets)
	bad := false
	for _, c := range classes {
		if c.Match.Kind == MatchAll && caps.AllTrafficByLLFC {
			continue
		}
		if _, ok := caps.NoDropFits(append([]int{c.Priority}, fcoe...)); ok {
			continue
		}
		bad = true
		c := c
		attr := "priority"
		if c.Match.Kind == MatchCoS && !l.has(c, "priority") {
			attr = "cos"
		}
		with := ""
		if len(fcoe) > 0 {
			with = fmt.Sprintf(" together with FCoE's CoS %d (fcoe = true)", fcoe[0])
		}
		g.add("nodrop-cos-"+c.Name+"-"+caps.Kind, hcl.DiagError, l.at(c, attr, c.DeclRange), "Priority cannot be no-drop on this platform", sw.Name, func(names string) string {
			return fmt.Sprintf("lossless %q uses priority %d, but no network-qos template of %s makes CoS %d no-drop%s (switch %s); the templates make no-drop: %s. Pick a priority one of them covers (CoS %s), or carry this class on other switches.", c.Name, c.Priority, caps.Kind, c.Priority, with, names, sets, joinInts(caps.NoDropCoSUnion()))
		})
	}
	if bad {
		return
	}
	if _, ok := caps.NoDropFits(append(slices.Clone(need), fcoe...)); !ok {
		all := append(slices.Clone(need), fcoe...)
		slices.Sort(all)
		g.add("nodrop-set-"+caps.Kind+"-"+joinInts(all), hcl.DiagError, l.at(sw, "lossless", sw.DeclRange), "No template makes these priorities no-drop together", sw.Name, func(names string) string {
			return fmt.Sprintf("switch %s needs CoS %s no-drop at once, but no single network-qos template of %s does that; the templates make no-drop: %s. Name fewer classes in the switch's lossless = [...] or move a priority.", names, joinInts(all), caps.Kind, sets)
		})
	}
}

// describeCoSSets prints "default-nq-7e-policy: 3; default-nq-6e-policy: 3,4".
func describeCoSSets(sets []platforms.CoSSet) string {
	parts := make([]string, len(sets))
	for i, s := range sets {
		parts[i] = s.Template + ": " + joinInts(s.CoS)
	}
	return strings.Join(parts, "; ")
}

// usesCoS reports whether class c puts frames on CoS cos.
func usesCoS(c *Lossless, cos int) bool {
	return c.Priority == cos || (c.Match.Kind == MatchCoS && containsInt(c.Match.CoS, cos))
}

func (l *loader) has(obj any, attr string) bool {
	_, ok := l.ranges[obj][attr]
	return ok
}

func capsKey(sw *Switch) string {
	if sw.Platform == PlatformGNMI {
		return sw.Platform + "/" + sw.Profile
	}
	return sw.Platform
}

// refuseNoPFC refuses every lossless class on a platform without PFC
// (gnmi/openconfig), naming what the class needs that the platform cannot
// express and what it can, from the capability row.
func (l *loader) refuseNoPFC(g *groupedDiags, sw *Switch, caps platforms.Capabilities, classes []*Lossless) {
	at := l.at(sw, "profile", l.at(sw, "platform", sw.DeclRange))
	for _, c := range classes {
		c := c
		needs := []string{fmt.Sprintf("PFC no-drop on priority %d", c.Priority)}
		switch c.Match.Kind {
		case MatchCoS:
			needs = append(needs, "a CoS (802.1p) match")
		case MatchEthertype:
			needs = append(needs, "an Ethertype match bound to an interface")
		case MatchAll:
			needs = append(needs, "every frame lossless")
		}
		if c.PFCWatchdog != nil {
			needs = append(needs, "a PFC watchdog")
		}
		cannot, can := caps.CannotExpress, caps.CanExpress
		if len(cannot) == 0 {
			cannot = []string{"PFC"}
		}
		g.add("nopfc-"+c.Name+"-"+caps.Kind, hcl.DiagError, at, "Platform cannot pause per priority", sw.Name, func(names string) string {
			msg := fmt.Sprintf("switch %s: lossless %q needs %s, and %s cannot express %s.", names, c.Name, strings.Join(needs, ", "), caps.Kind, strings.Join(cannot, "; "))
			if can != "" {
				msg += fmt.Sprintf(" It can write only %s, and a class without its no-drop pause is not lossless, so it refuses the class rather than render half of it.", can)
			}
			return msg + " Use profile = \"arista\", \"sonic\" or \"srlinux\", whose vendor models add PFC."
		})
	}
}

// checkCodePoints refuses two classes (so two priorities: validation
// gives each class its own) claiming the same DSCP or 802.1p value on a platform that classifies through
// value-keyed maps (one traffic class per value).
func (l *loader) checkCodePoints(g *groupedDiags, sw *Switch, caps platforms.Capabilities, classes []*Lossless) {
	for _, kind := range []string{"dscp", "cos"} {
		seen := map[int]*Lossless{}
		for _, c := range classes {
			c := c
			var vals []int
			switch {
			case kind == "dscp" && (c.Match.Kind == MatchDSCP || c.Match.Kind == MatchUDPPort):
				vals = c.Match.DSCP
			case kind == "cos" && c.Match.Kind == MatchCoS:
				vals = c.Match.CoS
			}
			for _, v := range vals {
				prev, ok := seen[v]
				if !ok {
					seen[v] = c
					continue
				}
				v, prev := v, prev
				g.add("codepoint-"+kind+"-"+c.Name+"-"+caps.Kind, hcl.DiagError, l.at(c, kind, c.DeclRange), "Value claimed by two classes", sw.Name, func(names string) string {
					return fmt.Sprintf("lossless %q: %s %d is also in lossless %q (%s), with priority %d, not %d; %s maps each %s value to one traffic class (switch %s). Give the value to one class only, or carry the classes on different switches.",
						c.Name, kind, v, prev.Name, rangeLine(l.at(prev, kind, prev.DeclRange)), prev.Priority, c.Priority, caps.Kind, kind, names)
				})
				break
			}
		}
	}
}

// rangeLine is "file:line" of a range, for pointing at a second place in a
// message (the diagnostic's own subject carries the first).
func rangeLine(r hcl.Range) string {
	return fmt.Sprintf("%s:%d", filepath.Base(r.Filename), r.Start.Line)
}
