package nxsim

import (
	"strings"
	"testing"
)

func TestStartupConfigAdopted(t *testing.T) {
	startup := "!Command: show running-config\n!Time: x\n\nversion 5.2(1)N1(4)\nhostname N5K-A\nfeature lldp\nsystem qos\n  service-policy type network-qos fcoe-default-nq-policy\n"
	for _, tc := range []struct {
		hostname, want string
	}{
		{"", "N5K-A"},
		{"lab1", "lab1"},
	} {
		sw, err := New(Options{Platform: "nexus5000", Hostname: tc.hostname, StartupConfig: startup})
		if err != nil {
			t.Fatal(err)
		}
		if sw.Hostname() != tc.want {
			t.Errorf("hostname %q, want %q", sw.Hostname(), tc.want)
		}
		rc := sw.RunningConfig()
		if strings.Contains(rc, "version 5.2") || !strings.HasPrefix(rc, "hostname N5K-A\nfeature lldp\nsystem qos\n") {
			t.Errorf("running config = %q", rc)
		}
	}
}

func TestNewRejects(t *testing.T) {
	for _, o := range []Options{
		{Platform: "nexus9000"},
		{Platform: "nexus5000", VDC: "prod"},
		{Platform: "nexus5000", StartupConfig: "  indented first line\n"},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

func TestImageFor(t *testing.T) {
	for _, tc := range []struct{ kind, v, want string }{
		{"nexus5000", "7.1(4)N1(1)", "bootflash:///n5000-uk9.7.1.4.N1.1.bin"},
		{"nexus5000", "5.2(1)N1(4)", "bootflash:///n5000-uk9.5.2.1.N1.4.bin"},
		{"nexus7000", "6.2(14)", "bootflash:///n7000-s2-dk9.6.2.14.bin"},
	} {
		if got := imageFor(tc.kind, tc.v); got != tc.want {
			t.Errorf("imageFor(%s, %s) = %s, want %s", tc.kind, tc.v, got, tc.want)
		}
	}
}

func TestExpandInterfaces(t *testing.T) {
	sw := newTestSwitch(t, Options{})
	for _, tc := range []struct {
		in, want string
		bad      bool
	}{
		{in: "Ethernet1/1-3", want: "Ethernet1/1 Ethernet1/2 Ethernet1/3"},
		{in: "e1/1, 1/7", want: "Ethernet1/1 Ethernet1/7"},
		{in: "eth 1/4 - 5,Ethernet1/9", want: "Ethernet1/4 Ethernet1/5 Ethernet1/9"},
		{in: "Ethernet1/3-1", bad: true},
		{in: "Ethernet9/1", bad: true},
		{in: "bogus", bad: true},
	} {
		got, err := sw.expandInterfaces(tc.in)
		if (err != nil) != tc.bad || strings.Join(got, " ") != tc.want {
			t.Errorf("expandInterfaces(%q) = %v, %v", tc.in, got, err)
		}
	}
}

// A switch named by Options.Hostname prints `hostname NAME` in `show
// running-config` right after the version line, before the rest (where
// NX-OS prints it: docs/nxos.md#hostname-line); a startup config that
// names the switch itself keeps its one line; a section such as ipqos
// does not hold it.
func TestHostnameInRunningConfig(t *testing.T) {
	tests := []struct {
		name, platform, hostname, startup string
		want                              string // the body after the header
	}{
		{name: "5000 empty config", platform: "nexus5000", hostname: "leaf5", want: "version 7.1(4)N1(1)\n\nhostname leaf5\n"},
		{name: "before the startup config's lines", platform: "nexus5000", hostname: "leaf5", startup: "feature lldp\ninterface Ethernet1/1\n  mtu 9216\n",
			want: "version 7.1(4)N1(1)\n\nhostname leaf5\nfeature lldp\ninterface Ethernet1/1\n  mtu 9216\n"},
		{name: "7000", platform: "nexus7000", hostname: "agg7", want: "version 6.2(14)\n\nhostname agg7\n"},
		{name: "startup config's own line kept once", platform: "nexus5000", startup: "feature lldp\nhostname N5K-A\n",
			want: "version 7.1(4)N1(1)\n\nfeature lldp\nhostname N5K-A\n"},
		{name: "startup config's switchname", platform: "nexus5000", startup: "switchname N5K-B\n",
			want: "version 7.1(4)N1(1)\n\nswitchname N5K-B\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sw, err := New(Options{Platform: tt.platform, Hostname: tt.hostname, StartupConfig: tt.startup})
			if err != nil {
				t.Fatal(err)
			}
			out := sw.showRunning("show running-config", "")
			if _, body, _ := strings.Cut(out, "\n\n"); body != tt.want {
				t.Errorf("show running-config body %q, want %q", body, tt.want)
			}
			if sec := sw.showRunning("show running-config ipqos", "ipqos"); strings.Contains(sec, "hostname") {
				t.Errorf("show running-config ipqos holds the hostname:\n%s", sec)
			}
		})
	}
}
