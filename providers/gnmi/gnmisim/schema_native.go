package gnmisim

// SONiC CONFIG_DB as sonic-gnmi serves it: /CONFIG_DB/<namespace>/<TABLE>/
// <key>/<field>, namespace "localhost" on a single-ASIC switch; every value
// is a string; table keys are path elements, so patterns use "*" with a
// name regexp. Fields, types and ranges follow sonic-yang-models
// (testdata/yang/sonic).
const (
	sonicPort = `Ethernet[0-9]+`
	prio      = `[0-7]`
	dscpName  = `[0-9]|[1-5][0-9]|6[0-3]`
)

func numStr(min, max uint64) leafType { return leafType{Kind: kUint64Str, Min: min, Max: max} }

func sonicNodes() []node {
	const db = "/CONFIG_DB/localhost"
	ecn := tEnum("ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow", "ecn_green_red", "ecn_yellow_red", "ecn_all")
	ns := []node{
		leaf(db+"/PORT/*{"+sonicPort+"}/mtu", numStr(68, 9216)).portAt(3), // sonic-port.yang: range 68..9216
		leaf(db+"/PORT/*{"+sonicPort+"}/admin_status", tEnum("up", "down")).portAt(3),
		leaf(db+"/PORT/*{"+sonicPort+"}/lanes", tPattern(`[0-9]+(,[0-9]+)*`)).portAt(3),
		leaf(db+"/PORT/*{"+sonicPort+"}/speed", numStr(1, 800000)).portAt(3),
		leaf(db+"/PORT_QOS_MAP/*{"+sonicPort+"}/pfc_enable", tPattern(`([0-7](,[0-7])*)?`)).portAt(3),
		leaf(db+"/PORT_QOS_MAP/*{"+sonicPort+"}/dscp_to_tc_map", tStr()).portAt(3).refs(db + "/DSCP_TO_TC_MAP/*"),
		leaf(db+"/PORT_QOS_MAP/*{"+sonicPort+"}/dot1p_to_tc_map", tStr()).portAt(3).refs(db + "/DOT1P_TO_TC_MAP/*"),
		leaf(db+"/PORT_QOS_MAP/*{"+sonicPort+"}/tc_to_queue_map", tStr()).portAt(3).refs(db + "/TC_TO_QUEUE_MAP/*"),
		leaf(db+"/DSCP_TO_TC_MAP/*/*{"+dscpName+"}", tPattern(prio)),
		leaf(db+"/DOT1P_TO_TC_MAP/*/*{"+prio+"}", tPattern(prio)),
		leaf(db+"/TC_TO_QUEUE_MAP/*/*{"+prio+"}", tPattern(prio)),
		leaf(db+"/WRED_PROFILE/*/ecn", ecn),
		leaf(db+"/QUEUE/*{"+sonicPort+`\|`+prio+"}/wred_profile", tStr()).portAt(3).refs(db + "/WRED_PROFILE/*"),
		leaf(db+"/QUEUE/*{"+sonicPort+`\|`+prio+"}/scheduler", tStr()).portAt(3),
		leaf(db+"/PFC_WD/*{"+sonicPort+"}/action", tEnum("drop", "forward", "alert")).portAt(3),
		leaf(db+"/PFC_WD/*{"+sonicPort+"}/detection_time", numStr(100, 5000)).portAt(3),
		leaf(db+"/PFC_WD/*{"+sonicPort+"}/restoration_time", numStr(100, 60000)).portAt(3),
		leaf(db+"/PFC_WD/GLOBAL/POLL_INTERVAL", numStr(100, 1000)),
	}
	for _, c := range []string{"green", "yellow", "red"} {
		ns = append(ns,
			leaf(db+"/WRED_PROFILE/*/wred_"+c+"_enable", tEnum("true", "false")),
			leaf(db+"/WRED_PROFILE/*/"+c+"_min_threshold", numStr(0, 1<<40)),
			leaf(db+"/WRED_PROFILE/*/"+c+"_max_threshold", numStr(0, 1<<40)),
			leaf(db+"/WRED_PROFILE/*/"+c+"_drop_probability", numStr(0, 100)),
		)
	}
	return ns
}

// SR Linux native qos (srl_nokia-qos.yang v25.3.1, features of a 7220 IXR
// image: qos-pfc, qos-pfc-xgs; see testdata/yang/srlinux): no config/
// containers. Not modelled, so refused like on a real target:
// received-traffic/.../enable-pfc (if-feature future-0-0, in no released
// image).
const (
	srlIf  = "/interface[name]"
	srlFC  = "/qos/forwarding-classes/forwarding-class[name]"
	srlPQ  = "/qos/queues/pfc-queue[pfc-queue-name]"
	srlDP  = "/qos/classifiers/dscp-policy[name]"
	srlPMP = "/qos/pfc-mapping-profile[name]"
	srlQ   = "/qos/queues/queue[name]"
	srlQIf = "/qos/interfaces/interface[interface-id]"
)

func srlinuxNodes() []node {
	pq := srlPMP + "/received-traffic/unicast-mapping/pfc-queue[pfc-queue-name]"
	dl := srlPMP + "/received-pfc-pause-frames/deadlock"
	rq := srlPMP + "/received-pfc-pause-frames/queue[queue-name]"
	return []node{
		leaf(srlIf+"/name", tStr()),
		leaf(srlIf+"/mtu", tUint(1450, 9500)), // srl_nokia-interfaces.yang: range 1450..9500
		leaf(srlIf+"/subinterface[index]/index", tUint(0, 9999)),
		leaf(srlIf+"/subinterface[index]/type", tIdentLocal("srl_nokia-interfaces", "bridged", "routed", "local-mirror-dest")),
		leaf(srlFC+"/name", tStr()),
		leaf(srlFC+"/output/unicast-queue", tStr()).refs(srlQ),
		leaf(srlFC+"/output/multicast-queue", tStr()).refs(srlQ),
		leaf(srlPQ+"/pfc-queue-name", tStr()),
		leaf(srlPQ+"/queue-index", tUint(0, 7)),
		leaf(srlQ+"/name", tStr()),
		leaf(srlQ+"/queue-index", tUint(0, 7)),
		leaf(srlDP+"/name", tStr()),
		leaf(srlDP+"/dscp[value]/value", dscp),
		leaf(srlDP+"/dscp[value]/forwarding-class", tStr()).refs(srlFC),
		leaf(srlPMP+"/name", tStr()),
		leaf(pq+"/pfc-queue-name", tStr()).refs(srlPQ),
		leaf(pq+"/dot1p", list(tUint(0, 7))),
		leaf(pq+"/forwarding-class", list(tStr())).refs(srlFC),
		leaf(pq+"/pfc-pause-frame-priority", tUint(0, 7)),
		leaf(dl+"/enable", tBool()),
		leaf(dl+"/detection-timer", tUint(10, 1500)),
		leaf(dl+"/recovery-timer", tUint(100, 1500)),
		leaf(rq+"/queue-name", tStr()).refs(srlQ),
		leaf(rq+"/pfc-pause-frame-priority", tUint(0, 7)),
		leaf(rq+"/enable-pfc", tBool()),
		leaf(srlQIf+"/interface-id", tStr()),
		leaf(srlQIf+"/interface-ref/interface", tStr()).refs(srlIf),
		leaf(srlQIf+"/interface-ref/subinterface", tUint(0, 9999)),
		leaf(srlQIf+"/pfc/pfc-enable", tBool()),
		leaf(srlQIf+"/pfc/pfc-mapping-profile", tStr()).refs(srlPMP),
		leaf(srlQIf+"/input/classifiers/ipv4-dscp-policy", tStr()).refs(srlDP),
	}
}
