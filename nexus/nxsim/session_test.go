package nxsim

import (
	"strings"
	"testing"
)

func TestScrapliExecCommands(t *testing.T) {
	srv := startServer(t, Options{})
	d := openScrapli(t, srv)
	for _, tc := range []struct {
		cmd  string
		want string
		fail bool
	}{
		{cmd: "show checkpoint summary", want: "User Checkpoint Summary"},
		{cmd: "sh run ipqos", want: "!Command: show running-config ipqos"},
		{cmd: "show bogus", want: "          ^\n% Invalid command at '^' marker.", fail: true},
		{cmd: "show running-config interface", want: "!Command: show running-config interface"},
		{cmd: "show", want: "% Incomplete command at '^' marker.", fail: true},
		{cmd: "co", want: "% Ambiguous command at '^' marker.", fail: true},
	} {
		r, err := d.SendCommand(tc.cmd)
		if err != nil {
			t.Fatalf("%q: %v", tc.cmd, err)
		}
		if !strings.Contains(r.Result, tc.want) {
			t.Errorf("%q: got %q, want it to contain %q", tc.cmd, r.Result, tc.want)
		}
		if (r.Failed != nil) != tc.fail {
			t.Errorf("%q: failed=%v, want %v", tc.cmd, r.Failed, tc.fail)
		}
	}
}
