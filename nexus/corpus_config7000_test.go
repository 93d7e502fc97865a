package nexus

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// lab7000Release is the release the lab's Nexus 7000 start states run
// (testdata/start/nexus7000): the release a configuration that is not a
// 7000's own is planned on.
const lab7000Release = "6.2(14)"

// nxosv73Modules is the `show module` of an NX-OSv 7000 running 7.3(1)D1:
// F248XP-25 cards in slots 2-4, the slots the NX-OSv configurations of the
// corpus allocate (`allocate interface Ethernet2/1-48` … `4/1-48`).
const nxosv73Modules = "ntc-module-n7k-nxosv-7.3.txt"

// corpus7000 says, for every configuration of testdata/corpus/config, how
// it is planned as a Nexus 7000 and what must come of it. No file is
// skipped: a file without a row, or a row without a file, fails the test.
//
//   - release: the NX-OS release the switch runs; "" means the file's own
//     `version` line, which must be there (the 7000's own configurations).
//     A configuration from another platform is planned on lab7000Release.
//   - modules: a `show module` capture of testdata/corpus/show for the
//     switch's cards; "" means the test lab's (testModules7000: the managed
//     ports Ethernet2/1-2 on an F2 card).
//   - refuse: "" when the plan must succeed; otherwise the refusal roce
//     must give, with why, for every class (UDP port, CoS, DSCP,
//     Ethertype, with FCoE kept or not). Making all traffic lossless
//     (link-level flow control on the ports, no class) attaches nothing
//     under system qos, so it is planned on every configuration.
var corpus7000 = map[string]struct {
	release, modules string
	refuse, why      string
}{
	// The 7000's own configurations (README: NX-OSv 7000).
	// None has a QoS object of its own; the plan adds roce's, and the
	// routed managed ports keep their addresses.
	"napalm-nxosv-n7k-7.3-checkpoint.cfg":     {modules: nxosv73Modules},
	"napalm-nxosv-n7k-7.3-running.cfg":        {modules: nxosv73Modules},
	"napalm-nxosv-n7k-7.3-startup.cfg":        {modules: nxosv73Modules},
	"napalm-nxosv-n7k-7.3-running-cut.cfg":    {modules: nxosv73Modules},
	"napalm-nxosv-n7k-7.3-spine1-running.cfg": {modules: nxosv73Modules},

	// Configurations of other platforms whose attached network-qos policy
	// is a user policy of their own: a 7000 has only its templates and
	// `qos copy` copies of them, so roce cannot tell which CoS that policy
	// makes no-drop, and refuses rather than attach its copy in its place.
	"batfish-nxos_policy_map.cfg":              {release: lab7000Release, refuse: "network-qos policy pm_network_qos attached", why: "a 9000 network-qos policy"},
	"cisco-doc-214515-ucs-ipqos.cfg":           {release: lab7000Release, refuse: "network-qos policy system_nq_policy attached", why: "a UCS fabric interconnect's (5000) policy with class-fcoe no-drop"},
	"mierdin-n5k-sample-qos-configuration.cfg": {release: lab7000Release, refuse: "network-qos policy system-level-net-qos attached", why: "a 5000 policy: FCoE no-drop, a jumbo class, CoS marking for five classes"},
	"mierdin-n5k-system-qos-jumbo.cfg":         {release: lab7000Release, refuse: "network-qos policy jumbo attached", why: "a 5000 jumbo-MTU policy, defined outside the excerpt"},
	"msdocs-n3132-rdma-flat.cfg":               {release: lab7000Release, refuse: "network-qos policy QOS_NETWORK attached", why: "Microsoft's RDMA class, pause no-drop on CoS 3, would lose its no-drop"},

	// Configurations of other platforms with no network-qos attached: the
	// plan succeeds and leaves their objects alone (their own lines a 7000
	// refuses are TestCorpusConfigsCheck7000's).
	"batfish-nxos_aaa.cfg":                                {release: lab7000Release},
	"batfish-nxos_class_map.cfg":                          {release: lab7000Release},
	"batfish-nxos_feature.cfg":                            {release: lab7000Release},
	"batfish-nxos_ignore.cfg":                             {release: lab7000Release},
	"batfish-nxos_interface_hsrp.cfg":                     {release: lab7000Release},
	"batfish-nxos_interface_properties.cfg":               {release: lab7000Release},
	"batfish-nxos_interface_show_all_2.cfg":               {release: lab7000Release},
	"batfish-nxos_interface_switchport.cfg":               {release: lab7000Release},
	"batfish-nxos_ip_access_list.cfg":                     {release: lab7000Release},
	"batfish-nxos_lacp.cfg":                               {release: lab7000Release},
	"batfish-nxos_line.cfg":                               {release: lab7000Release},
	"batfish-nxos_logging.cfg":                            {release: lab7000Release},
	"batfish-nxos_monitor.cfg":                            {release: lab7000Release},
	"batfish-nxos_nexus_6000_defaults.cfg":                {release: lab7000Release},
	"batfish-nxos_ntp.cfg":                                {release: lab7000Release},
	"batfish-nxos_ospf.cfg":                               {release: lab7000Release},
	"batfish-nxos_port_channel.cfg":                       {release: lab7000Release},
	"batfish-nxos_route_map.cfg":                          {release: lab7000Release},
	"batfish-nxos_snmp_server.cfg":                        {release: lab7000Release},
	"batfish-nxos_system_default_switchport_shutdown.cfg": {release: lab7000Release},
	"batfish-nxos_track.cfg":                              {release: lab7000Release},
	"batfish-nxos_vdc.cfg":                                {release: lab7000Release},
	"batfish-nxos_version.cfg":                            {release: lab7000Release},
	"batfish-nxos_vlan.cfg":                               {release: lab7000Release},
	"batfish-nxos_vlan_service_policy.cfg":                {release: lab7000Release},
	"batfish-nxos_vrf.cfg":                                {release: lab7000Release},
	"genie-running-config-interface-1.cfg":                {release: lab7000Release},
	"genie-running-config-interface-2.cfg":                {release: lab7000Release},
	"genie-running-config-interface-3.cfg":                {release: lab7000Release},
	"genie-running-config-interface-4.cfg":                {release: lab7000Release},
	"mierdin-n5596-qos-classes.cfg":                       {release: lab7000Release},
	"mierdin-n5k-network-qos-jumbo-classes.cfg":           {release: lab7000Release},
	"mierdin-n5k-network-qos.cfg":                         {release: lab7000Release},
	"mierdin-ucs-fi-run-int-veth782.cfg":                  {release: lab7000Release},
	// Nexus 9000 captures: none attaches a network-qos policy (the
	// checkpoint's default-nq-policy is the 9000's own, not attached in
	// the file).
	"napalm-n9k-7.0.3.I2.1-checkpoint.cfg":         {release: lab7000Release},
	"genie-n9kv-7.0.3.I7.1-running-config-bgp.cfg": {release: lab7000Release},
	"genie-n9k-9.2.2-running-config-bgp.cfg":       {release: lab7000Release},
	"genie-n9k-9.3.8-running-config-bgp.cfg":       {release: lab7000Release},
	"genie-n9k-running-config-nv-overlay.cfg":      {release: lab7000Release},
	"batfish-evpn-n9k-9.2.3-exitgw.cfg":            {release: lab7000Release},
	"batfish-evpn-n9k-9.2.3-leaf1.cfg":             {release: lab7000Release},
	"batfish-evpn-n9k-9.2.3-spine.cfg":             {release: lab7000Release},
	"netutils-n9kv-9.3.3-running.cfg":              {release: lab7000Release},
}

// versionLine finds a configuration's `version` line (the release it was
// saved on).
var versionLine = regexp.MustCompile(`(?m)^version (\S+)\s*$`)

// release7000 is the release row plans name's configuration on.
func release7000(t *testing.T, name, text, release string) string {
	t.Helper()
	if release != "" {
		return release
	}
	m := versionLine.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s: the row takes the file's release, but it has no version line", name)
	}
	return m[1]
}

// modules7000 reads a row's `show module` capture (the lab's cards for "").
func modules7000(t *testing.T, capture string) []Module {
	t.Helper()
	if capture == "" {
		return testModules7000
	}
	b, err := os.ReadFile(filepath.Join("testdata", "corpus", "show", capture))
	if err != nil {
		t.Fatal(err)
	}
	mods, err := ParseShowModule(string(b))
	if err != nil || len(mods) == 0 {
		t.Fatalf("%s: %v (%d modules)", capture, err, len(mods))
	}
	return mods
}

// Every row has its file and every file its row.
func TestCorpus7000TableCoversCorpus(t *testing.T) {
	cfgs := corpusConfigs(t)
	for name := range cfgs {
		if _, ok := corpus7000[name]; !ok {
			t.Errorf("%s has no row in corpus7000: say how it is planned as a Nexus 7000", name)
		}
	}
	for name := range corpus7000 {
		if _, ok := cfgs[name]; !ok {
			t.Errorf("corpus7000 has a row for %s, which is not in testdata/corpus/config", name)
		}
	}
}

// Every corpus configuration planned as a Nexus 7000, on the release it
// runs: the plan changes only roce's objects (planAndReplan), pushes no
// line that release lacks, leaves nothing the switch would refuse when the
// configuration is loaded again, and a second plan is empty; or it is
// refused exactly as the row says.
func TestCorpusConfigsPlanTwice7000(t *testing.T) {
	cfgs := corpusConfigs(t)
	for _, name := range slices.Sorted(maps.Keys(cfgs)) {
		row, ok := corpus7000[name]
		if !ok {
			continue // TestCorpus7000TableCoversCorpus fails it
		}
		release := release7000(t, name, cfgs[name], row.release)
		mods := modules7000(t, row.modules)
		for _, v := range []struct {
			mode string
			fcoe bool
		}{{"udp_port", false}, {"cos", false}, {"dscp", false}, {"ethertype", false}, {"cos", true}, {"all", false}} {
			t.Run(fmt.Sprintf("%s/%s/fcoe=%v", name, v.mode, v.fcoe), func(t *testing.T) {
				cur, err := Parse(cfgs[name])
				if err != nil {
					t.Fatalf("parse: %v", err)
				}
				in := intentFor(t, "nexus7000", v.mode, "")
				in.Modules, in.FCoE = mods, v.fcoe
				des, err := Render(in, cur)
				// A routed managed port at the default mtu is refused after
				// the row's own refusal (checked below), so only without one.
				if row.refuse == "" || v.mode == "all" {
					if again, ok := planAtRoutedMTU(t, routedAtDefaultMTU(cur, in), in, err); ok {
						in = again
						des, err = Render(in, cur)
					}
				}
				if row.refuse != "" && v.mode != "all" {
					if err == nil || !strings.Contains(err.Error(), row.refuse) {
						t.Fatalf("render (%s): %v, want the refusal %q", row.why, err, row.refuse)
					}
					return
				}
				if err != nil {
					t.Fatalf("render: %v", err)
				}
				script := planAndReplan(t, cur, des, in)
				if err := CheckPushRelease(script, in.Platform, release); err != nil {
					t.Errorf("the plan pushes a line NX-OS %s lacks: %v", release, err)
				}
				// The configuration the switch ends with, loaded again as
				// a 7000 on that release, refuses no line the one it
				// started with did not.
				applied := cur.Clone()
				if err := ApplyCommands(applied, in.Platform, in.Modules, script); err != nil {
					t.Fatal(err)
				}
				before := refusedTexts(t, cfgs[name], in, release)
				for _, l := range refusedTexts(t, applied.String(), in, release) {
					if i := slices.Index(before, l); i >= 0 {
						before = slices.Delete(before, i, i+1)
						continue
					}
					t.Errorf("after the plan the configuration has a line a 7000 on %s refuses: %s", release, l)
				}
			})
		}
	}
}

// refusedTexts are the lines CheckRelease refuses in text, by their text.
func refusedTexts(t *testing.T, text string, in Intent, release string) []string {
	t.Helper()
	c, err := CheckRelease(text, in.Platform, in.Modules, release)
	if c == nil {
		t.Fatalf("check: %v", err)
	}
	var out []string
	for _, le := range lineErrorsDeep(err) {
		out = append(out, strings.TrimSpace(le.Text))
	}
	return out
}

// lineErrorsDeep flattens CheckRelease's joined errors (Check's own are joined
// once more inside) into its *LineErrors; anything else fails the caller.
func lineErrorsDeep(err error) []*LineError {
	var out []*LineError
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		var le *LineError
		if errors.As(e, &le) {
			out = append(out, le)
			return
		}
		out = append(out, &LineError{Line: -1, Text: e.Error(), Err: e})
	}
	walk(err)
	return out
}

// CheckRelease judges every corpus configuration as a Nexus 7000 on the
// release its corpus7000 row plans it on. The 7000's own configurations
// load cleanly; the others are refused exactly on the lines a 7000
// refuses, each with its reason.
func TestCorpusConfigsCheck7000(t *testing.T) {
	cfgs := corpusConfigs(t)
	p := testPlatform(t, "nexus7000")
	want := map[string][]int{
		// Nexus 9000 captures. Their Ethernet1/x headers are refused:
		// slot 1 of the tests' 7000 (testModules7000) is its supervisor,
		// which has no Ethernet ports, and the blocks' lines are not
		// judged again.
		// The checkpoint also has the 9000's default QoS objects: 6-15,
		// network-qos class-maps (a 7000's come from its templates); 18,
		// default-nq-policy, neither a 7000 template nor a copy of one;
		// 134-141, default-out-policy's classes c-out-q*, which are not
		// 7000 queuing class-maps, and the actions under them.
		"napalm-n9k-7.0.3.I2.1-checkpoint.cfg": {6, 9, 12, 15, 18, 134, 135, 136, 137, 138, 139, 140, 141,
			292, 301, 309, 318, 327, 335, 342, 351, 360, 369, 378, 387, 396, 405, 414, 423, 432, 441, 450, 459, 468, 477,
			486, 495, 504, 513, 522, 531, 540, 549, 558, 567, 576, 585, 594, 603, 612, 621, 630, 639, 648, 657, 666, 675,
			684, 693, 702, 711},
		"netutils-n9kv-9.3.3-running.cfg": {141, 147, 153, 159, 165, 171, 173, 175, 177, 179, 181, 183, 185, 187,
			189, 191, 193, 195, 197, 199, 201, 203, 205, 207, 209, 211, 213, 215, 217, 219, 221, 223, 225, 227, 229, 231,
			233, 235, 237, 239, 241, 243, 245, 247, 249, 251, 253, 255, 257, 259, 261, 263, 265, 267, 269, 271, 273, 275,
			277, 279, 281, 283, 285, 287},
		"genie-n9k-running-config-nv-overlay.cfg": {39, 42, 45},
		"batfish-evpn-n9k-9.2.3-exitgw.cfg":       {63},
		"batfish-evpn-n9k-9.2.3-leaf1.cfg":        {57},
		"batfish-evpn-n9k-9.2.3-spine.cfg":        {18, 24},
		// 34: a user network-qos class-map (a 7000's come from its
		// templates, docs/nxos.md#refuses); 47, 49, 51: `match qos-group`
		// in queuing class-maps (a 7000's queuing class-maps map CoS to
		// queues, docs/nxos.md#cos-queue). The 5000 refuses 36 and 37 (CoS
		// on a network-qos class-map) instead of 34.
		"batfish-nxos_class_map.cfg": {34, 47, 49, 51},
		// 7: a user network-qos class-map; 23: network-qos policy
		// pm_network_qos is neither a 7000 template nor a copy of one
		// (its lines, and its second header at 31, are not judged
		// again); 47: queuing class c-in-q1 (a 9000's) is no 7000
		// class-map. Line 54 of batfish-nxos_interface_properties.cfg,
		// `service-policy type qos output` on a routed port, is refused
		// by the 5000 but not here: a 7000 routed port takes an egress
		// type qos policy (see qosOutputAllowed).
		"batfish-nxos_policy_map.cfg": {7, 23, 47},
		// 13, 15: class-fcoe and class-all-flood network-qos class-maps of
		// a UCS fabric interconnect; 26: its network-qos policy is no
		// template copy.
		"cisco-doc-214515-ucs-ipqos.cfg": {13, 15, 26},
		// 1: a 5000 network-qos policy is no 7000 template copy.
		"mierdin-n5k-network-qos.cfg":               {1},
		"mierdin-n5k-network-qos-jumbo-classes.cfg": {1},
		// 19: class-fcoe is the 5000's built-in type qos class, not the
		// 7000's.
		"mierdin-n5596-qos-classes.cfg": {19},
		// 25-31: `match qos-group` in queuing class-maps; 50-58: user
		// network-qos class-maps; 61: a network-qos policy that is no
		// template copy; 79: fcoe-default-in-policy is a 5000 built-in.
		"mierdin-n5k-sample-qos-configuration.cfg": {25, 27, 29, 31, 50, 52, 54, 56, 58, 61, 79},
		// 2: policy-map jumbo is defined outside the excerpt; 3-5: the
		// 5000's FCoE default policies.
		"mierdin-n5k-system-qos-jumbo.cfg": {2, 3, 4, 5},
		// 4: `match qos-group` in a queuing class-map; 14: a user
		// network-qos class-map; 16: a network-qos policy that is no
		// template copy.
		"msdocs-n3132-rdma-flat.cfg": {4, 14, 16},
		// The interface headers of Ethernet1/x (a 9000's first module):
		// slot 1 of the tests' 7000 (testModules7000) is its supervisor,
		// which has no Ethernet ports, so Check refuses the header naming
		// the modules, and the block's lines are not judged again.
		"batfish-nxos_interface_hsrp.cfg":                     {15},
		"batfish-nxos_interface_properties.cfg":               {16, 65, 78},
		"batfish-nxos_interface_show_all_2.cfg":               {8},
		"batfish-nxos_interface_switchport.cfg":               {21, 55, 66, 75, 102, 113, 123, 134, 146, 158, 171, 183, 195, 207, 213, 219, 231, 240},
		"batfish-nxos_nexus_6000_defaults.cfg":                {8},
		"batfish-nxos_ospf.cfg":                               {246, 266, 272, 279, 287},
		"batfish-nxos_port_channel.cfg":                       {23, 34, 38, 42, 50, 59, 64, 68, 77, 85, 89, 93}, // 50, 68, 77: range headers (Ethernet1/6-7)
		"batfish-nxos_system_default_switchport_shutdown.cfg": {12, 14, 17, 20, 24, 27, 31, 35},
		"batfish-nxos_vlan.cfg":                               {73},
		"batfish-nxos_vrf.cfg":                                {9, 19, 29, 40, 51, 63, 75, 86},
		"genie-running-config-interface-1.cfg":                {3},
		"genie-running-config-interface-4.cfg":                {1},
	}
	for name, text := range cfgs {
		row, ok := corpus7000[name]
		if !ok {
			continue // TestCorpus7000TableCoversCorpus fails it
		}
		release := release7000(t, name, text, row.release)
		c, err := CheckRelease(text, p, modules7000(t, row.modules), release)
		if c == nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var got []int
		for _, le := range lineErrorsDeep(err) {
			got = append(got, le.Line)
		}
		sort.Ints(got)
		if !slices.Equal(got, want[name]) {
			t.Errorf("%s on %s: refused lines %v, want %v (%v)", name, release, got, want[name], err)
		}
	}
}

// A type qos policy attaches on output to a routed port of a 7000, and
// only there: an L2 port, and every 5000 port, refuse it at "output".
func TestQoSOutputOnRouted7000Port(t *testing.T) {
	const policies = "policy-map type qos OUT\n"
	tests := []struct {
		kind, port string
		refused    bool
	}{
		{"nexus7000", "interface Ethernet2/1\n  no switchport\n", false},
		{"nexus7000", "interface Ethernet2/1\n  switchport\n", true},
		{"nexus7000", "interface Ethernet2/1\n", false}, // a 7000's ports are Layer 3 by default
		{"nexus7000", "system default switchport\ninterface Ethernet2/1\n", true},
		{"nexus7000", "interface Ethernet2/1\n  no switchport\n  switchport\n", true},
		{"nexus5000", "interface Ethernet2/1\n  no switchport\n", true},
	}
	for _, tt := range tests {
		text := policies + tt.port + "  service-policy type qos output OUT\n"
		_, err := Check(text, testPlatform(t, tt.kind), testModules7000)
		les := lineErrorsDeep(err)
		if got := len(les) == 1 && strings.HasPrefix(les[0].Text, "service-policy type qos output"); got != tt.refused || len(les) > 1 {
			t.Errorf("%s:\n%s\nrefused %v (%v), want %v", tt.kind, text, got, err, tt.refused)
		}
	}
}
