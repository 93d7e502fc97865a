package gnmi_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// labPolicy writes an HCL policy with one class and a switch per sim (the
// body of its gnmi { } block given, "" for none) and loads it.
func labPolicy(t *testing.T, sims map[string]*lab, blocks map[string]string) *policies.Fabric {
	t.Helper()
	var b strings.Builder
	b.WriteString(`lossless "rocev2" {
  dscp     = [26]
  priority = 3
  mtu      = 9000
}
credentials "lab" {
  username     = "admin"
  password_env = "GNMI_PASSWORD"
}
host "h" {
  local = true
  nic "eth0" {}
}
`)
	for name, l := range sims {
		fmt.Fprintf(&b, "switch %q {\n  platform    = \"gnmi\"\n  profile     = %q\n  address     = %q\n  credentials = \"lab\"\n  interfaces  = [%q]\n  tls {\n    ca_file = %q\n  }\n",
			name, l.sw.Profile, l.sw.Address, l.sw.Interfaces[0], l.caFile)
		if body := blocks[name]; body != "" {
			fmt.Fprintf(&b, "  gnmi {\n%s  }\n", body)
		}
		b.WriteString("}\n")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, diags := policies.Load(dir, policies.LoadOptions{Getenv: func(string) (string, bool) { return "", false }})
	if diags.HasErrors() {
		t.Fatalf("policy:\n%s\n%v", b.String(), diags)
	}
	return f
}

func labEnv(f *policies.Fabric, extra map[string]string) plan.Env {
	return plan.Env{
		Fabric: f,
		Getenv: func(k string) (string, bool) {
			if k == "GNMI_PASSWORD" {
				return testPassword, true
			}
			v, ok := extra[k]
			return v, ok
		},
		Timeout: 10 * time.Second,
	}
}

// planAll plans every switch of f through the plan.SwitchFactory.
func planAll(t *testing.T, env plan.Env) map[string]*plan.TargetPlan {
	t.Helper()
	out := map[string]*plan.TargetPlan{}
	for _, sw := range env.Fabric.Switches {
		tg, err := gnmi.New(env, sw)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tg.Close() })
		tp, err := tg.Plan(ctxT(t))
		if err != nil {
			t.Fatalf("%s: %v", sw.Name, err)
		}
		res, err := tg.Apply(ctxT(t), tp)
		if err != nil || res.Status != plan.StatusApplied {
			t.Fatalf("%s: apply: %s %v", sw.Name, res.Status, err)
		}
		out[sw.Name] = tp
	}
	return out
}

func opsContain(ops []plan.Op, s string) bool {
	for _, op := range ops {
		if strings.Contains(string(op.Value), s) {
			return true
		}
	}
	return false
}

// Two switches of one profile in one fabric, on releases that differ, get
// their own settings from their gnmi { } blocks: different payloads,
// different origins, each applied to a target that wants exactly it, and
// the plan records the effective settings.
func TestPerSwitchSettingsFromPolicy(t *testing.T) {
	sims := map[string]*lab{
		"eos-old": newLab(t, gnmisim.Options{Profile: "arista"}),
		"eos-new": newLab(t, gnmisim.Options{Profile: "arista", CommitConfirm: true}),
		"sonic-a": newLab(t, gnmisim.Options{Profile: "sonic", NativeOrigin: "sonic_db"}),
		"sonic-b": newLab(t, gnmisim.Options{Profile: "sonic"}),
	}
	f := labPolicy(t, sims, map[string]string{
		"eos-old": "    arista_no_drop_bit_order = \"msb0\"\n",
		"eos-new": "    commit_confirm  = \"on\"\n    commit_rollback = \"90s\"\n",
		"sonic-a": "    origin         = \"sonic_db\"\n    commit_confirm = \"off\"\n",
	})
	tps := planAll(t, labEnv(f, nil))

	if !opsContain(tps["eos-old"].Ops, `"priorities-no-drop":"10"`) || !opsContain(tps["eos-new"].Ops, `"priorities-no-drop":"08"`) {
		t.Errorf("priority 3 bitmaps: eos-old (msb0) %s\neos-new (lsb0) %s", opsJSON(tps["eos-old"].Ops), opsJSON(tps["eos-new"].Ops))
	}
	if o := tps["sonic-a"].Ops[0].Origin; o != "sonic_db" {
		t.Errorf("sonic-a origin = %q, want sonic_db", o)
	}
	if o := tps["sonic-b"].Ops[0].Origin; o != "sonic-db" {
		t.Errorf("sonic-b origin = %q, want sonic-db", o)
	}
	want := map[string]map[string]string{
		"eos-old": {"setting.arista_no_drop_bit_order": "msb0", "setting.commit_confirm": "auto", "setting.commit_rollback": "5m0s", "commit_confirmed": "false"},
		"eos-new": {"setting.arista_no_drop_bit_order": "lsb0", "setting.commit_confirm": "on", "setting.commit_rollback": "1m30s", "commit_confirmed": "true"},
		"sonic-a": {"setting.origin": "sonic_db", "setting.commit_confirm": "off", "setting.commit_rollback": "5m0s"},
		"sonic-b": {"setting.origin": "sonic-db", "setting.commit_confirm": "auto"},
	}
	for name, kv := range want {
		for k, v := range kv {
			if got := tps[name].Facts[k]; got != v {
				t.Errorf("%s: fact %s = %q, want %q", name, k, got, v)
			}
		}
	}
	if _, ok := tps["sonic-a"].Facts["setting.arista_no_drop_bit_order"]; ok {
		t.Error("a sonic plan records the Arista bit order")
	}
	// The Set that reached eos-new carried the policy's rollback timer.
	reqs := sims["eos-new"].sim.SetRequests()
	if len(reqs) == 0 || reqs[0].GetExtension()[0].GetCommit().GetCommit().GetRollbackDuration().AsDuration().String() != "1m30s" {
		t.Errorf("eos-new Set extension: %v", reqs)
	}
}

// The environment is only a fallback: a switch's gnmi { } block wins, a
// switch without one takes the environment, and a bad fallback is named.
func TestPolicyWinsOverEnvironment(t *testing.T) {
	sims := map[string]*lab{
		"pinned":   newLab(t, gnmisim.Options{Profile: "arista", CommitConfirm: true}),
		"fallback": newLab(t, gnmisim.Options{Profile: "arista", CommitConfirm: true}),
	}
	f := labPolicy(t, sims, map[string]string{"pinned": "    arista_no_drop_bit_order = \"lsb0\"\n    commit_confirm = \"on\"\n"})
	tps := planAll(t, labEnv(f, map[string]string{gnmi.EnvAristaBitOrder: "msb0", gnmi.EnvCommitConfirm: "off"}))
	if !opsContain(tps["pinned"].Ops, `"priorities-no-drop":"08"`) || tps["pinned"].Facts["commit_confirmed"] != "true" {
		t.Errorf("pinned: the policy did not win over the environment: %v %s", tps["pinned"].Facts, opsJSON(tps["pinned"].Ops))
	}
	if !opsContain(tps["fallback"].Ops, `"priorities-no-drop":"10"`) || tps["fallback"].Facts["setting.commit_confirm"] != "off" || tps["fallback"].Facts["commit_confirmed"] != "false" {
		t.Errorf("fallback: the environment was not used: %v %s", tps["fallback"].Facts, opsJSON(tps["fallback"].Ops))
	}
}

// Settings on a Switch built in code are held to the policy's rules.
func TestNewRefusesBadSwitchSettings(t *testing.T) {
	str := func(s string) *string { return &s }
	cases := []struct {
		profile string
		g       policies.GNMISettings
		want    string
	}{
		{"arista", policies.GNMISettings{AristaNoDropBitOrder: "le"}, `switch.a: gnmi { arista_no_drop_bit_order = "le" }: bit order "le": want lsb0`},
		{"sonic", policies.GNMISettings{AristaNoDropBitOrder: "msb0"}, "applies to profile arista only, and this switch uses sonic"},
		{"sonic", policies.GNMISettings{Origin: str("sonic_yang")}, `gnmi { origin = "sonic_yang" }: SONiC origin "sonic_yang": want sonic-db (sonic-gnmi) or sonic_db`},
		{"arista", policies.GNMISettings{Origin: str("openconfig")}, "origin is always openconfig"},
		{"srlinux", policies.GNMISettings{Origin: str("a/b")}, `SR Linux origin "a/b"`},
		{"srlinux", policies.GNMISettings{CommitConfirm: "yes"}, `gnmi { commit_confirm = "yes" }: commit-confirmed mode "yes": want auto, on or off`},
		{"srlinux", policies.GNMISettings{CommitRollback: 1e6}, `gnmi { commit_rollback = "1ms" }: want at least 1s`},
		{"sonic", policies.GNMISettings{Encoding: "proto"}, `gnmi { encoding = "proto" }: encoding "proto": want json_ietf or json`},
	}
	for _, tc := range cases {
		g := tc.g
		sw := &policies.Switch{Name: "a", Platform: "gnmi", Profile: tc.profile, Address: "x:1", GNMI: &g}
		_, err := gnmi.New(plan.Env{Fabric: &policies.Fabric{}}, sw)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: err = %v, want %q", tc.profile, tc.g, err, tc.want)
		}
	}
}
