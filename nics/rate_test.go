package nics

import (
	"math"
	"strings"
	"testing"
)

func TestParseRateGbps(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  string
	}{
		{"100 Gb/sec (4X EDR)\n", 100, ""},
		{"25 Gb/sec (1X EDR)", 25, ""},
		{"2.5 Gb/sec (1X SDR)", 2.5, ""},
		{"", 0, "want"},
		{"100 Mb/sec", 0, "want"},
		{"fast Gb/sec", 0, "not a positive rate"},
		{"-3 Gb/sec", 0, "not a positive rate"},
		{"NaN Gb/sec", 0, "not a positive rate"},
	}
	for _, tc := range tests {
		got, err := ParseRateGbps(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRateGbps(%q) err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseRateGbps(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseRateGbps(f *testing.F) {
	for _, s := range []string{"100 Gb/sec (4X EDR)", "25 Gb/sec (1X EDR)", "0 Gb/sec", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRateGbps(s)
		if err == nil && (v <= 0 || math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("ParseRateGbps(%q) = %v without error", s, v)
		}
	})
}

func TestFormatRateGbpsRoundTrips(t *testing.T) {
	for _, g := range []int{10, 25, 100, 400} {
		if v, err := ParseRateGbps(FormatRateGbps(g)); err != nil || v != float64(g) {
			t.Errorf("%d: %q parsed as %v, %v", g, FormatRateGbps(g), v, err)
		}
	}
}
