package policies

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// gnmiSwitch is a gNMI switch with the given profile and gnmi block body;
// the block header is on line 5, so its first attribute is on line 6.
func gnmiSwitch(profile, body string) string {
	return "switch \"s\" {\n  platform = \"gnmi\"\n  profile  = \"" + profile + "\"\n  address  = \"10.0.0.1:57400\"\n  gnmi {\n" + body + "  }\n}\n" + losslessCoS4 + tailCreds + tailHost
}

var gnmiBlockBadCases = []badCase{
	{name: "unknown bit order", src: gnmiSwitch("arista", "    arista_no_drop_bit_order = \"le\"\n"),
		want: `arista_no_drop_bit_order = "le"; use "lsb0"`, pos: "main.hcl:6:5"},
	{name: "bit order on sonic", src: gnmiSwitch("sonic", "    arista_no_drop_bit_order = \"msb0\"\n"),
		want: `arista_no_drop_bit_order applies to profile = "arista" only, and this switch uses "sonic"`, pos: "main.hcl:6:5"},
	{name: "origin on arista", src: gnmiSwitch("arista", "    origin = \"eos_native\"\n"),
		want: `whose origin is always "openconfig"; origin applies to profile = "sonic" or "srlinux"`, pos: "main.hcl:6:5"},
	{name: "unknown SONiC origin", src: gnmiSwitch("sonic", "    origin = \"sonic_yang\"\n"),
		want: `origin = "sonic_yang"; SONiC's gNMI server (sonic-gnmi) serves CONFIG_DB under "sonic-db"; "sonic_db" is accepted`, pos: "main.hcl:6:5"},
	{name: "SR Linux origin with a slash", src: gnmiSwitch("srlinux", "    origin = \"srl/native\"\n"),
		want: `origin = "srl/native"; an origin is a name`, pos: "main.hcl:6:5"},
	{name: "unknown commit mode", src: gnmiSwitch("sonic", "    commit_confirm = \"yes\"\n"),
		want: `commit_confirm = "yes"; use "auto"`, pos: "main.hcl:6:5"},
	{name: "rollback not a duration", src: gnmiSwitch("sonic", "    commit_rollback = \"5 minutes\"\n"),
		want: `commit_rollback = "5 minutes" is not a duration`, pos: "main.hcl:6:5"},
	{name: "rollback too short", src: gnmiSwitch("sonic", "    commit_rollback = \"500ms\"\n"),
		want: "commit_rollback = 500ms; the target would undo the commit before it can be verified", pos: "main.hcl:6:5"},
	{name: "rollback with commit-confirmed off", src: gnmiSwitch("sonic", "    commit_confirm  = \"off\"\n    commit_rollback = \"2m\"\n"),
		want: `commit_rollback is the commit-confirmed timer, but commit_confirm = "off"`, pos: "main.hcl:7:5"},
	{name: "unknown encoding", src: gnmiSwitch("sonic", "    encoding = \"proto\"\n"),
		want: `encoding = "proto"; use "json_ietf" or "json"`, pos: "main.hcl:6:5"},
	{name: "require_models not a bool", src: gnmiSwitch("arista", "    require_models = \"no\"\n"),
		want: `require_models`, pos: "main.hcl:6:22"},
	{name: "unknown attribute", src: gnmiSwitch("sonic", "    bit_order = \"lsb0\"\n"),
		want: `An argument named "bit_order" is not expected here`, pos: "main.hcl:6:5"},
	{name: "gnmi block on a Nexus", src: "switch \"s\" {\n  platform    = \"nexus5000\"\n  address     = \"10.0.0.1\"\n  credentials = \"c\"\n  gnmi {\n    commit_confirm = \"off\"\n  }\n}\n" + losslessCoS4 + tailCreds + tailHost,
		want: `gnmi { } holds settings for platform = "gnmi"; remove it from this nexus5000 switch`, pos: "main.hcl:5:3"},
	{name: "two gnmi blocks", src: "switch \"s\" {\n  platform = \"gnmi\"\n  profile  = \"sonic\"\n  address  = \"10.0.0.1:8080\"\n  gnmi {\n    origin = \"sonic_db\"\n  }\n  gnmi {\n    origin = \"sonic-db\"\n  }\n}\n" + losslessCoS4 + tailCreds + tailHost,
		want: `main.hcl:5,3-7); keep one`, pos: "main.hcl:8:3"},
}

func TestLoadBadGNMIBlock(t *testing.T) {
	for _, tc := range gnmiBlockBadCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			f, _, diags := Load(dir, LoadOptions{Getenv: noEnv})
			if f != nil || !diags.HasErrors() {
				t.Fatalf("want an error and no fabric; got fabric=%v diags:\n%s", f != nil, describeDiags(diags))
			}
			d := findDiag(diags, tc.want)
			if d == nil {
				t.Fatalf("no diagnostic contains %q; got:\n%s", tc.want, describeDiags(diags))
			}
			if d.Severity != hcl.DiagError {
				t.Errorf("diagnostic %q is a warning, want an error", d.Summary)
			}
			if got := diagPos(d); got != tc.pos {
				t.Errorf("diagnostic %q at %q, want %q", d.Summary, got, tc.pos)
			}
		})
	}
}

// Each switch gets its own settings, also per for_each instance; an absent
// block leaves GNMI nil, and an SR Linux origin of "" is kept as set.
func TestLoadGNMIBlock(t *testing.T) {
	f, _, diags, _ := loadString(t, `
lossless "roce" {
  dscp     = 26
  priority = 3
}
switch "sonic" {
  for_each = { old = "sonic-db", new = "sonic_db" }
  platform = "gnmi"
  profile  = "sonic"
  address  = "${each.key}.example:8080"
  gnmi {
    origin          = each.value
    commit_confirm  = each.key == "old" ? "off" : "on"
    commit_rollback = each.key == "old" ? null : "90s"
  }
}
switch "eos" {
  platform = "gnmi"
  profile  = "arista"
  address  = "eos.example:6030"
  gnmi {
    arista_no_drop_bit_order = "msb0"
    encoding                 = "json"
    require_models           = false
  }
}
switch "srl" {
  platform = "gnmi"
  profile  = "srlinux"
  address  = "srl.example:57400"
  gnmi {
    origin = ""
  }
}
switch "plain" {
  platform = "gnmi"
  profile  = "sonic"
  address  = "plain.example:8080"
}
host "h" {
  local = true
  nic "eth0" {}
}
`)
	if diags.HasErrors() || f == nil {
		t.Fatal(describeDiags(diags))
	}
	str := func(s string) *string { return &s }
	want := map[string]GNMISettings{
		"old": {Origin: str("sonic-db"), CommitConfirm: GNMICommitOff},
		"new": {Origin: str("sonic_db"), CommitConfirm: GNMICommitOn, CommitRollback: 90 * time.Second},
		"eos": {AristaNoDropBitOrder: "msb0", Encoding: "json", RequireModels: new(false)},
		"srl": {Origin: str("")},
	}
	for _, sw := range f.Switches {
		w, ok := want[sw.Name]
		if !ok {
			if sw.GNMI != nil {
				t.Errorf("switch %s has no gnmi block but GNMI = %+v", sw.Name, *sw.GNMI)
			}
			continue
		}
		g := sw.GNMI
		if g == nil {
			t.Errorf("switch %s: GNMI is nil", sw.Name)
			continue
		}
		if g.AristaNoDropBitOrder != w.AristaNoDropBitOrder || g.CommitConfirm != w.CommitConfirm || g.CommitRollback != w.CommitRollback ||
			g.Encoding != w.Encoding || fmt.Sprint(derefBool(g.RequireModels)) != fmt.Sprint(derefBool(w.RequireModels)) ||
			(g.Origin == nil) != (w.Origin == nil) || (g.Origin != nil && *g.Origin != *w.Origin) {
			t.Errorf("switch %s: GNMI = %+v (origin %v), want %+v (origin %v)", sw.Name, *g, deref(g.Origin), w, deref(w.Origin))
		}
		if g.DeclRange.Filename == "" {
			t.Errorf("switch %s: gnmi block without a position", sw.Name)
		}
	}
}

func derefBool(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
