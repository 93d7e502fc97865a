package profiles

import (
	"fmt"
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

func (p *sonicProfile) Render(in Input) (*Desired, error) {
	const kind = "gnmi/sonic"
	if err := checkCommon(kind, in); err != nil {
		return nil, err
	}
	d := &Desired{}
	if len(in.Classes) == 0 {
		return d, nil
	}
	if wd := watchdogOf(in.Classes); wd != nil {
		if err := CheckSONiCWatchdog(wd); err != nil {
			return nil, err // names gnmi/sonic
		}
	}
	// The port's TC_TO_QUEUE_MAP is replaced by ours, so ours maps every
	// traffic class, not only the lossless ones: each to its same-numbered
	// queue, SONiC's default. A map holding only our classes would leave
	// the other classes of the port without a queue.
	dscpMap, dot1pMap, tcMap := map[string]any{}, map[string]any{}, map[string]any{}
	for tc := 0; tc < 8; tc++ {
		tcMap[strconv.Itoa(tc)] = strconv.Itoa(tc)
	}
	for _, c := range in.Classes {
		tc := strconv.Itoa(c.Priority)
		switch c.Match.Kind {
		case policies.MatchDSCP, policies.MatchUDPPort:
			ds, warn, err := dscpsOf(kind, c)
			if err != nil {
				return nil, err
			}
			if warn != "" {
				d.Warnings = append(d.Warnings, warn)
			}
			for _, v := range ds { // checkCommon refused a DSCP of two classes
				dscpMap[strconv.Itoa(v)] = tc
			}
		case policies.MatchCoS:
			for _, v := range c.Match.CoS {
				dot1pMap[strconv.Itoa(v)] = tc
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
	if len(dscpMap) > 0 {
		d.add(Entry, p.origin, sonicDB+"/DSCP_TO_TC_MAP/"+sonicDSCPMap, dscpMap, plan.DisruptionBrief)
	}
	if len(dot1pMap) > 0 {
		d.add(Entry, p.origin, sonicDB+"/DOT1P_TO_TC_MAP/"+sonicDot1pMap, dot1pMap, plan.DisruptionBrief)
	}
	d.add(Entry, p.origin, sonicDB+"/TC_TO_QUEUE_MAP/"+sonicTCMap, tcMap, plan.DisruptionBrief)

	var pfc []string
	for _, pr := range priorities(in.Classes) {
		pfc = append(pfc, strconv.Itoa(pr))
	}
	mtu := classMTU(in.Classes)
	wd := watchdogOf(in.Classes)
	for _, ifc := range in.Interfaces {
		if strings.ContainsAny(ifc, "/|") {
			return nil, fmt.Errorf("%s: interface %q: SONiC port names look like Ethernet0", kind, ifc)
		}
		if mtu > 0 {
			d.add(Merge, p.origin, sonicDB+"/PORT/"+ifc, map[string]any{"mtu": strconv.Itoa(mtu)}, plan.DisruptionLink)
		}
		qm := map[string]any{"pfc_enable": strings.Join(pfc, ","), "tc_to_queue_map": sonicTCMap}
		if len(dscpMap) > 0 {
			qm["dscp_to_tc_map"] = sonicDSCPMap
		}
		if len(dot1pMap) > 0 {
			qm["dot1p_to_tc_map"] = sonicDot1pMap
		}
		d.add(Merge, p.origin, sonicDB+"/PORT_QOS_MAP/"+ifc, qm, plan.DisruptionLink)
		for _, c := range sortedByPriority(in.Classes) {
			if c.ECN != nil {
				d.add(Merge, p.origin, sonicDB+fmt.Sprintf("/QUEUE/%s|%d", ifc, c.Priority), map[string]any{"wred_profile": Prefix + c.Name}, plan.DisruptionNone)
			}
		}
		if wd != nil {
			action := map[string]string{"drop": "drop", "forward": "forward"}[wd.Action]
			if action == "" {
				return nil, fmt.Errorf("%s: PFC watchdog action %q: want drop or forward", kind, wd.Action)
			}
			d.add(Merge, p.origin, sonicDB+"/PFC_WD/"+ifc, map[string]any{
				"action": action, "detection_time": strconv.Itoa(wd.DetectionMS), "restoration_time": strconv.Itoa(wd.RestorationMS),
			}, plan.DisruptionNone)
		}
	}
	return d, nil
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
