package gnmi_test

import (
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
	"github.com/rocefabric/roce/providers/gnmi/profiles"
)

// The SONiC origin spelling is a setting: the default is sonic-gnmi's
// "sonic-db"; a target that wants "sonic_db" refuses the default and
// accepts the setting.
func TestSONiCOriginSetting(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "sonic", NativeOrigin: "sonic_db"}, cosClass())
	ctx := ctxT(t)
	_, err := l.target(t, gnmi.Options{}).Plan(ctx)
	if err == nil || !strings.Contains(err.Error(), `origin "sonic-db" is not served`) {
		t.Fatalf("default origin against a sonic_db target: %v", err)
	}
	l.env.Getenv = func(k string) (string, bool) {
		v, ok := map[string]string{"GNMI_PASSWORD": testPassword, "ROCE_GNMI_SONIC_ORIGIN": "sonic_db"}[k]
		return v, ok
	}
	tg, err := gnmi.New(l.env, l.sw)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tp.Ops[0].Origin != "sonic_db" {
		t.Errorf("ops origin = %q", tp.Ops[0].Origin)
	}
	if res, err := tg.Apply(ctx, tp); err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply: %s %v", res.Status, err)
	}
}

// The Arista bit order setting changes the bitmap sent.
func TestAristaBitOrderSetting(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "arista"}, cosClass())
	tp, err := l.target(t, gnmi.Options{Settings: profiles.Settings{AristaNoDropBitOrder: "msb0"}}).Plan(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, op := range tp.Ops {
		if strings.Contains(string(op.Value), `"priorities-no-drop":"10"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("msb0 bitmap for priority 3 (10) not in ops: %s", opsJSON(tp.Ops))
	}
}
