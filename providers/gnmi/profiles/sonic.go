package profiles

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/platforms"
	"github.com/rocefabric/roce/policies"
)

// sonicProfile renders SONiC CONFIG_DB tables written through sonic-gnmi:
// origin "sonic-db", path /CONFIG_DB/localhost/<TABLE>/<key>/<field> (the
// second element is the database namespace; "localhost" on a single-ASIC
// switch), all values strings. The tables and fields are those of SONiC's
// sonic-yang-models (docs/gnmi-profiles.md).
type sonicProfile struct {
	origin string
}

// SONiCConfigDB is the CONFIG_DB of the default (single-ASIC) namespace,
// the prefix of every CONFIG_DB path the profile reads and writes.
const SONiCConfigDB = "/CONFIG_DB/localhost"

const sonicDB = SONiCConfigDB

const (
	sonicDSCPMap  = Prefix + "DSCP"
	sonicDot1pMap = Prefix + "DOT1P"
	sonicTCMap    = Prefix + "TC"
)

func (p *sonicProfile) Name() string { return policies.ProfileSONiC }

// Models: sonic-gnmi serves the CONFIG_DB paths (origin sonic-db) through
// its mixed DB client, which advertises one model for them: sonic-db,
// organization SONiC, version 0.1.0 (sonic-net/sonic-gnmi
// sonic_data_client/mixed_db_client.go, supportedModels, at 5ec1c20b).
// The sonic-yang modules (sonic-port-qos-map, ...) are listed only by
// builds with the translib models, so they are not required.
func (p *sonicProfile) Models() []Model { return []Model{{"sonic-db", "SONiC", "0.1.0"}} }

func (p *sonicProfile) KeysOf([]string) []string { return nil } // CONFIG_DB has tables, not lists

func (p *sonicProfile) VersionPath() (string, string) {
	return p.origin, sonicDB + "/DEVICE_METADATA/localhost/sonic_version"
}

func (p *sonicProfile) PauseCounters(iface string) (string, []string, []string) {
	var rx, tx []string
	for i := 0; i < 8; i++ {
		b := fmt.Sprintf("/COUNTERS_DB/localhost/COUNTERS/%s/SAI_PORT_STAT_PFC_%d_", iface, i)
		rx, tx = append(rx, b+"RX_PKTS"), append(tx, b+"TX_PKTS")
	}
	return p.origin, rx, tx
}

func (p *sonicProfile) Collections([]string) []Collection {
	return []Collection{
		{Origin: p.origin, Container: sonicDB + "/DSCP_TO_TC_MAP", Rows: true},
		{Origin: p.origin, Container: sonicDB + "/DOT1P_TO_TC_MAP", Rows: true},
		{Origin: p.origin, Container: sonicDB + "/TC_TO_QUEUE_MAP", Rows: true},
		{Origin: p.origin, Container: sonicDB + "/WRED_PROFILE", Rows: true},
		{Origin: p.origin, Container: sonicDB + "/PORT_QOS_MAP", Rows: true, OwnLeaves: []string{"dscp_to_tc_map", "dot1p_to_tc_map", "tc_to_queue_map"}},
		{Origin: p.origin, Container: sonicDB + "/QUEUE", Rows: true, OwnLeaves: []string{"wred_profile"}},
	}
}

// CurrentReader is a profile that renders from the device's current config
// as well as from the classes: the provider reads the containers ReadFirst
// names (one Get each) and passes their leaves to RenderCurrent. The
// sonic profile is one: it merges with the maps a port uses now.
type CurrentReader interface {
	ReadFirst(interfaces []string) []Collection
	RenderCurrent(in Input, cur Current) (*Desired, error)
}

// Current is config read before rendering: each leaf's path in gpath
// string form (/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet0/pfc_enable)
// to its value as text.
type Current map[string]string

// ReadFirst: the port QoS rows and the three map tables, whose entries the
// rendering copies.
func (p *sonicProfile) ReadFirst([]string) []Collection {
	var out []Collection
	for _, t := range []string{"PORT_QOS_MAP", "DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_QUEUE_MAP"} {
		out = append(out, Collection{Origin: p.origin, Container: sonicDB + "/" + t, Rows: true})
	}
	return out
}

// Render is RenderCurrent on a switch with no QoS config.
func (p *sonicProfile) Render(in Input) (*Desired, error) { return p.RenderCurrent(in, nil) }

// sonicMapKind is one of the maps a port row references: the table, the
// PORT_QOS_MAP field, the name of roce's map built without a source, and
// how its keys and values are called in messages.
type sonicMapKind struct {
	table, field, own, key, value string
}

var (
	sonicDSCPKind  = sonicMapKind{"DSCP_TO_TC_MAP", "dscp_to_tc_map", sonicDSCPMap, "DSCP", "traffic class"}
	sonicDot1pKind = sonicMapKind{"DOT1P_TO_TC_MAP", "dot1p_to_tc_map", sonicDot1pMap, "802.1p", "traffic class"}
	sonicTCKind    = sonicMapKind{"TC_TO_QUEUE_MAP", "tc_to_queue_map", sonicTCMap, "traffic class", "queue"}
)

// sonicMapNameMax is the longest map name sonic-yang takes (the name
// pattern of the map lists: [a-zA-Z0-9]{1}([-a-zA-Z0-9_]{0,31})).
const sonicMapNameMax = 32

// sonicMapNameRe is that pattern: a source map's name goes into the name
// of roce's copy and into its CONFIG_DB path.
var sonicMapNameRe = regexp.MustCompile(`^[a-zA-Z0-9][-a-zA-Z0-9_]{0,31}$`)

// claim is one entry roce sets in a map, with the class that wants it.
type claim struct{ value, class string }

// source returns the foreign map a port's map is copied from: the map the
// port references now, or, when that is roce's copy ROCE-<kind>-<name>,
// the <name> it was copied from. "" means no source: the port references
// nothing or roce's map without a source.
func (k sonicMapKind) source(cur Current, port string) string {
	ref := cur[sonicDB+"/PORT_QOS_MAP/"+port+"/"+k.field]
	switch {
	case ref == k.own || ref == "":
		return ""
	case strings.HasPrefix(ref, k.own+"-"):
		return strings.TrimPrefix(ref, k.own+"-")
	case strings.HasPrefix(ref, Prefix):
		return "" // another roce name: not a copy of anything
	}
	return ref
}

// entries are a map's rows in cur: key (DSCP, 802.1p value, traffic class)
// to value.
func (k sonicMapKind) entries(cur Current, name string) map[string]string {
	pre := sonicDB + "/" + k.table + "/" + name + "/"
	out := map[string]string{}
	for path, v := range cur {
		if rest, ok := strings.CutPrefix(path, pre); ok && !strings.Contains(rest, "/") {
			out[rest] = v
		}
	}
	return out
}

// render returns the map a port gets and its entries: without a source
// roce's own map (base plus ours); with one, ROCE-<kind>-<source> holding
// every entry of the source and ours, refused when the source maps one of
// our keys elsewhere (that would re-map another class's traffic).
func (k sonicMapKind) render(kind, port string, cur Current, base map[string]string, ours map[string]claim) (string, map[string]any, error) {
	out := map[string]any{}
	src := k.source(cur, port)
	name := k.own
	if src != "" {
		name = k.own + "-" + src
		if !sonicMapNameRe.MatchString(src) {
			return "", nil, fmt.Errorf("%s: port %s references %s %q, which is not a SONiC map name (letters, digits, '-' and '_'): point %s of PORT_QOS_MAP|%s at a map with such a name, then plan again", kind, port, k.table, src, k.field, port)
		}
		if len(name) > sonicMapNameMax {
			return "", nil, fmt.Errorf("%s: port %s uses %s %s; roce would copy it to %s, longer than the %d characters SONiC takes: rename the map to at most %d characters, then plan again", kind, port, k.table, src, name, sonicMapNameMax, sonicMapNameMax-len(k.own)-1)
		}
		base = k.entries(cur, src)
		if len(base) == 0 {
			return "", nil, fmt.Errorf("%s: port %s references %s %s, which CONFIG_DB does not have: create the map or point %s of PORT_QOS_MAP|%s at an existing one, then plan again", kind, port, k.table, src, k.field, port)
		}
		for _, key := range slices.Sorted(maps.Keys(ours)) {
			if v, ok := base[key]; ok && v != ours[key].value {
				return "", nil, fmt.Errorf("%s: port %s uses %s %s, which maps %s %s to %s %s; class %s needs %s %s there, and roce does not re-map another class's traffic: change the class's %s values, or the map's entry for %s %s, then plan again", kind, port, k.table, src, k.key, key, k.value, v, ours[key].class, k.value, ours[key].value, k.key, k.key, key)
			}
		}
	}
	for key, v := range base {
		out[key] = v
	}
	for key, c := range ours {
		out[key] = c.value
	}
	return name, out, nil
}

// pfcMerge is the port's pfc_enable with roce's priorities added and a
// priority roce no longer wants dropped only when roce enabled it: roce's
// maps on the port sent traffic to it (an entry of roce's copy that its
// source does not have) and the port's own maps send none to it. Any other
// priority stays, so roce never drops a priority another class enabled.
func pfcMerge(kind, port string, cur Current, ours []int) (string, error) {
	set := map[int]bool{}
	if have := cur[sonicDB+"/PORT_QOS_MAP/"+port+"/pfc_enable"]; have != "" {
		for _, f := range strings.Split(have, ",") {
			pr, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || pr < 0 || pr > 7 {
				return "", fmt.Errorf("%s: port %s: PORT_QOS_MAP pfc_enable %q is not a list of priorities 0-7: correct it on the switch, then plan again", kind, port, have)
			}
			set[pr] = true
		}
	}
	roces, foreign := map[string]bool{}, map[string]bool{}
	for _, k := range []sonicMapKind{sonicDSCPKind, sonicDot1pKind} {
		ref := cur[sonicDB+"/PORT_QOS_MAP/"+port+"/"+k.field]
		src := k.source(cur, port)
		srcEntries := map[string]string{}
		if src != "" {
			srcEntries = k.entries(cur, src)
		}
		for _, v := range srcEntries {
			foreign[v] = true
		}
		if ref == src {
			continue // the port uses its own map, not a roce copy
		}
		for key, v := range k.entries(cur, ref) {
			if srcEntries[key] != v {
				roces[v] = true
			}
		}
	}
	for tc := range roces {
		if pr, err := strconv.Atoi(tc); err == nil && !foreign[tc] {
			delete(set, pr)
		}
	}
	for _, pr := range ours {
		set[pr] = true
	}
	var out []string
	for pr := 0; pr < 8; pr++ {
		if set[pr] {
			out = append(out, strconv.Itoa(pr))
		}
	}
	return strings.Join(out, ","), nil
}

// restore points a port back at the source of roce's copy it references
// when roce no longer writes that map: the port keeps the classification
// it had before roce.
func restore(cur Current, port string, qm map[string]any, kinds ...sonicMapKind) {
	for _, k := range kinds {
		if _, set := qm[k.field]; set {
			continue
		}
		// A source the operator deleted is not pointed at: the reference
		// to roce's copy is deleted with the copy (Collections).
		if src := k.source(cur, port); src != "" && cur[sonicDB+"/PORT_QOS_MAP/"+port+"/"+k.field] != src && len(k.entries(cur, src)) > 0 {
			qm[k.field] = src
		}
	}
}

// RenderCurrent renders the classes onto the port QoS config cur holds.
// Each port keeps its maps' other entries: roce writes a copy of the map
// the port uses with its own entries added (ROCE-DSCP-<map>, ...), or
// ROCE-DSCP (ROCE-TC: every traffic class to its same-numbered queue,
// SONiC's default) when the port uses none, and refuses when the port's
// map sends one of its values elsewhere. pfc_enable keeps the port's
// priorities and adds roce's (pfcMerge).
func (p *sonicProfile) RenderCurrent(in Input, cur Current) (*Desired, error) {
	const kind = "gnmi/sonic"
	if err := checkCommon(kind, in); err != nil {
		return nil, err
	}
	d := &Desired{}
	if len(in.Classes) == 0 {
		for _, ifc := range in.Interfaces {
			qm := map[string]any{}
			restore(cur, ifc, qm, sonicDSCPKind, sonicDot1pKind, sonicTCKind)
			if len(qm) > 0 {
				d.add(Merge, p.origin, sonicDB+"/PORT_QOS_MAP/"+ifc, qm, plan.DisruptionLink)
			}
		}
		return d, nil
	}
	if wd := watchdogOf(in.Classes); wd != nil {
		if err := CheckSONiCWatchdog(wd); err != nil {
			return nil, err // names gnmi/sonic
		}
	}
	dscps, dot1ps, tcs := map[string]claim{}, map[string]claim{}, map[string]claim{}
	for _, c := range in.Classes {
		tc := strconv.Itoa(c.Priority)
		tcs[tc] = claim{tc, c.Name} // the lossless queue is the same-numbered one
		switch c.Match.Kind {
		case policies.MatchDSCP, policies.MatchUDPPort:
			ds, err := dscpsOf(kind, c)
			if err != nil {
				return nil, err
			}
			for _, v := range ds { // checkCommon refused a DSCP of two classes
				dscps[strconv.Itoa(v)] = claim{tc, c.Name}
			}
		case policies.MatchCoS:
			for _, v := range c.Match.CoS {
				dot1ps[strconv.Itoa(v)] = claim{tc, c.Name}
			}
		default:
			return nil, fmt.Errorf("%s: class %s: match %q is not expressible; SONiC classifies lossless traffic by DSCP or 802.1p maps", kind, c.Name, c.Match.Kind)
		}
		if e := c.ECN; e != nil {
			d.add(Entry, p.origin, sonicDB+"/WRED_PROFILE/"+Prefix+c.Name, map[string]any{
				"ecn": "ecn_all", "wred_green_enable": "true",
				"green_min_threshold":    strconv.Itoa(e.MinThresholdKB * 1024),
				"green_max_threshold":    strconv.Itoa(e.MaxThresholdKB * 1024),
				"green_drop_probability": strconv.Itoa(e.Probability),
			}, plan.DisruptionNone)
		}
	}
	// Without a source, ROCE-TC maps every traffic class, each to its
	// same-numbered queue (SONiC's default): a map holding only the
	// lossless classes would leave the port's other classes without a
	// queue.
	identity := map[string]string{}
	for tc := 0; tc < 8; tc++ {
		identity[strconv.Itoa(tc)] = strconv.Itoa(tc)
	}
	type wantMap struct {
		kind  sonicMapKind
		ours  map[string]claim
		base  map[string]string
		write bool
	}
	maps := []wantMap{
		{sonicDSCPKind, dscps, nil, len(dscps) > 0},
		{sonicDot1pKind, dot1ps, nil, len(dot1ps) > 0},
		{sonicTCKind, tcs, identity, true},
	}

	mtu := classMTU(in.Classes)
	wd := watchdogOf(in.Classes)
	written := map[string]bool{} // map rows already added (ports sharing a source share the copy)
	var tables, ports []Object
	for _, ifc := range in.Interfaces {
		if strings.ContainsAny(ifc, "/|") {
			return nil, fmt.Errorf("%s: interface %q: SONiC port names look like Ethernet0", kind, ifc)
		}
		pfc, err := pfcMerge(kind, ifc, cur, priorities(in.Classes))
		if err != nil {
			return nil, err
		}
		qm := map[string]any{"pfc_enable": pfc}
		for _, m := range maps {
			if !m.write {
				continue
			}
			name, entries, err := m.kind.render(kind, ifc, cur, m.base, m.ours)
			if err != nil {
				return nil, err
			}
			qm[m.kind.field] = name
			if path := sonicDB + "/" + m.kind.table + "/" + name; !written[path] {
				written[path] = true
				tables = append(tables, Object{Entry, p.origin, path, entries, plan.DisruptionBrief})
			}
		}
		restore(cur, ifc, qm, sonicDSCPKind, sonicDot1pKind)
		port := &Desired{}
		if mtu > 0 {
			port.add(Merge, p.origin, sonicDB+"/PORT/"+ifc, map[string]any{"mtu": strconv.Itoa(mtu)}, plan.DisruptionLink)
		}
		port.add(Merge, p.origin, sonicDB+"/PORT_QOS_MAP/"+ifc, qm, plan.DisruptionLink)
		for _, c := range sortedByPriority(in.Classes) {
			if c.ECN != nil {
				port.add(Merge, p.origin, sonicDB+fmt.Sprintf("/QUEUE/%s|%d", ifc, c.Priority), map[string]any{"wred_profile": Prefix + c.Name}, plan.DisruptionNone)
			}
		}
		if wd != nil {
			action := map[string]string{"drop": "drop", "forward": "forward"}[wd.Action]
			if action == "" {
				return nil, fmt.Errorf("%s: PFC watchdog action %q: want drop or forward", kind, wd.Action)
			}
			port.add(Merge, p.origin, sonicDB+"/PFC_WD/"+ifc, map[string]any{
				"action": action, "detection_time": strconv.Itoa(wd.DetectionMS), "restoration_time": strconv.Itoa(wd.RestorationMS),
			}, plan.DisruptionNone)
		}
		ports = append(ports, port.Objects...)
	}
	// The maps first, in table order (DSCP, 802.1p, TC), then the ports.
	sort.SliceStable(tables, func(i, j int) bool { return tableRank(tables[i].Path) < tableRank(tables[j].Path) })
	d.Objects = append(append(d.Objects, tables...), ports...)
	return d, nil
}

// tableRank orders the map rows as the profile always wrote them.
func tableRank(path string) int {
	for i, k := range []sonicMapKind{sonicDSCPKind, sonicDot1pKind, sonicTCKind} {
		if strings.HasPrefix(path, sonicDB+"/"+k.table+"/") {
			return i
		}
	}
	return 3
}

// CheckSONiCWatchdog refuses PFC watchdog timers and actions SONiC's
// sonic-pfcwd model does not take: the limits of the gnmi/sonic row of the
// capability table, which validation applies too.
func CheckSONiCWatchdog(wd *policies.PFCWatchdog) error {
	return checkWatchdog(policies.ProfileSONiC, wd)
}

// checkWatchdog applies the capability table's watchdog limits of a gNMI
// profile.
func checkWatchdog(profile string, wd *policies.PFCWatchdog) error {
	caps, ok := platforms.Default().Lookup(policies.PlatformGNMI, profile)
	if !ok {
		return fmt.Errorf("no capabilities for gnmi/%s", profile)
	}
	return caps.CheckWatchdog(wd.DetectionMS, wd.RestorationMS, wd.Action)
}

func sortedByPriority(cs []*policies.Lossless) []*policies.Lossless {
	out := append([]*policies.Lossless(nil), cs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Priority < out[j].Priority })
	return out
}
