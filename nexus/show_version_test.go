package nexus

import (
	"strings"
	"testing"
	"time"
)

// TestShowVersionLastReset: the "Last reset" line has the real shape — with
// the time known, "Last reset at N usecs after  <ctime date>" and a blank
// line before "Reason:" (the 5000/7000 samples in the corpus); unknown, a
// bare "Last reset " — and reads back to the same time.
func TestShowVersionLastReset(t *testing.T) {
	v := Version{Platform: "Nexus5596", Chassis: "Chassis", OS: "7.1(4)N1(1)", Kickstart: "7.1(4)N1(1)"}
	for _, tc := range []struct {
		name string
		at   time.Time
		want string
	}{
		{"one-digit day", time.Date(2017, 11, 1, 21, 20, 35, 958444000, time.UTC),
			"\nLast reset at 958444 usecs after  Wed Nov  1 21:20:35 2017\n\n  Reason: Disruptive upgrade\n  System version: 7.1(4)N1(1)\n"},
		{"two-digit day, under a millisecond", time.Date(2018, 1, 18, 21, 17, 51, 2131000, time.UTC),
			"\nLast reset at 2131 usecs after  Thu Jan 18 21:17:51 2018\n\n  Reason: Disruptive upgrade\n"},
		{"unknown", time.Time{}, "\nLast reset \n  Reason: Disruptive upgrade\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := FormatShowVersionReport(VersionReport{Version: v, ResetReason: "Disruptive upgrade", LastReset: tc.at})
			if !strings.Contains(out, tc.want) {
				t.Fatalf("show version lacks %q:\n%s", tc.want, out)
			}
			r, err := ParseShowVersionReport(out)
			if err != nil {
				t.Fatal(err)
			}
			if !r.LastReset.Equal(tc.at) {
				t.Errorf("read back last reset %v, want %v", r.LastReset, tc.at)
			}
		})
	}
}

// TestParseLastReset: the time is read from the real variants of the line
// (5000/7000 with two blanks, a Nexus 9000 with one and a zone, a
// tech-support indent) and nothing else is taken for it.
func TestParseLastReset(t *testing.T) {
	for _, tc := range []struct {
		line string
		want time.Time // zero: not a last-reset time
	}{
		{"Last reset at 629197 usecs after  Thu Dec  5 15:17:54 2019", time.Date(2019, 12, 5, 15, 17, 54, 629197000, time.UTC)},
		{"    Last reset at 907924 usecs after  Sun Apr  3 13:46:00 2016", time.Date(2016, 4, 3, 13, 46, 0, 907924000, time.UTC)},
		{"Last reset at 20000 usecs after Mon Mar 25 11:44:47 2019 EDT", time.Date(2019, 3, 25, 11, 44, 47, 20000000, time.UTC)},
		{"Last reset at 1 usecs after Wed Nov 1 21:20:35 2017", time.Date(2017, 11, 1, 21, 20, 35, 1000, time.UTC)},
		{"Last reset ", time.Time{}},
		{"Last reset at 5 usecs after  Wed Foo 31 21:20:35 2017", time.Time{}},
		{"Last reset at 5 usecs after  Wed Feb 31 21:20:35 2017", time.Time{}},
		{"Last reset at 1234567 usecs after  Wed Nov  1 21:20:35 2017", time.Time{}},
		{"  Reason: Last reset at 5 usecs after  Wed Nov  1 21:20:35 2017", time.Time{}},
	} {
		got, ok := parseLastReset(tc.line)
		if ok != !tc.want.IsZero() || !got.Equal(tc.want) {
			t.Errorf("%q: %v %v, want %v", tc.line, got, ok, tc.want)
		}
	}
}

// FuzzParseLastReset: any line either gives a time that prints and reads
// back to itself, or none; never a panic.
func FuzzParseLastReset(f *testing.F) {
	f.Add("Last reset at 958444 usecs after  Wed Nov  1 21:20:35 2017")
	f.Add("Last reset at 20000 usecs after Mon Mar 25 11:44:47 2019 EDT")
	f.Add("Last reset ")
	f.Fuzz(func(t *testing.T, line string) {
		at, ok := parseLastReset(line)
		if !ok {
			return
		}
		out := FormatShowVersionReport(VersionReport{Version: Version{Platform: "Nexus5596", OS: "7.1(4)N1(1)"}, LastReset: at})
		r, err := ParseShowVersionReport(out)
		if err != nil || !r.LastReset.Equal(at) {
			t.Fatalf("%q: %v printed and read back as %v (%v)", line, at, r.LastReset, err)
		}
	})
}
