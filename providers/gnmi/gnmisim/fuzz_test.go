package gnmisim

import (
	"context"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// FuzzSetRequest feeds arbitrary paths and JSON values to the validator:
// it must never panic, and whatever it accepts must leave a tree that still
// validates and can be read back.
func FuzzSetRequest(f *testing.F) {
	seeds := []struct {
		profile uint8
		op      uint8
		path    string
		val     string
	}{
		{0, 0, "/qos/queues/queue[name=ROCE-a]", `{"name":"ROCE-a","config":{"name":"ROCE-a","queue-id":3}}`},
		{1, 1, "/qos/interfaces/interface[interface-id=Ethernet1]/output/pfc/config/priorities-no-drop", `"08"`},
		{2, 0, "/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet0", `{"pfc_enable":"3,4"}`},
		{3, 1, "/qos/pfc-mapping-profile[name=P]", `{"name":"P","received-traffic":{"unicast-mapping":{"pfc-queue":[{"pfc-queue-name":"pfc3","dot1p":[3]}]}}}`},
		{0, 2, "/qos", ``},
		{0, 0, "/qos/classifiers/classifier", `[{"name":"x"}]`},
		{1, 0, "/a[b=c\\]]/d", `null`},
		{1, 0, "/qos/interfaces/interface[interface-id=Ethernet1]", `{"interface-id":"Ethernet1","output":{"arista-qos-augments:pfc":{"config":{"priorities-no-drop":"08"}}}}`},
		{3, 0, "/qos/interfaces/interface[interface-id=ethernet-1/1.0]", `{"interface-id":"ethernet-1/1.0","interface-ref":{"interface":"ethernet-1/1","subinterface":0}}`},
		{3, 0, "/qos/pfc-mapping-profile[name=P]", `{"name":"P","received-pfc-pause-frames":{"queue":[{"queue-name":"unicast-3","pfc-pause-frame-priority":3,"enable-pfc":true}]}}`},
		{0, 0, "/qos/scheduler-policies/scheduler-policy[name=S]", `{"name":"S","schedulers":{"scheduler":[{"sequence":1,"config":{"sequence":1,"type":"openconfig-qos-types:ONE_RATE_TWO_COLOR"}}]}}`},
	}
	for _, s := range seeds {
		f.Add(s.profile, s.op, s.path, s.val)
	}
	profiles := []string{"openconfig", "arista", "sonic", "srlinux"}
	schemas := &Schemas{} // compiled once, not per input
	f.Fuzz(func(t *testing.T, prof, op uint8, path, val string) {
		name := profiles[int(prof)%len(profiles)]
		tg, err := New(Options{Profile: name, Interfaces: DefaultInterfaces(name, 2), Schemas: schemas})
		if err != nil {
			t.Fatal(err)
		}
		p, err := gpath.Parse(path)
		if err != nil {
			return
		}
		gp := p.Proto(tg.Origin())
		req := &gpb.SetRequest{}
		u := &gpb.Update{Path: gp, Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(val)}}}
		switch op % 3 {
		case 0:
			req.Update = []*gpb.Update{u}
		case 1:
			req.Replace = []*gpb.Update{u}
		default:
			req.Delete = []*gpb.Path{gp}
		}
		if _, err := tg.Set(context.Background(), req); err != nil {
			return
		}
		if err := tg.prof.cfg.validate(tg.cfg, tg.ports); err != nil {
			t.Fatalf("accepted Set left an invalid tree: %v", err)
		}
		if _, err := gpath.Build(gpath.Path{}, tg.cfg.under(gpath.Path{})); err != nil {
			t.Fatalf("accepted Set left an unreadable tree: %v", err)
		}
	})
}

// FuzzIfFeature: the if-feature expression parser never panics, and an
// expression it accepts evaluates the same after a round of extra spaces
// and parentheses.
func FuzzIfFeature(f *testing.F) {
	for _, s := range []string{"a", "not a", "a and (b or c)", "srl-feat:qos-pfc", "(not x:fpcx) or x:hold-time-fpcx", "((", "and", "a b"} {
		f.Add(s)
	}
	on := map[string]bool{"a": true, "qos-pfc": true, "hold-time-fpcx": true}
	f.Fuzz(func(t *testing.T, expr string) {
		v, err := evalIfFeature(expr, on)
		if err != nil {
			return
		}
		w, err := evalIfFeature("( "+expr+" )", on)
		if err != nil || w != v {
			t.Fatalf("%q = %v but (%q) = %v, %v", expr, v, expr, w, err)
		}
	})
}

// FuzzCheckInstance feeds arbitrary JSON documents to the instance check
// of each profile: it never panics.
func FuzzCheckInstance(f *testing.F) {
	for _, s := range []struct {
		profile uint8
		doc     string
	}{
		{0, `{"openconfig-qos:qos":{"queues":{"queue":[{"name":"q","config":{"name":"q"}}]}}}`},
		{1, `{"openconfig-qos:qos":{"interfaces":{"interface":[{"interface-id":"Ethernet1","config":{"interface-id":"Ethernet1"},"output":{"arista-qos-augments:pfc":{"config":{"priorities-no-drop":"08"}}}}]}}}`},
		{2, `{"sonic-pfcwd:sonic-pfcwd":{"PFC_WD":{"PFC_WD_LIST":[{"ifname":"GLOBAL","POLL_INTERVAL":200}]}}}`},
		{3, `{"srl_nokia-qos:qos":{"pfc-mapping-profile":[{"name":"P","received-pfc-pause-frames":{"queue":[{"queue-name":"unicast-3"}]}}]}}`},
		{0, `{"openconfig-interfaces:interfaces":{"interface":[{"name":"x","state":{"mtu":1}}]}}`},
	} {
		f.Add(s.profile, s.doc, false)
	}
	profiles := []string{"openconfig", "arista", "sonic", "srlinux"}
	schemas := &Schemas{}
	f.Fuzz(func(t *testing.T, prof uint8, doc string, state bool) {
		v, err := gpath.Decode([]byte(doc))
		if err != nil {
			return
		}
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		_ = schemas.CheckInstance(profiles[int(prof)%len(profiles)], m, state)
	})
}

// FuzzLeafrefPath: the leafref path parser never panics, and a path it
// reads evaluates on instance data without panicking.
func FuzzLeafrefPath(f *testing.F) {
	for _, s := range []string{
		"/srl_nokia-if:interface[srl_nokia-if:name=current()/../interface]/srl_nokia-if:subinterface/srl_nokia-if:index",
		"../config/name", "../../../../queues/queue/name", "/a[b='x'][c=current()/../../d]/e", "[", "/a[b]", "a/[x=y]",
	} {
		f.Add(s)
	}
	p, _ := gpath.Parse("/interface[name=ethernet-1/1]/subinterface[index=0]/index")
	idx := newInstIndex([]instLeaf{{path: p, value: "0"}})
	f.Fuzz(func(t *testing.T, path string) {
		abs, steps, err := parseLeafref(path)
		if err != nil {
			return
		}
		_ = idx.refValues(p, abs, steps)
	})
}
