package nexus

import (
	"os"
	"strings"
	"testing"

	"github.com/rocefabric/roce/platforms"
)

// TestReadQueueShare: the share of the queue carrying a priority, read
// from the rendered configurations (goldens) and from hand-made ones.
func TestReadQueueShare(t *testing.T) {
	golden := func(name string) string {
		b, err := os.ReadFile("testdata/golden/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		name, kind, cfg string
		priority        int
		want            int
		where, why      string
	}{
		{"5000 roce class", "nexus5000", golden("nexus5000-dscp-fcoe-defaults.txt"), 4, 25, "ROCE-QUEUING-OUT class ROCE-rocev2dscp", ""},
		{"5000 FCoE CoS", "nexus5000", golden("nexus5000-dscp-fcoe-defaults.txt"), 3, 50, "ROCE-QUEUING-OUT class class-fcoe", ""},
		{"5000 other CoS", "nexus5000", golden("nexus5000-dscp-fcoe-defaults.txt"), 1, 25, "ROCE-QUEUING-OUT class class-default", ""},
		{"5000 nothing attached", "nexus5000", "", 4, 100, "default-out-policy class class-default", ""},
		{"5000 by match cos", "nexus5000", `class-map type qos match-all RC
  match cos 5
class-map type queuing match-all RC
  match qos-group 3
policy-map type qos IN
  class RC
    set qos-group 3
policy-map type queuing OUT
  class type queuing RC
    bandwidth percent 30
  class type queuing class-default
    bandwidth percent 70
system qos
  service-policy type qos input IN
  service-policy type queuing output OUT
`, 5, 30, "OUT class RC", ""},
		{"7000 roce class", "nexus7000", golden("nexus7000-dscp-foreign.txt"), 4, 50, "ROCE-QUEUING-OUT class ROCE-rocev2dscp", ""},
		{"7000 other CoS", "nexus7000", golden("nexus7000-dscp-foreign.txt"), 2, 50, "ROCE-QUEUING-OUT class class-default", ""},
		{"7000 default queuing", "nexus7000", "", 4, 0, "", "default egress policy"},
		{"not a CoS", "nexus7000", "", 9, 0, "", "not a CoS"},
		{"undefined policy", "nexus7000", "system qos\n  service-policy type queuing output NOPE\n", 4, 0, "", "not defined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PlatformFor(tc.kind, platforms.Default())
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := Parse(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := ReadQueueShare(cfg, p, tc.priority)
			if got.Percent != tc.want || got.Where != tc.where || (tc.why == "") != (got.Why == "") || !strings.Contains(got.Why, tc.why) {
				t.Errorf("got %+v, want %d%% at %q (why %q)", got, tc.want, tc.where, tc.why)
			}
		})
	}
}

// TestCoSBits: the CoS lists of `match cos` and `pause ... pfc-cos` as a
// bitmap (the simulator's PFC state reads them the same way), and inList
// on the same lists.
func TestCoSBits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint8
	}{
		{"3", 0x08}, {"0-2,4", 0x17}, {"7", 0x80}, {"0-7", 0xff}, {" 1 , 3 - 4 ", 0x1a},
		{"6-9", 0xc0}, {"9", 0}, {"x", 0}, {"", 0}, {"5-3", 0}, {"-1", 0}, {"2-x", 0},
	} {
		got := CoSBits(tc.in)
		if got != tc.want {
			t.Errorf("CoSBits(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
		for n := -1; n <= 8; n++ {
			if want := n >= 0 && n <= 7 && tc.want&(1<<n) != 0; inList(tc.in, n) != want {
				t.Errorf("inList(%q, %d) = %v, want %v", tc.in, n, !want, want)
			}
		}
	}
}
