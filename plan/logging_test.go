package plan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestNewLogger(t *testing.T) {
	tests := []struct {
		level, format string
		wantDebug     bool
		wantInfo      bool
		json          bool
	}{
		{"debug", "text", true, true, false},
		{"info", "json", false, true, true},
		{"", "", false, true, false},
		{"WARN", "JSON", false, false, true},
		{"warning", "text", false, false, false},
		{"error", "text", false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.level+"/"+tc.format, func(t *testing.T) {
			var buf bytes.Buffer
			l, err := NewLogger(&buf, tc.level, tc.format)
			if err != nil {
				t.Fatal(err)
			}
			l.Debug("dbg", "target", "switch.a")
			if got := strings.Contains(buf.String(), "dbg"); got != tc.wantDebug {
				t.Errorf("debug logged = %v, want %v", got, tc.wantDebug)
			}
			buf.Reset()
			l.Info("inf", "target", "switch.a")
			if got := strings.Contains(buf.String(), "inf"); got != tc.wantInfo {
				t.Errorf("info logged = %v, want %v", got, tc.wantInfo)
			}
			buf.Reset()
			l.Error("boom", "target", "switch.a")
			var rec map[string]any
			isJSON := json.Unmarshal(buf.Bytes(), &rec) == nil
			if isJSON != tc.json {
				t.Errorf("JSON output = %v, want %v: %q", isJSON, tc.json, buf.String())
			}
			if tc.json && rec["target"] != "switch.a" {
				t.Errorf("JSON record = %v", rec)
			}
			if !tc.json && !strings.Contains(buf.String(), "target=switch.a") {
				t.Errorf("text record = %q", buf.String())
			}
		})
	}
}

func TestNewLoggerRejectsUnknownValues(t *testing.T) {
	tests := []struct {
		level, format, want string
	}{
		{"verbose", "text", `-log-level "verbose" is not a log level; use one of debug, info, warn, error`},
		{"info", "yaml", `-log-format "yaml" is not a log format; use one of text, json`},
	}
	for _, tc := range tests {
		l, err := NewLogger(&bytes.Buffer{}, tc.level, tc.format)
		if err == nil || err.Error() != tc.want || l != nil {
			t.Errorf("NewLogger(%q, %q) = %v, %v; want error %q", tc.level, tc.format, l, err, tc.want)
		}
	}
}
