package policies

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// gnmiLimitPolicy is one switch of the profile carrying the given classes
// (HCL bodies, in order); the NIC carries the first class.
func gnmiLimitPolicy(profile, iface string, classes ...string) string {
	var b strings.Builder
	for i, c := range classes {
		fmt.Fprintf(&b, "lossless \"c%d\" {\n%s}\n", i, c)
	}
	fmt.Fprintf(&b, `switch "leaf" {
  platform   = "gnmi"
  profile    = %q
  address    = "192.0.2.5:6030"
  interfaces = [%q]
}
host "h" {
  local = true
  nic "eth0" {
    lossless = "c0"
    vlan     = 100
  }
}
`, profile, iface)
	return b.String()
}

// renamed gives the first class of a policy another name.
func renamed(src, name string) string {
	return strings.Replace(src, `lossless "c0"`, fmt.Sprintf("lossless %q", name), 1)
}

// posOf is "main.hcl:line:col" of the first occurrence of token in src.
func posOf(t *testing.T, src, token string) string {
	t.Helper()
	i := strings.Index(src, token)
	if i < 0 {
		t.Fatalf("%q not in the policy", token)
	}
	line := strings.Count(src[:i], "\n") + 1
	col := i - strings.LastIndex(src[:i], "\n")
	return fmt.Sprintf("main.hcl:%d:%d", line, col)
}

// TestGNMIProfileLimitsAtValidate: for each gNMI profile and each value
// whose range the device's model limits (the profile's row of the
// capability table), the boundary values pass `roce-plan validate` and the
// values just outside fail it, at the attribute, naming the value, the
// range and the profile.
func TestGNMIProfileLimitsAtValidate(t *testing.T) {
	ifaces := map[string]string{ProfileArista: "Ethernet1", ProfileSONiC: "Ethernet0", ProfileSRLinux: "ethernet-1/1"}
	dscp := func(extra string) string { return "  dscp     = 26\n  priority = 3\n" + extra }
	mtu := func(n int) string { return dscp(fmt.Sprintf("  mtu      = %d\n", n)) }
	wd := func(det, rest int, action string) string {
		return dscp(fmt.Sprintf("  pfc_watchdog {\n    detection_ms   = %d\n    restoration_ms = %d\n    action         = %q\n  }\n", det, rest, action))
	}
	ecn := dscp("  ecn {\n    min_threshold_kb = 100\n    max_threshold_kb = 400\n  }\n")
	long := func(n int) string { return "r" + strings.Repeat("x", n-1) }
	type tc struct {
		name    string
		profile string
		classes []string
		rename  string   // the first class's name, when not c0
		at      string   // token whose position the error is at ("" = ok)
		want    []string // in the error
	}
	cases := []tc{
		// MTU: arista 1500-9214 (UNCONFIRMED top), sonic 1500-9216
		// (sonic-port.yang), srlinux 1500-9412 (srl_nokia-interfaces.yang,
		// 7220 IXR).
		{"arista mtu min", ProfileArista, []string{mtu(1500)}, "", "", nil},
		{"arista mtu max", ProfileArista, []string{mtu(9214)}, "", "", nil},
		{"arista mtu below", ProfileArista, []string{mtu(1499)}, "", "mtu", []string{"1499", "1500-9214", "gnmi/arista"}},
		{"arista mtu above", ProfileArista, []string{mtu(9215)}, "", "mtu", []string{"9215", "1500-9214", "gnmi/arista"}},
		{"sonic mtu max", ProfileSONiC, []string{mtu(9216)}, "", "", nil},
		{"sonic mtu above", ProfileSONiC, []string{mtu(9217)}, "", "mtu", []string{"9217", "1500-9216", "gnmi/sonic"}},
		{"sonic mtu below", ProfileSONiC, []string{mtu(1499)}, "", "mtu", []string{"1499", "1500-9216", "gnmi/sonic"}},
		{"srlinux mtu max", ProfileSRLinux, []string{mtu(9412)}, "", "", nil},
		{"srlinux mtu above", ProfileSRLinux, []string{mtu(9413)}, "", "mtu", []string{"9413", "1500-9412", "gnmi/srlinux"}},
		{"srlinux mtu below", ProfileSRLinux, []string{mtu(1499)}, "", "mtu", []string{"1499", "1500-9412", "gnmi/srlinux"}},
		// PFC watchdog: sonic-pfcwd.yang detection_time 100..5000,
		// restoration_time 100..60000; Arista decimal64 seconds with two
		// fraction digits (steps of 10 ms); SR Linux: no watchdog.
		{"sonic detection min", ProfileSONiC, []string{wd(100, 100, "drop")}, "", "", nil},
		{"sonic detection max", ProfileSONiC, []string{wd(5000, 60000, "forward")}, "", "", nil},
		{"sonic detection below", ProfileSONiC, []string{wd(99, 200, "drop")}, "", "pfc_watchdog", []string{"99", "100-5000", "detection", "gnmi/sonic"}},
		{"sonic detection above", ProfileSONiC, []string{wd(5001, 200, "drop")}, "", "pfc_watchdog", []string{"5001", "100-5000", "gnmi/sonic"}},
		{"sonic restoration below", ProfileSONiC, []string{wd(200, 99, "drop")}, "", "pfc_watchdog", []string{"99", "100-60000", "restoration", "gnmi/sonic"}},
		{"arista watchdog steps", ProfileArista, []string{wd(10, 60000, "forward")}, "", "", nil},
		{"arista detection off step", ProfileArista, []string{wd(15, 200, "drop")}, "", "pfc_watchdog", []string{"15", "steps of 10 ms", "gnmi/arista"}},
		{"arista restoration off step", ProfileArista, []string{wd(200, 1005, "drop")}, "", "pfc_watchdog", []string{"1005", "steps of 10 ms", "gnmi/arista"}},
		{"srlinux watchdog", ProfileSRLinux, []string{wd(200, 200, "drop")}, "", "pfc_watchdog", []string{"gnmi/srlinux has no configurable PFC watchdog"}},
		// SONiC WRED_PROFILE name (sonic-wred-profile.yang: pattern
		// [a-zA-Z0-9][-a-zA-Z0-9_]{0,31}, length 1..32) = ROCE-<class>.
		{"sonic ecn name 27", ProfileSONiC, []string{ecn}, long(27), "", nil},
		{"sonic ecn name 28", ProfileSONiC, []string{ecn}, long(28), "lossless", []string{long(28), "ROCE-" + long(28), "at most 32", "up to 27", "gnmi/sonic"}},
		{"sonic ecn name dot", ProfileSONiC, []string{ecn}, "roce.v2", "lossless", []string{`"roce.v2"`, "ROCE-roce.v2", "no '.'", "gnmi/sonic"}},
		{"sonic no ecn name dot", ProfileSONiC, []string{dscp("")}, "roce.v2", "", nil},
		{"sonic no ecn name 32", ProfileSONiC, []string{dscp("")}, long(32), "", nil},
		{"arista ecn name 32", ProfileArista, []string{ecn}, long(32), "", nil},
		// DSCP and dot1p maps: one traffic class per value (sonic, srlinux).
		{"sonic dscp twice", ProfileSONiC, []string{dscp(""), "  dscp     = [24, 26]\n  priority = 4\n"}, "", "dscp     = [24", []string{"dscp 26", `"c0"`, "priority 3, not 4", "gnmi/sonic"}},
		{"srlinux dscp twice", ProfileSRLinux, []string{dscp(""), "  dscp     = [24, 26]\n  priority = 4\n"}, "", "dscp     = [24", []string{"dscp 26", "gnmi/srlinux"}},
		{"arista dscp twice", ProfileArista, []string{dscp(""), "  dscp     = [24, 26]\n  priority = 4\n"}, "", "", nil},
		{"sonic cos twice", ProfileSONiC, []string{"  cos      = [3, 4]\n  priority = 3\n", "  cos      = 4\n  priority = 4\n"}, "", "cos      = 4", []string{"cos 4", "priority 3, not 4", "gnmi/sonic"}},
		{"srlinux cos apart", ProfileSRLinux, []string{"  cos      = 3\n  priority = 3\n", "  cos      = 4\n  priority = 4\n"}, "", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := gnmiLimitPolicy(c.profile, ifaces[c.profile], c.classes...)
			if c.rename != "" {
				src = strings.ReplaceAll(renamed(src, c.rename), `lossless = "c0"`, fmt.Sprintf("lossless = %q", c.rename))
			}
			_, _, diags, _ := loadString(t, src)
			if c.at == "" {
				if diags.HasErrors() {
					t.Fatalf("want valid, got:\n%s\n%s", describeDiags(diags), src)
				}
				return
			}
			var d *hcl.Diagnostic
			for _, x := range diags {
				if x.Severity == hcl.DiagError && strings.Contains(x.Detail, c.want[0]) {
					d = x
				}
			}
			if d == nil {
				t.Fatalf("no error naming %q; got:\n%s\n%s", c.want[0], describeDiags(diags), src)
			}
			for _, w := range c.want {
				if !strings.Contains(d.Detail, w) {
					t.Errorf("error %q does not say %q", d.Detail, w)
				}
			}
			// At the first occurrence of the token: the attribute, the
			// class block, or (code points) the second class's value.
			at := c.at
			if c.at == "lossless" {
				at = `lossless "`
			}
			if got, want := diagPos(d), posOf(t, src, at); got != want {
				t.Errorf("error at %s, want %s (%s)", got, want, d.Detail)
			}
		})
	}
}

// TestOpenConfigRefusesEachLosslessPart: the openconfig profile refuses
// every lossless class at validate, naming what that class needs that
// upstream OpenConfig cannot express, and what the profile can write.
func TestOpenConfigRefusesEachLosslessPart(t *testing.T) {
	cases := []struct {
		name  string
		class string
		needs []string
	}{
		{"dscp", "  dscp     = 26\n  priority = 3\n", []string{"PFC no-drop on priority 3"}},
		{"udp_port", "  udp_port = 4791\n  dscp     = 26\n  priority = 3\n", []string{"PFC no-drop on priority 3"}},
		{"cos", "  cos      = 4\n", []string{"PFC no-drop on priority 4", "a CoS (802.1p) match"}},
		{"ethertype", "  ethertype = \"0x8915\"\n  priority  = 3\n", []string{"an Ethertype match bound to an interface"}},
		{"all", "  all      = true\n  priority = 3\n", []string{"every frame lossless"}},
		{"watchdog", "  dscp     = 26\n  priority = 3\n  pfc_watchdog {\n    detection_ms = 200\n  }\n", []string{"a PFC watchdog"}},
		{"ecn", "  dscp     = 26\n  priority = 3\n  ecn {\n    min_threshold_kb = 100\n    max_threshold_kb = 400\n  }\n", []string{"PFC no-drop on priority 3"}},
	}
	cannot := []string{
		"PFC no-drop on the class's priority", "the reaction to received PFC pause frames", "the PFC watchdog",
		"a CoS (802.1p) or Ethertype match bound to an interface",
		"It can write only a DSCP or UDP-port classifier, forwarding group, queue, scheduler, ECN (WRED) profile and the MTU",
		"not lossless", `Use profile = "arista", "sonic" or "srlinux"`,
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := gnmiLimitPolicy(ProfileOpenConfig, "Ethernet1", c.class)
			_, _, diags, _ := loadString(t, src)
			var d *hcl.Diagnostic
			for _, x := range diags {
				if x.Severity == hcl.DiagError && x.Summary == "Platform cannot pause per priority" {
					d = x
				}
			}
			if d == nil {
				t.Fatalf("not refused as lossless on openconfig:\n%s", describeDiags(diags))
			}
			for _, w := range append(append([]string{`lossless "c0" needs`}, c.needs...), cannot...) {
				if !strings.Contains(d.Detail, w) {
					t.Errorf("message does not say %q:\n%s", w, d.Detail)
				}
			}
			if got, want := diagPos(d), posOf(t, src, "profile"); got != want {
				t.Errorf("error at %s, want the switch's profile at %s", got, want)
			}
		})
	}
}
