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

func TestScrapliConfigModes(t *testing.T) {
	srv := startServer(t, Options{})
	d := openScrapli(t, srv)
	lines := []string{
		"class-map type qos match-all ROCE-x",
		"match cos 4",
		"system qos",
	}
	mr, err := d.SendConfigs(lines)
	if err != nil {
		t.Fatalf("SendConfigs: %v", err)
	}
	for _, r := range mr.Responses {
		if r.Failed != nil {
			t.Errorf("%q failed: %q", r.Input, r.Result)
		}
	}
	p, err := d.GetPrompt()
	if err != nil || p != "sw1(config-sys-qos)# " && p != "sw1(config-sys-qos)#" {
		t.Fatalf("prompt = %q, %v", p, err)
	}
	r, err := d.SendCommand("show running-config ipqos")
	if err != nil {
		t.Fatalf("after system qos: %v", err)
	}
	if !strings.Contains(r.Result, "class-map type qos match-all ROCE-x\n  match cos 4") {
		t.Errorf("running config misses the class-map:\n%s", r.Result)
	}
	r, err = d.SendConfig("bogus line")
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed == nil || r.Result != "             ^\n% Invalid command at '^' marker." {
		t.Errorf("bogus line: %q", r.Result)
	}
}

// TestScrapliCheckpointRollback: checkpoint, change, roll back through
// scrapligo, and the running config is exactly the checkpoint's again.
func TestScrapliCheckpointRollback(t *testing.T) {
	srv := startServer(t, Options{StartupConfig: "class-map type qos match-all VOICE\n  match cos 5\n"})
	d := openScrapli(t, srv)
	before := srv.Switch().RunningConfig()
	steps := []struct {
		cmd, want string
		fail      bool
	}{
		{cmd: "checkpoint cp1 description before change", want: "Done"},
		{cmd: "checkpoint cp1", want: `ERROR: Checkpoint name "cp1" is already in use`, fail: true},
		{cmd: "show checkpoint summary", want: "1) cp1:\nCreated by admin\n"},
	}
	for _, s := range steps {
		r, err := d.SendCommand(s.cmd)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.Result, s.want) || (r.Failed != nil) != s.fail {
			t.Errorf("%q: %q (failed %v)", s.cmd, r.Result, r.Failed)
		}
	}
	if _, err := d.SendConfigs([]string{"no class-map type qos match-all VOICE", "system qos"}); err != nil {
		t.Fatal(err)
	}
	if srv.Switch().RunningConfig() == before {
		t.Fatal("the change did not apply")
	}
	r, err := d.SendCommand("rollback running-config checkpoint cp1 atomic")
	if err != nil || r.Failed != nil || !strings.Contains(r.Result, "Rollback completed successfully.") {
		t.Fatalf("rollback: %v %q", err, r.Result)
	}
	if got := srv.Switch().RunningConfig(); got != before {
		t.Errorf("after rollback:\n%s\nwant\n%s", got, before)
	}
	for i := 2; i <= maxCheckpoints; i++ {
		if _, err := d.SendCommand("checkpoint"); err != nil {
			t.Fatal(err)
		}
	}
	r, _ = d.SendCommand("checkpoint one-too-many")
	if r.Failed == nil || !strings.Contains(r.Result, "Maximum number of checkpoints") {
		t.Errorf("11th checkpoint: %q", r.Result)
	}
}
