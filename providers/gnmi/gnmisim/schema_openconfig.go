package gnmisim

import "strings"

// The OpenConfig leaves modelled, held to openconfig/public (openconfig-qos
// 2.2.0, vendored in the gnmi provider's testdata/yang) by the gnmi
// package's yanglint tests.
// Each list entry carries its key twice, as in OpenConfig: at the entry
// ("name") and under config ("config/name").

const (
	ocIf    = "/interfaces/interface[name]"
	ocCls   = "/qos/classifiers/classifier[name]"
	ocTerm  = ocCls + "/terms/term[id]"
	ocFG    = "/qos/forwarding-groups/forwarding-group[name]"
	ocQueue = "/qos/queues/queue[name]"
	ocSP    = "/qos/scheduler-policies/scheduler-policy[name]"
	ocSched = ocSP + "/schedulers/scheduler[sequence]"
	ocQMP   = "/qos/queue-management-profiles/queue-management-profile[name]"
	ocQIf   = "/qos/interfaces/interface[interface-id]"
)

var dscp = tUint(0, 63)

// ocEntry models a list entry's key at the entry and under config.
func ocEntry(base, key string, t leafType) []node {
	return []node{leaf(base+"/"+key, t), leaf(base+"/config/"+key, t)}
}

func openconfigNodes(minMTU, maxMTU uint64) []node {
	var ns []node
	add := func(n ...node) { ns = append(ns, n...) }
	add(ocEntry(ocIf, "name", tStr())...)
	add(leaf(ocIf+"/config/mtu", tUint(minMTU, maxMTU)))
	add(leaf(ocIf+"/config/description", tStr()))
	// config/type is mandatory (openconfig-interfaces.yang, interface-phys-config).
	add(leaf(ocIf+"/config/type", tIdent("iana-if-type", "ethernetCsmacd", "ieee8023adLag", "softwareLoopback", "l3ipvlan")))

	add(ocEntry(ocCls, "name", tStr())...)
	add(leaf(ocCls+"/config/type", tEnum("ETHERNET", "IPV4", "IPV6", "MPLS")))
	add(ocEntry(ocTerm, "id", tStr())...)
	add(leaf(ocTerm+"/conditions/ipv4/config/dscp", dscp))
	add(leaf(ocTerm+"/conditions/ipv4/config/dscp-set", list(dscp)))
	add(leaf(ocTerm+"/conditions/ipv4/config/protocol",
		tUnion(tUint(0, 254), tIdent("openconfig-packet-match-types", "IP_TCP", "IP_UDP", "IP_ICMP", "IP_IGMP", "IP_PIM", "IP_RSVP", "IP_GRE", "IP_AUTH", "IP_L2TP"))))
	add(leaf(ocTerm+"/conditions/transport/config/destination-port",
		tUnion(tUint(0, 65535), tPattern(`[0-9]+\.\.[0-9]+`), tEnum("ANY"))))
	add(leaf(ocTerm+"/conditions/l2/config/ethertype",
		tUnion(tUint(1536, 65535), tIdent("openconfig-packet-match-types", "ETHERTYPE_IPV4", "ETHERTYPE_ARP", "ETHERTYPE_VLAN", "ETHERTYPE_IPV6", "ETHERTYPE_MPLS", "ETHERTYPE_LLDP", "ETHERTYPE_ROCE"))))
	add(leaf(ocTerm+"/actions/config/target-group", tStr()).refs(ocFG))
	add(leaf(ocTerm+"/actions/remark/config/set-dscp", dscp))
	add(leaf(ocTerm+"/actions/remark/config/set-dot1p", tUint(0, 7)))

	add(ocEntry(ocFG, "name", tStr())...)
	add(leaf(ocFG+"/config/output-queue", tStr()).refs(ocQueue))

	add(ocEntry(ocQueue, "name", tStr())...)
	add(leaf(ocQueue+"/config/queue-id", tUint(0, 255)))

	add(ocEntry(ocSP, "name", tStr())...)
	add(ocEntry(ocSched, "sequence", tUint(0, 4294967295))...)
	add(leaf(ocSched+"/config/priority", tEnum("STRICT")))
	add(leaf(ocSched+"/config/type", tIdent("openconfig-qos-types", "ONE_RATE_TWO_COLOR", "TWO_RATE_THREE_COLOR")))
	add(ocEntry(ocSched+"/inputs/input[id]", "id", tStr())...)
	add(leaf(ocSched+"/inputs/input[id]/config/input-type", tEnum("IN_PROFILE", "OUT_PROFILE", "QUEUE")))
	add(leaf(ocSched+"/inputs/input[id]/config/queue", tStr()).refs(ocQueue))
	add(leaf(ocSched+"/inputs/input[id]/config/weight", tUint64()))
	add(leaf(ocSched+"/one-rate-two-color/config/cir-pct", tUint(0, 100)))

	add(ocEntry(ocQMP, "name", tStr())...)
	for _, l := range []string{"min-threshold", "max-threshold"} {
		add(leaf(ocQMP+"/wred/uniform/config/"+l, tUint64()))
		add(leaf(ocQMP+"/red/uniform/config/"+l, tUint64()))
	}
	add(leaf(ocQMP+"/wred/uniform/config/max-drop-probability-percent", tUint(0, 100)))
	for _, l := range []string{"enable-ecn", "drop"} {
		add(leaf(ocQMP+"/wred/uniform/config/"+l, tBool()))
		add(leaf(ocQMP+"/red/uniform/config/"+l, tBool()))
	}

	add(ocEntry(ocQIf, "interface-id", tStr())...)
	add(leaf(ocQIf+"/interface-ref/config/interface", tStr()).refs(ocIf))
	inCls := ocQIf + "/input/classifiers/classifier[type]"
	clsType := tEnum("IPV4", "IPV6", "MPLS", "IPV4_MULTICAST", "IPV6_MULTICAST")
	add(ocEntry(inCls, "type", clsType)...)
	add(leaf(inCls+"/config/name", tStr()).refs(ocCls))
	add(leaf(ocQIf+"/output/scheduler-policy/config/name", tStr()).refs(ocSP))
	outQ := ocQIf + "/output/queues/queue[name]"
	add(leaf(outQ+"/name", tStr()).refs(ocQueue), leaf(outQ+"/config/name", tStr()).refs(ocQueue))
	add(leaf(outQ+"/config/queue-management-profile", tStr()).refs(ocQMP))
	return ns
}

// aristaNodes is OpenConfig minus what Arista's not-supported deviations
// remove (arista-qos-notsupported-deviations, EOS-4.36.1F: transport
// conditions, most of ipv4 but dscp, red, queues/queue/config/queue-id,
// remark set-dot1p),
// plus the arista-qos-augments leaves.
func aristaNodes() []node {
	var ns []node
	for _, n := range openconfigNodes(68, 9214) {
		p := n.pattern
		if strings.Contains(p, "/conditions/transport/") || strings.HasSuffix(p, "/ipv4/config/protocol") || strings.Contains(p, "/red/") ||
			strings.HasSuffix(p, "/queues/queue[name]/config/queue-id") || strings.HasSuffix(p, "/remark/config/set-dot1p") {
			continue
		}
		ns = append(ns, n)
	}
	ns = append(ns,
		leaf(ocQIf+"/output/pfc/config/priorities-no-drop", tHex(1, 2)),
		leaf("/qos/pfc/watchdog/config/default-timeout", tDec(2)),
		leaf("/qos/pfc/watchdog/config/default-recovery-time", tDec(2)),
		leaf("/qos/pfc/watchdog/config/default-polling-interval", tDec(3)),
		leaf("/qos/pfc/watchdog/config/action", tEnum("INVALID", "ERROR_DISABLE", "DROP", "FORCED_DROP", "IGNORE_PFC", "NOTIFY_ONLY")),
		leaf("/qos/pfc/watchdog/config/non-disruptive-priority", tHex(1, 2)),
		leaf(ocQueue+"/config/scheduling", tEnum("INVALID", "STRICT", "ROUND_ROBIN")),
		leaf(ocQueue+"/config/bandwidth", tUint(0, 100)),
		leaf(ocQueue+"/ecn/config/min-threshold", tUint(0, 4294967294)),
		leaf(ocQueue+"/ecn/config/max-threshold", tUint(0, 4294967294)),
		leaf(ocQueue+"/ecn/config/threshold-unit", tEnum("BYTES", "KILOBYTES", "MEGABYTES", "SEGMENTS", "MILLISECONDS", "MICROSECONDS")),
		leaf(ocQueue+"/ecn/config/max-drop-rate", tUint(0, 100)),
		leaf(ocQueue+"/ecn/config/weight", tUint(0, 4294967295)),
	)
	return ns
}
