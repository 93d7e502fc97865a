package policies

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// MinRoCESwitchMTU is the smallest class MTU on a switch that carries RoCE
// frames of path MTU 4096: the netdev floor (MinRoCENetdevMTU) plus the
// Ethernet header, VLAN tag and FCS that switch MTUs count.
const MinRoCESwitchMTU = 4200

// validate runs the semantic rules that need the whole fabric: references,
// class conflicts, and what each switch platform can carry.
func (l *loader) validate(f *Fabric) {
	l.validateClasses(f)
	l.validateReferences(f)
	// The rules below skip unresolved names (already reported), so every
	// finding is shown in one run rather than one layer at a time.
	l.fillNICDefaults(f)
	l.validatePlatforms(f)
	l.validateNICs(f)
	l.validateNames(f)
	l.warnTransport(f)
}

func (l *loader) validateClasses(f *Fabric) {
	if len(f.Lossless) == 0 {
		var subject *hcl.Range
		switch {
		case len(f.Switches) > 0:
			subject = f.Switches[0].DeclRange.Ptr()
		case len(f.Hosts) > 0:
			subject = f.Hosts[0].DeclRange.Ptr()
		}
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No lossless class",
			Detail: "The policy declares no lossless \"NAME\" { } block, so there is nothing to make lossless. Add one, e.g. lossless \"roce\" { cos = 4 }.", Subject: subject})
		return
	}
	byPriority := map[int]*Lossless{}
	var all *Lossless
	for _, c := range f.Lossless {
		if c.Match.Kind == MatchAll {
			if all != nil {
				l.diags = append(l.diags, errorDiag(l.at(c, "all", c.DeclRange), "Two all-traffic classes",
					fmt.Sprintf("lossless %q and lossless %q both make all traffic lossless; keep one.", all.Name, c.Name)))
			}
			all = c
		}
		if prev, ok := byPriority[c.Priority]; ok {
			l.diags = append(l.diags, errorDiag(l.at(c, "priority", c.DeclRange), "Two classes on one priority",
				fmt.Sprintf("lossless %q and lossless %q both use priority %d; PFC pauses per priority, so each class needs its own. Change one priority.", prev.Name, c.Name, c.Priority)))
			continue
		}
		byPriority[c.Priority] = c
		if c.MTU != 0 && c.MTU < MinRoCESwitchMTU {
			l.diags = append(l.diags, warningDiag(l.at(c, "mtu", c.DeclRange), "Class MTU below RoCE path MTU 4096",
				fmt.Sprintf("lossless %q: mtu = %d is below %d, so RoCE must fall back to path MTU 2048 or less. Use mtu = 9216 (or at least %d) unless that is intended.", c.Name, c.MTU, MinRoCESwitchMTU, MinRoCESwitchMTU)))
		}
	}
	if all != nil && len(f.Lossless) > 1 {
		other := f.Lossless[0]
		if other == all {
			other = f.Lossless[1]
		}
		l.diags = append(l.diags, errorDiag(l.at(all, "all", all.DeclRange), "All-traffic class with other classes",
			fmt.Sprintf("lossless %q makes all traffic lossless, so lossless %q cannot be a separate class. Remove one of them.", all.Name, other.Name)))
	}
}

func (l *loader) validateReferences(f *Fabric) {
	credRef := func(obj any, what, name string, decl hcl.Range) {
		if name == "" {
			return
		}
		if _, ok := f.Credentials[name]; !ok {
			l.diags = append(l.diags, errorDiag(l.at(obj, "credentials", decl), "Unknown credentials",
				fmt.Sprintf("%s: credentials = %q, but there is no credentials %q { } block%s.", what, name, name, suggest(name, credentialNames(f)))))
		}
	}
	classNames := make([]string, len(f.Lossless))
	for i, c := range f.Lossless {
		classNames[i] = c.Name
	}
	refs := newGroupedDiags()
	for _, sw := range f.Switches {
		credRef(sw, fmt.Sprintf("switch %q", sw.Name), sw.Credentials, sw.DeclRange)
		for _, n := range sw.Lossless {
			if f.LosslessByName(n) == nil {
				refs.add("switch-lossless-"+n, hcl.DiagError, l.at(sw, "lossless", sw.DeclRange), "Unknown lossless class", sw.Name, func(names string) string {
					return fmt.Sprintf("switch %s: lossless lists %q, but there is no lossless %q { } block%s.", names, n, n, suggest(n, classNames))
				})
			}
		}
	}
	switchNames := make([]string, len(f.Switches))
	for i, s := range f.Switches {
		switchNames[i] = s.Name
	}
	for _, h := range f.Hosts {
		credRef(h, fmt.Sprintf("host %q", h.Name), h.Credentials, h.DeclRange)
		if h.Switch != "" && f.SwitchByName(h.Switch) == nil {
			refs.add("host-switch-"+h.Switch, hcl.DiagError, l.at(h, "switch", h.DeclRange), "Unknown switch", h.Name, func(names string) string {
				return fmt.Sprintf("host %s: switch = %q, but there is no switch %q%s.", names, h.Switch, h.Switch, suggest(h.Switch, switchNames))
			})
		}
		for _, n := range h.NICs {
			switch {
			case n.Lossless != "" && f.LosslessByName(n.Lossless) == nil:
				refs.add("nic-lossless-"+n.Lossless, hcl.DiagError, l.at(n, "lossless", n.DeclRange), "Unknown lossless class", h.Name, func(names string) string {
					return fmt.Sprintf("host %s nic %q: lossless = %q, but there is no lossless %q { } block%s.", names, n.Netdev, n.Lossless, n.Lossless, suggest(n.Lossless, classNames))
				})
			case n.Lossless == "" && len(f.Lossless) > 1:
				refs.add("nic-lossless-missing", hcl.DiagError, n.DeclRange, "NIC class not named", h.Name, func(names string) string {
					return fmt.Sprintf("host %s nic %q: the policy has %d lossless classes (%s); say which one this NIC carries with lossless = \"<name>\".", names, n.Netdev, len(f.Lossless), strings.Join(classNames, ", "))
				})
			}
		}
	}
	l.diags = append(l.diags, refs.diagnostics()...)
}

// fillNICDefaults derives what a NIC leaves unset from its class: RoCE v1
// for an Ethertype class (v1 has no IP header), v2 otherwise; trust dscp for
// a DSCP class, pcp otherwise.
func (l *loader) fillNICDefaults(f *Fabric) {
	for _, h := range f.Hosts {
		for _, n := range h.NICs {
			c := f.ClassForNIC(n)
			if c == nil {
				continue
			}
			if n.RoCEMode == "" {
				n.RoCEMode = "v2"
				if c.Match.Kind == MatchEthertype {
					n.RoCEMode = "v1"
				}
			}
			if n.Trust == "" {
				n.Trust = "pcp"
				if c.Match.Kind == MatchDSCP {
					n.Trust = "dscp"
				}
			}
		}
	}
}

// validateNICs checks each NIC against its class: RoCE mode and match must
// agree, and where a switch recognises the class by 802.1p PCP the NIC must
// send VLAN-tagged frames, since untagged frames carry no PCP.
func (l *loader) validateNICs(f *Fabric) {
	pcpSwitches := map[*Lossless][]string{}
	for _, sw := range f.Switches {
		caps, ok := l.opts.Caps.Lookup(sw.Platform, sw.Profile)
		if !ok {
			continue
		}
		for _, c := range f.LosslessFor(sw) {
			if caps.NeedsPCP(string(c.Match.Kind)) {
				pcpSwitches[c] = append(pcpSwitches[c], sw.Name)
			}
		}
	}
	g := newGroupedDiags()
	for _, h := range f.Hosts {
		for _, n := range h.NICs {
			c := f.ClassForNIC(n)
			if c == nil {
				continue
			}
			nic := n
			switch {
			case c.Match.Kind == MatchEthertype && n.RoCEMode == "v2":
				g.add("mode-v2-"+c.Name, hcl.DiagError, l.at(n, "roce_mode", n.DeclRange), "RoCE mode does not match the class", h.Name, func(names string) string {
					return fmt.Sprintf("host %s nic %q: lossless %q matches Ethertype 0x%04x (RoCE v1), but roce_mode = \"v2\" sends UDP/IP frames that class never sees. Use roce_mode = \"v1\" or a udp_port class.", names, nic.Netdev, c.Name, c.Match.Ethertype)
				})
			case (c.Match.Kind == MatchUDPPort || c.Match.Kind == MatchDSCP) && n.RoCEMode == "v1":
				g.add("mode-v1-"+c.Name, hcl.DiagError, l.at(n, "roce_mode", n.DeclRange), "RoCE mode does not match the class", h.Name, func(names string) string {
					return fmt.Sprintf("host %s nic %q: lossless %q matches by %s, which only RoCE v2 frames (UDP/IP) carry, but roce_mode = \"v1\". Use roce_mode = \"v2\" or an ethertype class.", names, nic.Netdev, c.Name, c.Match.Kind)
				})
			}
			if sws := pcpSwitches[c]; len(sws) > 0 && n.VLAN == 0 {
				g.add("vlan-"+c.Name, hcl.DiagError, n.DeclRange, "NIC needs a VLAN", h.Name, func(names string) string {
					return fmt.Sprintf("host %s nic %q: lossless %q is recognised by the 802.1p priority in a VLAN tag on %s; untagged frames carry no priority. Give nic %q a vlan.", names, nic.Netdev, c.Name, nameList(sws), nic.Netdev)
				})
			}
		}
	}
	l.diags = append(l.diags, g.diagnostics()...)
}

func credentialNames(f *Fabric) []string {
	out := make([]string, 0, len(f.Credentials))
	for n := range f.Credentials {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Bounds of the "did you mean" search.
const (
	maxSuggestCandidates = 2000
	maxSuggestName       = 128
)

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// suggest returns `; did you mean "x"?` when a known name is close to
// name, and otherwise lists the known names (or says there are none).
func suggest(name string, known []string) string {
	best, bestD := "", 3
	// Suggestions are for typos in ordinary names: a huge fleet or a huge
	// name would make the search quadratic, so it is skipped then.
	if len(known) > maxSuggestCandidates || len(name) > maxSuggestName {
		known = nil
	}
	for _, k := range known {
		if abs(len(k)-len(name)) >= bestD {
			continue
		}
		if d := editDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	if len(known) == 0 {
		return "; none are declared"
	}
	if len(known) > maxNamesInMessage {
		return ""
	}
	return "; declared: " + strings.Join(known, ", ")
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
