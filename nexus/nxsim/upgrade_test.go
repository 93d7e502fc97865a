package nxsim

import (
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/nexus"
)

// n7kLossless is a 7000 running roce's copy of the 6e template with CoS 4
// no-drop, as roce-apply leaves it.
const n7kLossless = `policy-map type network-qos ROCE-nq-6e
  class type network-qos c-nq-6e-drop
    congestion-control tail-drop
    mtu 1500
  class type network-qos c-nq-6e-ndrop-fcoe
    pause no-drop
    mtu 2112
  class type network-qos c-nq-6e-ndrop
    pause no-drop
    mtu 9214
system qos
  service-policy type network-qos ROCE-nq-6e
interface Ethernet1/1
  priority-flow-control mode on
`

func pfcBitmap(t *testing.T, sw *Switch, port string) uint8 {
	t.Helper()
	out := sw.showPFCForTest()
	rows, err := nexus.ParseShowPFC(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Interface == port {
			return r.VLBitmap
		}
	}
	t.Fatalf("no PFC row for %s in:\n%s", port, out)
	return 0
}

func (sw *Switch) showPFCForTest() string {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return nexus.FormatShowPFC(sw.pfcRows(sw.cfg))
}

// TestUpgrade7000Across515: 5.1(3) → 5.1(5) takes pause no-drop from the
// copied template's CoS 4 class (the modelled default change), so PFC no
// longer covers CoS 4; show version reports the new release. Later steps
// without a modelled change only change the version.
func TestUpgrade7000Across515(t *testing.T) {
	sw, err := New(Options{Platform: "nexus7000", Hostname: "n7k", Version: "5.1(3)", Modules: sup1Era(), StartupConfig: n7kLossless})
	if err != nil {
		t.Fatal(err)
	}
	if got := pfcBitmap(t, sw, "Ethernet1/1"); got != 1<<3|1<<4 {
		t.Fatalf("before the upgrade: PFC bitmap 0x%02x, want CoS 3 and 4", got)
	}
	res, err := sw.Upgrade("5.1(5)", UpgradeOptions{SaveFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.From != "5.1(3)" || res.To != "5.1(5)" || len(res.Changes) != 1 || !strings.Contains(res.Changes[0], "c-nq-6e-ndrop") {
		t.Fatalf("result %+v, want one change on c-nq-6e-ndrop", res)
	}
	cfg, err := nexus.Parse(sw.RunningConfig())
	if err != nil {
		t.Fatal(err)
	}
	cls := cfg.PolicyMap(nexus.TypeNetworkQoS, "ROCE-nq-6e").Class("c-nq-6e-ndrop")
	if strings.Join(cls.Actions, "|") != "congestion-control tail-drop|mtu 9214" {
		t.Errorf("c-nq-6e-ndrop after the upgrade: %q, want tail-drop and the configured MTU kept", cls.Actions)
	}
	if got := pfcBitmap(t, sw, "Ethernet1/1"); got != 1<<3 {
		t.Errorf("after the upgrade: PFC bitmap 0x%02x, want CoS 3 only", got)
	}
	v, err := nexus.ParseShowVersion(sw.showVersion())
	if err != nil {
		t.Fatal(err)
	}
	if v.OS != "5.1(5)" || !strings.Contains(v.Image, "5.1.5") {
		t.Errorf("show version after the upgrade: %+v", v)
	}
	if !strings.Contains(sw.showRunning("show running-config", ""), "version 5.1(5)") {
		t.Error("show running-config does not print the new version")
	}

	// Re-applying the pause (what roce-apply does) sticks; a further
	// upgrade with no modelled step changes nothing but the version.
	before := sw.RunningConfig()
	res, err = sw.Upgrade("6.2(14)", UpgradeOptions{SaveFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 0 || sw.RunningConfig() != before || sw.Version() != "6.2(14)" {
		t.Errorf("6.2(14): %+v, config changed %v, version %s", res, sw.RunningConfig() != before, sw.Version())
	}
}

// TestUpgradeAlreadyPast515: a switch already on 5.1(5) or later keeps its
// config when upgraded again (the step applies once, when crossed).
func TestUpgradeAlreadyPast515(t *testing.T) {
	sw, err := New(Options{Platform: "nexus7000", Version: "6.2(14)", StartupConfig: n7kLossless})
	if err != nil {
		t.Fatal(err)
	}
	before := sw.RunningConfig()
	if res, err := sw.Upgrade("6.2(16)", UpgradeOptions{SaveFirst: true}); err != nil || len(res.Changes) != 0 || sw.RunningConfig() != before {
		t.Errorf("6.2(14) → 6.2(16): %+v, %v", res, err)
	}
}

func TestUpgradeRejects(t *testing.T) {
	for _, tc := range []struct{ platform, version string }{
		{"nexus7000", "7.1(4)N1(1)"}, // a 5000 release on a 7000
		{"nexus5000", "6.2(14)"},     // and the other way round
		{"nexus7000", "latest"},
		{"nexus7000", ""},
	} {
		sw, err := New(Options{Platform: tc.platform})
		if err != nil {
			t.Fatal(err)
		}
		old := sw.Version()
		if _, err := sw.Upgrade(tc.version, UpgradeOptions{}); err == nil {
			t.Errorf("%s accepted release %q", tc.platform, tc.version)
		}
		if sw.Version() != old {
			t.Errorf("%s: a refused upgrade changed the version to %s", tc.platform, sw.Version())
		}
	}
}

// TestUpgrade5000: the 5000 has no modelled default change: the version
// strings move, the config stays.
func TestUpgrade5000(t *testing.T) {
	sw, err := New(Options{Platform: "nexus5000", Version: "7.1(4)N1(1)", StartupConfig: "system qos\n  service-policy type network-qos fcoe-default-nq-policy\n"})
	if err != nil {
		t.Fatal(err)
	}
	before := sw.RunningConfig()
	res, err := sw.Upgrade("7.3(8)N1(1)", UpgradeOptions{SaveFirst: true})
	if err != nil || len(res.Changes) != 0 || sw.RunningConfig() != before {
		t.Fatalf("%+v, %v", res, err)
	}
	if v, _ := nexus.ParseShowVersion(sw.showVersion()); v.OS != "7.3(8)N1(1)" || !strings.Contains(v.Image, "7.3.8.N1.1") {
		t.Errorf("show version: %+v", v)
	}
}

// FuzzUpgradeVersion: any version string a user types is either refused or
// installed as typed, and never panics or leaves the switch half-upgraded.
func FuzzUpgradeVersion(f *testing.F) {
	for _, s := range []string{"5.1(5)", "6.2(14)", "7.3(8)N1(1)", "", "5.1(", "99999999999999999999.1(1)", "5.1(5)\n"} {
		f.Add("nexus7000", s)
		f.Add("nexus5000", s)
	}
	f.Fuzz(func(t *testing.T, platform, version string) {
		if platform != "nexus5000" {
			platform = "nexus7000"
		}
		opts := Options{Platform: platform, Version: map[string]string{"nexus7000": "5.1(3)", "nexus5000": "7.1(4)N1(1)"}[platform]}
		if platform == "nexus7000" {
			opts.Modules = sup1Era() // a 5.1(3) 7000 has no Supervisor 2 or F2 card
		}
		sw, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		old := sw.Version()
		res, err := sw.Upgrade(version, UpgradeOptions{SaveFirst: true})
		switch {
		case err != nil && sw.Version() != old:
			t.Fatalf("refused %q but the version moved to %q", version, sw.Version())
		case err == nil && (sw.Version() != version || res.To != version):
			t.Fatalf("installed %q as %q (%+v)", version, sw.Version(), res)
		}
	})
}

// TestUpgradeResetsUptime: the reload of an upgrade restarts the uptime
// and show version gives the reason a real switch prints after `install
// all` ("Disruptive upgrade").
func TestUpgradeResetsUptime(t *testing.T) {
	sw, err := New(Options{Platform: "nexus7000", Hostname: "n7k", Version: "5.1(3)", Modules: sup1Era(), StartupConfig: n7kLossless})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	now := t0
	sw.mu.Lock()
	sw.now, sw.booted = func() time.Time { return now }, t0.Add(-50*time.Hour)
	sw.mu.Unlock()
	before, err := nexus.ParseShowVersionReport(sw.showVersion())
	if err != nil {
		t.Fatal(err)
	}
	if before.ResetReason == ResetReasonUpgrade || before.Uptime != 50*time.Hour {
		t.Fatalf("before the upgrade: reason %q, uptime %v", before.ResetReason, before.Uptime)
	}
	if _, err := sw.Upgrade("5.1(5)", UpgradeOptions{SaveFirst: true}); err != nil {
		t.Fatal(err)
	}
	now = t0.Add(90 * time.Second)
	v, err := nexus.ParseShowVersionReport(sw.showVersion())
	if err != nil {
		t.Fatal(err)
	}
	if v.ResetReason != "Disruptive upgrade" || v.Uptime != 90*time.Second {
		t.Errorf("after the upgrade: reason %q, uptime %v; want Disruptive upgrade, 1m30s", v.ResetReason, v.Uptime)
	}
	if at, why := sw.LastReset(); !at.Equal(t0) || why != ResetReasonUpgrade {
		t.Errorf("LastReset = %v %q", at, why)
	}
}

// TestUpgradeBootsTheStartupConfig: the reload boots the saved
// configuration. Changes not saved with copy running-config
// startup-config are gone after it, and the result names them; saved
// first, they stay.
func TestUpgradeBootsTheStartupConfig(t *testing.T) {
	const startup = "interface Ethernet1/1\n  priority-flow-control mode on\n"
	const applied = `class-map type qos match-all ROCE-rocev2
  match cos 4
policy-map type qos ROCE-QOS-IN
  class ROCE-rocev2
    set qos-group 2
interface Ethernet1/1
  priority-flow-control mode on
interface Ethernet1/2
  priority-flow-control mode on
`
	for _, tc := range []struct {
		name      string
		o         UpgradeOptions
		kept      bool
		wantLost  []string
		notInLost string
	}{
		{"saved first", UpgradeOptions{SaveFirst: true}, true, nil, ""},
		{"not saved", UpgradeOptions{}, false, []string{"the reload booted the startup configuration saved at ", "'policy-map type qos ROCE-QOS-IN' (not saved)", "'interface Ethernet1/2' (not saved)", "class-map type qos ROCE-rocev2"}, "'interface Ethernet1/1'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw, err := New(Options{Platform: "nexus5000", Hostname: "n5k", Version: "7.1(4)N1(1)", StartupConfig: startup})
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := nexus.Parse(applied)
			if err != nil {
				t.Fatal(err)
			}
			sw.mu.Lock()
			sw.cfg = cfg // what roce-apply leaves, not saved
			sw.mu.Unlock()
			res, err := sw.Upgrade("7.3(8)N1(1)", tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if kept := strings.Contains(sw.RunningConfig(), "ROCE-QOS-IN"); kept != tc.kept {
				t.Errorf("roce's objects kept %v, want %v:\n%s", kept, tc.kept, sw.RunningConfig())
			}
			all := strings.Join(res.Changes, "\n")
			if tc.wantLost == nil && all != "" {
				t.Errorf("saved first: changes %q, want none", res.Changes)
			}
			for _, w := range tc.wantLost {
				if !strings.Contains(all, w) {
					t.Errorf("changes %q lack %q", res.Changes, w)
				}
			}
			if tc.notInLost != "" && strings.Contains(all, tc.notInLost) {
				t.Errorf("changes %q name %s, which was saved", res.Changes, tc.notInLost)
			}
			if sw.StartupConfig() != sw.RunningConfig() {
				t.Errorf("after the reload the running config is not the startup config")
			}
		})
	}
}
