package policies

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
)

func loadString(t *testing.T, src string) (*Fabric, *Sources, hcl.Diagnostics, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, s, d := Load(dir, LoadOptions{Getenv: noEnv})
	return f, s, d, dir
}

// TestLoadDecodesEverything checks the decoded values, defaults and
// derived settings of a policy that uses most of the language.
func TestLoadDecodesEverything(t *testing.T) {
	f, _, diags, dir := loadString(t, `
lossless "roce" {
  dscp              = "24-26"
  priority          = 4
  mtu               = 9100
  bandwidth_percent = 40
  ecn {
    min_threshold_kb = 100
    max_threshold_kb = 900
  }
  pfc_watchdog {
    action = "forward"
  }
}
credentials "sw" {
  username      = "admin"
  password_file = "pw.txt"
}
credentials "h" {
  username = "roce"
  key_file = "/abs/id"
}
switch "leaf" {
  for_each    = toset(["l1", "l2"])
  platform    = "gnmi"
  profile     = "sonic"
  address     = "${each.key}.example:8080"
  credentials = "sw"
  interfaces  = ["Ethernet0", "Ethernet4-5"]
  tls {
    ca_file     = "ca.pem"
    server_name = each.key
  }
}
switch "cap" {
  platform = "gnmi"
  profile  = "arista"
  capture  = "captures/arista"
  lossless = ["roce"]
}
host "a" {
  address     = "10.0.0.1"
  credentials = "h"
  root        = "tree"
  mpi         = ["ucx"]
  switch      = "l1"
  nic "ens1" {
    vlan      = 7
    gid_index = 3
    address   = "10.1.0.1/24"
  }
}
host "me" {
  local = true
  nic "ens2" {
    vlan = 7
    port = 2
  }
}
probe {
  threshold_gbps = 90
}
`)
	if diags.HasErrors() {
		t.Fatal(describeDiags(diags))
	}
	// The one warning this policy earns: its SONiC leaves do not apply
	// bandwidth_percent (platforms: BandwidthNotRendered).
	diags = expectWarnings(t, diags, []string{"bandwidth_percent = 40 will not be applied on switch l1, l2 (gnmi/sonic)"})
	if len(diags) != 0 {
		t.Errorf("unexpected warnings: %s", describeDiags(diags))
	}
	c := f.LosslessByName("roce")
	wantMatch := Match{Kind: MatchDSCP, DSCP: []int{24, 25, 26}}
	if !reflect.DeepEqual(c.Match, wantMatch) || c.Priority != 4 || c.MTU != 9100 || c.BandwidthPercent != 40 {
		t.Errorf("class = %+v", c)
	}
	if !reflect.DeepEqual(c.ECN, &ECN{MinThresholdKB: 100, MaxThresholdKB: 900, Probability: 100}) {
		t.Errorf("ecn = %+v", c.ECN)
	}
	if !reflect.DeepEqual(c.PFCWatchdog, &PFCWatchdog{DetectionMS: 200, RestorationMS: 200, Action: "forward"}) {
		t.Errorf("watchdog = %+v", c.PFCWatchdog)
	}
	abs, _ := filepath.Abs(dir)
	if f.Dir != abs {
		t.Errorf("Dir = %q, want %q", f.Dir, abs)
	}
	if got := f.Credentials["sw"].PasswordFile; got != filepath.Join(abs, "pw.txt") {
		t.Errorf("password_file = %q, want it resolved against the policy dir", got)
	}
	if got := f.Credentials["h"].KeyFile; got != "/abs/id" {
		t.Errorf("absolute key_file changed to %q", got)
	}
	l2 := f.SwitchByName("l2")
	if l2 == nil || l2.Address != "l2.example:8080" || l2.TLS.ServerName != "l2" || l2.TLS.CAFile != filepath.Join(abs, "ca.pem") {
		t.Fatalf("switch l2 = %+v", l2)
	}
	if !reflect.DeepEqual(l2.Interfaces, []string{"Ethernet0", "Ethernet4", "Ethernet5"}) {
		t.Errorf("interfaces = %v", l2.Interfaces)
	}
	if cp := f.SwitchByName("cap"); cp.Capture != filepath.Join(abs, "captures/arista") || cp.Address != "" {
		t.Errorf("capture switch = %+v", cp)
	}
	a := f.HostByName("a")
	n := a.NICs[0]
	if n.Port != 1 || n.RoCEMode != "v2" || n.Trust != "dscp" || n.GIDIndex == nil || *n.GIDIndex != 3 || a.RDMACM != "auto" || a.Root != filepath.Join(abs, "tree") {
		t.Errorf("host a = %+v nic = %+v", a, n)
	}
	if me := f.HostByName("me"); !me.Local || me.NICs[0].Port != 2 || me.NICs[0].GIDIndex != nil {
		t.Errorf("host me = %+v", me)
	}
	wantProbe := &Probe{Tool: "ib_write_bw", Duration: 5 * time.Second, MessageSize: 65536, QPs: 1, ThresholdGbps: 90, BasePort: 18515, Timeout: time.Minute}
	if !reflect.DeepEqual(f.Probe, wantProbe) {
		t.Errorf("probe = %+v, want %+v", f.Probe, wantProbe)
	}
	if f.Rollout != (Rollout{Canary: 1, BatchSize: 10, Parallelism: 32}) {
		t.Errorf("rollout defaults = %+v", f.Rollout)
	}
	if got := f.LosslessFor(f.SwitchByName("cap")); len(got) != 1 || got[0] != c {
		t.Errorf("LosslessFor(cap) = %v", got)
	}
	if f.ClassForNIC(n) != c {
		t.Errorf("ClassForNIC did not return the only class")
	}
}

func TestUDPPortWithDSCP(t *testing.T) {
	f, _, diags, _ := loadString(t, tailAll+`
lossless "rocev2" {
  udp_port = 4791
  dscp     = [26, "46"]
  priority = 4
}
`)
	if diags.HasErrors() {
		t.Fatal(describeDiags(diags))
	}
	want := Match{Kind: MatchUDPPort, UDPPort: 4791, DSCP: []int{26, 46}}
	if got := f.Lossless[0].Match; !reflect.DeepEqual(got, want) {
		t.Errorf("match = %+v, want %+v", got, want)
	}
}

func TestUDPPortNarrowedToDSCPWarns(t *testing.T) {
	f, _, diags, _ := loadString(t, `
lossless "rocev2" {
  udp_port = 4791
  dscp     = [26]
  priority = 4
}
switch "leaf" {
  platform = "gnmi"
  profile  = "srlinux"
  address  = "192.0.2.5:57400"
}
host "h" {
  local = true
  nic "eth0" {}
}
`)
	if diags.HasErrors() || f == nil {
		t.Fatal(describeDiags(diags))
	}
	d := findDiag(diags, "but switch leaf cannot classify by UDP port, so there it is recognised by DSCP 26 alone")
	if d == nil || d.Severity != hcl.DiagWarning || diagPos(d) != "main.hcl:3:3" {
		t.Errorf("want a warning at main.hcl:3:3, got:\n%s", describeDiags(diags))
	}
}

func TestFabricHelpers(t *testing.T) {
	a := &Lossless{Name: "a"}
	b := &Lossless{Name: "b"}
	f := &Fabric{Lossless: []*Lossless{a, b}}
	tests := []struct {
		name string
		sw   *Switch
		want []*Lossless
	}{
		{"all classes when none named", &Switch{}, []*Lossless{a, b}},
		{"named classes in order", &Switch{Lossless: []string{"b", "a"}}, []*Lossless{b, a}},
		{"unknown names skipped", &Switch{Lossless: []string{"x", "a"}}, []*Lossless{a}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := f.LosslessFor(tc.sw); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if f.ClassForNIC(&NIC{}) != nil {
		t.Errorf("ClassForNIC without a name in a two-class fabric must be nil")
	}
	if f.ClassForNIC(&NIC{Lossless: "b"}) != b || f.LosslessByName("zz") != nil {
		t.Errorf("lookup by name is wrong")
	}
}

func TestWarningsKeepFabric(t *testing.T) {
	f, _, diags, _ := loadString(t, tailCreds+tailN5K+tailHost+`
lossless "roce" {
  ethertype = 35093
  priority  = 4
  mtu       = 2240
}
`)
	if diags.HasErrors() {
		t.Fatal(describeDiags(diags))
	}
	if f == nil {
		t.Fatal("warnings must not drop the fabric")
	}
	if d := findDiag(diags, "mtu = 2240 is below 4200"); d == nil || d.Severity != hcl.DiagWarning || diagPos(d) != "main.hcl:24:3" {
		t.Errorf("want a warning about the class MTU at main.hcl:24:3, got:\n%s", describeDiags(diags))
	}
	if f.Lossless[0].Match.Ethertype != 0x8915 || f.Hosts[0].NICs[0].RoCEMode != "v1" {
		t.Errorf("ethertype class decoded as %+v, nic mode %q", f.Lossless[0].Match, f.Hosts[0].NICs[0].RoCEMode)
	}
}

func TestSourcesDiagnosticsAndDigest(t *testing.T) {
	src := `lossless "roce" {
  udp_port = 4791
  priority = 12
}
`
	_, s, diags, dir := loadString(t, src)
	var buf bytes.Buffer
	if err := s.WriteDiagnostics(&buf, diags, false); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	// Without colour, a caret line sits under the offending attribute.
	if !strings.Contains(out, "   3:   priority = 12\n        ^^^^^^^^^^^^^\n") {
		t.Errorf("no caret under priority = 12:\n%s", out)
	}
	for _, want := range []string{"Error: Value out of range", "main.hcl line 3", "priority = 12", "outside 0-7"} {
		if !strings.Contains(out, want) {
			t.Errorf("diagnostic text lacks %q:\n%s", want, out)
		}
	}
	buf.Reset()
	if err := s.WriteDiagnostics(&buf, diags, true); err != nil || !strings.Contains(buf.String(), "\x1b[") {
		t.Errorf("color output has no terminal escapes (err %v):\n%s", err, buf.String())
	}
	d1 := s.Digest()
	_, s2, _, _ := loadString(t, src)
	if d1 != s2.Digest() || len(d1) != 64 {
		t.Errorf("digest not stable: %s vs %s", d1, s2.Digest())
	}
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, s3, _ := Load(dir, LoadOptions{Getenv: noEnv})
	if s3.Digest() == d1 {
		t.Errorf("digest did not change with the file contents")
	}
	if got := s3.Files(); len(got) != 1 || filepath.Base(got[0]) != "main.hcl" {
		t.Errorf("Files() = %v", got)
	}
}

func TestLoadDirectoryErrors(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		dir  string
		want string
	}{
		{filepath.Join(empty, "missing"), "Cannot read policy directory"},
		{empty, "holds no *.hcl files"},
	}
	for _, tc := range tests {
		f, s, diags := Load(tc.dir, LoadOptions{Getenv: noEnv})
		if f != nil || s == nil || findDiag(diags, tc.want) == nil {
			t.Errorf("Load(%s): fabric=%v sources=%v diags=%s", tc.dir, f, s, describeDiags(diags))
		}
	}
}

// TestMultipleFiles: a policy may be split across files like a Terraform
// module; references work across files and diagnostics name the right one.
func TestMultipleFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"classes.hcl": "lossless \"roce\" {\n  cos = 4\n}\n",
		"devices.hcl": tailAll,
		"vars.hcl":    "variable \"v\" {\n  default = 1\n}\nlocals {\n  x = var.v\n}\n",
	}
	for n, src := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Not a policy file: ignored.
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not hcl {"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, s, diags := Load(dir, LoadOptions{Getenv: noEnv})
	if len(diags) != 0 || f == nil {
		t.Fatal(describeDiags(diags))
	}
	if got := len(s.Files()); got != 3 {
		t.Errorf("read %d files, want 3", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "more.hcl"), []byte("lossless \"roce\" {\n  cos = 5\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, diags = Load(dir, LoadOptions{Getenv: noEnv})
	d := findDiag(diags, `lossless "roce" is already defined at`)
	if f != nil || d == nil || diagPos(d) != "more.hcl:1:1" {
		t.Errorf("want a duplicate-class error at more.hcl:1:1, got:\n%s", describeDiags(diags))
	}
}

func TestNonRoCEMatchWarns(t *testing.T) {
	tests := []struct {
		name, class, want, pos string
	}{
		{"ethertype", "lossless \"x\" {\n  ethertype = \"0x88b5\"\n  priority  = 4\n}\n", "matches ethertype 0x88b5; RoCE v1 is 0x8915", "main.hcl:2:3"},
		{"udp port", "lossless \"x\" {\n  udp_port = 4792\n  priority = 4\n}\n", "matches UDP port 4792; RoCE v2 is 4791", "main.hcl:2:3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, _, diags, _ := loadString(t, tc.class+tailAll)
			if diags.HasErrors() || f == nil {
				t.Fatal(describeDiags(diags))
			}
			d := findDiag(diags, tc.want)
			if d == nil || d.Severity != hcl.DiagWarning || diagPos(d) != tc.pos {
				t.Errorf("want warning %q at %s, got:\n%s", tc.want, tc.pos, describeDiags(diags))
			}
		})
	}
}

// gnmiTail is a gNMI switch of the given profile plus credentials and a host.
func gnmiTail(profile string) string {
	return "switch \"s\" {\n  platform    = \"gnmi\"\n  profile     = \"" + profile + "\"\n  address     = \"192.0.2.1:6030\"\n  credentials = \"c\"\n}\n" + tailCreds + tailHost
}

// TestPlatformWarnings: what a platform silently does not apply is a
// warning at the attribute, and the fabric still loads.
func TestPlatformWarnings(t *testing.T) {
	tail7k := "switch \"s\" {\n  platform    = \"nexus7000\"\n  address     = \"192.0.2.1\"\n  credentials = \"c\"\n}\n" + tailCreds + tailHost
	tests := []struct {
		name, src, want, pos string
	}{
		{"bandwidth on SONiC", "lossless \"roce\" {\n  dscp              = 26\n  priority          = 3\n  bandwidth_percent = 50\n}\n" + gnmiTail("sonic"),
			"bandwidth_percent = 50 will not be applied on switch s (gnmi/sonic): the sonic profile does not render SCHEDULER weights", "main.hcl:4:3"},
		{"bandwidth on SR Linux", "lossless \"roce\" {\n  dscp              = 26\n  priority          = 3\n  bandwidth_percent = 50\n}\n" + gnmiTail("srlinux"),
			"bandwidth_percent = 50 will not be applied on switch s (gnmi/srlinux): the srlinux profile does not render scheduler weights", "main.hcl:4:3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, _, diags, _ := loadString(t, tc.src)
			if diags.HasErrors() || f == nil {
				t.Fatal(describeDiags(diags))
			}
			d := findDiag(diags, tc.want)
			if d == nil || d.Severity != hcl.DiagWarning || diagPos(d) != tc.pos {
				t.Errorf("want warning %q at %s, got:\n%s", tc.want, tc.pos, describeDiags(diags))
			}
		})
	}
	// The same class on a Nexus 5000 renders its bandwidth: no warning.
	f, _, diags, _ := loadString(t, "lossless \"roce\" {\n  cos               = 4\n  bandwidth_percent = 50\n}\n"+tailAll)
	if f == nil || len(diags) != 0 {
		t.Errorf("nexus5000 bandwidth_percent: want no diagnostics, got:\n%s", describeDiags(diags))
	}
	// Priorities a 7000 template covers pass: 4 with FCoE (6e), 1 (4e).
	for _, src := range []string{
		"lossless \"roce\" {\n  cos = 4\n}\nswitch \"s\" {\n  platform    = \"nexus7000\"\n  address     = \"192.0.2.1\"\n  credentials = \"c\"\n  fcoe        = true\n}\n" + tailCreds + tailHost,
		"lossless \"roce\" {\n  cos = 1\n}\n" + tail7k,
	} {
		if f, _, diags, _ := loadString(t, src); f == nil || diags.HasErrors() {
			t.Errorf("want no error for:\n%s\ngot:\n%s", src, describeDiags(diags))
		}
	}
}
