// Package platforms is the per-kind capability table: what each switch
// platform (and gNMI profile) can express. Validation reads it to reject a
// policy a target cannot carry; renderers read it to choose a form. Adding a
// platform means adding a row here, not ifs in the validator.
//
// Facts no public source confirms (marked UNCONFIRMED) are explicit fields here,
// so a conservative default can be changed per platform in one place.
package platforms

import (
	"fmt"
	"slices"
)

// Capabilities of one switch kind.
type Capabilities struct {
	Kind string // "nexus5000", "nexus7000", "gnmi/openconfig", ...

	// Match modes the platform can classify on for a lossless class.
	MatchEthertype bool // RoCE v1 by Ethertype 0x8915
	MatchUDPPort   bool // RoCE v2 by UDP 4791 (ACL)
	MatchAll       bool // every frame lossless
	MatchCoS       bool
	MatchDSCP      bool

	// EthertypeACLInQoS: MAC ACL with an Ethertype accepted in a type qos
	// class-map. UNCONFIRMED on N5K/N7K (docs/nxos.md#qos): off, so an
	// ethertype class is rendered as `match cos <priority>` with the NIC
	// marking the PCP instead.
	EthertypeACLInQoS bool
	// ClassDefaultNoDrop: class-default may carry `pause no-drop`.
	// UNCONFIRMED (docs/nxos.md#qos): off.
	ClassDefaultNoDrop bool
	// CoSOnly: every class is classified on the switch by `match cos
	// <priority>` whatever the policy's match (N7K network-qos templates
	// match CoS only, docs/nxos.md#qos), so hosts must mark the PCP.
	CoSOnly bool
	// AllTrafficByLLFC: "all traffic" is rendered as 802.3x link-level flow
	// control on every port (PFC off) rather than a catch-all class.
	AllTrafficByLLFC bool

	// MaxNoDropClasses is how many user no-drop classes the platform takes
	// (FCoE not counted). UNCONFIRMED on N5K (docs/nxos.md#qos): we
	// enforce a conservative 1 user class + FCoE.
	MaxNoDropClasses int
	// UserQoSGroups are the qos-groups free for user classes (N5K: 2-5; 1 is
	// class-fcoe). QoSGroup1WithoutFCoE lets group 1 be used when FCoE is off
	// (UNCONFIRMED as a rule, docs/nxos.md#qos): off.
	UserQoSGroups        []int
	QoSGroup1WithoutFCoE bool
	FCoECoS              int // CoS used by FCoE when kept (3 on N5K)

	MinMTU, MaxMTU int // per-class MTU range accepted by the switch

	// PFC: the platform can pause per priority (has PFC leaves / commands).
	PFC bool
	// NetworkQoSFromTemplate: network-qos is only built by copying a
	// default-nq-* template (N7K, docs/nxos.md#qos).
	NetworkQoSFromTemplate bool
	// RequiresFSeries: lossless only on F-series modules (N7K).
	RequiresFSeries bool
	// SessionManagerQoS: `configure session` covers QoS. False on N5K
	// (docs/nxos.md#qos); UNCONFIRMED on N7K, so false there too.
	SessionManagerQoS bool
	// Transaction names the transactional primitive used by apply.
	Transaction string // "checkpoint-rollback" | "gnmi-set" | "gnmi-set-commit-confirmed"
	// ECN: the platform can mark ECN on the class queue.
	ECN bool
	// PFCWatchdog: the platform has a configurable PFC watchdog.
	PFCWatchdog bool
	// WatchdogDetectionMS and WatchdogRestorationMS are the [min, max] PFC
	// watchdog timers (ms) the platform takes ({0, 0}: not limited here);
	// WatchdogStepMS, when set, the unit they are multiples of;
	// WatchdogActions, when set, the actions it has. CheckWatchdog applies
	// them, at validate and in the renderer.
	WatchdogDetectionMS, WatchdogRestorationMS [2]int
	WatchdogStepMS                             int
	WatchdogActions                            []string

	// NoDropCoSSets, when set, are the only CoS sets the platform can make
	// no-drop, by the template that does it: on the N7K network-qos is a
	// copy of a default-nq-* template (docs/nxos.md#qos), so the
	// priorities of a switch's classes (plus the FCoE CoS when kept) must
	// all be no-drop in one template. nil: any CoS. The N7K rows mirror
	// nexus.NQTemplates() (UNCONFIRMED, docs/nxos.md#qos); a nexus test
	// keeps the two equal.
	NoDropCoSSets []CoSSet
	// BandwidthNotRendered says why the platform does not apply a class's
	// bandwidth_percent ("" = it does). Set on the SONiC and SR Linux
	// profiles, whose renderers write no scheduler weights. Validation
	// warns at the attribute with this reason.
	BandwidthNotRendered string
}

// CheckWatchdog refuses PFC watchdog timers and actions outside the
// platform's limits.
func (c Capabilities) CheckWatchdog(detectionMS, restorationMS int, action string) error {
	for _, t := range []struct {
		what string
		ms   int
		r    [2]int
	}{{"detection", detectionMS, c.WatchdogDetectionMS}, {"restoration", restorationMS, c.WatchdogRestorationMS}} {
		if t.r != [2]int{} && (t.ms < t.r[0] || t.ms > t.r[1]) {
			return fmt.Errorf("%s takes a PFC watchdog %s time of %d-%d ms, not %d", c.Kind, t.what, t.r[0], t.r[1], t.ms)
		}
		if c.WatchdogStepMS > 0 && t.ms%c.WatchdogStepMS != 0 {
			return fmt.Errorf("%s takes a PFC watchdog %s time in steps of %d ms, not %d", c.Kind, t.what, c.WatchdogStepMS, t.ms)
		}
	}
	if c.WatchdogActions != nil && !slices.Contains(c.WatchdogActions, action) {
		return fmt.Errorf("%s has PFC watchdog actions %v, not %q", c.Kind, c.WatchdogActions, action)
	}
	return nil
}

// CoSSet is a set of CoS values one template makes no-drop.
type CoSSet struct {
	Template string // e.g. "default-nq-6e-policy"
	CoS      []int  // ascending
}

// NoDropFits reports whether every CoS in need is no-drop together under
// one of the platform's templates (always true without NoDropCoSSets), and
// the template that takes them, fewest no-drop CoS first.
func (c Capabilities) NoDropFits(need []int) (string, bool) {
	if c.NoDropCoSSets == nil {
		return "", true
	}
	for _, s := range c.NoDropCoSSets {
		ok := len(s.CoS) > 0
		for _, n := range need {
			if !slices.Contains(s.CoS, n) {
				ok = false
			}
		}
		if ok {
			return s.Template, true
		}
	}
	return "", false
}

// NoDropCoSUnion is every CoS some template can make no-drop, ascending
// (nil without NoDropCoSSets).
func (c Capabilities) NoDropCoSUnion() []int {
	var out []int
	for _, s := range c.NoDropCoSSets {
		out = append(out, s.CoS...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// NeedsPCP reports whether a class with this match kind is recognised on
// this platform by the 802.1p PCP the host puts in a VLAN tag.
func (c Capabilities) NeedsPCP(kind string) bool {
	switch {
	case c.CoSOnly && kind != "all":
		return true
	case kind == "cos":
		return true
	case kind == "ethertype" && !c.EthertypeACLInQoS:
		return true
	}
	return false
}

// Supports reports whether the platform can classify with the given match
// kind ("ethertype", "udp_port", "all", "cos", "dscp"), and why not.
func (c Capabilities) Supports(kind string) (bool, string) {
	switch kind {
	case "ethertype":
		if !c.MatchEthertype {
			return false, c.Kind + " cannot classify by Ethertype"
		}
	case "udp_port":
		if !c.MatchUDPPort {
			return false, c.Kind + " cannot classify by UDP port"
		}
	case "all":
		if !c.MatchAll {
			return false, c.Kind + " cannot make all traffic lossless"
		}
	case "cos":
		if !c.MatchCoS {
			return false, c.Kind + " cannot classify by CoS"
		}
	case "dscp":
		if !c.MatchDSCP {
			return false, c.Kind + " cannot classify by DSCP"
		}
	default:
		return false, fmt.Sprintf("unknown match kind %q", kind)
	}
	return true, ""
}

// Table is the registry of capabilities by kind. It is built by Default and
// passed explicitly; there is no package-level mutable registry.
type Table map[string]Capabilities

// Lookup returns the capabilities for a platform, and for gNMI its profile.
func (t Table) Lookup(platform, profile string) (Capabilities, bool) {
	key := platform
	if platform == "gnmi" {
		key = "gnmi/" + profile
	}
	c, ok := t[key]
	return c, ok
}

// Default returns the built-in capability table.
func Default() Table {
	return Table{
		"nexus5000": {
			Kind:           "nexus5000",
			MatchEthertype: true, // rendered as match cos <priority> (EthertypeACLInQoS off)
			MatchUDPPort:   true, // ip access-list udp any any eq 4791
			MatchAll:       true, // LLFC on every port
			MatchCoS:       true,
			MatchDSCP:      true,
			// docs/nxos.md#qos: MAC ACLs in type qos UNCONFIRMED.
			EthertypeACLInQoS:  false,
			ClassDefaultNoDrop: false, // UNCONFIRMED (docs/nxos.md#qos)
			AllTrafficByLLFC:   true,  // docs/nxos.md#qos: flowcontrol send/receive on, PFC off
			MaxNoDropClasses:   1,     // UNCONFIRMED (docs/nxos.md#qos): conservative
			UserQoSGroups:      []int{2, 3, 4, 5},
			FCoECoS:            3,
			MinMTU:             1500,
			MaxMTU:             9216,
			PFC:                true,
			SessionManagerQoS:  false, // docs/nxos.md#qos: ACL feature only
			Transaction:        "checkpoint-rollback",
		},
		"nexus7000": {
			Kind:                   "nexus7000",
			MatchEthertype:         true, // rendered as match cos on the template class
			MatchUDPPort:           true, // as match cos <priority> (CoSOnly)
			MatchAll:               true,
			MatchCoS:               true,
			MatchDSCP:              true, // as match cos <priority> (CoSOnly)
			CoSOnly:                true, // templates match CoS only (docs/nxos.md#qos)
			EthertypeACLInQoS:      false,
			ClassDefaultNoDrop:     false,
			AllTrafficByLLFC:       true,
			MaxNoDropClasses:       1, // 7e template: one no-drop class (UNCONFIRMED beyond; docs/lab-upgrades.md)
			FCoECoS:                3,
			MinMTU:                 1500,
			MaxMTU:                 9216,
			PFC:                    true,
			NetworkQoSFromTemplate: true,
			RequiresFSeries:        true,
			SessionManagerQoS:      false, // UNCONFIRMED (docs/nxos.md#qos) for QoS: do not rely on it
			Transaction:            "checkpoint-rollback",
			// The default-nq-* templates' no-drop CoS, fewest first, as in
			// nexus.NQTemplates() (UNCONFIRMED, docs/lab-upgrades.md; nexus tests keep them equal).
			NoDropCoSSets: []CoSSet{
				{Template: "default-nq-7e-policy", CoS: []int{3}},
				{Template: "default-nq-6e-policy", CoS: []int{3, 4}},
				{Template: "default-nq-4e-policy", CoS: []int{1, 2, 3, 4}},
			},
			// Bandwidth is rendered: a queuing policy pins each class's
			// CoS-to-queue map and share (nexus/render7000.go), so a
			// release that changes the default egress queuing shows as
			// drift instead of silently starving the class.
			BandwidthNotRendered: "",
		},
		"gnmi/openconfig": {
			Kind: "gnmi/openconfig",
			// An ETHERNET classifier exists but cannot be bound to an
			// interface: the binding key is IPV4/IPV6/MPLS only
			// (docs/gnmi-profiles.md#what-each-profile-can-express).
			MatchEthertype: false,
			MatchUDPPort:   true, // ipv4 protocol 17 + transport destination-port
			MatchAll:       false,
			// Classifier terms have no 802.1p condition (docs/gnmi-profiles.md#what-each-profile-can-express).
			MatchCoS:         false,
			MatchDSCP:        true,
			MaxNoDropClasses: 0,
			MinMTU:           1500,
			MaxMTU:           9216,
			PFC:              false, // upstream OpenConfig has no PFC leaves (docs/gnmi-profiles.md#what-each-profile-can-express)
			Transaction:      "gnmi-set",
			ECN:              true,
		},
		"gnmi/arista": {
			Kind: "gnmi/arista",
			// Arista's deviations drop transport conditions: RoCE v2 is
			// classified by its DSCP (docs/gnmi-profiles.md#what-each-profile-can-express).
			MatchUDPPort:     false,
			MatchCoS:         true,
			MatchDSCP:        true,
			MatchEthertype:   false,
			MaxNoDropClasses: 2,
			MinMTU:           1500,
			MaxMTU:           9214,
			PFC:              true,
			Transaction:      "gnmi-set",
			ECN:              true,
			PFCWatchdog:      true,
			// arista-qos-augments: decimal64 seconds, 2 fraction digits.
			WatchdogStepMS:  10,
			WatchdogActions: []string{"drop", "forward"},
		},
		"gnmi/sonic": {
			Kind:             "gnmi/sonic",
			MatchCoS:         true,
			MatchDSCP:        true,
			MaxNoDropClasses: 2,
			MinMTU:           1500,
			MaxMTU:           9216,
			PFC:              true,
			Transaction:      "gnmi-set",
			ECN:              true,
			PFCWatchdog:      true,
			// sonic-pfcwd.yang PFC_WD_LIST: detection_time range 100..5000,
			// restoration_time 100..60000.
			WatchdogDetectionMS:   [2]int{100, 5000},
			WatchdogRestorationMS: [2]int{100, 60000},
			WatchdogActions:       []string{"drop", "forward"},
			// providers/gnmi/profiles/sonic.go writes no SCHEDULER entry.
			BandwidthNotRendered: "the sonic profile does not render SCHEDULER weights, so the queue keeps the switch's default DWRR share",
		},
		"gnmi/srlinux": {
			Kind:             "gnmi/srlinux",
			MatchCoS:         true, // pfc-queue dot1p
			MatchDSCP:        true, // dscp-policy classifier -> forwarding class
			MaxNoDropClasses: 2,
			MinMTU:           1500,
			MaxMTU:           9412,
			PFC:              true,
			Transaction:      "gnmi-set-commit-confirmed",
			// WRED slopes are keyed by traffic type and drop probability
			// (docs/gnmi-profiles.md#what-each-profile-can-express); the profile does not render them yet.
			ECN: false,
			// SR Linux has PFC deadlock detection (pfc-mapping-profile
			// received-pfc-pause-frames/deadlock, docs/gnmi-profiles.md#what-each-profile-can-express) and
			// the srlinux profile renders it, but whether it is the same
			// watchdog semantics as drop/forward is UNCONFIRMED: off here.
			PFCWatchdog: false,
			// srl_nokia-qos.yang received-pfc-pause-frames/deadlock:
			// detection-timer 10..1500, recovery-timer 100..1500; it only
			// ignores pause frames for the recovery time (drop).
			WatchdogDetectionMS:   [2]int{10, 1500},
			WatchdogRestorationMS: [2]int{100, 1500},
			WatchdogActions:       []string{"drop"},
			// providers/gnmi/profiles/srlinux.go renders no scheduler policy.
			BandwidthNotRendered: "the srlinux profile does not render scheduler weights, so the forwarding class keeps the switch's default share",
		},
	}
}
