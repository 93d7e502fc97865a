package profiles

import (
	"testing"

	"github.com/rocefabric/roce/policies"
)

// Only a profile that renders a queue weight says where to read it back:
// arista (arista-qos-augments bandwidth); the others keep the switch's
// default share and must not claim a place to read one.
func TestQueueWeightOnlyWhereRendered(t *testing.T) {
	for _, name := range []string{policies.ProfileArista, policies.ProfileOpenConfig, policies.ProfileSONiC, policies.ProfileSRLinux} {
		p, err := New(name, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		qw, implements := p.(QueueWeighter)
		ok := false
		var origin, container, leaf string
		if implements {
			origin, container, leaf, _, ok = qw.QueueWeight("roce")
		}
		if want := name == policies.ProfileArista; ok != want {
			t.Errorf("%s: reports a queue weight = %v, want %v", name, ok, want)
		}
		if ok && (origin != "openconfig" || container != "/qos/queues/queue[name=ROCE-roce]/config" || leaf != "bandwidth") {
			t.Errorf("%s: weight at %s:%s %s", name, origin, container, leaf)
		}
	}
}
