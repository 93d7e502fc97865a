// Package profiles renders lossless classes into the gNMI paths and
// JSON_IETF values of one platform profile: openconfig, arista (OpenConfig
// plus arista-qos-augments), sonic (CONFIG_DB) and srlinux (native qos). It is
// pure code: no network, so every rendering is checked by golden files.
//
// Facts not confirmed on devices are fields of Settings with the
// default documented, not constants buried in a renderer.
package profiles

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/platforms"
	"github.com/rocefabric/roce/policies"
)

// Prefix marks the entries (classifiers, maps, profiles, queues) the tool
// owns. Entries without it are foreign and never changed or deleted.
const Prefix = "ROCE-"

// Settings are the per-profile choices that are not confirmed facts
// (docs/gnmi-profiles.md, per-switch settings). The zero value means
// defaults.
type Settings struct {
	// AristaNoDropBitOrder is how priorities map to bits of Arista's
	// priorities-no-drop hex bitmap: "lsb0" (bit n = priority n, so
	// priority 3 is "08"; the default) or "msb0" (bit 7-n, priority 3 is
	// "10"). Unconfirmed: the augment does not say.
	AristaNoDropBitOrder string
	// SONiCOrigin is the origin of CONFIG_DB paths: "sonic-db" (default,
	// what sonic-gnmi serves) or "sonic_db" for a target that spells it so.
	SONiCOrigin string
	// SRLinuxOrigin is the origin of SR Linux native paths; "" (default)
	// sends no origin. Unconfirmed: SR Linux documents no origin for them.
	SRLinuxOrigin string
}

func (s Settings) bitOrder() string {
	if s.AristaNoDropBitOrder == "" {
		return "lsb0"
	}
	return s.AristaNoDropBitOrder
}

func (s Settings) sonicOrigin() string {
	if s.SONiCOrigin == "" {
		return "sonic-db"
	}
	return s.SONiCOrigin
}

// CheckBitOrder validates an Arista priorities-no-drop bit order.
func CheckBitOrder(order string) error {
	if order != "lsb0" && order != "msb0" {
		return fmt.Errorf("bit order %q: want lsb0 (bit n = priority n) or msb0 (bit 7-n)", order)
	}
	return nil
}

// originNameRe is what an SR Linux origin may hold ("" = send none).
var originNameRe = regexp.MustCompile(`^[A-Za-z0-9_.-]*$`)

// CheckOrigin validates the origin of a profile's native paths: "sonic_db"
// or "sonic-db" for sonic, a name or "" for srlinux. OpenConfig profiles
// have no origin setting. The policy decoder applies the same rules.
func CheckOrigin(profile, origin string) error {
	switch profile {
	case policies.ProfileSONiC:
		if origin != "sonic-db" && origin != "sonic_db" {
			return fmt.Errorf("SONiC origin %q: want sonic-db (sonic-gnmi) or sonic_db", origin)
		}
	case policies.ProfileSRLinux:
		if !originNameRe.MatchString(origin) {
			return fmt.Errorf("SR Linux origin %q: want a name of letters, digits, '_', '-' and '.', or empty for none", origin)
		}
	default:
		return fmt.Errorf("profile %s writes OpenConfig paths, whose origin is always openconfig; the origin setting applies to sonic and srlinux", profile)
	}
	return nil
}

// Effective returns the settings that apply to the named profile, with
// defaults filled in, keyed by their policy attribute names (gnmi { } block):
// what the plan records so reviewers see the choices the payload follows.
// An SR Linux origin of "" (none) is shown as "(none)".
func (s Settings) Effective(profile string) map[string]string {
	switch profile {
	case policies.ProfileArista:
		return map[string]string{"arista_no_drop_bit_order": s.bitOrder()}
	case policies.ProfileSONiC:
		return map[string]string{"origin": s.sonicOrigin()}
	case policies.ProfileSRLinux:
		if s.SRLinuxOrigin == "" {
			return map[string]string{"origin": "(none)"}
		}
		return map[string]string{"origin": s.SRLinuxOrigin}
	}
	return map[string]string{}
}

// Input is what a profile renders from.
type Input struct {
	Switch     string               // switch name, for messages
	Interfaces []string             // as the device names them
	Classes    []*policies.Lossless // the classes this switch carries
}

// Mode says how an object is written and compared.
type Mode int

const (
	// Entry: an owned list entry or table row, written with replace and
	// compared leaf by leaf in full (extra leaves on the device are drift).
	Entry Mode = iota
	// Merge: shared config (an interface, a port's QoS map row); written with
	// update and compared only on the leaves we set.
	Merge
)

// Object is one desired piece of config.
type Object struct {
	Mode    Mode
	Origin  string
	Path    string // gpath string form
	Value   any    // JSON-ready value (map[string]any / scalars)
	Disrupt plan.Disruption
}

// Collection is where owned config lives, so what is ours but no longer
// desired can be found and deleted. Three shapes:
//   - List set: entries of Container/List[Key=...]. Without OwnLeaves an
//     entry is ours when its key starts with Prefix; with OwnLeaves (paths
//     relative to the entry) when one of them holds a Prefix value — an
//     interface's binding to our classifier. Ours is deleted as an entry.
//   - List empty, Rows set: the container's members are rows (SONiC
//     tables). Without OwnLeaves a row named with Prefix is ours and deleted
//     whole; with OwnLeaves (relative to the row) only those leaves are.
//   - List empty, Rows unset: OwnLeaves are relative to Container itself and
//     deleted one by one when they hold a Prefix value.
type Collection struct {
	Origin    string
	Container string
	List      string
	Key       string
	Rows      bool
	OwnLeaves []string
}

// Desired is a profile's rendering for one switch.
type Desired struct {
	Objects  []Object
	Warnings []string
}

// Profile is one platform's renderer and read map.
type Profile interface {
	// Name is "openconfig", "arista", "sonic" or "srlinux".
	Name() string
	// Models are the models Capabilities must list for this profile, at
	// the versions its payloads are validated against.
	Models() []Model
	// Render turns the classes into objects, or says why it cannot.
	Render(in Input) (*Desired, error)
	// Collections lists where owned entries may be, for these interfaces.
	Collections(interfaces []string) []Collection
	// KeysOf gives list keys for flattening values (see gpath.KeysOf).
	KeysOf(names []string) []string
	// VersionPath is where the software version is read.
	VersionPath() (origin, path string)
	// PauseCounters are the state paths of an interface's pause counters:
	// rx/tx per priority (len 8 each) or totals (len 1 each).
	PauseCounters(iface string) (origin string, rx, tx []string)
}

// New returns the named profile with settings.
func New(name string, s Settings) (Profile, error) {
	switch name {
	case policies.ProfileOpenConfig:
		return &ocProfile{arista: false, s: s}, nil
	case policies.ProfileArista:
		if err := CheckBitOrder(s.bitOrder()); err != nil {
			return nil, fmt.Errorf("arista profile: %w", err)
		}
		return &ocProfile{arista: true, s: s}, nil
	case policies.ProfileSONiC:
		if err := CheckOrigin(name, s.sonicOrigin()); err != nil {
			return nil, fmt.Errorf("sonic profile: %w", err)
		}
		return &sonicProfile{origin: s.sonicOrigin()}, nil
	case policies.ProfileSRLinux:
		if err := CheckOrigin(name, s.SRLinuxOrigin); err != nil {
			return nil, fmt.Errorf("srlinux profile: %w", err)
		}
		return &srlProfile{origin: s.SRLinuxOrigin}, nil
	}
	return nil, fmt.Errorf("unknown gNMI profile %q (want openconfig, arista, sonic, srlinux or auto)", name)
}

// Detect picks a profile from the models a target advertises (module
// names, or SR Linux's "urn:...:module" form): the Arista augment means
// arista, sonic-* models sonic, srl_nokia-* srlinux, anything else
// openconfig.
func Detect(models []string) string {
	has := func(pred func(string) bool) bool {
		for _, m := range models {
			if pred(ModelName(m)) {
				return true
			}
		}
		return false
	}
	switch {
	case has(func(m string) bool { return m == "arista-qos-augments" }):
		return policies.ProfileArista
	case has(func(m string) bool { return strings.HasPrefix(m, "sonic-") }):
		return policies.ProfileSONiC
	case has(func(m string) bool { return strings.HasPrefix(m, "srl_nokia-") }):
		return policies.ProfileSRLinux
	}
	return policies.ProfileOpenConfig
}

// keyTable is a KeysOf backed by joined element names.
type keyTable map[string][]string

func (k keyTable) keysOf(names []string) []string { return k[strings.Join(names, "/")] }

// priorities returns the sorted distinct priorities of the classes.
func priorities(cs []*policies.Lossless) []int {
	seen := map[int]bool{}
	var out []int
	for _, c := range cs {
		if !seen[c.Priority] {
			seen[c.Priority] = true
			out = append(out, c.Priority)
		}
	}
	sort.Ints(out)
	return out
}

// classMTU is the largest MTU any class asks for (0 = leave the MTU alone).
func classMTU(cs []*policies.Lossless) int {
	m := 0
	for _, c := range cs {
		if c.MTU > m {
			m = c.MTU
		}
	}
	return m
}

// nameRe is what a class name may hold: it is used as a list key and as a
// CONFIG_DB table key, where '/', '|' and brackets would change the path.
var nameRe = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// capsOf is the profile's row of the capability table: the device limits
// validation applies, which the renderers apply again.
func capsOf(kind string) (platforms.Capabilities, error) {
	caps, ok := platforms.Default()[kind]
	if !ok {
		return platforms.Capabilities{}, fmt.Errorf("no capabilities for %s", kind)
	}
	return caps, nil
}

// checkCommon refuses inputs every profile refuses, and values outside the
// limits of the profile's capability row (MTU, names of objects named
// after a class, a DSCP or 802.1p value claimed by two classes where
// classification is a value-keyed map).
func checkCommon(kind string, in Input) error {
	caps, err := capsOf(kind)
	if err != nil {
		return err
	}
	minMTU, maxMTU := caps.MinMTU, caps.MaxMTU
	if len(in.Classes) > 0 && len(in.Interfaces) == 0 {
		return fmt.Errorf("%s: switch %s carries lossless classes but lists no interfaces", kind, in.Switch)
	}
	// The rule validate applies, so plan and validate agree on every name,
	// and a wildcard, a delimiter, a 5,000-character name or a port of
	// another platform's shape never reaches a gNMI path, whatever the
	// caller skipped.
	for _, ifc := range in.Interfaces {
		if err := platforms.CheckInterfaceName(kind, ifc); err != nil {
			return fmt.Errorf("%s: switch %s: %w", kind, in.Switch, err)
		}
	}
	for _, c := range in.Classes {
		if !nameRe.MatchString(c.Name) {
			return fmt.Errorf("%s: class name %q becomes a device object name (%s%s): use letters, digits, '.', '_' and '-'", kind, c.Name, Prefix, c.Name)
		}
		if c.Priority < 0 || c.Priority > 7 {
			return fmt.Errorf("%s: class %s: priority %d outside 0-7", kind, c.Name, c.Priority)
		}
		if err := caps.CheckClassObjects(c.Name, c.ECN != nil && caps.ECN); err != nil {
			return fmt.Errorf("%s: class %s: %w", kind, c.Name, err)
		}
		if c.MTU != 0 && (c.MTU < minMTU || c.MTU > maxMTU) {
			return fmt.Errorf("%s: class %s: MTU %d outside the platform range %d-%d", kind, c.Name, c.MTU, minMTU, maxMTU)
		}
		if c.BandwidthPercent < 0 || c.BandwidthPercent > 100 {
			return fmt.Errorf("%s: class %s: bandwidth %d%% outside 0-100", kind, c.Name, c.BandwidthPercent)
		}
		if e := c.ECN; e != nil && (e.MinThresholdKB < 0 || e.MaxThresholdKB < e.MinThresholdKB || e.Probability < 0 || e.Probability > 100) {
			return fmt.Errorf("%s: class %s: ECN thresholds %d-%d KB, probability %d%%: want 0 <= min <= max and 0-100%%", kind, c.Name, e.MinThresholdKB, e.MaxThresholdKB, e.Probability)
		}
	}
	if caps.CodePointMaps {
		return checkCodePoints(kind, in.Classes)
	}
	return nil
}

// checkCodePoints refuses a DSCP or 802.1p value claimed by two classes of
// different priorities (validation's rule, for callers that skip it).
func checkCodePoints(kind string, cs []*policies.Lossless) error {
	dscp, cos := map[int]*policies.Lossless{}, map[int]*policies.Lossless{}
	for _, c := range cs {
		m, vals, what := dscp, c.Match.DSCP, "DSCP"
		if c.Match.Kind == policies.MatchCoS {
			m, vals, what = cos, c.Match.CoS, "802.1p"
		} else if c.Match.Kind != policies.MatchDSCP && c.Match.Kind != policies.MatchUDPPort {
			continue
		}
		for _, v := range vals {
			if prev, ok := m[v]; ok && prev.Priority != c.Priority {
				return fmt.Errorf("%s: %s %d is claimed by classes %s (priority %d) and %s (priority %d); each value maps to one traffic class", kind, what, v, prev.Name, prev.Priority, c.Name, c.Priority)
			}
			m[v] = c
		}
	}
	return nil
}

// dscpsOf returns the DSCP values a class is recognised by on a switch that
// classifies by DSCP only. A UDP-port match is narrowed to its DSCP
// refinement without a warning of its own: validation already warns once
// for all the switches concerned ("Class narrowed to its DSCP"), and a
// per-switch copy repeated it on every switch of the plan (issue #18).
func dscpsOf(kind string, c *policies.Lossless) ([]int, error) {
	switch c.Match.Kind {
	case policies.MatchDSCP:
		return c.Match.DSCP, nil
	case policies.MatchUDPPort:
		if len(c.Match.DSCP) == 0 {
			return nil, fmt.Errorf("%s: class %s matches UDP port %d without a DSCP; this profile classifies by DSCP only, so give the class a dscp list (RoCE v2 marked with a DSCP)", kind, c.Name, c.Match.UDPPort)
		}
		return c.Match.DSCP, nil
	}
	return nil, nil
}

func ints(v []int) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}
