package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/internal/lab"
)

// Post-upgrade validation against the lab: each modelled upgrade, done the
// way a user does it (roce-lab upgrade on a running lab), shows in the plan
// and fails verification against the baseline with the right cause; after
// roce-apply verification passes again. The lab hosts probe on their
// emulated RDMA device.

// serveControl serves the lab's control socket (what roce-lab upgrade talks
// to) until the test ends.
func serveControl(t *testing.T, l *lab.Lab) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stop, err := l.ServeControl(ctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := stop(); err != nil {
			t.Errorf("closing the control socket: %v", err)
		}
	})
}

// upgradeLab starts the lab with its control socket, applies the policy and
// records a passing baseline. The switches named in neverSave get
// save_config = "never", so an -unsaved upgrade loses what was applied.
func upgradeLab(t *testing.T, neverSave ...string) (*lab.Lab, string) {
	t.Helper()
	l := startLab(t)
	for _, name := range neverSave {
		setSaveConfig(t, l.Dir, name, "never")
	}
	serveControl(t, l)
	if r := roce(t, l, "", "roce-apply", "-auto-approve", l.Dir); r.code != 0 {
		t.Fatalf("apply\n%s", r)
	}
	baseline := filepath.Join(t.TempDir(), "baseline.json")
	r := roce(t, l, "", "roce-verify", "-record-baseline", baseline, l.Dir)
	if r.code != 0 || strings.Count(r.stdout, "[emulated]") != 2 {
		t.Fatalf("verify on a freshly applied lab: want a pass on the emulated device\n%s", r)
	}
	return l, baseline
}

// roceLab runs roce-lab (no -var-file).
func roceLab(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "roce-lab"), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// repairAfterUpgrade runs roce-apply on the upgraded lab and wants the
// next roce-verify to pass.
func repairAfterUpgrade(t *testing.T, l *lab.Lab) {
	t.Helper()
	if r := roce(t, l, "", "roce-apply", "-auto-approve", l.Dir); r.code != 0 {
		t.Fatalf("apply after the upgrade\n%s", r)
	}
	if v := roce(t, l, "", "roce-verify", l.Dir); v.code != 0 {
		t.Fatalf("verify after the repair: want a pass\n%s", v)
	}
}

func TestPostUpgradeValidation(t *testing.T) {
	tests := []struct {
		name    string
		target  string
		version string
		// plan: what the plan must name for the upgraded device.
		plan []string
		// causes: what verify -baseline must name.
		causes []string
		// unpersist: the host lacks roce's udev rules (removed before the
		// upgrade), so nothing re-applies its DCB or rdma_cm defaults after
		// the reload.
		unpersist bool
	}{
		{
			name: "nexus7000 5.1(3) to 5.1(5)", target: "switch.n7k-1", version: "5.1(5)",
			plan:   []string{"(drift)", "class c-nq-6e-ndrop no longer has 'pause no-drop'", "firmware upgrade"},
			causes: []string{"cause: no-pause on switch.n7k-1: priority 4 not in PFC bitmap", "cause: version-changed on switch.n7k-1: os changed from 5.1(3) to 5.1(5)"},
		},
		{
			name: "host NIC firmware, DCB not persisted", target: "host.h1", version: "16.36.1010", unpersist: true,
			plan:   []string{"host.h1", "nic.eth0.pfc", "pfc_en 0x00 (off)", "rdma_cm.mlx5_0.tos", "file:/etc/udev/rules.d/90-roce-dcb.rules", "file:/etc/udev/rules.d/90-roce-rdma_cm.rules"},
			causes: []string{"cause: no-pause on host.h1: PFC not operational", "cause: version-changed on host.h1: fw.mlx5_0 changed from 16.35.2000 to 16.36.1010"},
		},
		{
			name: "host driver reload, DCB not persisted", target: "host.h2", version: "driver", unpersist: true,
			plan:   []string{"host.h2", "nic.eth0.pfc", "pfc_en 0x00 (off)", "rdma_cm.mlx5_0.tos", "file:/etc/udev/rules.d/90-roce-dcb.rules", "file:/etc/udev/rules.d/90-roce-rdma_cm.rules"},
			causes: []string{"cause: no-pause on host.h2: PFC not operational"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, baseline := upgradeLab(t)
			if tc.unpersist {
				unpersist(t, l, strings.TrimPrefix(tc.target, "host."), "90-roce-dcb.rules", "90-roce-rdma_cm.rules")
			}
			r := roceLab(t, "upgrade", "-lab", l.Dir, tc.target, tc.version)
			if r.code != 0 {
				t.Fatalf("roce-lab upgrade\n%s", r)
			}
			if tc.unpersist {
				mustContain(t, "roce-lab upgrade", r.stdout, "nothing re-applies the DCB settings", "nothing re-applies the rdma_cm defaults")
			}
			plan := roce(t, l, "", "roce-plan", "-detailed-exitcode", l.Dir)
			if plan.code != 2 {
				t.Fatalf("the plan after the upgrade: want exit 2 (changes)\n%s", plan)
			}
			mustContain(t, "the plan", plan.stdout, tc.plan...)

			v := roce(t, l, "", "roce-verify", "-baseline", baseline, l.Dir)
			if v.code != 3 {
				t.Fatalf("verify after the upgrade: want exit 3\n%s", v)
			}
			mustContain(t, "verify", v.stdout, append([]string{"FAIL  baseline", "[emulated]", "EMULATED"}, tc.causes...)...)

			junit := filepath.Join(t.TempDir(), "post-upgrade.xml")
			if v := roce(t, l, "", "roce-verify", "-baseline", baseline, "-format", "junit", "-out", junit, l.Dir); v.code != 3 {
				t.Fatalf("verify -format junit: want exit 3\n%s", v)
			}
			b, err := os.ReadFile(junit)
			if err != nil {
				t.Fatal(err)
			}
			mustContain(t, "the JUnit report", string(b), "<failure", "[emulated]", "cause: no-pause on "+tc.target)

			repairAfterUpgrade(t, l)
		})
	}
}

// unpersist removes roce's udev rules (by file name) from a lab host, as
// on a host where roce's persistence is not installed.
func unpersist(t *testing.T, l *lab.Lab, host string, rules ...string) {
	t.Helper()
	for _, r := range rules {
		if err := os.Remove(filepath.Join(l.Dir, lab.StateDir, "hosts", host, "etc", "udev", "rules.d", r)); err != nil {
			t.Fatalf("removing the udev rule roce-apply installed: %v", err)
		}
	}
}

// TestHostUpgradePersisted: roce-apply persists a host's DCB settings (a
// dcb batch file and the udev rule that runs it when the netdev comes
// back) and its rdma_cm defaults (a tmpfiles.d file and the udev rule that
// runs systemd-tmpfiles on it when the RDMA device comes back). A driver
// reload or firmware update then leaves PFC, trust, the DSCP map and
// rdma_cm's ToS as they were: the plan is empty, the probe passes, and
// only the firmware version differs from the baseline. Without the
// rdma_cm rule the plan names the ToS (and the missing rule) but not DCB.
func TestHostUpgradePersisted(t *testing.T) {
	for _, tc := range []struct {
		name, target, version string
		// without: roce's rule files removed before the upgrade.
		without    []string
		planCode   int
		plan       []string
		notPlan    []string
		verifyCode int
		verify     []string
	}{
		{name: "driver reload", target: "host.h2", version: "driver", planCode: 0,
			notPlan:    []string{"rdma_cm.mlx5_0.tos", "nic.eth0.pfc", "nic.eth0.trust", "nic.eth0.dcbx", ".rules", "eth0.dcb", "mlx5_0.conf"},
			verifyCode: 0, verify: []string{"PASS  rocev2: host.h2"}},
		{name: "NIC firmware", target: "host.h1", version: "16.36.1010", planCode: 0,
			notPlan:    []string{"rdma_cm.mlx5_0.tos", "nic.eth0.pfc", ".rules", "eth0.dcb", "mlx5_0.conf"},
			verifyCode: 3, verify: []string{"fw.mlx5_0 changed from 16.35.2000 to 16.36.1010"}},
		{name: "driver reload, rdma_cm not persisted", target: "host.h2", version: "driver", without: []string{"90-roce-rdma_cm.rules"}, planCode: 2,
			plan:       []string{"rdma_cm.mlx5_0.tos", "file:/etc/udev/rules.d/90-roce-rdma_cm.rules"},
			notPlan:    []string{"nic.eth0.pfc", "nic.eth0.trust", "nic.eth0.dcbx", "90-roce-dcb.rules", "eth0.dcb", "mlx5_0.conf"},
			verifyCode: 0, verify: []string{"PASS  rocev2: host.h2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, baseline := upgradeLab(t)
			if len(tc.without) > 0 {
				unpersist(t, l, strings.TrimPrefix(tc.target, "host."), tc.without...)
			}
			r := roceLab(t, "upgrade", "-lab", l.Dir, tc.target, tc.version)
			if r.code != 0 {
				t.Fatalf("roce-lab upgrade\n%s", r)
			}
			mustContain(t, "roce-lab upgrade", r.stdout, "udev re-applied /etc/roce/dcb/eth0.dcb: pfc_en 0x10 (priorities 4)")
			if len(tc.without) == 0 {
				mustContain(t, "roce-lab upgrade", r.stdout, "udev re-applied /etc/roce/rdma_cm/mlx5_0.conf: port 1 default_roce_mode RoCE v2, port 1 default_roce_tos 104")
			} else {
				mustContain(t, "roce-lab upgrade", r.stdout, "nothing re-applies the rdma_cm defaults")
			}
			plan := roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", tc.target, l.Dir)
			if plan.code != tc.planCode {
				t.Fatalf("the plan after the reload: want exit %d\n%s", tc.planCode, plan)
			}
			mustContain(t, "the plan", plan.stdout, tc.plan...)
			for _, not := range tc.notPlan {
				if strings.Contains(plan.stdout, not) {
					t.Errorf("the plan names %q although it was persisted and re-applied:\n%s", not, plan.stdout)
				}
			}
			v := roce(t, l, "", "roce-verify", "-baseline", baseline, l.Dir)
			if v.code != tc.verifyCode {
				t.Fatalf("verify after the reload: want exit %d\n%s", tc.verifyCode, v)
			}
			mustContain(t, "verify", v.stdout, tc.verify...)
			if strings.Contains(v.stdout, "cause: no-pause") || strings.Contains(v.stdout, "FAIL  rocev2") {
				t.Errorf("a probe failed although the DCB settings came back:\n%s", v.stdout)
			}
		})
	}
}

// TestUpgradeNexus5000VersionOnly: the 5000 step models no default change:
// no drift, and verify flags only the version against the baseline.
func TestUpgradeNexus5000VersionOnly(t *testing.T) {
	l, baseline := upgradeLab(t)
	r := roceLab(t, "upgrade", "-lab", l.Dir, "switch.n5k-1", "7.3(8)N1(1)")
	if r.code != 0 || !strings.Contains(r.stdout, "only the version strings changed") {
		t.Fatalf("roce-lab upgrade\n%s", r)
	}
	if p := roce(t, l, "", "roce-plan", "-detailed-exitcode", l.Dir); p.code != 0 {
		t.Fatalf("no modelled change: the plan must stay empty\n%s", p)
	}
	v := roce(t, l, "", "roce-verify", "-baseline", baseline, l.Dir)
	if v.code != 3 {
		t.Fatalf("want the version change flagged (exit 3)\n%s", v)
	}
	mustContain(t, "verify", v.stdout, "switch.n5k-1 os changed from 7.1(4)N1(1) to 7.3(8)N1(1)")
	if strings.Contains(v.stdout, "FAIL  rocev2") {
		t.Errorf("a version-only upgrade failed a probe\n%s", v.stdout)
	}
}

// TestUpgradeNexus5000Unsaved: an upgrade whose reload boots a startup
// configuration roce-apply's changes were never saved to loses them: the
// plan names roce's objects again, verify fails on the switch that lost
// its no-drop class, and roce-apply puts them back.
func TestUpgradeNexus5000Unsaved(t *testing.T) {
	l, baseline := upgradeLab(t, "n5k-1")
	r := roceLab(t, "upgrade", "-lab", l.Dir, "-unsaved", "switch.n5k-1", "7.3(8)N1(1)")
	if r.code != 0 {
		t.Fatalf("roce-lab upgrade -unsaved\n%s", r)
	}
	mustContain(t, "roce-lab upgrade", r.stdout, "the reload booted the startup configuration saved at", "policy-map type network-qos ROCE-NQ' (not saved)")
	p := roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", "switch.n5k-1", l.Dir)
	if p.code != 2 {
		t.Fatalf("the lost configuration must show in the plan (exit 2)\n%s", p)
	}
	mustContain(t, "the plan", p.stdout, "switch.n5k-1", "ROCE-NQ")
	v := roce(t, l, "", "roce-verify", "-baseline", baseline, l.Dir)
	if v.code != 3 {
		t.Fatalf("verify after losing the configuration: want exit 3\n%s", v)
	}
	mustContain(t, "verify", v.stdout, "cause: no-pause on switch.n5k-1", "switch.n5k-1 os changed from 7.1(4)N1(1) to 7.3(8)N1(1)")
	repairAfterUpgrade(t, l)
}

// TestUpgradeNexus7000UnsavedQueueShare: a 7000 upgraded without saving
// boots a configuration without roce's output queuing policy, so the
// class's queue share that the baseline recorded (50 %) is the default
// egress policy's again, which roce does not know: verify names it beside
// the lost no-drop class and the version.
func TestUpgradeNexus7000UnsavedQueueShare(t *testing.T) {
	l, baseline := upgradeLab(t, "n7k-1")
	b, err := os.ReadFile(baseline)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the baseline", string(b), `"queue_share.rocev2": "50%"`)
	if r := roceLab(t, "upgrade", "-lab", l.Dir, "-unsaved", "switch.n7k-1", "5.1(5)"); r.code != 0 {
		t.Fatalf("roce-lab upgrade -unsaved\n%s", r)
	}
	v := roce(t, l, "", "roce-verify", "-baseline", baseline, l.Dir)
	if v.code != 3 {
		t.Fatalf("verify: want exit 3\n%s", v)
	}
	mustContain(t, "verify", v.stdout,
		"cause: no-pause on switch.n7k-1",
		"cause: queue-share on switch.n7k-1: queue share of class rocev2 on switch.n7k-1 was 50 % at the baseline and is not known now: no system output queuing policy",
		"cause: version-changed on switch.n7k-1: os changed from 5.1(3) to 5.1(5)")
	repairAfterUpgrade(t, l)
}

// TestUpgradeRefusals: roce-lab upgrade names what it cannot do.
func TestUpgradeRefusals(t *testing.T) {
	l, _ := upgradeLab(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"switch.n7k-1", "7.1(4)N1(1)"}, "is not a nexus7000 release"},
		{[]string{"switch.eos-1", "4.37.0F"}, "gNMI target"},
		{[]string{"switch.nope", "5.1(5)"}, "no switch"},
		{[]string{"host.h9", "1.0"}, "no host"},
	} {
		r := roceLab(t, append([]string{"upgrade", "-lab", l.Dir}, tc.args...)...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("roce-lab upgrade %v: want exit 1 naming %q\n%s", tc.args, tc.want, r)
		}
	}
	if r := roceLab(t, "upgrade", "-lab", t.TempDir(), "switch.n7k-1", "5.1(5)"); r.code != 1 || !strings.Contains(r.stderr, "is it up?") {
		t.Errorf("upgrade without a running lab\n%s", r)
	}
}

// TestEmulatedDeviceRefusedOnNonLabTarget: -emulated on against hosts that
// are not lab hosts is refused per probe (an error, never a number).
func TestEmulatedDeviceRefusedOnNonLabTarget(t *testing.T) {
	dir := t.TempDir()
	pol := `lossless "roce" {
  cos      = [4]
  priority = 4
  mtu      = 9000
}

credentials "nodes" {
  username = "roce"
  key_file = "id_ed25519"
}

host "a" {
  address     = "127.0.0.1:1"
  credentials = "nodes"
  known_hosts = "known_hosts"
  nic "eth0" {
    vlan    = 100
    address = "10.10.0.1/24"
    mtu     = 9000
  }
}

host "b" {
  address     = "127.0.0.1:1"
  credentials = "nodes"
  known_hosts = "known_hosts"
  nic "eth0" {
    vlan    = 100
    address = "10.10.0.2/24"
    mtu     = 9000
  }
}

probe {
  tool               = "ib_write_bw"
  duration           = "1s"
  threshold_fraction = 0.9
}
`
	for name, body := range map[string]string{"main.hcl": pol, "known_hosts": "", "id_ed25519": "not used: no host is reachable\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "roce-verify"), "-emulated", "on", "-format", "json", dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("want exit 1, got %v\n%s\n%s", err, out.String(), errb.String())
	}
	mustContain(t, "the JSON report", out.String(), `"class": "emulation-refused"`, "not a lab host", `"avg_gbps": 0`)
	if strings.Contains(out.String(), `"emulated": {`) {
		t.Errorf("a refused probe carries an emulated result:\n%s", out.String())
	}
}
