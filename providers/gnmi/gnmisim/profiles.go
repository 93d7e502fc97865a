package gnmisim

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// Origins the simulated targets store config under.
const (
	originOpenConfig = "openconfig"
	// DefaultSONiCOrigin is the origin the sonic profile accepts for
	// CONFIG_DB paths unless Options.NativeOrigin says otherwise: sonic-gnmi
	// serves "sonic-db" (its tests and sonic-mgmt's gnmi tests use
	// /sonic-db:CONFIG_DB/localhost/...).
	DefaultSONiCOrigin = "sonic-db"
	// DefaultSRLinuxOrigin is the origin the srlinux profile accepts for its
	// native qos paths: "" here (SR Linux documents none for them).
	DefaultSRLinuxOrigin = ""
)

// profile is what one simulated platform models.
type profile struct {
	name    string
	models  []*gpb.ModelData
	origin  string // the one origin config is stored under
	accepts map[string]bool
	cfg     *schema
	// seed returns the config and state present before any Set.
	seed func(ifaces []string, version string) (cfg, state []seedLeaf)
	// ports, when set, is how the platform names its front-panel ports
	// where the model does not say (sonic-port.yang's PORT name is any
	// string of 1..128 characters; SONiC's port_config.ini names them
	// EthernetN, and the seed derives lanes from N).
	ports *regexp.Regexp
}

type seedLeaf struct {
	path  string
	value any
}

func model(name, org, version string) *gpb.ModelData {
	return &gpb.ModelData{Name: name, Organization: org, Version: version}
}

// ocModels are the models an openconfig target advertises, at the
// versions pinned in models/openconfig.
var ocModels = []*gpb.ModelData{
	model("openconfig-interfaces", "OpenConfig working group", "3.8.1"),
	model("openconfig-if-ethernet", "OpenConfig working group", "2.18.0"),
	model("openconfig-qos", "OpenConfig working group", "2.2.0"),
	model("openconfig-system", "OpenConfig working group", "2.3.0"),
}

// aristaModels are EOS-4.36.1F's (models/arista): Arista ships its
// own, older openconfig-qos.
var aristaModels = []*gpb.ModelData{
	model("openconfig-interfaces", "OpenConfig working group", "3.8.1"),
	model("openconfig-if-ethernet", "OpenConfig working group", "2.16.0"),
	model("openconfig-qos", "OpenConfig working group", "2.0.1"),
	model("openconfig-system", "OpenConfig working group", "2.3.0"),
	model("arista-qos-augments", "Arista Networks, Inc.", "0.0.4"),
}

// newProfile builds a profile whose schema is the profile's models,
// compiled once per Schemas.
func newProfile(name, nativeOrigin string, schemas *Schemas) (*profile, error) {
	if _, err := Models(name); err != nil {
		return nil, err
	}
	c, err := schemas.get(name)
	if err != nil {
		return nil, err
	}
	cfg := &schema{c: c}
	switch name {
	case "openconfig", "arista":
		// The software version (openconfig-system, advertised but not
		// pinned: roce only reads that one leaf).
		cfg.outside = map[string]string{"system": "openconfig-system"}
		p := &profile{name: name, origin: originOpenConfig, accepts: map[string]bool{"": true, originOpenConfig: true}, cfg: cfg}
		p.models = append(p.models, ocModels...)
		if name == "arista" {
			p.models = append([]*gpb.ModelData(nil), aristaModels...)
		}
		p.seed = ocSeed
		return p, nil
	case "sonic":
		o := DefaultSONiCOrigin
		if nativeOrigin != "" {
			o = nativeOrigin
		}
		cfg.sonic = true
		cfg.musts = sonicMusts()
		return &profile{
			name: name, origin: o, accepts: map[string]bool{o: true}, cfg: cfg,
			// sonic-gnmi's mixed DB client, which serves the CONFIG_DB
			// paths, advertises sonic-db (SONiC, 0.1.0;
			// sonic-net/sonic-gnmi sonic_data_client/mixed_db_client.go,
			// supportedModels); builds with translib also list the
			// sonic-yang modules.
			models: []*gpb.ModelData{
				model("sonic-db", "SONiC", "0.1.0"),
				model("sonic-port", "SONiC", "1.0"), model("sonic-port-qos-map", "SONiC", "1.0"),
				model("sonic-wred-profile", "SONiC", "1.0"), model("sonic-pfcwd", "SONiC", "1.0"),
			},
			seed:  sonicSeed,
			ports: regexp.MustCompile(`^Ethernet[0-9]+$`),
		}, nil
	default: // srlinux
		o := DefaultSRLinuxOrigin
		if nativeOrigin != "" {
			o = nativeOrigin
		}
		cfg.musts = srlMusts()
		// The software version: srl_nokia-system-info augments
		// srl_nokia-system's system with information (not pinned: roce
		// only reads that one leaf).
		cfg.outside = map[string]string{"system": "srl_nokia-system", "system/information": "srl_nokia-system-info"}
		return &profile{
			name: name, origin: o, accepts: map[string]bool{o: true}, cfg: cfg,
			models: []*gpb.ModelData{
				model("srl_nokia-interfaces", "Nokia", "2025-03-31"), model("srl_nokia-qos", "Nokia", "2025-03-31"),
				model("srl_nokia-system-info", "Nokia", "2025-03-31"),
			},
			seed: srlSeed,
		}, nil
	}
}

func num(n int) json.Number { return json.Number(fmt.Sprint(n)) }

func esc(s string) string { return gpath.EscapeKey(s) }

func ocSeed(ifaces []string, version string) (cfg, state []seedLeaf) {
	for _, i := range ifaces {
		b := "/interfaces/interface[name=" + esc(i) + "]"
		cfg = append(cfg, seedLeaf{b + "/name", i}, seedLeaf{b + "/config/name", i}, seedLeaf{b + "/config/mtu", num(1500)},
			seedLeaf{b + "/config/type", "iana-if-type:ethernetCsmacd"})
		state = append(state,
			seedLeaf{b + "/state/mtu", num(1500)},
			// state/type, admin-status and oper-status are mandatory
			// (openconfig-interfaces.yang).
			seedLeaf{b + "/state/type", "iana-if-type:ethernetCsmacd"},
			seedLeaf{b + "/state/admin-status", "UP"}, seedLeaf{b + "/state/oper-status", "UP"},
			seedLeaf{b + "/ethernet/state/counters/in-mac-pause-frames", "0"},
			seedLeaf{b + "/ethernet/state/counters/out-mac-pause-frames", "0"},
		)
	}
	state = append(state, seedLeaf{"/system/state/software-version", version})
	return cfg, state
}

func sonicSeed(ifaces []string, version string) (cfg, state []seedLeaf) {
	for _, i := range ifaces {
		cfg = append(cfg, seedLeaf{"/CONFIG_DB/localhost/PORT/" + i + "/mtu", "9100"}, seedLeaf{"/CONFIG_DB/localhost/PORT/" + i + "/admin_status", "up"},
			seedLeaf{"/CONFIG_DB/localhost/PORT/" + i + "/lanes", sonicLanes(i)}, seedLeaf{"/CONFIG_DB/localhost/PORT/" + i + "/speed", "100000"})
		for p := 0; p < 8; p++ {
			state = append(state,
				seedLeaf{fmt.Sprintf("/COUNTERS_DB/localhost/COUNTERS/%s/SAI_PORT_STAT_PFC_%d_RX_PKTS", i, p), "0"},
				seedLeaf{fmt.Sprintf("/COUNTERS_DB/localhost/COUNTERS/%s/SAI_PORT_STAT_PFC_%d_TX_PKTS", i, p), "0"})
		}
	}
	// A foreign WRED profile, as shipped by SONiC's default QoS config: it
	// must survive every plan and apply. And the PFC watchdog's global poll
	// interval as `pfcwd start_default` writes it (200 ms): per-port timers
	// may not be shorter (sonic-pfcwd.yang).
	cfg = append(cfg,
		seedLeaf{"/CONFIG_DB/localhost/PFC_WD/GLOBAL/POLL_INTERVAL", "200"},
		seedLeaf{"/CONFIG_DB/localhost/WRED_PROFILE/AZURE_LOSSLESS/ecn", "ecn_all"},
		seedLeaf{"/CONFIG_DB/localhost/WRED_PROFILE/AZURE_LOSSLESS/green_min_threshold", "1048576"},
	)
	state = append(state, seedLeaf{"/CONFIG_DB/localhost/DEVICE_METADATA/localhost/sonic_version", version})
	return cfg, state
}

// sonicLanes gives port EthernetN the four lanes N..N+3, as SONiC's
// port_config.ini does on a 4-lane-per-port platform (lanes is mandatory
// in sonic-port.yang).
func sonicLanes(port string) string {
	n, err := strconv.Atoi(strings.TrimPrefix(port, "Ethernet"))
	if err != nil {
		n = 0
	}
	return fmt.Sprintf("%d,%d,%d,%d", n, n+1, n+2, n+3)
}

func srlSeed(ifaces []string, version string) (cfg, state []seedLeaf) {
	for _, i := range ifaces {
		b := "/interface[name=" + esc(i) + "]"
		// Subinterface 0, routed, on every port: where the DSCP classifier
		// is attached.
		cfg = append(cfg, seedLeaf{b + "/name", i}, seedLeaf{b + "/mtu", num(9232)},
			seedLeaf{b + "/subinterface[index=0]/index", num(0)}, seedLeaf{b + "/subinterface[index=0]/type", "srl_nokia-interfaces:routed"})
		state = append(state,
			seedLeaf{b + "/ethernet/statistics/in-mac-pause-frames", "0"},
			seedLeaf{b + "/ethernet/statistics/out-mac-pause-frames", "0"})
	}
	// Default forwarding classes fcN (output to unicast-N and
	// multicast-N), PFC queues pfcN and egress queues exist on every
	// 7220 IXR system and are referenced by the mapping profile
	// (srl_nokia-qos.yang: forwarding-class/output/unicast-queue is
	// mandatory with qos-unicast-queue and must differ from the
	// multicast-queue).
	for n := 0; n < 8; n++ {
		q, mq := fmt.Sprintf("unicast-%d", n), fmt.Sprintf("multicast-%d", n)
		cfg = append(cfg,
			seedLeaf{"/qos/queues/queue[name=" + q + "]/name", q},
			seedLeaf{"/qos/queues/queue[name=" + q + "]/queue-index", num(n)},
			seedLeaf{fmt.Sprintf("/qos/forwarding-classes/forwarding-class[name=fc%d]/name", n), fmt.Sprintf("fc%d", n)},
			seedLeaf{fmt.Sprintf("/qos/forwarding-classes/forwarding-class[name=fc%d]/output/unicast-queue", n), q},
			seedLeaf{fmt.Sprintf("/qos/forwarding-classes/forwarding-class[name=fc%d]/output/multicast-queue", n), mq},
			seedLeaf{"/qos/queues/queue[name=" + mq + "]/name", mq},
			seedLeaf{"/qos/queues/queue[name=" + mq + "]/queue-index", num(n)},
			seedLeaf{fmt.Sprintf("/qos/queues/pfc-queue[pfc-queue-name=pfc%d]/pfc-queue-name", n), fmt.Sprintf("pfc%d", n)},
			seedLeaf{fmt.Sprintf("/qos/queues/pfc-queue[pfc-queue-name=pfc%d]/queue-index", n), num(n)},
		)
	}
	state = append(state, seedLeaf{"/system/information/version", version})
	return cfg, state
}
