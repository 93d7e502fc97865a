package gnmisim

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// What the vendors' models forbid, the simulator refuses the way a target
// does (InvalidArgument for a value the model refuses, NotFound for a path
// it does not have), and leaves its config unchanged; what they allow, it
// accepts. Each case cites the YANG statement or RFC rule it follows.
func TestSetFollowsTheVendorModels(t *testing.T) {
	const (
		srlPMP = "/qos/pfc-mapping-profile[name=ROCE-PFC]"
		srlQI  = "/qos/interfaces/interface[interface-id=ethernet-1/1]"
		srlSub = "/qos/interfaces/interface[interface-id=ethernet-1/1.0]"
		ocQ    = "/qos/queues/queue[name=ROCE-a]"
	)
	jsonVal := func(origin, path, val string) *gpb.Update {
		u := upd(origin, path, val)
		u.Val = &gpb.TypedValue{Value: &gpb.TypedValue_JsonVal{JsonVal: []byte(val)}}
		return u
	}
	cases := []struct {
		name    string
		profile string
		cite    string
		ups     []*gpb.Update
		code    codes.Code // codes.OK: accepted
		msg     string
	}{
		{"arista queue-id", "arista",
			`arista-qos-notsupported-deviations.yang: deviation .../queues/queue/config/queue-id { deviate not-supported; }`,
			[]*gpb.Update{upd("openconfig", ocQ, `{"name":"ROCE-a","config":{"name":"ROCE-a","queue-id":3}}`)},
			codes.InvalidArgument, `"queue-id"`},
		{"arista augment without its module", "arista",
			`RFC 7951 §4; arista-qos-augments.yang augment .../output { container pfc }`,
			[]*gpb.Update{upd("openconfig", "/qos/interfaces/interface[interface-id=Ethernet1]", `{"interface-id":"Ethernet1","config":{"interface-id":"Ethernet1"},"output":{"pfc":{"config":{"priorities-no-drop":"08"}}}}`)},
			codes.InvalidArgument, `must be sent as "arista-qos-augments:pfc"`},
		{"arista augment with a wrong module", "arista",
			`RFC 7951 §4: the qualifier is the defining module's name`,
			[]*gpb.Update{upd("openconfig", "/qos/interfaces/interface[interface-id=Ethernet1]", `{"interface-id":"Ethernet1","config":{"interface-id":"Ethernet1"},"output":{"arista-qos:pfc":{"config":{"priorities-no-drop":"08"}}}}`)},
			codes.InvalidArgument, `unknown module prefix "arista-qos"`},
		{"arista augment qualified", "arista",
			`arista-qos-augments.yang augment .../output { container pfc }`,
			[]*gpb.Update{upd("openconfig", "/qos/interfaces/interface[interface-id=Ethernet1]", `{"interface-id":"Ethernet1","config":{"interface-id":"Ethernet1"},"output":{"arista-qos-augments:pfc":{"config":{"priorities-no-drop":"08"}}}}`)},
			codes.OK, ""},
		{"decimal64 beyond its range", "arista",
			`arista-qos-augments.yang watchdog-config leaf default-timeout { type decimal64 { fraction-digits 2; } }; RFC 7950 §9.3.4`,
			[]*gpb.Update{upd("openconfig", "/qos/pfc/watchdog/config", `{"default-timeout":"184467440737095516.16"}`)},
			codes.InvalidArgument, `outside the decimal64 range`},
		{"qualified member in JSON encoding", "arista",
			`gNMI specification §2.3.1: JSON (RFC 7159) carries no module qualifiers`,
			[]*gpb.Update{jsonVal("openconfig", "/qos/interfaces/interface[interface-id=Ethernet1]", `{"interface-id":"Ethernet1","config":{"interface-id":"Ethernet1"},"output":{"arista-qos-augments:pfc":{"config":{"priorities-no-drop":"08"}}}}`)},
			codes.InvalidArgument, `JSON encoding does not allow`},
		{"unqualified augment in JSON encoding", "arista",
			`gNMI specification §2.3.1`,
			[]*gpb.Update{jsonVal("openconfig", "/qos/interfaces/interface[interface-id=Ethernet1]", `{"interface-id":"Ethernet1","config":{"interface-id":"Ethernet1"},"output":{"pfc":{"config":{"priorities-no-drop":"08"}}}}`)},
			codes.OK, ""},
		{"identityref with a bogus module", "openconfig",
			`openconfig-qos-elements.yang scheduler config leaf type { type identityref { base oc-qos-types:QOS_SCHEDULER_TYPE; } }; RFC 7951 §6.8`,
			[]*gpb.Update{upd("openconfig", "/qos/scheduler-policies/scheduler-policy[name=S]", `{"name":"S","config":{"name":"S"},"schedulers":{"scheduler":[{"sequence":1,"config":{"sequence":1,"type":"bogus-types:ONE_RATE_TWO_COLOR"}}]}}`)},
			codes.InvalidArgument, `unknown module "bogus-types"`},
		{"identityref without its module", "openconfig",
			`RFC 7951 §6.8: an identity of another module is qualified`,
			[]*gpb.Update{upd("openconfig", "/qos/scheduler-policies/scheduler-policy[name=S]", `{"name":"S","config":{"name":"S"},"schedulers":{"scheduler":[{"sequence":1,"config":{"sequence":1,"type":"ONE_RATE_TWO_COLOR"}}]}}`)},
			codes.InvalidArgument, `must be qualified`},
		{"duplicate list keys", "openconfig",
			`RFC 7950 §7.8.2: list keys are unique`,
			[]*gpb.Update{upd("openconfig", "/qos/queues", `{"queue":[{"name":"ROCE-a","config":{"name":"ROCE-a"}},{"name":"ROCE-a","config":{"name":"ROCE-a"}}]}`)},
			codes.InvalidArgument, `duplicate list entry [name=ROCE-a]`},
		{"unknown leaf", "openconfig",
			`openconfig-qos-elements.yang: queue config has no leaf "weight"`,
			[]*gpb.Update{upd("openconfig", ocQ, `{"name":"ROCE-a","config":{"name":"ROCE-a","weight":3}}`)},
			codes.InvalidArgument, `unknown element "weight"`},
		{"srlinux enable-pfc", "srlinux",
			`srl_nokia-qos.yang received-traffic/unicast-mapping/pfc-queue leaf enable-pfc { if-feature "srl-feat:future-0-0"; }`,
			[]*gpb.Update{upd("", srlPMP, `{"name":"ROCE-PFC","received-traffic":{"unicast-mapping":{"pfc-queue":[{"pfc-queue-name":"pfc3","enable-pfc":true}]}}}`)},
			codes.InvalidArgument, `unknown element "enable-pfc"`},
		{"srlinux classifier on the port", "srlinux",
			`srl_nokia-qos.yang qos-subinterface-input-top: container classifiers { must 'string(../../interface-ref/subinterface) != ""' }`,
			[]*gpb.Update{upd("", srlQI, `{"interface-id":"ethernet-1/1","interface-ref":{"interface":"ethernet-1/1"},"input":{"classifiers":{"ipv4-dscp-policy":"P"}}}`),
				upd("", "/qos/classifiers/dscp-policy[name=P]", `{"name":"P"}`)},
			codes.InvalidArgument, `Attachment of classifiers, not permitted for interfaces`},
		{"srlinux pfc on a subinterface", "srlinux",
			`srl_nokia-qos.yang pfc-interface: leaf pfc-enable { must '. = false() or string(../../interface-ref/subinterface) = ""' }`,
			[]*gpb.Update{upd("", srlSub, `{"interface-id":"ethernet-1/1.0","interface-ref":{"interface":"ethernet-1/1","subinterface":0},"pfc":{"pfc-enable":true}}`)},
			codes.InvalidArgument, `pfc cannot be enabled on sub-interfaces`},
		{"srlinux classifier on a subinterface", "srlinux",
			`srl_nokia-qos.yang interface-ref leaf subinterface (leafref to /interface/subinterface/index)`,
			[]*gpb.Update{upd("", srlSub, `{"interface-id":"ethernet-1/1.0","interface-ref":{"interface":"ethernet-1/1","subinterface":0},"input":{"classifiers":{"ipv4-dscp-policy":"P"}}}`),
				upd("", "/qos/classifiers/dscp-policy[name=P]", `{"name":"P"}`)},
			codes.OK, ""},
		{"srlinux missing subinterface", "srlinux",
			`srl_nokia-qos.yang interface-ref leaf subinterface { type leafref { path ".../subinterface/index" } }`,
			[]*gpb.Update{upd("", "/qos/interfaces/interface[interface-id=ethernet-1/1.7]", `{"interface-id":"ethernet-1/1.7","interface-ref":{"interface":"ethernet-1/1","subinterface":7}}`)},
			codes.Aborted, `leafref 7 does not name an existing /srl_nokia-interfaces/interface/subinterface/index`},
		{"srlinux subinterface of another port", "srlinux",
			`srl_nokia-qos.yang interface-ref leaf subinterface { type leafref { path "/srl_nokia-if:interface[srl_nokia-if:name=current()/../interface]/srl_nokia-if:subinterface/srl_nokia-if:index" } }: the predicate picks the port`,
			[]*gpb.Update{
				upd("", "/interface[name=ethernet-1/2]/subinterface[index=5]", `{"index":5,"type":"srl_nokia-interfaces:routed"}`),
				upd("", "/qos/interfaces/interface[interface-id=ethernet-1/1.5]", `{"interface-id":"ethernet-1/1.5","interface-ref":{"interface":"ethernet-1/1","subinterface":5}}`)},
			codes.Aborted, `leafref 5 does not name an existing /srl_nokia-interfaces/interface/subinterface/index (path /srl_nokia-if:interface[srl_nokia-if:name=current()/../interface]`},
		{"srlinux received pause frames queue", "srlinux",
			`srl_nokia-qos.yang pfc-mapping-profile/received-pfc-pause-frames: list queue { key queue-name; leaf pfc-pause-frame-priority; leaf enable-pfc; }`,
			[]*gpb.Update{upd("", srlPMP, `{"name":"ROCE-PFC","received-pfc-pause-frames":{"queue":[{"queue-name":"unicast-3","pfc-pause-frame-priority":3,"enable-pfc":true}]}}`)},
			codes.OK, ""},
		{"srlinux pause priority used twice", "srlinux",
			`srl_nokia-qos.yang received-pfc-pause-frames list queue { unique "pfc-pause-frame-priority"; }`,
			[]*gpb.Update{upd("", srlPMP, `{"name":"ROCE-PFC","received-pfc-pause-frames":{"queue":[{"queue-name":"unicast-3","pfc-pause-frame-priority":3},{"queue-name":"unicast-4","pfc-pause-frame-priority":3}]}}`)},
			codes.Aborted, `pfc-pause-frame-priority 3 is already used`},
		{"sonic watchdog detection below range", "sonic",
			`sonic-pfcwd.yang PFC_WD_LIST leaf detection_time { type uint32 { range 100..5000; } }`,
			[]*gpb.Update{upd("sonic-db", "/CONFIG_DB/localhost/PFC_WD/Ethernet0", `{"action":"drop","detection_time":"50","restoration_time":"400"}`)},
			codes.InvalidArgument, `50 outside range 100..5000`},
		{"sonic watchdog shorter than the poll interval", "sonic",
			`sonic-pfcwd.yang PFC_WD_LIST leaf detection_time { must "current() >= .../PFC_WD_LIST[ifname='GLOBAL']/POLL_INTERVAL" }`,
			[]*gpb.Update{upd("sonic-db", "/CONFIG_DB/localhost/PFC_WD/Ethernet0", `{"action":"drop","detection_time":"150","restoration_time":"400"}`)},
			codes.InvalidArgument, `detection_time must be greater than or equal to POLL_INTERVAL (200)`},
		{"sonic without the namespace element", "sonic",
			`sonic-gnmi serves /CONFIG_DB/<namespace>/<table>; "localhost" on a single-ASIC switch`,
			[]*gpb.Update{upd("sonic-db", "/CONFIG_DB/PORT_QOS_MAP/Ethernet0", `{"pfc_enable":"3"}`)},
			codes.NotFound, `not supported`},
		{"openconfig config false leaf", "openconfig",
			`openconfig-qos-elements.yang grouping qos-queue-top: list queue { container state { config false; } }`,
			[]*gpb.Update{upd("openconfig", ocQ, `{"name":"ROCE-a","config":{"name":"ROCE-a"},"state":{"name":"ROCE-a"}}`)},
			codes.InvalidArgument, `config false in the model`},
		{"srlinux config false leaf", "srlinux",
			`srl_nokia-interfaces.yang interface: leaf oper-state { config false; }`,
			[]*gpb.Update{upd("", "/interface[name=ethernet-1/1]", `{"name":"ethernet-1/1","oper-state":"up"}`)},
			codes.InvalidArgument, `config false in the model`},
		{"openconfig config false path", "openconfig",
			`openconfig-interfaces.yang grouping interfaces-top: list interface { container state { config false; } }`,
			[]*gpb.Update{upd("openconfig", "/interfaces/interface[name=Ethernet1]/state/mtu", `9000`)},
			codes.InvalidArgument, `config false in the model`},
		{"srlinux mtu out of range", "srlinux",
			`srl_nokia-interfaces.yang interface: leaf mtu { type uint16 { range "1450..9500"; } }`,
			[]*gpb.Update{upd("", "/interface[name=ethernet-1/1]/mtu", `9600`)},
			codes.InvalidArgument, `9600 outside range 1450..9500`},
		{"sonic mtu out of range", "sonic",
			`sonic-port.yang PORT_LIST: leaf mtu { type uint16 { range 68..9216; } }`,
			[]*gpb.Update{upd("sonic-db", "/CONFIG_DB/localhost/PORT/Ethernet0/mtu", `"9300"`)},
			codes.InvalidArgument, `9300 outside range 68..9216`},
		{"arista mtu beyond uint16", "arista",
			`openconfig-interfaces.yang interface-phys-config: leaf mtu { type uint16; } (RFC 7950 §9.2: 0..65535)`,
			[]*gpb.Update{upd("openconfig", "/interfaces/interface[name=Ethernet1]/config/mtu", `70000`)},
			codes.InvalidArgument, `70000 outside range 0..65535`},
		{"sonic unknown field", "sonic",
			`sonic-port-qos-map.yang PORT_QOS_MAP_LIST has no leaf pfc_enabled`,
			[]*gpb.Update{upd("sonic-db", "/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet0", `{"pfc_enabled":"3"}`)},
			codes.InvalidArgument, `unknown element "pfc_enabled"`},
		{"sonic module-qualified field", "sonic",
			`CONFIG_DB is not YANG-encoded JSON: sonic-gnmi's CONFIG_DB values carry no module qualifiers`,
			[]*gpb.Update{upd("sonic-db", "/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet0", `{"sonic-port-qos-map:pfc_enable":"3"}`)},
			codes.InvalidArgument, `carries no module qualifiers`},
		{"sonic DSCP map field out of range", "sonic",
			`sonic-dscp-tc-map.yang DSCP_TO_TC_MAP: key dscp, leaf dscp { type string { pattern "6[0-3]|[1-5][0-9]?|[0-9]?"; } }`,
			[]*gpb.Update{upd("sonic-db", "/CONFIG_DB/localhost/DSCP_TO_TC_MAP/AZURE/64", `"3"`)},
			codes.InvalidArgument, `does not match pattern`},
		{"openconfig identity not derived from the base", "openconfig",
			`openconfig-interfaces.yang interface-phys-config: leaf type { type identityref { base ietf-if:interface-type; } }; iana-if-type.yang has no identity ethernetBogus`,
			[]*gpb.Update{upd("openconfig", "/interfaces/interface[name=Ethernet1]/config/type", `"iana-if-type:ethernetBogus"`)},
			codes.InvalidArgument, `is not an identity derived from ietf-interfaces:interface-type`},
		{"openconfig derived identity", "openconfig",
			`iana-if-type.yang identity softwareLoopback { base iana-interface-type; } (derived from ietf-if:interface-type)`,
			[]*gpb.Update{upd("openconfig", "/interfaces/interface[name=Loopback0]", `{"name":"Loopback0","config":{"name":"Loopback0","type":"iana-if-type:softwareLoopback"}}`)},
			codes.OK, ""},
		{"openconfig mandatory leaf missing", "openconfig",
			`openconfig-interfaces.yang interface-phys-config: leaf type { mandatory true; }`,
			[]*gpb.Update{upd("openconfig", "/interfaces/interface[name=Loopback0]", `{"name":"Loopback0","config":{"name":"Loopback0"}}`)},
			codes.Aborted, `mandatory leaf type is missing`},
		{"openconfig union: identity member", "openconfig",
			`openconfig-packet-match-types.yang typedef ethertype-type { type union { type uint16 { range 1536..65535; } type identityref { base ETHERTYPE; } } }`,
			[]*gpb.Update{upd("openconfig", "/qos/classifiers/classifier[name=C]", `{"name":"C","config":{"name":"C","type":"ETHERNET"},"terms":{"term":[{"id":"1","config":{"id":"1"},"conditions":{"l2":{"config":{"ethertype":"openconfig-packet-match-types:ETHERTYPE_ROCE"}}}}]}}`)},
			codes.OK, ""},
		{"openconfig union: no member matches", "openconfig",
			`openconfig-packet-match-types.yang typedef ethertype-type: 1500 is below the uint16 member's range 1536..65535 and is no identity`,
			[]*gpb.Update{upd("openconfig", "/qos/classifiers/classifier[name=C]", `{"name":"C","config":{"name":"C","type":"ETHERNET"},"terms":{"term":[{"id":"1","config":{"id":"1"},"conditions":{"l2":{"config":{"ethertype":1500}}}}]}}`)},
			codes.InvalidArgument, `matches no member of the union`},
		{"arista decimal64 with too many fraction digits", "arista",
			`arista-qos-augments.yang watchdog-config leaf default-timeout { type decimal64 { fraction-digits 2; } }`,
			[]*gpb.Update{upd("openconfig", "/qos/pfc/watchdog/config", `{"default-timeout":"0.125"}`)},
			codes.InvalidArgument, `more than 2 fraction digits`},
		{"openconfig list entry without its key", "openconfig",
			`openconfig-qos-elements.yang list queue { key "name"; } (RFC 7950 §7.8.2)`,
			[]*gpb.Update{upd("openconfig", "/qos/queues", `{"queue":[{"config":{"name":"ROCE-a"}}]}`)},
			codes.InvalidArgument, `entry lacks key "name"`},
		{"srlinux unknown leaf", "srlinux",
			`srl_nokia-qos.yang pfc-mapping-profile has no leaf "priority"`,
			[]*gpb.Update{upd("", srlPMP, `{"name":"ROCE-PFC","priority":3}`)},
			codes.InvalidArgument, `unknown element "priority"`},
		{"srlinux duplicate list keys", "srlinux",
			`srl_nokia-qos.yang dscp-policy: list dscp { key "value"; } (RFC 7950 §7.8.2)`,
			[]*gpb.Update{upd("", "/qos/classifiers/dscp-policy[name=P]", `{"name":"P","dscp":[{"value":26,"forwarding-class":"fc3"},{"value":26,"forwarding-class":"fc4"}]}`)},
			codes.InvalidArgument, `duplicate list entry [value=26]`},
		{"srlinux identityref of its own module, unqualified", "srlinux",
			`srl_nokia-interfaces.yang subinterface leaf type { type identityref { base si-type; } }: RFC 7951 §6.8 allows a bare identity of the leaf's own module`,
			[]*gpb.Update{upd("", "/interface[name=ethernet-1/2]/subinterface[index=4]", `{"index":4,"type":"routed"}`)},
			codes.OK, ""},
		{"srlinux identityref with a bogus module", "srlinux",
			`srl_nokia-interfaces.yang subinterface leaf type { type identityref { base si-type; } }; RFC 7951 §6.8`,
			[]*gpb.Update{upd("", "/interface[name=ethernet-1/2]/subinterface[index=4]", `{"index":4,"type":"srl_nokia-if:routed"}`)},
			codes.InvalidArgument, `unknown module "srl_nokia-if"`},
		{"arista duplicate list keys", "arista",
			`openconfig-qos-elements.yang forwarding-groups: list forwarding-group { key "name"; } (RFC 7950 §7.8.2)`,
			[]*gpb.Update{upd("openconfig", "/qos/forwarding-groups", `{"forwarding-group":[{"name":"F","config":{"name":"F"}},{"name":"F","config":{"name":"F"}}]}`)},
			codes.InvalidArgument, `duplicate list entry [name=F]`},
		{"arista identityref without its module", "arista",
			`openconfig-interfaces.yang interface-phys-config leaf type { type identityref { base ietf-if:interface-type; } }; RFC 7951 §6.8`,
			[]*gpb.Update{upd("openconfig", "/interfaces/interface[name=Ethernet1]/config/type", `"ethernetCsmacd"`)},
			codes.InvalidArgument, `must be qualified with its module, iana-if-type:ethernetCsmacd`},
		{"srlinux leafref to a missing queue", "srlinux",
			`srl_nokia-qos.yang received-pfc-pause-frames list queue: leaf queue-name { type leafref { path "../../../../queues/queue/name"; } }`,
			[]*gpb.Update{upd("", srlPMP, `{"name":"ROCE-PFC","received-pfc-pause-frames":{"queue":[{"queue-name":"no-such-queue","pfc-pause-frame-priority":3}]}}`)},
			codes.Aborted, `leafref no-such-queue does not name an existing`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim, c, ctx := startPlain(t, Options{Profile: tc.profile})
			before := sim.ConfigJSON()
			_, err := c.Set(ctx, &gpb.SetRequest{Update: tc.ups})
			if tc.code == codes.OK {
				if err != nil {
					t.Fatalf("refused what the model allows (%s): %v", tc.cite, err)
				}
				return
			}
			if status.Code(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v; want %v containing %q (%s)", err, tc.code, tc.msg, tc.cite)
			}
			if sim.ConfigJSON() != before {
				t.Error("a refused Set changed the target")
			}
		})
	}
}

// Get replies are RFC 7951 instance data as a real EOS returns them: a
// member of arista-qos-augments under an openconfig-qos node carries its
// module; in plain JSON it carries none.
func TestGetQualifiesAugmentMembers(t *testing.T) {
	_, c, ctx := startPlain(t, Options{Profile: "arista"})
	const qi = "/qos/interfaces/interface[interface-id=Ethernet1]"
	if _, err := c.Set(ctx, &gpb.SetRequest{Update: []*gpb.Update{upd("openconfig", qi,
		`{"interface-id":"Ethernet1","config":{"interface-id":"Ethernet1"},"output":{"arista-qos-augments:pfc":{"config":{"priorities-no-drop":"08"}}}}`)}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		enc  gpb.Encoding
		want string
	}{
		{gpb.Encoding_JSON_IETF, `"output":{"arista-qos-augments:pfc":{"config":{"priorities-no-drop":"08"}}}`},
		{gpb.Encoding_JSON, `"output":{"pfc":{"config":{"priorities-no-drop":"08"}}}`},
	} {
		p := upd("openconfig", qi, "{}").GetPath()
		resp, err := c.Get(ctx, &gpb.GetRequest{Path: []*gpb.Path{p}, Encoding: tc.enc})
		if err != nil {
			t.Fatal(err)
		}
		v := resp.GetNotification()[0].GetUpdate()[0].GetVal()
		got := string(v.GetJsonIetfVal())
		if tc.enc == gpb.Encoding_JSON {
			got = string(v.GetJsonVal())
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s Get = %s, want it to contain %s", tc.enc, got, tc.want)
		}
	}
}

// Get replies are valid instance data of the same compiled models: a Get
// of everything (config and state, JSON_IETF) after config the models
// allow is an RFC 7951 document CheckInstance accepts, and a reply with a
// member renamed is one it refuses (the check can fail).
func TestGetRepliesAreValidInstanceData(t *testing.T) {
	cases := []struct {
		profile string
		ups     []*gpb.Update
	}{
		{"openconfig", []*gpb.Update{upd("openconfig", "/qos/queues/queue[name=Q]", `{"name":"Q","config":{"name":"Q","queue-id":3}}`)}},
		{"arista", []*gpb.Update{upd("openconfig", "/qos/interfaces/interface[interface-id=Ethernet1]",
			`{"interface-id":"Ethernet1","config":{"interface-id":"Ethernet1"},"output":{"arista-qos-augments:pfc":{"config":{"priorities-no-drop":"08"}}}}`)}},
		{"srlinux", []*gpb.Update{upd("", "/qos/pfc-mapping-profile[name=P]",
			`{"name":"P","received-pfc-pause-frames":{"queue":[{"queue-name":"unicast-3","pfc-pause-frame-priority":3,"enable-pfc":true}]}}`)}},
	}
	schemas := &Schemas{}
	for _, tc := range cases {
		t.Run(tc.profile, func(t *testing.T) {
			sim, c, ctx := startPlain(t, Options{Profile: tc.profile, Schemas: schemas})
			if _, err := c.Set(ctx, &gpb.SetRequest{Update: tc.ups}); err != nil {
				t.Fatal(err)
			}
			for _, typ := range []gpb.GetRequest_DataType{gpb.GetRequest_CONFIG, gpb.GetRequest_ALL} {
				resp, err := c.Get(ctx, &gpb.GetRequest{Path: []*gpb.Path{{Origin: sim.Origin()}}, Encoding: gpb.Encoding_JSON_IETF, Type: typ})
				if err != nil {
					t.Fatal(err)
				}
				v, err := gpath.Decode(resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonIetfVal())
				if err != nil {
					t.Fatal(err)
				}
				doc, _ := v.(map[string]any)
				if len(doc) < 2 {
					t.Fatalf("Get / = %v, want every top-level node", v)
				}
				// The software version is served outside the pinned
				// models, qualified with its module as a target does.
				if typ == gpb.GetRequest_ALL {
					sys := map[string]string{"srlinux": "srl_nokia-system:system"}[tc.profile]
					if sys == "" {
						sys = "openconfig-system:system"
					}
					if doc[sys] == nil {
						t.Errorf("Get / has no %s: %v", sys, v)
					}
					if s, _ := doc[sys].(map[string]any); tc.profile == "srlinux" && s["srl_nokia-system-info:information"] == nil {
						t.Errorf("SR Linux system = %v, want srl_nokia-system-info:information", s)
					}
					delete(doc, sys)
				}
				if err := schemas.CheckInstance(tc.profile, doc, typ == gpb.GetRequest_ALL); err != nil {
					t.Errorf("%s Get reply is not valid instance data: %v", typ, err)
				}
				for k, top := range doc {
					delete(doc, k)
					doc[gpath.StripModule(k)] = top // unqualified top-level member
					break
				}
				if err := schemas.CheckInstance(tc.profile, doc, typ == gpb.GetRequest_ALL); err == nil {
					t.Errorf("%s: an unqualified top-level member passed the check", typ)
				}
			}
		})
	}
}

// Deleting a list entry's key leaf and nothing else leaves an entry
// without its key, which the model does not allow
// (openconfig-interfaces.yang list interface { key "name"; }; RFC 7950
// §7.8.2): refused, the target unchanged. Deleting the entry is fine.
func TestDeleteKeyLeafRefused(t *testing.T) {
	sim, c, ctx := startPlain(t, Options{Profile: "openconfig"})
	before := sim.ConfigJSON()
	del := func(path string) error {
		p, err := gpath.Parse(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Set(ctx, &gpb.SetRequest{Delete: []*gpb.Path{p.Proto("openconfig")}})
		return err
	}
	err := del("/interfaces/interface[name=Ethernet1]/name")
	if status.Code(err) != codes.Aborted || !strings.Contains(err.Error(), "list entry without its key leaf name") {
		t.Fatalf("err = %v, want Aborted naming the missing key leaf", err)
	}
	if sim.ConfigJSON() != before {
		t.Error("a refused Set changed the target")
	}
	if err := del("/interfaces/interface[name=Ethernet1]"); err != nil {
		t.Fatalf("deleting the whole entry: %v", err)
	}
}

// A plain JSON Set carries identityrefs without their module (gNMI
// specification §2.3.1); the target stores the identity and answers a
// JSON_IETF Get with it qualified (RFC 7951 §6.8).
func TestJSONIdentityrefStoredQualified(t *testing.T) {
	_, c, ctx := startPlain(t, Options{Profile: "openconfig"})
	p, err := gpath.Parse("/interfaces/interface[name=Ethernet1]/config/type")
	if err != nil {
		t.Fatal(err)
	}
	u := &gpb.Update{Path: p.Proto("openconfig"), Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonVal{JsonVal: []byte(`"softwareLoopback"`)}}}
	if _, err := c.Set(ctx, &gpb.SetRequest{Update: []*gpb.Update{u}}); err != nil {
		t.Fatalf("plain JSON identityref refused: %v", err)
	}
	resp, err := c.Get(ctx, &gpb.GetRequest{Path: []*gpb.Path{p.Proto("openconfig")}, Encoding: gpb.Encoding_JSON_IETF})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonIetfVal()); got != `"iana-if-type:softwareLoopback"` {
		t.Errorf("JSON_IETF Get = %s, want the identity qualified", got)
	}
	resp, err = c.Get(ctx, &gpb.GetRequest{Path: []*gpb.Path{p.Proto("openconfig")}, Encoding: gpb.Encoding_JSON})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonVal()); got != `"softwareLoopback"` {
		t.Errorf("JSON Get = %s, want the identity without its module", got)
	}
}

// A list's max-elements and unique statements come from the model: SR
// Linux allows 4095 subinterfaces per interface (srl_nokia-interfaces.yang
// list subinterface { max-elements 4095; }), and the PFC queues of a
// mapping profile have unique pause priorities (srl_nokia-qos.yang
// received-traffic/unicast-mapping list pfc-queue { unique
// "pfc-pause-frame-priority"; }).
func TestListConstraintsFromTheModel(t *testing.T) {
	schemas := &Schemas{}
	subs := func(n int) map[string]any {
		var l []any
		for i := 0; i < n; i++ {
			l = append(l, map[string]any{"index": json.Number(strconv.Itoa(i))})
		}
		return map[string]any{"srl_nokia-interfaces:interface": []any{map[string]any{"name": "ethernet-1/1", "subinterface": l}}}
	}
	if err := schemas.CheckInstance("srlinux", subs(4095), false); err != nil {
		t.Errorf("4095 subinterfaces: %v", err)
	}
	if err := schemas.CheckInstance("srlinux", subs(4096), false); err == nil || !strings.Contains(err.Error(), "more than max-elements 4095") {
		t.Errorf("4096 subinterfaces: %v, want max-elements 4095", err)
	}
	_, c, ctx := startPlain(t, Options{Profile: "srlinux", Schemas: schemas})
	_, err := c.Set(ctx, &gpb.SetRequest{Update: []*gpb.Update{upd("", "/qos/pfc-mapping-profile[name=P]",
		`{"name":"P","received-traffic":{"unicast-mapping":{"pfc-queue":[{"pfc-queue-name":"pfc3","pfc-pause-frame-priority":3},{"pfc-queue-name":"pfc4","pfc-pause-frame-priority":3}]}}}`)}})
	if status.Code(err) != codes.Aborted || !strings.Contains(err.Error(), `unique "pfc-pause-frame-priority"`) {
		t.Errorf("two PFC queues on pause priority 3: %v, want the unique statement", err)
	}
}
