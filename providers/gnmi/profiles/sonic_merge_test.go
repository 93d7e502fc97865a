package profiles

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

// azure is a port QoS setup like SONiC's default config: Ethernet0 and
// Ethernet4 use the AZURE maps, priority 4 is already lossless.
func azure() Current {
	db := sonicDB
	return Current{
		db + "/DSCP_TO_TC_MAP/AZURE/0":                 "0",
		db + "/DSCP_TO_TC_MAP/AZURE/8":                 "1",
		db + "/DSCP_TO_TC_MAP/AZURE/26":                "3",
		db + "/DSCP_TO_TC_MAP/AZURE/46":                "5",
		db + "/DOT1P_TO_TC_MAP/AZURE/0":                "0",
		db + "/DOT1P_TO_TC_MAP/AZURE/5":                "5",
		db + "/TC_TO_QUEUE_MAP/AZURE/0":                "0",
		db + "/TC_TO_QUEUE_MAP/AZURE/1":                "1",
		db + "/TC_TO_QUEUE_MAP/AZURE/3":                "3",
		db + "/TC_TO_QUEUE_MAP/AZURE/5":                "6",
		db + "/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map":  "AZURE",
		db + "/PORT_QOS_MAP/Ethernet0/dot1p_to_tc_map": "AZURE",
		db + "/PORT_QOS_MAP/Ethernet0/tc_to_queue_map": "AZURE",
		db + "/PORT_QOS_MAP/Ethernet0/pfc_enable":      "4",
		db + "/PORT_QOS_MAP/Ethernet4/dscp_to_tc_map":  "AZURE",
		db + "/PORT_QOS_MAP/Ethernet4/tc_to_queue_map": "AZURE",
	}
}

// with returns c plus (or, with value "", minus) the given leaves.
func with(c Current, kv ...string) Current {
	out := Current{}
	for k, v := range c {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, sonicDB+kv[i])
		} else {
			out[sonicDB+kv[i]] = kv[i+1]
		}
	}
	return out
}

func dscpLossless() *policies.Lossless {
	return &policies.Lossless{Name: "v2", Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26, 27}}, Priority: 3, MTU: 9000}
}

func cosLossless() *policies.Lossless {
	return &policies.Lossless{Name: "v2cos", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{3}}, Priority: 3}
}

// The port's maps and pfc_enable are merged into, golden per case.
func TestSONiCMergeGolden(t *testing.T) {
	cases := []struct {
		name    string
		cur     Current
		ifaces  []string
		classes []*policies.Lossless
	}{
		{"none", nil, []string{"Ethernet0"}, []*policies.Lossless{dscpLossless()}},
		{"azure", azure(), []string{"Ethernet0", "Ethernet4"}, []*policies.Lossless{dscpLossless()}},
		{"azure-cos", azure(), []string{"Ethernet0"}, []*policies.Lossless{cosLossless()}},
		{"two-sources", with(azure(), "/DSCP_TO_TC_MAP/CUSTOM/46", "5", "/PORT_QOS_MAP/Ethernet4/dscp_to_tc_map", "CUSTOM"),
			[]string{"Ethernet0", "Ethernet4"}, []*policies.Lossless{dscpLossless()}},
		{"removed", with(azure(), "/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map", "ROCE-DSCP-AZURE", "/PORT_QOS_MAP/Ethernet0/tc_to_queue_map", "ROCE-TC-AZURE"),
			[]string{"Ethernet0"}, nil},
		{"removed-source-gone", with(azure(), "/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map", "ROCE-DSCP-AZURE", "/PORT_QOS_MAP/Ethernet0/tc_to_queue_map", "ROCE-TC-AZURE",
			"/TC_TO_QUEUE_MAP/AZURE/0", "", "/TC_TO_QUEUE_MAP/AZURE/1", "", "/TC_TO_QUEUE_MAP/AZURE/3", "", "/TC_TO_QUEUE_MAP/AZURE/5", ""),
			[]string{"Ethernet0"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &sonicProfile{origin: "sonic-db"}
			d, err := p.RenderCurrent(Input{Switch: "s1", Interfaces: tc.ifaces, Classes: tc.classes}, tc.cur)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "sonic-merge-"+tc.name+".json", dump(t, d))
		})
	}
}

// What the port had stays: other DSCPs keep their traffic class, other
// traffic classes their queue, other priorities stay lossless; and the
// rendering after apply (ports pointing at roce's copies) is the same, so
// the second plan is empty.
func TestSONiCMergeKeepsAndIsIdempotent(t *testing.T) {
	p := &sonicProfile{origin: "sonic-db"}
	in := Input{Switch: "s1", Interfaces: []string{"Ethernet0"}, Classes: []*policies.Lossless{dscpLossless()}}
	first, err := p.RenderCurrent(in, azure())
	if err != nil {
		t.Fatal(err)
	}
	obj := func(d *Desired, path string) map[string]any {
		for _, o := range d.Objects {
			if o.Path == sonicDB+path {
				return o.Value.(map[string]any)
			}
		}
		t.Fatalf("no object %s in %+v", path, d.Objects)
		return nil
	}
	if got, want := obj(first, "/DSCP_TO_TC_MAP/ROCE-DSCP-AZURE"), map[string]any{"0": "0", "8": "1", "26": "3", "27": "3", "46": "5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("DSCP map %v, want %v", got, want)
	}
	if got, want := obj(first, "/TC_TO_QUEUE_MAP/ROCE-TC-AZURE"), map[string]any{"0": "0", "1": "1", "3": "3", "5": "6"}; !reflect.DeepEqual(got, want) {
		t.Errorf("TC map %v, want %v", got, want)
	}
	qm := obj(first, "/PORT_QOS_MAP/Ethernet0")
	if qm["pfc_enable"] != "3,4" || qm["dscp_to_tc_map"] != "ROCE-DSCP-AZURE" || qm["tc_to_queue_map"] != "ROCE-TC-AZURE" {
		t.Errorf("port row %v: want pfc_enable 3,4 and the ROCE-…-AZURE copies", qm)
	}
	if _, ok := qm["dot1p_to_tc_map"]; ok {
		t.Errorf("port row %v: roce writes no 802.1p map for a DSCP class, so it must not touch the port's", qm)
	}

	applied := with(azure(),
		"/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map", "ROCE-DSCP-AZURE",
		"/PORT_QOS_MAP/Ethernet0/tc_to_queue_map", "ROCE-TC-AZURE",
		"/PORT_QOS_MAP/Ethernet0/pfc_enable", "3,4")
	for k, v := range obj(first, "/DSCP_TO_TC_MAP/ROCE-DSCP-AZURE") {
		applied[sonicDB+"/DSCP_TO_TC_MAP/ROCE-DSCP-AZURE/"+k] = v.(string)
	}
	second, err := p.RenderCurrent(in, applied)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(dump(t, first), dump(t, second)) {
		t.Errorf("rendering after apply differs:\nfirst  %s\nsecond %s", dump(t, first), dump(t, second))
	}

	// The operator re-maps DSCP 8 in their own map: roce's copy follows,
	// it does not put the old value back.
	edited, err := p.RenderCurrent(in, with(applied, "/DSCP_TO_TC_MAP/AZURE/8", "2"))
	if err != nil {
		t.Fatal(err)
	}
	if got := obj(edited, "/DSCP_TO_TC_MAP/ROCE-DSCP-AZURE")["8"]; got != "2" {
		t.Errorf("after the operator mapped DSCP 8 to 2 in AZURE, roce's copy maps it to %v", got)
	}
}

// A port map that sends one of roce's values elsewhere is refused, naming
// the port, the map, the value, both sides and the fix; so is a port row
// roce cannot merge with.
func TestSONiCMergeRefusals(t *testing.T) {
	cases := []struct {
		name    string
		cur     Current
		classes []*policies.Lossless
		want    []string
	}{
		{"dscp conflict", with(azure(), "/DSCP_TO_TC_MAP/AZURE/26", "0"), []*policies.Lossless{dscpLossless()},
			[]string{"port Ethernet0", "DSCP_TO_TC_MAP AZURE", "DSCP 26 to traffic class 0", "class v2 needs traffic class 3", "then plan again"}},
		{"queue conflict", with(azure(), "/TC_TO_QUEUE_MAP/AZURE/3", "1"), []*policies.Lossless{dscpLossless()},
			[]string{"port Ethernet0", "TC_TO_QUEUE_MAP AZURE", "traffic class 3 to queue 1", "class v2 needs queue 3"}},
		{"dot1p conflict", with(azure(), "/DOT1P_TO_TC_MAP/AZURE/3", "1"), []*policies.Lossless{cosLossless()},
			[]string{"port Ethernet0", "DOT1P_TO_TC_MAP AZURE", "802.1p 3 to traffic class 1", "class v2cos needs traffic class 3"}},
		{"conflict in the source of roce's copy", with(azure(), "/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map", "ROCE-DSCP-AZURE", "/DSCP_TO_TC_MAP/AZURE/27", "1"),
			[]*policies.Lossless{dscpLossless()}, []string{"DSCP_TO_TC_MAP AZURE", "DSCP 27 to traffic class 1"}},
		{"missing map", with(azure(), "/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map", "GONE"), []*policies.Lossless{dscpLossless()},
			[]string{"port Ethernet0 references DSCP_TO_TC_MAP GONE", "does not have"}},
		{"name too long", with(azure(), "/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map", "A_VERY_LONG_DSCP_MAP_NAME_X", "/DSCP_TO_TC_MAP/A_VERY_LONG_DSCP_MAP_NAME_X/0", "0"),
			[]*policies.Lossless{dscpLossless()}, []string{"ROCE-DSCP-A_VERY_LONG_DSCP_MAP_NAME_X", "at most 22 characters"}},
		{"not a map name", with(azure(), "/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map", "a/b", "/DSCP_TO_TC_MAP/a/b/0", "0"),
			[]*policies.Lossless{dscpLossless()}, []string{`DSCP_TO_TC_MAP "a/b"`, "not a SONiC map name"}},
		{"bad pfc_enable", with(azure(), "/PORT_QOS_MAP/Ethernet0/pfc_enable", "3,x"), []*policies.Lossless{dscpLossless()},
			[]string{"port Ethernet0", `pfc_enable "3,x"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &sonicProfile{origin: "sonic-db"}
			_, err := p.RenderCurrent(Input{Switch: "s1", Interfaces: []string{"Ethernet0"}, Classes: tc.classes}, tc.cur)
			if err == nil {
				t.Fatal("rendered; want a refusal")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// pfc_enable: roce adds its priorities and keeps every other one, except
// one only roce's own map entries sent traffic to.
func TestSONiCPFCMerge(t *testing.T) {
	const port = "/PORT_QOS_MAP/Ethernet0/"
	cases := []struct {
		name string
		cur  Current
		ours []int
		want string
	}{
		{"empty", with(nil, port+"pfc_enable", ""), []int{3}, "3"},
		{"kept", with(nil, port+"pfc_enable", "4"), []int{3}, "3,4"},
		{"already", with(nil, port+"pfc_enable", "3,4"), []int{3}, "3,4"},
		{"spaces and order", with(nil, port+"pfc_enable", "6, 2"), []int{3, 4}, "2,3,4,6"},
		{"roce moved 3 to 4", with(nil, port+"pfc_enable", "3", port+"dscp_to_tc_map", "ROCE-DSCP", "/DSCP_TO_TC_MAP/ROCE-DSCP/26", "3"), []int{4}, "4"},
		{"roce's copy moved 3 to 4", with(azure(), port+"pfc_enable", "3,4", port+"dscp_to_tc_map", "ROCE-DSCP-AZURE",
			"/DSCP_TO_TC_MAP/ROCE-DSCP-AZURE/27", "3", "/DSCP_TO_TC_MAP/AZURE/26", ""), []int{4}, "4"},
		{"roce's 802.1p map moved 2 to 4", with(nil, port+"pfc_enable", "2,5", port+"dot1p_to_tc_map", "ROCE-DOT1P", "/DOT1P_TO_TC_MAP/ROCE-DOT1P/2", "2"), []int{4}, "4,5"},
		{"the port's own map sends traffic to 3", with(azure(), port+"pfc_enable", "3,4", port+"dscp_to_tc_map", "ROCE-DSCP-AZURE",
			"/DSCP_TO_TC_MAP/ROCE-DSCP-AZURE/27", "3"), []int{6}, "3,4,6"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pfcMerge("gnmi/sonic", "Ethernet0", tc.cur, tc.ours)
			if err != nil || got != tc.want {
				t.Errorf("pfcMerge = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// Whatever the port row and the maps hold, RenderCurrent refuses or
// renders a port whose DSCP map sends roce's DSCPs to roce's traffic
// class, keeps every other entry of the port's map, and enables roce's
// priority.
func FuzzSONiCRenderCurrent(f *testing.F) {
	f.Add("4", "AZURE", "26", "3", "8", "1")
	f.Add("3,x", "ROCE-DSCP-AZURE", "26", "0", "46", "5")
	f.Add("", "", "", "", "", "")
	f.Add("7, 0", "ROCE-DSCP", "27", "3", "0", "0")
	f.Fuzz(func(t *testing.T, pfc, ref, k1, v1, k2, v2 string) {
		cur := with(nil, "/PORT_QOS_MAP/Ethernet0/pfc_enable", pfc, "/PORT_QOS_MAP/Ethernet0/dscp_to_tc_map", ref,
			"/DSCP_TO_TC_MAP/AZURE/"+k1, v1, "/DSCP_TO_TC_MAP/AZURE/"+k2, v2, "/DSCP_TO_TC_MAP/"+ref+"/"+k1, v1)
		p := &sonicProfile{origin: "sonic-db"}
		c := dscpLossless()
		d, err := p.RenderCurrent(Input{Switch: "s1", Interfaces: []string{"Ethernet0"}, Classes: []*policies.Lossless{c}}, cur)
		if err != nil {
			return
		}
		var qm, dm map[string]any
		for _, o := range d.Objects {
			if o.Path == sonicDB+"/PORT_QOS_MAP/Ethernet0" {
				qm = o.Value.(map[string]any)
			}
		}
		if qm == nil {
			t.Fatalf("no port row in %+v", d.Objects)
		}
		name, _ := qm["dscp_to_tc_map"].(string)
		if !sonicMapNameRe.MatchString(name) {
			t.Errorf("port row %v: map name %q is not a SONiC map name", qm, name)
		}
		for _, o := range d.Objects {
			if o.Path == sonicDB+"/DSCP_TO_TC_MAP/"+name {
				dm = o.Value.(map[string]any)
			}
		}
		for _, v := range c.Match.DSCP {
			if dm[strconv.Itoa(v)] != "3" {
				t.Errorf("map %s %v: DSCP %d not on traffic class 3", name, dm, v)
			}
		}
		if src := sonicDSCPKind.source(cur, "Ethernet0"); src != "" {
			for k, v := range sonicDSCPKind.entries(cur, src) {
				if dm[k] != v {
					t.Errorf("map %s %v lost %s's entry %s -> %s", name, dm, src, k, v)
				}
			}
		}
		if !slices.Contains(strings.Split(qm["pfc_enable"].(string), ","), "3") {
			t.Errorf("pfc_enable %v without priority 3", qm["pfc_enable"])
		}
	})
}
