package nxsim

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/rocefabric/roce/nexus"
)

// fcoeStartup makes CoS 3 no-drop (qos-group 1, FCoE's) with every port
// in the default PFC mode, auto; Ethernet1/3 is forced on.
const fcoeStartup = `class-map type network-qos NQ-FCOE
  match qos-group 1
policy-map type network-qos SITE-NQ
  class type network-qos NQ-FCOE
    pause no-drop
    mtu 2158
system qos
  service-policy type network-qos SITE-NQ
interface Ethernet1/3
  priority-flow-control mode on
`

// TestPeerDisagreementTurnsAutoPFCOff: in mode auto PFC is operationally on
// only where the DCBX peer's no-drop CoS equal the switch's (docs/nxos.md);
// mode on ignores the peer; a port without a peer model agrees.
func TestPeerDisagreementTurnsAutoPFCOff(t *testing.T) {
	peers := map[string][]int{
		"Ethernet1/1": {3},    // agrees
		"Ethernet1/2": {3, 4}, // differs
		"Ethernet1/3": {4},    // differs, but mode on
		"Ethernet1/4": {},     // no PFC at all on the NIC
	}
	sw := newTestSwitch(t, Options{StartupConfig: fcoeStartup, Faults: Faults{PeerNoDropCoS: peers}})
	peers["Ethernet1/1"] = []int{5} // the switch took a copy
	screen := runScript(t, sw, []string{"show interface priority-flow-control"})
	rows, err := nexus.ParseShowPFC(screen[strings.Index(screen, "\n")+1:])
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, screen)
	}
	want := map[string]struct {
		mode string
		oper bool
	}{
		"Ethernet1/1": {"Auto", true},
		"Ethernet1/2": {"Auto", false},
		"Ethernet1/3": {"On", true},
		"Ethernet1/4": {"Auto", false},
		"Ethernet1/5": {"Auto", true}, // not modelled: agrees
	}
	got := map[string]nexus.PFCStatus{}
	for _, r := range rows {
		got[r.Interface] = r
	}
	for port, w := range want {
		r, ok := got[port]
		if !ok {
			t.Fatalf("%s missing:\n%s", port, screen)
		}
		if r.Mode != w.mode || r.Oper != w.oper {
			t.Errorf("%s: mode %s oper %v, want %s oper %v\n%s", port, r.Mode, r.Oper, w.mode, w.oper, screen)
		}
		if w.oper && r.VLBitmap != 1<<3 {
			t.Errorf("%s: bitmap %#x, want CoS 3", port, r.VLBitmap)
		}
	}
	if !regexp.MustCompile(`(?m)^Ethernet1/2\s+Auto\s+Off`).MatchString(screen) {
		t.Errorf("show interface priority-flow-control does not show Ethernet1/2 Auto Off:\n%s", screen)
	}
	// The queuing view agrees: no no-drop group where PFC is off.
	q := runScript(t, sw, []string{"show queuing interface Ethernet1/1-2"})
	qi, err := nexus.ParseShowQueuing(q[strings.Index(q, "\n")+1:])
	if err != nil || len(qi) != 2 {
		t.Fatalf("queuing: %v\n%s", err, q)
	}
	noDrop := func(i nexus.QueuingInterface) bool {
		for _, g := range i.Groups {
			if g.DropType == "no-drop" {
				return true
			}
		}
		return false
	}
	if !noDrop(qi[0]) || noDrop(qi[1]) {
		t.Errorf("no-drop groups: Ethernet1/1 %v, Ethernet1/2 %v; want true, false\n%s", noDrop(qi[0]), noDrop(qi[1]), q)
	}
	// The peer is reconfigured to agree: PFC comes up.
	sw.SetFaults(Faults{PeerNoDropCoS: map[string][]int{"Ethernet1/2": {3}}})
	if s := runScript(t, sw, []string{"show interface priority-flow-control"}); !regexp.MustCompile(`(?m)^Ethernet1/2\s+Auto\s+On`).MatchString(s) {
		t.Errorf("after the peer agrees:\n%s", s)
	}
}

// TestDropAfterLines counts every handled command, exec ones included,
// across sessions, and drops the connection right after the Nth.
func TestDropAfterLines(t *testing.T) {
	sw := newTestSwitch(t, Options{Faults: Faults{DropAfterLines: 4}})
	screen := runScript(t, sw, []string{"show version", "", "checkpoint c1", "configure terminal", "system qos", "end"})
	if !strings.HasSuffix(screen, "sw1(config)# system qos\n[session ended: connection dropped]\n") {
		t.Errorf("want the drop right after the 4th command (system qos), got:\n%s", screen)
	}
	if n := sw.LinesHandled(); n != 4 {
		t.Errorf("LinesHandled = %d, want 4 (empty lines do not count)", n)
	}
	if !strings.Contains(sw.RunningConfig(), "system qos") || len(sw.Checkpoints()) != 1 {
		t.Errorf("the lines before the drop were not applied: %q, %v", sw.RunningConfig(), sw.Checkpoints())
	}
	// The count runs on in the next session (the fault fired once)...
	if s := runScript(t, sw, []string{"show checkpoint summary"}); strings.Contains(s, "session ended") {
		t.Errorf("dropped again:\n%s", s)
	}
	// ...and SetFaults restarts it.
	sw.SetFaults(Faults{DropAfterLines: 1})
	if s := runScript(t, sw, []string{"show version"}); !strings.Contains(s, "[session ended: connection dropped]") {
		t.Errorf("SetFaults did not restart the count:\n%s", s)
	}
}

// TestRunCLIFaultFlags: the fault flags of roce-lab nxos reach the switch.
func TestRunCLIFaultFlags(t *testing.T) {
	c, err := parseCLI([]string{"--stall", " show module ", "--drop-after-lines", "7", "--drop-after-config-lines", "2",
		"--reject", "system qos", "--latency", "1ms",
		"--peer-no-drop-cos", "Ethernet1/2=3,4", "--peer-no-drop-cos", "Ethernet1/3="}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	f := c.opts.Faults
	if f.StallCommand != "show module" || f.DropAfterLines != 7 || f.DropAfterConfigLines != 2 || f.RejectCommand != "system qos" || f.Latency != time.Millisecond {
		t.Errorf("faults = %+v", f)
	}
	if p := f.PeerNoDropCoS; len(p) != 2 || len(p["Ethernet1/2"]) != 2 || p["Ethernet1/2"][1] != 4 || p["Ethernet1/3"] == nil || len(p["Ethernet1/3"]) != 0 {
		t.Errorf("peers = %v", p)
	}
	for _, bad := range [][]string{{"--peer-no-drop-cos", "Ethernet1/2"}, {"--peer-no-drop-cos", "Ethernet1/2=9"}, {"--drop-after-lines", "x"}} {
		if _, err := parseCLI(bad, io.Discard); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}

	// Served for real: the stalled command is never answered, the others
	// are.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- RunCLI(ctx, []string{"--listen", "127.0.0.1:0", "--password", "pw", "--stall", "show module"}, &out, io.Discard)
	}()
	re := regexp.MustCompile(`listening on (\S+)\n`)
	var m []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && m == nil; time.Sleep(10 * time.Millisecond) {
		m = re.FindStringSubmatch(out.String())
	}
	if m == nil {
		t.Fatalf("no address printed: %q", out.String())
	}
	cl, err := ssh.Dial("tcp", m[1], &ssh.ClientConfig{User: "admin", Auth: []ssh.AuthMethod{ssh.Password("pw")},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second}) //nolint:gosec // test server
	if err != nil {
		t.Fatal(err)
	}
	s, err := cl.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	pr, pw := io.Pipe()
	s.Stdout = pw
	if err := s.Start("show version ; show module ; show checkpoint summary"); err != nil {
		t.Fatal(err)
	}
	// Read until show version has answered, then give up on the rest.
	buf := make([]byte, 4096)
	for !strings.Contains(got.String(), "system image file is") {
		n, err := pr.Read(buf)
		if err != nil {
			t.Fatalf("read: %v; got %q", err, got.String())
		}
		got.Write(buf[:n])
	}
	cl.Close()
	_ = pw.Close()
	rest, _ := io.ReadAll(pr)
	got.Write(rest)
	if strings.Contains(got.String(), "Mod  Ports") || strings.Contains(got.String(), "User Checkpoint Summary") {
		t.Errorf("answered past the stalled command:\n%s", got.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("RunCLI: %v", err)
	}
}
