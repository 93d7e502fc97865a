package profiles

import (
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
