package profiles

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

// A PFC watchdog a device's model refuses is refused by the renderer too,
// with the device's limits (the capability table, which validation uses):
// nothing out of range reaches a SetRequest.
func TestWatchdogLimitsPerProfile(t *testing.T) {
	wd := func(det, rest int, action string) *policies.PFCWatchdog {
		return &policies.PFCWatchdog{DetectionMS: det, RestorationMS: rest, Action: action}
	}
	cases := []struct {
		profile string
		iface   string
		wd      *policies.PFCWatchdog
		want    string // "" = rendered
	}{
		{"sonic", "Ethernet0", wd(50, 400, "drop"), "detection time of 100-5000 ms, not 50"},
		{"sonic", "Ethernet0", wd(6000, 400, "drop"), "not 6000"},
		{"sonic", "Ethernet0", wd(200, 70000, "drop"), "restoration time of 100-60000 ms, not 70000"},
		{"sonic", "Ethernet0", wd(100, 100, "forward"), ""},
		{"sonic", "Ethernet0", wd(5000, 60000, "drop"), ""},
		{"srlinux", "ethernet-1/1", wd(5, 400, "drop"), "detection time of 10-1500 ms, not 5"},
		{"srlinux", "ethernet-1/1", wd(200, 2000, "drop"), "restoration time of 100-1500 ms, not 2000"},
		{"srlinux", "ethernet-1/1", wd(200, 400, "forward"), `not "forward"`},
		{"srlinux", "ethernet-1/1", wd(10, 1500, "drop"), ""},
		{"arista", "Ethernet1", wd(205, 400, "drop"), "steps of 10 ms, not 205"},
		{"arista", "Ethernet1", wd(200, 400, "forward"), ""},
	}
	for _, tc := range cases {
		p, err := New(tc.profile, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		c := &policies.Lossless{Name: "c", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{3}}, Priority: 3, PFCWatchdog: tc.wd}
		_, err = p.Render(Input{Switch: "s", Interfaces: []string{tc.iface}, Classes: []*policies.Lossless{c}})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %+v: refused within the limits: %v", tc.profile, *tc.wd, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %+v: err = %v, want %q", tc.profile, *tc.wd, err, tc.want)
		}
	}
}

// The renderers apply the capability row's limits too (for callers that
// skip validation), and the row's class-object rules describe the names the
// renderers really write.
func TestRendererAppliesCapabilityLimits(t *testing.T) {
	dscp := func(name string, prio int, v ...int) *policies.Lossless {
		return &policies.Lossless{Name: name, Match: policies.Match{Kind: policies.MatchDSCP, DSCP: v}, Priority: prio}
	}
	cos := func(name string, prio int, v ...int) *policies.Lossless {
		return &policies.Lossless{Name: name, Match: policies.Match{Kind: policies.MatchCoS, CoS: v}, Priority: prio}
	}
	withECN := func(c *policies.Lossless) *policies.Lossless {
		c.ECN = &policies.ECN{MinThresholdKB: 100, MaxThresholdKB: 400, Probability: 100}
		return c
	}
	withMTU := func(c *policies.Lossless, m int) *policies.Lossless { c.MTU = m; return c }
	long := func(n int) string { return "r" + strings.Repeat("x", n-1) }
	cases := []struct {
		profile, iface string
		classes        []*policies.Lossless
		want           string // "" = rendered
	}{
		{"sonic", "Ethernet0", []*policies.Lossless{withECN(dscp(long(27), 3, 26))}, ""},
		{"sonic", "Ethernet0", []*policies.Lossless{withECN(dscp(long(28), 3, 26))}, "at most 32"},
		{"sonic", "Ethernet0", []*policies.Lossless{withECN(dscp("a.b", 3, 26))}, "no '.'"},
		{"sonic", "Ethernet0", []*policies.Lossless{dscp("a.b", 3, 26)}, ""},
		{"sonic", "Ethernet0", []*policies.Lossless{dscp("a", 3, 26), dscp("b", 4, 24, 26)}, "DSCP 26 is claimed by classes a (priority 3) and b (priority 4)"},
		{"sonic", "Ethernet0", []*policies.Lossless{cos("a", 3, 3, 4), cos("b", 4, 4)}, "802.1p 4 is claimed"},
		{"srlinux", "ethernet-1/1", []*policies.Lossless{dscp("a", 3, 26), dscp("b", 4, 26)}, "DSCP 26 is claimed"},
		{"srlinux", "ethernet-1/1", []*policies.Lossless{withMTU(dscp("a", 3, 26), 9412)}, ""},
		{"srlinux", "ethernet-1/1", []*policies.Lossless{withMTU(dscp("a", 3, 26), 9413)}, "MTU 9413 outside the platform range 1500-9412"},
		{"arista", "Ethernet1", []*policies.Lossless{withMTU(dscp("a", 3, 26), 9215)}, "1500-9214"},
		{"arista", "Ethernet1", []*policies.Lossless{dscp("a", 3, 26), dscp("b", 4, 26)}, ""},
	}
	for _, tc := range cases {
		p, err := New(tc.profile, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Render(Input{Switch: "s", Interfaces: []string{tc.iface}, Classes: tc.classes})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %s: refused within the limits: %v", tc.profile, tc.classes[0].Name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %s: err = %v, want %q", tc.profile, tc.classes[0].Name, err, tc.want)
		}
	}
	// The row's object names are the ones written: SONiC's WRED profile
	// is Prefix + class, and the fixed map names fit the same model
	// pattern (sonic-*-map.yang name: same pattern, length 1..32).
	caps, err := capsOf("gnmi/sonic")
	if err != nil {
		t.Fatal(err)
	}
	if len(caps.ClassObjects) != 1 || caps.ClassObjects[0].Prefix != Prefix {
		t.Fatalf("gnmi/sonic class objects %+v: want one, prefixed %q", caps.ClassObjects, Prefix)
	}
	p, _ := New("sonic", Settings{})
	d, err := p.Render(Input{Switch: "s", Interfaces: []string{"Ethernet0"}, Classes: []*policies.Lossless{withECN(dscp("roce", 3, 26)), cos("c4", 4, 4)}})
	if err != nil {
		t.Fatal(err)
	}
	o := caps.ClassObjects[0]
	re := regexp.MustCompile(`^(?:` + o.Pattern + `)$`)
	seen := 0
	for _, ob := range d.Objects {
		for _, table := range []string{"WRED_PROFILE", "DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_QUEUE_MAP"} {
			pre := SONiCConfigDB + "/" + table + "/"
			if !strings.HasPrefix(ob.Path, pre) {
				continue
			}
			seen++
			name := strings.TrimPrefix(ob.Path, pre)
			if len(name) > o.MaxLen || !re.MatchString(name) {
				t.Errorf("%s name %q does not fit the model's pattern %s, length 1..%d", table, name, o.Pattern, o.MaxLen)
			}
			if table == "WRED_PROFILE" && name != o.Prefix+"roce"+o.Suffix {
				t.Errorf("WRED profile %q is not the row's %s<class>%s", name, o.Prefix, o.Suffix)
			}
		}
	}
	if seen != 4 {
		t.Errorf("found %d named SONiC objects, want 4 (WRED profile and three maps)", seen)
	}
}

// The openconfig renderer refuses every lossless class, whatever its match
// or extras, naming each part OpenConfig cannot express and what it can
// write (the capability row's lists, which validation names too), and
// renders nothing.
func TestOpenConfigRefusesEveryLosslessClass(t *testing.T) {
	p, err := New("openconfig", Settings{})
	if err != nil {
		t.Fatal(err)
	}
	caps, err := capsOf("gnmi/openconfig")
	if err != nil {
		t.Fatal(err)
	}
	if len(caps.CannotExpress) != 4 || caps.CanExpress == "" {
		t.Fatalf("gnmi/openconfig row: CannotExpress %q, CanExpress %q", caps.CannotExpress, caps.CanExpress)
	}
	wd := &policies.PFCWatchdog{DetectionMS: 200, RestorationMS: 200, Action: "drop"}
	ecn := &policies.ECN{MinThresholdKB: 100, MaxThresholdKB: 400, Probability: 100}
	for _, c := range []*policies.Lossless{
		{Name: "dscp", Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}, Priority: 3, ECN: ecn},
		{Name: "udp", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791}, Priority: 3, BandwidthPercent: 50},
		{Name: "cos", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{4}}, Priority: 4, PFCWatchdog: wd},
		{Name: "v1", Match: policies.Match{Kind: policies.MatchEthertype, Ethertype: 0x8915}, Priority: 3},
		{Name: "all", Match: policies.Match{Kind: policies.MatchAll}, Priority: 3},
	} {
		d, err := p.Render(Input{Switch: "s", Interfaces: []string{"Ethernet1"}, Classes: []*policies.Lossless{c}})
		if err == nil {
			t.Errorf("%s: rendered %d objects for a lossless class on plain OpenConfig", c.Name, len(d.Objects))
			continue
		}
		for _, w := range append(append([]string{"class " + c.Name + " is lossless", "not lossless, so nothing is rendered", caps.CanExpress}, caps.CannotExpress...), "profile arista, sonic or srlinux") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: refusal does not say %q: %v", c.Name, w, err)
			}
		}
	}
}
