package e2e

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/nexus"
)

// Ansible's cisco.nxos (Debian's ansible package) against a switch of a
// lab started as a user starts it (`roce-lab up -d` of a copy of
// examples/lab), with only the lab's own files: the address from `roce-lab
// status -json`, the password from .lab/password, host keys checked
// against .lab/known_hosts. The play reads facts and show output and runs
// nxos_config in check mode with diff on the lines roce-plan would push to
// that switch. Nothing may change: the switch's running-config (read back
// over SSH, not from the play) and a second roce-plan are what they were.

const debianPython = "/usr/bin/python3"

// labDevice is one device of `roce-lab status -json` (docs/lab-status.md).
type labDevice struct {
	Target, Platform, Address, Version, State string
}

func labStatus(t *testing.T, dir string) map[string]labDevice {
	t.Helper()
	r := runInDir(t, "", "roce-lab", "status", "-json", dir)
	if r.code != 0 {
		t.Fatalf("roce-lab status -json\n%s", r)
	}
	var st struct {
		Devices []labDevice `json:"devices"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("roce-lab status -json: %v\n%s", err, r.stdout)
	}
	out := map[string]labDevice{}
	for _, d := range st.Devices {
		out[d.Target] = d
	}
	return out
}

// labShow runs one show command on a lab switch over SSH, checking its host
// key against the lab's known_hosts, and returns the command's output as
// the terminal showed it (between the echoed command and the next prompt).
func labShow(t *testing.T, addr, password, knownHostsFile, cmd string) string {
	t.Helper()
	screen, key := typeAt(t, addr, password, []string{cmd})
	check, err := knownhosts.New(knownHostsFile)
	if err != nil {
		t.Fatal(err)
	}
	tcp, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if err := check(addr, tcp, key); err != nil {
		t.Fatalf("the switch at %s presented a host key %s does not list: %v", addr, knownHostsFile, err)
	}
	screen = strings.ReplaceAll(screen, "\r\n", "\n")
	_, rest, ok := strings.Cut(screen, "# "+cmd+"\n")
	if !ok {
		t.Fatalf("%q was not echoed at a prompt on %s:\n%s", cmd, addr, screen)
	}
	end := regexp.MustCompile(`(?m)^[A-Za-z0-9_-]+# exit\n?`).FindStringIndex(rest)
	if end == nil {
		t.Fatalf("no prompt after %q on %s:\n%s", cmd, addr, screen)
	}
	return rest[:end[0]]
}

// runningConfig is `show running-config` without its `!Time:` header line
// (the switch's clock, not its configuration).
func runningConfig(t *testing.T, addr, password, knownHostsFile string) string {
	t.Helper()
	out := labShow(t, addr, password, knownHostsFile, "show running-config")
	var kept []string
	for _, l := range strings.SplitAfter(out, "\n") {
		if !strings.HasPrefix(l, "!Time: ") {
			kept = append(kept, l)
		}
	}
	if len(kept) == len(strings.SplitAfter(out, "\n")) || !strings.Contains(out, "hostname ") {
		t.Fatalf("show running-config on %s has no !Time: header or no hostname:\n%s", addr, out)
	}
	return strings.Join(kept, "")
}

// labPlanTarget is one target of `roce-plan -json` (docs/plan-json.md).
type labPlanTarget struct {
	Address     string            `json:"address"`
	Fingerprint string            `json:"fingerprint"`
	Commands    []string          `json:"commands"`
	Facts       map[string]string `json:"facts"`
	Error       string            `json:"error"`
	Changes     []struct {
		Address  string   `json:"address"`
		Action   string   `json:"action"`
		Commands []string `json:"commands"`
	} `json:"changes"`
}

func planLabSwitch(t *testing.T, dir, target string) labPlanTarget {
	t.Helper()
	r := runInDir(t, "", "roce-plan", "-json", "-var-file", filepath.Join(dir, ".lab", "lab.vars"), "-target", target, dir)
	if r.code != 0 {
		t.Fatalf("roce-plan -json -target %s\n%s", target, r)
	}
	var p struct {
		Targets []labPlanTarget `json:"targets"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatalf("roce-plan -json: %v\n%s", err, r.stdout)
	}
	if len(p.Targets) != 1 || p.Targets[0].Address != target || p.Targets[0].Error != "" {
		t.Fatalf("roce-plan -json -target %s: %+v", target, p.Targets)
	}
	return p.Targets[0]
}

// ansibleLab runs testdata/interop/ansible_lab.yml against the lab switch
// at addr as the inventory host name, with HOME holding knownHosts as
// ~/.ssh/known_hosts (where cisco.nxos's network_cli over paramiko reads
// host keys) and host-key checking on. It returns the play's results, or
// the exit error and output when the play fails.
func ansibleLab(t *testing.T, playbook, name, addr, passwordFile, knownHosts, src string) ([]byte, string, error) {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "known_hosts"), []byte(knownHosts), 0o600); err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(addr, ":")
	inv := filepath.Join(dir, "inventory.ini")
	if err := os.WriteFile(inv, []byte("[lab]\n"+name+" ansible_host="+host+" ansible_port="+port+"\n\n[lab:vars]\n"+
		"ansible_connection=ansible.netcommon.network_cli\nansible_network_os=cisco.nxos.nxos\n"+
		"ansible_user=admin\nansible_python_interpreter="+debianPython+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(dir, "result.json")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	play := filepath.Join(repoRoot(), "nexus", "nxsim", "testdata", "interop", "ansible_lab.yml")
	cmd := exec.CommandContext(ctx, playbook, "-i", inv, play,
		"-e", "out="+result, "-e", "roce_src="+src, "-e", "lab_password_file="+passwordFile)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "ANSIBLE_HOST_KEY_CHECKING=True", "ANSIBLE_NOCOLOR=1",
		"ANSIBLE_LOCAL_TEMP="+filepath.Join(dir, "tmp"), "ANSIBLE_HOME="+filepath.Join(dir, "ansible"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, string(out), err
	}
	b, err := os.ReadFile(result)
	if err != nil {
		t.Fatalf("the play wrote no result: %v\n%s", err, out)
	}
	return b, string(out), nil
}

func TestInteropLabAnsibleCheckMode(t *testing.T) {
	playbook := testenv.Tool(t, "ansible-playbook", "apt-get install ansible")
	testenv.File(t, "/usr/lib/python3/dist-packages/ansible_collections/cisco/nxos/plugins/cliconf/nxos.py", "apt-get install ansible (bundles cisco.nxos)")
	testenv.File(t, "/usr/lib/python3/dist-packages/paramiko/__init__.py", "apt-get install ansible (depends on python3-paramiko)")

	dir := labCopy(t)
	if r := runInDir(t, "", "roce-lab", "up", "-d", dir); r.code != 0 {
		t.Fatalf("roce-lab up -d\n%s", r)
	}
	t.Cleanup(func() {
		if r := runInDir(t, "", "roce-lab", "down", dir); r.code != 0 {
			t.Errorf("roce-lab down\n%s", r)
		}
	})
	const name, target = "n5k-1", "switch.n5k-1"
	dev, ok := labStatus(t, dir)[target]
	if !ok || dev.Platform != "nexus5000" || dev.State != "up" {
		t.Fatalf("roce-lab status -json has no running %s: %+v", target, dev)
	}
	passwordFile := filepath.Join(dir, ".lab", "password")
	knownHostsFile := filepath.Join(dir, ".lab", "known_hosts")
	pw, err := os.ReadFile(passwordFile)
	if err != nil {
		t.Fatal(err)
	}
	password := strings.TrimSpace(string(pw))
	known, err := os.ReadFile(knownHostsFile)
	if err != nil {
		t.Fatal(err)
	}

	// What the lab says about the switch, over SSH with the host key checked.
	hostname := strings.TrimSpace(labShow(t, dev.Address, password, knownHostsFile, "show hostname"))
	chassis := regexp.MustCompile(`NAME: "Chassis",.*\n\s*PID: (\S+)`).FindStringSubmatch(
		strings.ReplaceAll(labShow(t, dev.Address, password, knownHostsFile, "show inventory"), "\r", ""))
	if hostname != name || chassis == nil {
		t.Fatalf("the lab switch: hostname %q (want %s), show inventory chassis %v", hostname, name, chassis)
	}
	before := runningConfig(t, dev.Address, password, knownHostsFile)
	planned := planLabSwitch(t, dir, target)
	if len(planned.Changes) == 0 || len(planned.Commands) == 0 {
		t.Fatalf("roce-plan has no change for %s, so the check-mode play would prove nothing: %+v", target, planned)
	}
	// roce-plan -json gives the switch's whole script flat; nxos_config
	// diffs a nested config, so read the script as the switch does (by
	// command) and write it indented.
	cfg, err := nexus.Parse(strings.Join(planned.Commands, "\n"))
	if err != nil {
		t.Fatalf("reading roce-plan's script for %s: %v", target, err)
	}
	src := filepath.Join(t.TempDir(), name+".cfg")
	if err := os.WriteFile(src, []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("wrong host key refused", func(t *testing.T) {
		// The n7k-1 key listed for n5k-1's address: a careful client
		// must refuse to log in.
		var other string
		for _, l := range strings.Split(string(known), "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] != knownhosts.Normalize(dev.Address) {
				other = f[1] + " " + f[2]
			}
		}
		if other == "" {
			t.Fatalf("no other switch's key in %s:\n%s", knownHostsFile, known)
		}
		_, out, err := ansibleLab(t, playbook, name, dev.Address, passwordFile, knownhosts.Normalize(dev.Address)+" "+other+"\n", src)
		if err == nil {
			t.Fatalf("the play logged in although known_hosts lists another key for %s:\n%s", dev.Address, out)
		}
		if !strings.Contains(out, "host key mismatch for "+strings.Split(dev.Address, ":")[0]) {
			t.Errorf("the play failed, but not on the host key:\n%s", out)
		}
	})

	b, out, err := ansibleLab(t, playbook, name, dev.Address, passwordFile, string(known), src)
	if err != nil {
		t.Fatalf("ansible-playbook: %v\n%s", err, out)
	}
	var got struct {
		Facts struct {
			AnsibleFacts map[string]any `json:"ansible_facts"`
		} `json:"facts"`
		Shown struct {
			Stdout []string `json:"stdout"`
		} `json:"shown"`
		Planned struct {
			Changed  bool     `json:"changed"`
			Updates  []string `json:"updates"`
			Warnings []string `json:"warnings"`
		} `json:"planned"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("result: %v\n%s", err, b)
	}

	f := got.Facts.AnsibleFacts
	for k, want := range map[string]string{
		"ansible_net_version":  dev.Version,
		"ansible_net_hostname": hostname,
		"ansible_net_platform": chassis[1],
		"ansible_net_image":    planned.Facts["image"],
	} {
		if f[k] != want || want == "" {
			t.Errorf("nxos_facts %s = %v, the lab says %q", k, f[k], want)
		}
	}
	if planned.Facts["os"] != dev.Version {
		t.Errorf("roce-plan read version %q, roce-lab status says %q", planned.Facts["os"], dev.Version)
	}

	if len(got.Shown.Stdout) != 2 || !strings.Contains(got.Shown.Stdout[0], "system:    version "+dev.Version) ||
		!strings.Contains(got.Shown.Stdout[0], "Device name: "+hostname) ||
		!strings.Contains(got.Shown.Stdout[1], "policy-map type network-qos SYSTEM-NQ") {
		t.Errorf("nxos_command stdout: %q", got.Shown.Stdout)
	}

	// nxos_config's own diff of roce's lines against the running-config
	// (match: line) is exactly roce's script: every line is new or
	// differs, in roce's order.
	if !got.Planned.Changed || strings.Join(got.Planned.Updates, "\n") != strings.Join(planned.Commands, "\n") {
		t.Errorf("nxos_config check mode: changed %v, updates\n%s\nwant roce-plan's commands\n%s",
			got.Planned.Changed, strings.Join(got.Planned.Updates, "\n"), strings.Join(planned.Commands, "\n"))
	}
	if !slices.Contains(got.Planned.Warnings, "unable to perform diff against running-config due to check mode") {
		t.Errorf("nxos_config warnings %q: its check mode now diffs against the running-config; docs/nxos.md says it cannot", got.Planned.Warnings)
	}

	if after := runningConfig(t, dev.Address, password, knownHostsFile); after != before {
		t.Errorf("the check-mode play changed the switch's running-config:\n--- before\n%s\n--- after\n%s", before, after)
	}
	again := planLabSwitch(t, dir, target)
	if again.Fingerprint != planned.Fingerprint || !equalChanges(again, planned) {
		t.Errorf("roce-plan after the play differs: fingerprint %s → %s\nbefore %+v\nafter  %+v", planned.Fingerprint, again.Fingerprint, planned.Changes, again.Changes)
	}
}

func equalChanges(a, b labPlanTarget) bool {
	ja, _ := json.Marshal(a.Changes)
	jb, _ := json.Marshal(b.Changes)
	return string(ja) == string(jb) && strings.Join(a.Commands, "\n") == strings.Join(b.Commands, "\n")
}
