package nxsim

import (
	"strings"
	"testing"
	"time"
)

// show startup-config prints the configuration saved last — the one the
// switch booted with until `copy running-config startup-config` — under
// the NX-OS header; a change not yet copied is in the running config only.
func TestStartupConfigTracksCopy(t *testing.T) {
	sw, err := New(Options{Platform: "nexus5000", Hostname: "leaf3", StartupConfig: "class-map type qos match-all c1\n  match cos 4\n" +
		"interface Ethernet1/2\n  mtu 9216\n"})
	if err != nil {
		t.Fatal(err)
	}
	boot := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	clock := boot
	sw.now = func() time.Time { return clock }
	sw.savedAt = boot
	s := &session{sw: sw}
	run := func(line string) string {
		t.Helper()
		out, err := s.execFiltered(line, 0)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return out
	}

	before := run("show startup-config")
	wantHead := "\n!Command: show startup-config\n!Time: Thu Nov 26 09:00:00 2026\n!Startup config saved at: Thu Nov 26 09:00:00 2026\n\nversion 7.1(4)N1(1)\n\n"
	if !strings.HasPrefix(before, wantHead) {
		t.Fatalf("header:\n%q\nwant prefix\n%q", before, wantHead)
	}
	if !strings.Contains(before, "class-map type qos match-all c1\n  match cos 4\n") {
		t.Fatalf("boot config missing from startup-config:\n%s", before)
	}

	if err := sw.Configure("class-map type qos match-all c2", "match cos 5"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(run("show startup-config"), "c2") || strings.Contains(sw.StartupConfig(), "c2") {
		t.Fatal("an unsaved change is in the startup config")
	}
	if !strings.Contains(sw.RunningConfig(), "class-map type qos match-all c2") {
		t.Fatal("the change is not in the running config")
	}

	clock = boot.Add(90 * time.Minute)
	if out := run("copy running-config startup-config"); !strings.HasSuffix(out, "Copy complete.") {
		t.Fatalf("copy: %q", out)
	}
	if got, want := sw.StartupConfig(), sw.RunningConfig(); got != want {
		t.Fatalf("after copy, startup\n%s\nwant running\n%s", got, want)
	}
	after := run("sh startup-config ipqos")
	for _, w := range []string{"!Command: show startup-config ipqos\n", "!Startup config saved at: Thu Nov 26 10:30:00 2026\n",
		"class-map type qos match-all c2\n  match cos 5\n"} {
		if !strings.Contains(after, w) {
			t.Errorf("show startup-config ipqos lacks %q:\n%s", w, after)
		}
	}
	if strings.Contains(after, "interface Ethernet1/2") {
		t.Errorf("ipqos section shows an interface:\n%s", after)
	}
	intf := run("show startup-config interface Ethernet1/2")
	if !strings.Contains(intf, "!Command: show startup-config interface Ethernet1/2\n") || !strings.Contains(intf, "interface Ethernet1/2\n  mtu 9216") {
		t.Errorf("show startup-config interface:\n%s", intf)
	}
	if out := run("show startup-config bogus"); !strings.Contains(out, "% Invalid command at '^' marker.") {
		t.Errorf("unknown section: %q", out)
	}
}
