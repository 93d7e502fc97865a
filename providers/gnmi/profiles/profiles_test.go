package profiles

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from golden (go test -update to accept):\n%s", name, got)
	}
}

func dump(t *testing.T, d *Desired) []byte {
	type obj struct {
		Mode    string          `json:"mode"`
		Origin  string          `json:"origin"`
		Path    string          `json:"path"`
		Disrupt string          `json:"disruption"`
		Value   json.RawMessage `json:"value"`
	}
	var out struct {
		Objects  []obj    `json:"objects"`
		Warnings []string `json:"warnings,omitempty"`
	}
	for _, o := range d.Objects {
		b, err := json.Marshal(o.Value)
		if err != nil {
			t.Fatal(err)
		}
		out.Objects = append(out.Objects, obj{map[Mode]string{Entry: "entry", Merge: "merge"}[o.Mode], o.Origin, o.Path, string(o.Disrupt), b})
	}
	out.Warnings = d.Warnings
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func classes() map[string]*policies.Lossless {
	return map[string]*policies.Lossless{
		"dscp": {Name: "v2", Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26, 27}}, Priority: 3, MTU: 9000, BandwidthPercent: 40,
			ECN: &policies.ECN{MinThresholdKB: 100, MaxThresholdKB: 400, Probability: 20}},
		"udp_port": {Name: "v2udp", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{24}}, Priority: 4, MTU: 4200},
	}
}

// Upstream OpenConfig rendering (classifier with transport match, WRED
// profile with ECN, scheduler, interface MTU). Render refuses it because
// PFC is missing; render is what arista builds on.
func TestOpenConfigRenderGolden(t *testing.T) {
	for mode, c := range classes() {
		t.Run(mode, func(t *testing.T) {
			p := &ocProfile{}
			d, err := p.render(Input{Switch: "s1", Interfaces: []string{"Ethernet1/1"}, Classes: []*policies.Lossless{c}})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "openconfig-"+mode+".json", dump(t, d))
			if _, err := p.Render(Input{Switch: "s1", Interfaces: []string{"Ethernet1/1"}, Classes: []*policies.Lossless{c}}); err == nil || !strings.Contains(err.Error(), "PFC") {
				t.Errorf("Render should refuse a lossless class on plain OpenConfig: %v", err)
			}
		})
	}
}

func TestAristaBitOrder(t *testing.T) {
	cases := []struct {
		order string
		prios []int
		want  string
	}{
		{"", []int{3}, "08"},
		{"lsb0", []int{3, 4}, "18"},
		{"msb0", []int{3}, "10"},
		{"msb0", []int{0, 7}, "81"},
		{"lsb0", nil, "00"},
	}
	for _, tc := range cases {
		p := &ocProfile{arista: true, s: Settings{AristaNoDropBitOrder: tc.order}}
		if got := p.noDropBitmap(tc.prios); got != tc.want {
			t.Errorf("%q %v = %s, want %s", tc.order, tc.prios, got, tc.want)
		}
	}
	if _, err := New("arista", Settings{AristaNoDropBitOrder: "middle"}); err == nil {
		t.Error("bad bit order accepted")
	}
}

func TestSettingsChangeOrigin(t *testing.T) {
	c := classes()["dscp"]
	for _, tc := range []struct {
		name string
		s    Settings
		want string
	}{
		{"sonic", Settings{}, "sonic-db"},
		{"sonic", Settings{SONiCOrigin: "sonic-db"}, "sonic-db"},
		{"srlinux", Settings{}, ""},
		{"srlinux", Settings{SRLinuxOrigin: "srl_nokia"}, "srl_nokia"},
	} {
		p, err := New(tc.name, tc.s)
		if err != nil {
			t.Fatal(err)
		}
		cc := *c
		cc.ECN = nil
		port := map[string]string{"sonic": "Ethernet0", "srlinux": "ethernet-1/1"}[tc.name]
		d, err := p.Render(Input{Switch: "s", Interfaces: []string{port}, Classes: []*policies.Lossless{&cc}})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range d.Objects {
			if o.Origin != tc.want {
				t.Errorf("%s %+v: origin %q, want %q", tc.name, tc.s, o.Origin, tc.want)
			}
		}
	}
}

func TestDetect(t *testing.T) {
	cases := []struct {
		models []string
		want   string
	}{
		{[]string{"openconfig-qos", "arista-qos-augments"}, "arista"},
		{[]string{"sonic-port", "openconfig-qos"}, "sonic"},
		{[]string{"srl_nokia-qos"}, "srlinux"},
		{[]string{"urn:srl_nokia/qos:srl_nokia-qos"}, "srlinux"}, // as SR Linux lists it
		{[]string{"openconfig-qos"}, "openconfig"},
		{nil, "openconfig"},
	}
	for _, tc := range cases {
		if got := Detect(tc.models); got != tc.want {
			t.Errorf("Detect(%v) = %s, want %s", tc.models, got, tc.want)
		}
	}
	p, _ := New("arista", Settings{})
	if c := CheckModels(p, []Model{{Name: "openconfig-qos", Version: "2.0.1"}}); fmt.Sprint(c.Missing) != "[openconfig-interfaces 3.8.1 arista-qos-augments 0.0.4]" || c.Older != nil {
		t.Errorf("check = %+v", c)
	}
}

func TestRenderRefusals(t *testing.T) {
	base := func() *policies.Lossless {
		return &policies.Lossless{Name: "c", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{3}}, Priority: 3}
	}
	cases := []struct {
		profile string
		mut     func(c *policies.Lossless)
		ifaces  []string
		want    string
	}{
		{"arista", func(c *policies.Lossless) { c.MTU = 9216 }, []string{"Ethernet1"}, "MTU 9216 outside"},
		{"sonic", func(c *policies.Lossless) { c.Priority = 9 }, []string{"Ethernet0"}, "priority 9"},
		{"sonic", func(c *policies.Lossless) {}, nil, "lists no interfaces"},
		{"sonic", func(c *policies.Lossless) {}, []string{"Ethernet1/1"}, "SONiC port names"},
		{"arista", func(c *policies.Lossless) {
			c.PFCWatchdog = &policies.PFCWatchdog{DetectionMS: 205, RestorationMS: 200, Action: "drop"}
		}, []string{"Ethernet1"}, "in steps of 10 ms, not 205"},
		{"srlinux", func(c *policies.Lossless) {
			c.PFCWatchdog = &policies.PFCWatchdog{DetectionMS: 200, RestorationMS: 50, Action: "drop"}
		}, []string{"ethernet-1/1"}, "100-1500"},
		{"srlinux", func(c *policies.Lossless) {
			c.PFCWatchdog = &policies.PFCWatchdog{DetectionMS: 200, RestorationMS: 200, Action: "forward"}
		}, []string{"ethernet-1/1"}, "forward"},
		{"arista", func(c *policies.Lossless) { c.ECN = &policies.ECN{MinThresholdKB: 10, MaxThresholdKB: 5} }, []string{"Ethernet1"}, "ECN thresholds"},
		{"sonic", func(c *policies.Lossless) { c.Name = "a/b" }, []string{"Ethernet0"}, "class name"},
		{"srlinux", func(c *policies.Lossless) { c.Name = "x]y" }, []string{"ethernet-1/1"}, "class name"},
	}
	for _, tc := range cases {
		c := base()
		tc.mut(c)
		p, err := New(tc.profile, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Render(Input{Switch: "s", Interfaces: tc.ifaces, Classes: []*policies.Lossless{c}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.profile, err, tc.want)
		}
	}
}
