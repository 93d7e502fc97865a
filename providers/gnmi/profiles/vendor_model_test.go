package profiles

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

func objectAt(t *testing.T, d *Desired, path string) map[string]any {
	t.Helper()
	for _, o := range d.Objects {
		if o.Path == path {
			m, ok := o.Value.(map[string]any)
			if !ok {
				t.Fatalf("%s: value %T", path, o.Value)
			}
			return m
		}
	}
	var paths []string
	for _, o := range d.Objects {
		paths = append(paths, o.Path)
	}
	t.Fatalf("no object at %s; have:\n%s", path, strings.Join(paths, "\n"))
	return nil
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// SR Linux, as srl_nokia-qos.yang v25.3.1 allows it on a released image:
// no received-traffic enable-pfc (if-feature future-0-0); the received
// pause frames' queue of each priority enabled; PFC on the port and the
// DSCP classifier on the routed subinterface .0 (classifiers only on
// subinterfaces, PFC only on ports).
func TestSRLinuxFollowsItsModel(t *testing.T) {
	p, _ := New(policies.ProfileSRLinux, Settings{})
	c := &policies.Lossless{Name: "r", Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}, Priority: 3}
	d, err := p.Render(Input{Switch: "s", Interfaces: []string{"ethernet-1/1"}, Classes: []*policies.Lossless{c}})
	if err != nil {
		t.Fatal(err)
	}
	pmp := jsonOf(t, objectAt(t, d, "/qos/pfc-mapping-profile[name=ROCE-PFC]"))
	if strings.Contains(jsonOf(t, objectAt(t, d, "/qos/pfc-mapping-profile[name=ROCE-PFC]")["received-traffic"]), "enable-pfc") {
		t.Errorf("received-traffic carries enable-pfc (if-feature future-0-0): %s", pmp)
	}
	if !strings.Contains(pmp, `"received-pfc-pause-frames":{"queue":[{"enable-pfc":true,"pfc-pause-frame-priority":3,"queue-name":"unicast-3"}]}`) {
		t.Errorf("the queue of priority 3 does not react to received pause frames: %s", pmp)
	}
	port := objectAt(t, d, "/qos/interfaces/interface[interface-id=ethernet-1/1]")
	if _, ok := port["input"]; ok {
		t.Errorf("classifier on the port: %s", jsonOf(t, port))
	}
	if got := jsonOf(t, port["pfc"]); got != `{"pfc-enable":true,"pfc-mapping-profile":"ROCE-PFC"}` {
		t.Errorf("port pfc = %s", got)
	}
	sub := jsonOf(t, objectAt(t, d, "/qos/interfaces/interface[interface-id=ethernet-1/1.0]"))
	want := `{"input":{"classifiers":{"ipv4-dscp-policy":"ROCE-DSCP"}},"interface-id":"ethernet-1/1.0","interface-ref":{"interface":"ethernet-1/1","subinterface":0}}`
	if sub != want {
		t.Errorf("subinterface entry = %s\nwant %s", sub, want)
	}
}

// SONiC: origin sonic-db under the localhost namespace, and the port's
// TC_TO_QUEUE_MAP keeps every traffic class on its queue (it replaces the
// port's map, so the other classes must stay mapped).
func TestSONiCFollowsSonicGNMIAndKeepsOtherClasses(t *testing.T) {
	p, _ := New(policies.ProfileSONiC, Settings{})
	c := &policies.Lossless{Name: "r", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{3}}, Priority: 3}
	d, err := p.Render(Input{Switch: "s", Interfaces: []string{"Ethernet0"}, Classes: []*policies.Lossless{c}})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range d.Objects {
		if o.Origin != "sonic-db" || !strings.HasPrefix(o.Path, "/CONFIG_DB/localhost/") {
			t.Errorf("%s:%s: want origin sonic-db and /CONFIG_DB/localhost/", o.Origin, o.Path)
		}
	}
	tc := jsonOf(t, objectAt(t, d, "/CONFIG_DB/localhost/TC_TO_QUEUE_MAP/ROCE-TC"))
	if tc != `{"0":"0","1":"1","2":"2","3":"3","4":"4","5":"5","6":"6","7":"7"}` {
		t.Errorf("TC_TO_QUEUE_MAP = %s: every traffic class must keep a queue", tc)
	}
}

// Arista: no queue-id (Arista's not-supported deviation); upstream
// OpenConfig keeps it.
func TestAristaWritesNoQueueID(t *testing.T) {
	c := &policies.Lossless{Name: "r", Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}, Priority: 3}
	for _, tc := range []struct {
		arista bool
		want   string
	}{{true, `{"name":"ROCE-r"}`}, {false, `{"name":"ROCE-r","queue-id":3}`}} {
		p := &ocProfile{arista: tc.arista}
		d, err := p.render(Input{Switch: "s", Interfaces: []string{"Ethernet1"}, Classes: []*policies.Lossless{c}})
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonOf(t, objectAt(t, d, "/qos/queues/queue[name=ROCE-r]")["config"]); got != tc.want {
			t.Errorf("arista=%v: queue config = %s, want %s", tc.arista, got, tc.want)
		}
	}
}

// The OpenConfig profile refuses a lossless class and says which parts
// upstream OpenConfig cannot express, instead of rendering half a class.
func TestOpenConfigRefusesHalfAClass(t *testing.T) {
	p, _ := New(policies.ProfileOpenConfig, Settings{})
	c := &policies.Lossless{Name: "r", Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}, Priority: 3}
	d, err := p.Render(Input{Switch: "s", Interfaces: []string{"Ethernet1"}, Classes: []*policies.Lossless{c}})
	if err == nil || d != nil {
		t.Fatalf("rendered %v, err %v", d, err)
	}
	for _, part := range OpenConfigCannotExpress() {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("the refusal does not name %q: %v", part, err)
		}
	}
}
