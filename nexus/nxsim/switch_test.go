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
