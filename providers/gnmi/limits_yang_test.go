package gnmi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/platforms"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// extremeClasses are the classes of a policy at the edge of what
// `roce-plan validate` lets through for a profile: the capability row's
// limits (MTU, watchdog timers, names of class-named objects, classes per
// switch) and the policy language's own bounds (every DSCP 0-63, 802.1p
// 0-7, priorities 0 and 7, ECN thresholds up to 1 GiB, percentages 0 and
// 100), at the maximum (max) or the minimum.
func extremeClasses(t *testing.T, profile string, max bool) []*policies.Lossless {
	t.Helper()
	caps, ok := platforms.Default().Lookup(policies.PlatformGNMI, profile)
	if !ok {
		t.Fatalf("no capability row for %s", profile)
	}
	nameLen := platforms.MaxClassName
	for _, o := range caps.ClassObjects {
		if n := o.MaxLen - len(o.Prefix) - len(o.Suffix); o.MaxLen > 0 && n < nameLen {
			nameLen = n
		}
	}
	name := func(c byte) string {
		if !max {
			return string(c)
		}
		return string(c) + strings.Repeat("x", nameLen-1)
	}
	var low, high []int
	for v := 0; v < 64; v++ {
		if v < 32 {
			low = append(low, v)
		} else {
			high = append(high, v)
		}
	}
	mtu := caps.MinMTU
	if max {
		mtu = caps.MaxMTU
	}
	a := &policies.Lossless{Name: name('a'), Match: policies.Match{Kind: policies.MatchDSCP, DSCP: low}, Priority: 0, MTU: mtu}
	b := &policies.Lossless{Name: name('b'), Match: policies.Match{Kind: policies.MatchDSCP, DSCP: high}, Priority: 7, MTU: mtu}
	if profile == "srlinux" { // one class by 802.1p, every value
		b.Match = policies.Match{Kind: policies.MatchCoS, CoS: []int{0, 1, 2, 3, 4, 5, 6, 7}}
		a.Match.DSCP = append(low, high...)
	}
	if profile == "arista" || profile == "sonic" { // no 802.1p class: the arista profile writes none
		if max {
			a.BandwidthPercent, b.BandwidthPercent = 99, 1
		} else {
			a.BandwidthPercent = 1
		}
	}
	if caps.ECN {
		kb := 1
		if max {
			kb = 1 << 20
		}
		a.ECN = &policies.ECN{MinThresholdKB: kb, MaxThresholdKB: kb, Probability: 100}
		b.ECN = &policies.ECN{MinThresholdKB: 1, MaxThresholdKB: kb, Probability: 0}
	}
	if caps.PFCWatchdog {
		det, rest := caps.WatchdogDetectionMS, caps.WatchdogRestorationMS
		w := &policies.PFCWatchdog{Action: caps.WatchdogActions[len(caps.WatchdogActions)-1]}
		pick := func(r [2]int, lo, hi int) int {
			if r == [2]int{} {
				r = [2]int{lo, hi}
			}
			if max {
				return r[1]
			}
			return r[0]
		}
		step := caps.WatchdogStepMS
		if step == 0 {
			step = 1
		}
		w.DetectionMS = pick(det, step, 60000)
		w.RestorationMS = pick(rest, step, 60000)
		a.PFCWatchdog = w
	}
	if len([]*policies.Lossless{a, b}) > caps.MaxNoDropClasses {
		t.Fatalf("%s takes %d classes; the extreme policy has 2", profile, caps.MaxNoDropClasses)
	}
	return []*policies.Lossless{a, b}
}

// The capability table cannot drift from the vendor models: for each
// profile, a policy at the edge of every limit validate enforces (both
// ends) is rendered, applied to the simulator and the resulting config is
// checked by yanglint against the pinned YANG, every leaf against its
// type, range, pattern and length. Then, where a row's limit is the
// model's own (not a narrower platform fact), one step past it in the
// applied data is refused by the model, so the row is not looser either.
func TestCapabilityLimitsMatchVendorYANG(t *testing.T) {
	type past struct {
		what   string // the YANG statement the row copies
		mutate func(t *testing.T, doc map[string]any)
		want   string // in yanglint's complaint
	}
	beyond := map[string][]past{
		"sonic": {
			{"sonic-port.yang PORT_LIST/mtu range 68..9216", func(t *testing.T, doc map[string]any) {
				node(t, doc, "sonic-port:sonic-port", "PORT", "PORT_LIST[name=Ethernet0]")["mtu"] = json.Number("9217")
			}, "9217"},
			{"sonic-pfcwd.yang detection_time range 100..5000", func(t *testing.T, doc map[string]any) {
				node(t, doc, "sonic-pfcwd:sonic-pfcwd", "PFC_WD", "PFC_WD_LIST[ifname=Ethernet0]")["detection_time"] = json.Number("5001")
			}, "5001"},
			{"sonic-pfcwd.yang restoration_time range 100..60000", func(t *testing.T, doc map[string]any) {
				node(t, doc, "sonic-pfcwd:sonic-pfcwd", "PFC_WD", "PFC_WD_LIST[ifname=Ethernet0]")["restoration_time"] = json.Number("60001")
			}, "60001"},
			{"sonic-wred-profile.yang name length 1..32", func(t *testing.T, doc map[string]any) {
				renameWRED(t, doc, "ROCE-a"+strings.Repeat("x", 27))
			}, "length"},
			{"sonic-wred-profile.yang name pattern [a-zA-Z0-9]{1}([-a-zA-Z0-9_]{0,31})", func(t *testing.T, doc map[string]any) {
				renameWRED(t, doc, "ROCE-a.b")
			}, "ROCE-a.b"},
		},
	}
	for _, profile := range []string{"arista", "sonic", "srlinux"} {
		for _, max := range []bool{false, true} {
			end := "min"
			if max {
				end = "max"
			}
			t.Run(profile+" "+end, func(t *testing.T) {
				testenv.Tool(t, "yanglint", "Debian package libyang-tools; make deps-test installs it")
				classes := extremeClasses(t, profile, max)
				l := newLab(t, gnmisim.Options{Profile: profile}, classes...)
				if profile == "sonic" && !max {
					// SONiC's timers must also be at least the switch's
					// PFC_WD|GLOBAL POLL_INTERVAL (a device value, not a
					// platform limit; 200 ms after pfcwd start_default):
					// a switch polling at the model's fastest, 100 ms,
					// takes the row's minimum.
					if err := l.sim.Seed("/CONFIG_DB/localhost/PFC_WD/GLOBAL/POLL_INTERVAL", `"100"`); err != nil {
						t.Fatal(err)
					}
				}
				ctx := ctxT(t)
				tg := l.target(t, gnmi.Options{})
				tp, err := tg.Plan(ctx)
				if err != nil {
					t.Fatalf("plan at the row's limits: %v", err)
				}
				res, err := tg.Apply(ctx, tp)
				if err != nil || res.Status != plan.StatusApplied {
					t.Fatalf("apply at the row's limits: %s %v %+v\n%s", res.Status, err, res.Transcript, opsJSON(tp.Ops))
				}
				doc := instanceData(t, l.sim, profile)
				if msg := yanglint(t, profile, "config", doc); msg != "" {
					t.Fatalf("a policy validate accepts renders config the %s model refuses: %s\n--- SetRequest ops\n%s", profile, msg, opsJSON(tp.Ops))
				}
				if !max {
					return
				}
				for _, p := range beyond[profile] {
					d := instanceData(t, l.sim, profile)
					p.mutate(t, d)
					msg := yanglint(t, profile, "config", d)
					if msg == "" {
						t.Errorf("%s: one step past the row's limit is valid in the model, so the row is narrower than %s", p.what, p.what)
					} else if !strings.Contains(msg, p.want) {
						t.Errorf("%s: refused for another reason (want %q): %s", p.what, p.want, msg)
					}
				}
			})
		}
	}
}

// renameWRED renames the SONiC WRED profile the queues point at.
func renameWRED(t *testing.T, doc map[string]any, to string) {
	t.Helper()
	list := node(t, doc, "sonic-wred-profile:sonic-wred-profile", "WRED_PROFILE")["WRED_PROFILE_LIST"].([]any)
	old := list[0].(map[string]any)["name"]
	list[0].(map[string]any)["name"] = to
	q, ok := node(t, doc, "sonic-queue:sonic-queue", "QUEUE")["QUEUE_LIST"].([]any)
	if !ok {
		t.Fatal("no QUEUE_LIST")
	}
	for _, e := range q {
		if m := e.(map[string]any); m["wred_profile"] == old {
			m["wred_profile"] = to
		}
	}
}
