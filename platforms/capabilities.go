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
	"regexp"
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

	// ClassObjects are the device objects named after a class (Prefix +
	// class name + Suffix) whose name the device's model limits in length
	// or pattern; a class the switch carries must fit each one it writes.
	// Every other value a gNMI profile writes (DSCP 0-63, 802.1p, priority,
	// traffic class and queue 0-7, percentages 0-100, ECN thresholds up to
	// the policy's 1 GiB) is inside the models' ranges by the policy
	// language's own bounds; providers/gnmi's limits test renders each
	// profile at those bounds and validates the payload with yanglint.
	ClassObjects []ClassObject
	// CodePointMaps: the platform classifies through maps keyed by the DSCP
	// or 802.1p value, one traffic class per value (a list key in the
	// model), so two classes with different priorities cannot claim the
	// same value on one switch.
	CodePointMaps bool
	// CannotExpress (with PFC = false) are the parts of a lossless class
	// the platform has no model for, and CanExpress what it can write
	// instead: validation refuses a lossless class naming both.
	CannotExpress []string
	CanExpress    string

	// SaveCommand is the switch's own command that saves the running
	// configuration so it survives a reload ("" = none known), and
	// SavedByApply whether roce-apply runs it itself after a verified
	// apply (docs/nxos.md#saving-the-configuration). gNMI and gNOI have no
	// standard save, so on gNMI profiles roce only names the command
	// (docs/gnmi-profiles.md#saving-the-configuration).
	SaveCommand  string
	SavedByApply bool
}

// ClassObject is a device object named after a lossless class.
type ClassObject struct {
	Object  string // what it is, for messages: "SONiC WRED_PROFILE"
	Prefix  string // roce's ownership prefix, "ROCE-"
	Suffix  string // after the class name, or ""
	MaxLen  int    // longest whole name the model takes (0: no limit)
	Pattern string // the model's pattern for the whole name (implicitly anchored, as YANG's)
	Like    string // the pattern in words
	// OnlyWithECN: the object exists only for a class with ECN.
	OnlyWithECN bool
}

// CheckClassObjects refuses a class name that makes an object name the
// platform's model does not take, for the objects a class with (or
// without) ECN writes.
func (c Capabilities) CheckClassObjects(class string, ecn bool) error {
	for _, o := range c.ClassObjects {
		if o.OnlyWithECN && !ecn {
			continue
		}
		full := o.Prefix + class + o.Suffix
		if o.MaxLen > 0 && len(full) > o.MaxLen {
			return fmt.Errorf("class name %q makes the %s name %q of %d characters, and %s takes at most %d (class names of up to %d characters)",
				class, o.Object, full, len(full), c.Kind, o.MaxLen, o.MaxLen-len(o.Prefix)-len(o.Suffix))
		}
		if o.Pattern != "" && !regexp.MustCompile(`^(?:`+o.Pattern+`)$`).MatchString(full) {
			return fmt.Errorf("class name %q makes the %s name %q, and %s takes only %s", class, o.Object, full, c.Kind, o.Like)
		}
	}
	return nil
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
			SaveCommand:    "copy running-config startup-config",
			SavedByApply:   true,
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
			SaveCommand:            "copy running-config startup-config",
			SavedByApply:           true,
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
			// openconfig-interfaces.yang interface/config/mtu is a bare
			// uint16: 1500-9216 is roce's conservative range.
			MinMTU:      1500,
			MaxMTU:      9216,
			PFC:         false, // upstream OpenConfig has no PFC leaves (docs/gnmi-profiles.md#what-each-profile-can-express)
			Transaction: "gnmi-set",
			ECN:         true,
			// openconfig-qos 2.2.0 has no leaves for these (its
			// queue-management-profile and scheduler are not PFC).
			CannotExpress: []string{
				"PFC no-drop on the class's priority (per-priority pause generation)",
				"the reaction to received PFC pause frames",
				"the PFC watchdog",
				"a CoS (802.1p) or Ethertype match bound to an interface",
			},
			CanExpress: "a DSCP or UDP-port classifier, forwarding group, queue, scheduler, ECN (WRED) profile and the MTU",
		},
		"gnmi/arista": {
			Kind:        "gnmi/arista",
			SaveCommand: "copy running-config startup-config",
			// Arista's deviations drop transport conditions: RoCE v2 is
			// classified by its DSCP (docs/gnmi-profiles.md#what-each-profile-can-express).
			MatchUDPPort:     false,
			MatchCoS:         true,
			MatchDSCP:        true,
			MatchEthertype:   false,
			MaxNoDropClasses: 2,
			// Arista's openconfig-interfaces.yang mtu is a bare uint16;
			// 9214 is EOS's largest port MTU (UNCONFIRMED: no public
			// source found, kept from the profile's first release).
			MinMTU:      1500,
			MaxMTU:      9214,
			PFC:         true,
			Transaction: "gnmi-set",
			ECN:         true,
			PFCWatchdog: true,
			// arista-qos-augments.yang pfc/watchdog/config default-timeout
			// and default-recovery-time: decimal64, fraction-digits 2
			// (seconds), no range; action: enum watchdog-action, of which
			// roce writes DROP (drop) and IGNORE_PFC (forward).
			WatchdogStepMS:  10,
			WatchdogActions: []string{"drop", "forward"},
			// queue/ecn/config min-threshold and max-threshold: uint32
			// 0..4294967294 KILOBYTES; max-drop-rate and config/bandwidth:
			// oc-types:percentage 0..100. All wider than the policy's own
			// bounds. Queue and forwarding-group names are plain strings.
		},
		"gnmi/sonic": {
			Kind:             "gnmi/sonic",
			SaveCommand:      "sudo config save -y",
			MatchCoS:         true,
			MatchDSCP:        true,
			MaxNoDropClasses: 2,
			// sonic-port.yang PORT_LIST/mtu: uint16 range 68..9216. The
			// floor stays 1500: a lossless class below the Ethernet MTU
			// is refused as a policy choice, not a device limit.
			MinMTU: 1500,
			MaxMTU: 9216,
			// sonic-dscp-tc-map.yang DSCP_TO_TC_MAP_LIST/DSCP_TO_TC_MAP key
			// dscp, sonic-dot1p-tc-map.yang DOT1P_TO_TC_MAP key dot1p: one
			// traffic class per value.
			CodePointMaps: true,
			// sonic-wred-profile.yang WRED_PROFILE_LIST/name: pattern
			// '[a-zA-Z0-9]{1}([-a-zA-Z0-9_]{0,31})', length 1..32. The
			// profile writes WRED_PROFILE|ROCE-<class> for a class with
			// ECN. (The maps, ROCE-DSCP, ROCE-DOT1P and ROCE-TC, have the
			// same pattern and fit it: a profiles test checks.)
			// green_min/max_threshold are uint64 bytes and
			// green_drop_probability 0..100, wider than the policy's bounds.
			ClassObjects: []ClassObject{{
				Object: "SONiC WRED_PROFILE", Prefix: "ROCE-", MaxLen: 32,
				Pattern:     "[a-zA-Z0-9]{1}([-a-zA-Z0-9_]{0,31})",
				Like:        "letters, digits, '-' and '_' (no '.')",
				OnlyWithECN: true,
			}},
			PFC:         true,
			Transaction: "gnmi-set",
			ECN:         true,
			PFCWatchdog: true,
			// sonic-pfcwd.yang PFC_WD_LIST: detection_time range 100..5000,
			// restoration_time 100..60000, action enum drop/forward/alert
			// (the policy has no alert).
			WatchdogDetectionMS:   [2]int{100, 5000},
			WatchdogRestorationMS: [2]int{100, 60000},
			WatchdogActions:       []string{"drop", "forward"},
			// providers/gnmi/profiles/sonic.go writes no SCHEDULER entry.
			BandwidthNotRendered: "the sonic profile does not render SCHEDULER weights, so the queue keeps the switch's default DWRR share",
		},
		"gnmi/srlinux": {
			Kind:             "gnmi/srlinux",
			SaveCommand:      "tools system configuration save",
			MatchCoS:         true, // pfc-queue dot1p
			MatchDSCP:        true, // dscp-policy classifier -> forwarding class
			MaxNoDropClasses: 2,
			// srl_nokia-interfaces.yang interface/mtu: uint16 range
			// 1450..9500; its description: "The 7220 IXR-D1 ... H4 systems
			// support a maximum port MTU of 9412 bytes and minimum of 1500
			// bytes" (the XGS platforms the profile targets).
			MinMTU: 1500,
			MaxMTU: 9412,
			PFC:    true,
			// srl_nokia-qos.yang classifiers/dscp-policy/dscp key value
			// (one forwarding class per DSCP); pfc-mapping-profile
			// received-traffic/unicast-mapping/pfc-queue dot1p: a dot1p
			// value in two pfc-queues is ambiguous (UNCONFIRMED whether
			// the device refuses it; refused here).
			CodePointMaps: true,
			// The class name is in no SR Linux object name: the profile
			// writes ROCE-PFC, ROCE-DSCP, pfc<prio>, fc<prio> and
			// unicast-<prio> (srl_nokia-comm:name, 1..255).
			Transaction: "gnmi-set-commit-confirmed",
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
