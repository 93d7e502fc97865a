package gnmi_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// Changing the policy between applies deletes exactly what of ours is no
// longer wanted (whole entries, or the leaves pointing at them), keeps
// foreign config, and converges.
func TestPolicyChangeDeletesOnlyOurs(t *testing.T) {
	cases := []struct {
		profile  string
		from, to []*policies.Lossless
		deletes  []string
		foreign  string
	}{
		{
			profile: "arista", from: []*policies.Lossless{dscpClass()}, to: []*policies.Lossless{cosClass()},
			deletes: []string{
				"/qos/classifiers/classifier[name=ROCE-IPV4]",
				"/qos/forwarding-groups/forwarding-group[name=ROCE-rocev2]",
				"/qos/interfaces/interface[interface-id=Ethernet1]/input/classifiers/classifier[type=IPV4]",
				"/qos/interfaces/interface[interface-id=Ethernet2]/input/classifiers/classifier[type=IPV4]",
				"/qos/queues/queue[name=ROCE-rocev2]",
			},
		},
		{
			profile: "sonic", from: []*policies.Lossless{dscpClass()}, to: []*policies.Lossless{cosClass()},
			deletes: []string{
				"/CONFIG_DB/localhost/DSCP_TO_TC_MAP/ROCE-DSCP",
				"/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map",
				"/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet4/dscp_to_tc_map",
				"/CONFIG_DB/localhost/QUEUE/Ethernet0|3/wred_profile",
				"/CONFIG_DB/localhost/QUEUE/Ethernet4|3/wred_profile",
				"/CONFIG_DB/localhost/WRED_PROFILE/ROCE-rocev2",
			},
			foreign: "AZURE_LOSSLESS",
		},
		{
			profile: "srlinux", from: []*policies.Lossless{noECN(dscpClass())}, to: []*policies.Lossless{cosClass()},
			deletes: []string{
				"/qos/classifiers/dscp-policy[name=ROCE-DSCP]",
				"/qos/interfaces/interface[interface-id=ethernet-1/1.0]/input/classifiers/ipv4-dscp-policy",
				"/qos/interfaces/interface[interface-id=ethernet-1/2.0]/input/classifiers/ipv4-dscp-policy",
			},
			foreign: `"fc0"`,
		},
		{
			profile: "sonic", from: []*policies.Lossless{cosClass()}, to: nil,
			deletes: []string{
				"/CONFIG_DB/localhost/DOT1P_TO_TC_MAP/ROCE-DOT1P",
				"/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet0/dot1p_to_tc_map",
				"/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet0/tc_to_queue_map",
				"/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet4/dot1p_to_tc_map",
				"/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet4/tc_to_queue_map",
				"/CONFIG_DB/localhost/TC_TO_QUEUE_MAP/ROCE-TC",
			},
			foreign: "AZURE_LOSSLESS",
		},
	}
	for _, tc := range cases {
		t.Run(tc.profile+"/"+tc.from[0].Name+"->"+names(tc.to), func(t *testing.T) {
			l := newLab(t, gnmisim.Options{Profile: tc.profile}, tc.from...)
			ctx := ctxT(t)
			planApply(ctx, t, l.target(t, gnmi.Options{}))
			l.fabric.Lossless = tc.to
			tg2 := l.target(t, gnmi.Options{})
			tp2, err := tg2.Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, op := range tp2.Ops {
				if op.Op == "delete" {
					got = append(got, op.Path)
				}
			}
			sort.Strings(got)
			if strings.Join(got, "\n") != strings.Join(tc.deletes, "\n") {
				t.Errorf("deletes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.deletes, "\n"))
			}
			res, err := tg2.Apply(ctx, tp2)
			if err != nil || res.Status != plan.StatusApplied {
				t.Fatalf("second apply: %s %v %+v", res.Status, err, res.Transcript)
			}
			again, err := tg2.Plan(ctx)
			if err != nil || again.HasChanges() {
				t.Fatalf("not converged: %v %+v", err, again.Changes)
			}
			if tc.foreign != "" && !strings.Contains(l.sim.ConfigJSON(), tc.foreign) {
				t.Errorf("foreign %s removed", tc.foreign)
			}
		})
	}
}

func names(cs []*policies.Lossless) string {
	if len(cs) == 0 {
		return "none"
	}
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return strings.Join(out, "+")
}
