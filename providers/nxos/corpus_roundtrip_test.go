package nxos

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/nexus/nxsim"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// Issue #15 asks of every real running-config in the corpus: it parses, a
// plan against it changes only roce's objects, and the second plan is
// empty. nexus.TestCorpusConfigsPlanTwice{,7000} prove it in roce's own
// model (the plan applied with nexus.ApplyCommands); the test here proves
// it through a switch: each corpus file is the configuration a simulated
// switch boots with, as roce-lab boots one from its startup config, and
// this provider plans, applies, reads `show running-config` back and plans
// again over SSH. The corpus is read in place (its sources and licences
// are in nexus/testdata/corpus/README.md).

// corpusConfigDir holds the corpus configurations.
var corpusConfigDir = filepath.Join("..", "..", "nexus", "testdata", "corpus", "config")

// corpusRow says what must come of one corpus file on one platform.
type corpusRow struct {
	// boot: the lines (1-based) the switch refuses when it loads the file,
	// so it does not start and nothing is planned; why says what they are.
	// nexus.TestCorpusConfigsCheck5000/7000 hold the same lines.
	// bootMatch: every line matching it is refused too, e.g. each header
	// of an interface on a slot the switch has no line card in.
	boot      []int
	bootMatch string
	why       string
	// release and modules: a 7000's NX-OS release ("" = newRig's 6.2(14))
	// and the `show module` capture of nexus/testdata/corpus/show its
	// cards come from ("" = newRig's modules7000, an F2 card in slot 2).
	release, modules string
	// overlap: a class of the file's own that takes the test classes'
	// CoS 4; the plan is refused naming it, then the classes move to
	// freeCoS.
	overlap string
	freeCoS int
	// routed: a managed port that is a routed port at the default mtu; a
	// class above 1500 is refused naming it, then planned at 1500.
	routed string
	// refuse: the plan's refusal after the above, on every variant.
	refuse string
}

// corpusVariant is one set of lossless classes planned on a file.
type corpusVariant struct {
	name    string
	classes []*policies.Lossless
	fcoe    bool
}

// corpusPlatform is one platform the corpus is planned on, with the
// variants nexus's corpus tests plan for it and a row for every file.
type corpusPlatform struct {
	kind     string
	variants []corpusVariant
	rows     map[string]corpusRow
}

// nxosv73 are the NX-OSv 7000 configurations of the corpus: planned on
// the release they were saved on, with the cards their `allocate
// interface` lines name (as nexus.corpus7000 plans them).
var nxosv73 = corpusRow{release: "7.3(1)D1(1)", modules: "ntc-module-n7k-nxosv-7.3.txt", routed: "Ethernet2/1"}

// nxosv73On5000: the NX-OSv 7000 configurations name ports of slots 2-4,
// which a 5596 (one module, slot 1) does not have.
var nxosv73On5000 = corpusRow{bootMatch: `^interface Ethernet[2-4]/`, why: "ports of slots 2-4, which the 5596 lacks"}

// past5596: a 9000's ports Ethernet1/49 and up and those of slots 2-9,
// which a 5596 (48 ports, on slot 1) does not have.
const past5596 = `^interface Ethernet(1/(49|[5-9][0-9])|[2-9]/[0-9]+)\s*$`

// slot1On7000: a 9000's ports Ethernet1/x are on the rig 7000's slot 1,
// its supervisor, which has no Ethernet ports; a range header
// (`interface Ethernet1/6-7`) is refused the same way.
var slot1On7000 = corpusRow{bootMatch: `^interface Ethernet1/[0-9.]+(-[0-9]+)?\s*$`, why: "ports (and port ranges) of slot 1, the rig 7000's supervisor"}

// routed7000: a configuration from another platform has no line for the
// 7000's Ethernet2/1, a Layer 3 port by default (docs/nxos.md#port-mtu).
var routed7000 = corpusRow{routed: "Ethernet2/1"}

// l2Default7000: a configuration from another platform with `system
// default switchport`, so the 7000's Ethernet2/1 is a Layer 2 port and
// gets the class's mtu.
var l2Default7000 = corpusRow{}

func corpusPlatforms() []corpusPlatform {
	c := classes()
	dscp := []*policies.Lossless{{Name: "rocev2dscp", Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}, Priority: 4, MTU: 4200}}
	ethertype := []*policies.Lossless{{Name: "rocev1", Match: policies.Match{Kind: policies.MatchEthertype, Ethertype: 0x8915}, Priority: 4, MTU: 9216}}
	all := []*policies.Lossless{{Name: "everything", Match: policies.Match{Kind: policies.MatchAll}}}
	return []corpusPlatform{
		{
			kind:     "nexus5000",
			variants: []corpusVariant{{"udp_port", c["udp_port"], false}, {"cos", c["cos"], false}, {"dscp", dscp, false}},
			rows: map[string]corpusRow{
				"batfish-nxos_class_map.cfg":                {boot: []int{36, 37, 47, 49, 51}, why: "cos on a network-qos class-map, match protocol, qos-group 0/6/7"},
				"batfish-nxos_interface_properties.cfg":     {boot: []int{54}, why: "type qos output"},
				"batfish-nxos_policy_map.cfg":               {boot: []int{26, 28, 47}, why: "no pause, no congestion-control random-detect, a 7000/9000 queuing class"},
				"mierdin-n5k-system-qos-jumbo.cfg":          {boot: []int{2}, why: "an excerpt: policy-map jumbo is defined outside it"},
				"mierdin-n5k-network-qos.cfg":               {boot: []int{2, 3, 4}, why: "an excerpt: class-map class-platinum is defined outside it"},
				"mierdin-n5k-network-qos-jumbo-classes.cfg": {boot: []int{2, 3, 4, 5, 6, 10, 12}, why: "an excerpt: four class-maps are defined outside it"},
				"mierdin-n5k-sample-qos-configuration.cfg": {
					overlap: "class-gold", freeCoS: 6,
					refuse: "no free qos-group on nexus5000 (user groups [2 3 4 5], in use [0 1 2 3 4 5])",
				},
				"batfish-nxos_interface_hsrp.cfg":                     {routed: "Ethernet1/1"},
				"batfish-nxos_interface_switchport.cfg":               {routed: "Ethernet1/2"},
				"batfish-nxos_nexus_6000_defaults.cfg":                {routed: "Ethernet1/1"},
				"batfish-nxos_ospf.cfg":                               {routed: "Ethernet1/1"},
				"batfish-nxos_vrf.cfg":                                {routed: "Ethernet1/1"},
				"batfish-nxos_aaa.cfg":                                {},
				"batfish-nxos_feature.cfg":                            {},
				"batfish-nxos_ignore.cfg":                             {},
				"batfish-nxos_interface_show_all_2.cfg":               {},
				"batfish-nxos_ip_access_list.cfg":                     {},
				"batfish-nxos_lacp.cfg":                               {},
				"batfish-nxos_line.cfg":                               {},
				"batfish-nxos_logging.cfg":                            {},
				"batfish-nxos_monitor.cfg":                            {},
				"batfish-nxos_ntp.cfg":                                {},
				"batfish-nxos_port_channel.cfg":                       {},
				"batfish-nxos_route_map.cfg":                          {},
				"batfish-nxos_snmp_server.cfg":                        {},
				"batfish-nxos_system_default_switchport_shutdown.cfg": {},
				"batfish-nxos_track.cfg":                              {},
				"batfish-nxos_vdc.cfg":                                {},
				"batfish-nxos_version.cfg":                            {},
				"batfish-nxos_vlan.cfg":                               {},
				"batfish-nxos_vlan_service_policy.cfg":                {},
				"cisco-doc-214515-ucs-ipqos.cfg":                      {},
				"genie-running-config-interface-1.cfg":                {},
				"genie-running-config-interface-2.cfg":                {},
				"genie-running-config-interface-3.cfg":                {},
				"genie-running-config-interface-4.cfg":                {},
				"mierdin-n5596-qos-classes.cfg":                       {},
				"mierdin-ucs-fi-run-int-veth782.cfg":                  {},
				"msdocs-n3132-rdma-flat.cfg":                          {},
				"napalm-nxosv-n7k-7.3-checkpoint.cfg":                 nxosv73On5000,
				"napalm-nxosv-n7k-7.3-running-cut.cfg":                {},
				"napalm-nxosv-n7k-7.3-running.cfg":                    nxosv73On5000,
				"napalm-nxosv-n7k-7.3-startup.cfg":                    nxosv73On5000,
				"napalm-nxosv-n7k-7.3-spine1-running.cfg":             nxosv73On5000,
				"napalm-n9k-7.0.3.I2.1-checkpoint.cfg":                {boot: []int{17, 18, 133}, bootMatch: past5596, why: "a 9000's default QoS objects (match qos-group 0 in a network-qos class-map, default-nq-policy and default-out-policy, the 5000's system policies) and ports of slot 2, which the 5596 lacks"},
				"netutils-n9kv-9.3.3-running.cfg":                     {bootMatch: past5596, why: "ports the 5596 lacks (Ethernet1/49-64)"},
				"genie-n9kv-7.0.3.I7.1-running-config-bgp.cfg":        {},
				"genie-n9k-9.2.2-running-config-bgp.cfg":              {},
				"genie-n9k-9.3.8-running-config-bgp.cfg":              {},
				"genie-n9k-running-config-nv-overlay.cfg":             {},
				"batfish-evpn-n9k-9.2.3-exitgw.cfg":                   {},
				"batfish-evpn-n9k-9.2.3-leaf1.cfg":                    {},
				"batfish-evpn-n9k-9.2.3-spine.cfg":                    {},
			},
		},
		{
			kind: "nexus7000",
			variants: []corpusVariant{
				{"udp_port", c["udp_port"], false}, {"cos", c["cos"], false}, {"dscp", dscp, false},
				{"ethertype", ethertype, false}, {"cos+fcoe", c["cos"], true}, {"all", all, false},
			},
			rows: map[string]corpusRow{
				// The files nexus.corpus7000 refuses at plan for their
				// attached network-qos policy: a 7000 does not even load
				// them, since a network-qos policy that is no template copy
				// cannot exist there.
				"batfish-nxos_policy_map.cfg":               {boot: []int{7, 23, 47}, why: "a user network-qos class-map and policy, a 9000 queuing class"},
				"cisco-doc-214515-ucs-ipqos.cfg":            {boot: []int{13, 15, 26}, why: "a UCS fabric interconnect's network-qos class-maps and policy"},
				"mierdin-n5k-sample-qos-configuration.cfg":  {boot: []int{25, 27, 29, 31, 50, 52, 54, 56, 58, 61, 79}, why: "match qos-group in queuing class-maps, user network-qos class-maps and policy, a 5000 built-in policy"},
				"mierdin-n5k-system-qos-jumbo.cfg":          {boot: []int{2, 3, 4, 5}, why: "an excerpt: policy jumbo and the 5000's FCoE default policies"},
				"msdocs-n3132-rdma-flat.cfg":                {boot: []int{4, 14, 16}, why: "match qos-group, a user network-qos class-map and policy"},
				"batfish-nxos_class_map.cfg":                {boot: []int{34, 47, 49, 51}, why: "a user network-qos class-map, match qos-group in queuing class-maps"},
				"mierdin-n5k-network-qos.cfg":               {boot: []int{1}, why: "a 5000 network-qos policy is no 7000 template copy"},
				"mierdin-n5k-network-qos-jumbo-classes.cfg": {boot: []int{1}, why: "a 5000 network-qos policy is no 7000 template copy"},
				"mierdin-n5596-qos-classes.cfg":             {boot: []int{19}, why: "class-fcoe is the 5000's built-in type qos class"},

				"napalm-nxosv-n7k-7.3-checkpoint.cfg":     nxosv73,
				"napalm-nxosv-n7k-7.3-running.cfg":        nxosv73,
				"napalm-nxosv-n7k-7.3-startup.cfg":        nxosv73,
				"napalm-nxosv-n7k-7.3-running-cut.cfg":    nxosv73,
				"napalm-nxosv-n7k-7.3-spine1-running.cfg": nxosv73,

				// Nexus 9000 captures: Ethernet1/x is on the lab 7000's
				// supervisor; the checkpoint also has the 9000's default
				// QoS objects (network-qos class-maps, default-nq-policy,
				// default-out-policy's c-out-q* classes and their actions).
				"napalm-n9k-7.0.3.I2.1-checkpoint.cfg":         {boot: []int{6, 9, 12, 15, 18, 134, 135, 136, 137, 138, 139, 140, 141}, bootMatch: slot1On7000.bootMatch, why: "a 9000's network-qos class-maps and policy, its queuing classes, and ports of slot 1, the lab 7000's supervisor"},
				"netutils-n9kv-9.3.3-running.cfg":              slot1On7000,
				"genie-n9k-running-config-nv-overlay.cfg":      slot1On7000,
				"batfish-evpn-n9k-9.2.3-exitgw.cfg":            slot1On7000,
				"batfish-evpn-n9k-9.2.3-leaf1.cfg":             slot1On7000,
				"batfish-evpn-n9k-9.2.3-spine.cfg":             slot1On7000,
				"genie-n9kv-7.0.3.I7.1-running-config-bgp.cfg": routed7000,
				"genie-n9k-9.2.2-running-config-bgp.cfg":       routed7000,
				"genie-n9k-9.3.8-running-config-bgp.cfg":       routed7000,

				"batfish-nxos_aaa.cfg":                                routed7000,
				"batfish-nxos_feature.cfg":                            routed7000,
				"batfish-nxos_ignore.cfg":                             routed7000,
				"batfish-nxos_interface_hsrp.cfg":                     slot1On7000,
				"batfish-nxos_interface_properties.cfg":               slot1On7000,
				"batfish-nxos_interface_show_all_2.cfg":               slot1On7000,
				"batfish-nxos_interface_switchport.cfg":               slot1On7000,
				"batfish-nxos_ip_access_list.cfg":                     routed7000,
				"batfish-nxos_lacp.cfg":                               routed7000,
				"batfish-nxos_line.cfg":                               routed7000,
				"batfish-nxos_logging.cfg":                            routed7000,
				"batfish-nxos_monitor.cfg":                            routed7000,
				"batfish-nxos_nexus_6000_defaults.cfg":                slot1On7000,
				"batfish-nxos_ntp.cfg":                                routed7000,
				"batfish-nxos_ospf.cfg":                               slot1On7000,
				"batfish-nxos_port_channel.cfg":                       slot1On7000,
				"batfish-nxos_route_map.cfg":                          routed7000,
				"batfish-nxos_snmp_server.cfg":                        routed7000,
				"batfish-nxos_system_default_switchport_shutdown.cfg": slot1On7000,
				"batfish-nxos_track.cfg":                              routed7000,
				"batfish-nxos_vdc.cfg":                                routed7000,
				"batfish-nxos_version.cfg":                            routed7000,
				"batfish-nxos_vlan.cfg":                               slot1On7000,
				"batfish-nxos_vlan_service_policy.cfg":                routed7000,
				"batfish-nxos_vrf.cfg":                                slot1On7000,
				"genie-running-config-interface-1.cfg":                slot1On7000,
				"genie-running-config-interface-2.cfg":                routed7000,
				"genie-running-config-interface-3.cfg":                routed7000,
				"genie-running-config-interface-4.cfg":                slot1On7000,
				"mierdin-ucs-fi-run-int-veth782.cfg":                  routed7000,
			},
		},
	}
}

// Every row has its file and every file its row, on both platforms.
func TestCorpusRoundTripTableCoversCorpus(t *testing.T) {
	files := corpusFiles(t)
	for _, p := range corpusPlatforms() {
		if got := slices.Sorted(maps.Keys(p.rows)); !slices.Equal(got, files) {
			t.Errorf("%s: rows for %v,\nfiles %v: give every file of %s a row", p.kind, got, files, corpusConfigDir)
		}
	}
}

func corpusFiles(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(corpusConfigDir, "*.cfg"))
	if err != nil || len(paths) < 20 {
		t.Fatalf("corpus: %d configs in %s (%v), want at least 20", len(paths), corpusConfigDir, err)
	}
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}

// Each corpus file the switch loads, on each platform and variant: plan →
// apply → `show running-config` → plan, through SSH. The first plan
// changes only roce's objects, every foreign object reads back byte for
// byte, the managed objects keep every line roce does not set, and the
// second plan is empty; a plan refused says why and leaves the switch as
// it was. A file the switch will not load is refused at boot naming
// exactly the row's lines.
func TestCorpusRoundTripThroughSwitch(t *testing.T) {
	for _, p := range corpusPlatforms() {
		for _, name := range slices.Sorted(maps.Keys(p.rows)) {
			row := p.rows[name]
			t.Run(p.kind+"/"+name, func(t *testing.T) {
				t.Parallel()
				text, err := os.ReadFile(filepath.Join(corpusConfigDir, name))
				if err != nil {
					t.Fatal(err)
				}
				opts := corpusSwitchOptions(t, p.kind, row, string(text))
				if want := row.bootLines(string(text)); len(want) > 0 {
					requireBootRefused(t, opts, want, row.why)
					return
				}
				r := corpusRig(t, opts)
				// Each variant starts from the configuration the switch
				// booted with (one read of it serves them all).
				booted, shown := r.srv.Switch().RunningConfig(), r.showRunning(t)
				for _, v := range p.variants {
					t.Run(v.name, func(t *testing.T) {
						if err := r.srv.Switch().ReplaceRunningConfig(booted); err != nil {
							t.Fatal(err)
						}
						r.sw.FCoE = v.fcoe
						r.corpusRoundTrip(t, row, v.classes, shown)
					})
				}
			})
		}
	}
}

// corpusSwitchOptions boots a switch of kind with text as its
// configuration, with newRig's user and the row's release and cards.
func corpusSwitchOptions(t *testing.T, kind string, row corpusRow, text string) nxsim.Options {
	t.Helper()
	opts := nxsim.Options{
		Hostname: "sw1", Platform: kind, StartupConfig: text,
		Users: map[string]string{"netops": "pw-123"}, // newRig's credentials
	}
	if kind != "nexus7000" {
		return opts
	}
	opts.Version, opts.Modules = "6.2(14)", modules7000
	if row.release != "" {
		opts.Version = row.release
	}
	if row.modules != "" {
		b, err := os.ReadFile(filepath.Join(corpusConfigDir, "..", "show", row.modules))
		if err != nil {
			t.Fatal(err)
		}
		if opts.Modules, err = nexus.ParseShowModule(string(b)); err != nil || len(opts.Modules) == 0 {
			t.Fatalf("%s: %v (%d modules)", row.modules, err, len(opts.Modules))
		}
	}
	return opts
}

// bootLine is how the switch names a line of its configuration it
// refuses; bootMore counts those a long list leaves out.
var (
	bootLine = regexp.MustCompile(`line (\d+): "`)
	bootMore = regexp.MustCompile(`more refused lines \((\d+) in all\)`)
)

// bootLines are the lines (1-based, in order) the switch refuses in
// text, by the row.
func (row corpusRow) bootLines(text string) []int {
	out := slices.Clone(row.boot)
	if row.bootMatch != "" {
		re := regexp.MustCompile(row.bootMatch)
		for i, l := range strings.Split(text, "\n") {
			if re.MatchString(l) {
				out = append(out, i+1)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// requireBootRefused: the switch refuses to start with opts's startup
// config, naming the lines want (the first of them, and how many in all,
// when there are too many to list) and what to do.
func requireBootRefused(t *testing.T, opts nxsim.Options, want []int, why string) {
	t.Helper()
	_, err := nxsim.New(opts)
	if err == nil {
		t.Fatalf("the switch loaded the file; the row says it refuses lines %v (%s)", want, why)
	}
	var got []int
	for _, m := range bootLine.FindAllStringSubmatch(err.Error(), -1) {
		n, _ := strconv.Atoi(m[1])
		got = append(got, n)
	}
	listed, all := want, len(got)
	if m := bootMore.FindStringSubmatch(err.Error()); m != nil {
		all, _ = strconv.Atoi(m[1])
		listed = want[:min(len(want), len(got))]
	}
	if !slices.Equal(got, listed) || all != len(want) || !strings.Contains(err.Error(), "fix the lines named") {
		t.Errorf("boot refused lines %v (%d in all), want %v (%s):\n%v", got, all, want, why, err)
	}
}

// corpusRig is newRig's target pointed at a switch started from opts
// instead of newRig's empty one, which is closed at once.
func corpusRig(t *testing.T, opts nxsim.Options) *rig {
	t.Helper()
	r := newRig(t, rigOpts{kind: opts.Platform})
	_ = r.srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := nxsim.Listen(ctx, "127.0.0.1:0", opts)
	if err != nil {
		cancel()
		t.Fatalf("start the switch with the corpus file: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = srv.Close()
	})
	r.srv = srv
	r.sw.Address = srv.Addr()
	r.sw.HostKey = string(ssh.MarshalAuthorizedKey(srv.Switch().HostKey()))
	return r
}

// showRunning is `show running-config` read over the provider's own SSH
// client, without the lines that change between two reads.
func (r *rig) showRunning(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := openConn(t, ctx, r)
	defer c.close()
	out, err := c.command("show running-config")
	if err != nil {
		t.Fatalf("show running-config: %v", err)
	}
	return nexus.NormaliseRunning(out)
}

// corpusRoundTrip plans classes on the rig's switch, whose `show
// running-config` is before, as row says: refused (the switch unchanged),
// or applied and planned again.
func (r *rig) corpusRoundTrip(t *testing.T, row corpusRow, classes []*policies.Lossless, before string) {
	refused := func(want string) {
		t.Helper()
		if msg := r.planRefusal(t); !strings.Contains(msg, want) {
			t.Fatalf("plan: %q, want it refused with %q", msg, want)
		}
		if after := r.showRunning(t); after != before {
			t.Fatalf("a refused plan changed the switch:\n--- before\n%s\n--- after\n%s", before, after)
		}
	}
	r.target.env.Fabric.Lossless = classes
	if row.overlap != "" {
		refused("overlaps class " + row.overlap)
		r.target.env.Fabric.Lossless = lossless(classes, func(c *policies.Lossless) {
			c.Priority = row.freeCoS
			if len(c.Match.CoS) > 0 {
				c.Match.CoS = []int{row.freeCoS}
			}
		})
	}
	if row.routed != "" && slices.ContainsFunc(classes, func(c *policies.Lossless) bool { return c.MTU > nexus.DefaultPortMTU }) {
		refused("managed port " + row.routed + " is a routed port")
		r.target.env.Fabric.Lossless = lossless(r.target.env.Fabric.Lossless, func(c *policies.Lossless) { c.MTU = nexus.DefaultPortMTU })
	}
	if row.refuse != "" {
		refused(row.refuse)
		return
	}

	tp := r.plan(t)
	if tp.Error != "" || len(tp.Commands) == 0 {
		t.Fatalf("first plan: error %q, %d commands; want changes", tp.Error, len(tp.Commands))
	}
	for _, ch := range tp.Changes {
		if !r.corpusOwned(ch.Address) {
			t.Errorf("the plan changes %s, which is not roce's", ch.Address)
		}
	}
	res, err := r.apply(t, tp)
	if err != nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply: status %s, err %v\n%s", res.Status, err, transcriptText(res.Transcript))
	}
	if cps := r.srv.Switch().Checkpoints(); len(cps) != 0 {
		t.Errorf("checkpoints left on the switch: %v", cps)
	}
	r.requireForeignKept(t, before, r.showRunning(t))
	again := r.plan(t)
	if again.Error != "" || len(again.Changes) != 0 || len(again.Commands) != 0 {
		t.Fatalf("second plan not empty (error %q):\n%s", again.Error, strings.Join(again.Commands, "\n"))
	}
}

// lossless copies classes with edit applied to each copy.
func lossless(classes []*policies.Lossless, edit func(*policies.Lossless)) []*policies.Lossless {
	out := make([]*policies.Lossless, 0, len(classes))
	for _, c := range classes {
		cp := *c
		cp.Match.CoS = slices.Clone(c.Match.CoS)
		edit(&cp)
		out = append(out, &cp)
	}
	return out
}

// corpusOwned reports whether the object a change or a running-config
// block names (its address or header line) is roce's to change: an
// object whose name has roce's prefix, system qos or a managed port.
func (r *rig) corpusOwned(header string) bool {
	if r.corpusManaged(header) {
		return true
	}
	f := strings.Fields(header)
	return len(f) > 1 && strings.HasPrefix(f[len(f)-1], nexus.DefaultPrefix)
}

// corpusManaged: the block is system qos or a managed port, whose own
// lines roce keeps.
func (r *rig) corpusManaged(header string) bool {
	if header == "system qos" {
		return true
	}
	for _, i := range r.target.ifaces {
		if header == "interface "+i {
			return true
		}
	}
	return false
}

// runningBlocks splits `show running-config` text into its top-level
// blocks: a line at the left margin and the indented lines under it.
func runningBlocks(text string) []string {
	var out []string
	for _, l := range strings.SplitAfter(text, "\n") {
		if l == "" {
			continue
		}
		if len(out) > 0 && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) {
			out[len(out)-1] += l
			continue
		}
		out = append(out, l)
	}
	return out
}

func blockHeader(b string) string {
	h, _, _ := strings.Cut(b, "\n")
	return h
}

// requireForeignKept compares two reads of `show running-config`, before
// and after an apply: every block that is not roce's is there again byte
// for byte, and no block that is not roce's appeared; system qos and each
// managed port keep every line roce does not set (the service-policy
// lines of the types and directions roce attaches, PFC and flow control).
func (r *rig) requireForeignKept(t *testing.T, before, after string) {
	t.Helper()
	foreign := func(text string) []string {
		var out []string
		for _, b := range runningBlocks(text) {
			if !r.corpusOwned(blockHeader(b)) {
				out = append(out, b)
			}
		}
		return out
	}
	if gone, came := multisetDiff(foreign(before), foreign(after)); len(gone)+len(came) > 0 {
		t.Errorf("objects that are not roce's changed:\n--- before, not after\n%s--- after, not before\n%s", strings.Join(gone, ""), strings.Join(came, ""))
	}
	managed := map[string][]string{}
	for _, b := range runningBlocks(after) {
		if h := blockHeader(b); r.corpusManaged(h) {
			managed[h] = strings.Split(strings.TrimSuffix(b, "\n"), "\n")[1:]
		}
	}
	ours := map[string]bool{} // "type direction" of each policy roce attaches
	for _, l := range managed["system qos"] {
		if slot, name, ok := attachment(l); ok && strings.HasPrefix(name, nexus.DefaultPrefix) {
			ours[slot] = true
		}
	}
	for _, b := range runningBlocks(before) {
		h := blockHeader(b)
		if !r.corpusManaged(h) {
			continue
		}
		for _, l := range strings.Split(strings.TrimSuffix(b, "\n"), "\n")[1:] {
			k := strings.Fields(l)
			slot, _, attached := attachment(l)
			switch {
			case h == "system qos" && attached && ours[slot]:
				continue
			case h != "system qos" && len(k) > 0 && (k[0] == "priority-flow-control" || k[0] == "flowcontrol"):
				continue
			}
			if !slices.Contains(managed[h], l) {
				t.Errorf("%s lost a line roce does not set: %q\nafter:\n%s", h, l, strings.Join(managed[h], "\n"))
			}
		}
	}
	if t.Failed() {
		t.Logf("running config after the apply:\n%s", after)
	}
}

// attachment reads a `service-policy type TYPE [input|output] NAME` line:
// its slot (type and direction) and the policy's name.
func attachment(line string) (slot, name string, ok bool) {
	f := strings.Fields(line)
	if len(f) < 4 || len(f) > 5 || f[0] != "service-policy" || f[1] != "type" {
		return "", "", false
	}
	return strings.Join(f[2:len(f)-1], " "), f[len(f)-1], true
}

// multisetDiff is what a has more of than b, and what b has more of
// than a; both sorted.
func multisetDiff(a, b []string) (onlyA, onlyB []string) {
	n := map[string]int{}
	for _, x := range a {
		n[x]++
	}
	for _, x := range b {
		n[x]--
	}
	for _, x := range slices.Sorted(maps.Keys(n)) {
		for ; n[x] > 0; n[x]-- {
			onlyA = append(onlyA, x)
		}
		for ; n[x] < 0; n[x]++ {
			onlyB = append(onlyB, x)
		}
	}
	return onlyA, onlyB
}
