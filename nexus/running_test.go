package nexus

import "testing"

func TestNormaliseRunning(t *testing.T) {
	in := "\r\n!Command: show running-config ipqos\r\n!Time: Sun Nov 22 01:02:03 2026\r\n\r\nversion 7.1(4)N1(1)\r\n\r\nsystem qos   \r\n  service-policy type network-qos X\r\n"
	want := "system qos\n  service-policy type network-qos X\n"
	if got := NormaliseRunning(in); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func FuzzNormaliseRunning(f *testing.F) {
	f.Add("!Time: x\nversion 1\n\nsystem qos  \n")
	f.Fuzz(func(t *testing.T, s string) {
		n := NormaliseRunning(s)
		if NormaliseRunning(n) != n {
			t.Fatalf("not idempotent on %q", s)
		}
	})
}

// A banner delimited by "!" (its closing line is a lone "!") must
// survive normalisation, or the read config holds an unclosed banner and
// the switch can't be planned at all; the header comments still go.
func TestNormaliseRunningKeepsBanners(t *testing.T) {
	in := "!Command: show running-config\n!Running configuration last done at: Thu Nov 26 19:00:00 2026\n!Time: Thu Nov 26 19:01:00 2026\n\nversion 7.3(0)N1(1)\n" +
		"banner motd !\nAuthorised use only\nACME <ops>\n!\nhostname n5k\n"
	want := "banner motd !\nAuthorised use only\nACME <ops>\n!\nhostname n5k\n"
	got := NormaliseRunning(in)
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, err := Parse(got); err != nil {
		t.Fatalf("the normalised config does not parse: %v", err)
	}
}

// Every header comment NX-OS prints above a running or startup config
// is dropped by NormaliseRunning and kept as a Header (not an object) by
// Parse: one list of them serves both.
func TestHeaderCommentsOneList(t *testing.T) {
	for _, h := range []string{
		"!Command: show running-config",
		"!Time: Thu Nov 26 19:01:00 2026",
		"!Running configuration last done at: Thu Nov 26 19:00:00 2026",
		"!running configuration last done at: Thu Nov 26 19:00:00 2026",
		"!No configuration change since last restart",
		"!Startup config saved at: Thu Nov 26 18:00:00 2026",
	} {
		if got := NormaliseRunning(h + "\nhostname n5k\n"); got != "hostname n5k\n" {
			t.Errorf("NormaliseRunning kept %q: %q", h, got)
		}
		c, err := Parse(h + "\nhostname n5k\n")
		if err != nil {
			t.Fatalf("Parse(%q): %v", h, err)
		}
		if len(c.Header) != 1 || c.Header[0] != h || c.String() != "hostname n5k\n" {
			t.Errorf("Parse(%q): header %q, config %q", h, c.Header, c.String())
		}
	}
	// A comment that is not a header stays a comment to Parse and text to
	// NormaliseRunning (it may close a banner).
	if got := NormaliseRunning("!\nhostname n5k\n"); got != "!\nhostname n5k\n" {
		t.Errorf("a lone ! was dropped: %q", got)
	}
}
