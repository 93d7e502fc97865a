package nxsim

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/nexus"
)

// The interop tests drive the simulator with real third-party clients, as
// Debian packages them (the Makefile installs them): netmiko's cisco_nxos
// driver with the ntc-templates TextFSM templates (vendored under
// testdata/ntc-templates), and Ansible's cisco.nxos collection. A client
// that cannot connect, or a template that cannot parse what the simulator
// prints, fails here: the simulator must speak NX-OS to everyone, not only
// to roce.

const debianPython = "/usr/bin/python3"

// interopSwitch serves the interop tests' Nexus 5000 leaf1 with
// testdata/interop/startup-5k.cfg at release version ("" = the default).
func interopSwitch(t *testing.T, version string) *Server {
	t.Helper()
	cfg, err := os.ReadFile(filepath.Join("testdata", "interop", "startup-5k.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	return startServer(t, Options{Platform: "nexus5000", Hostname: "leaf1", Version: version, StartupConfig: string(cfg), Users: map[string]string{"admin": "interop-pw"}})
}

func TestInteropNetmikoNTCTemplates(t *testing.T) {
	testenv.Tool(t, debianPython, "apt-get install python3")
	testenv.File(t, "/usr/lib/python3/dist-packages/netmiko/__init__.py", "apt-get install python3-netmiko")
	testenv.File(t, "/usr/lib/python3/dist-packages/textfsm/__init__.py", "apt-get install python3-textfsm")
	srv := interopSwitch(t, "")
	host, port, _ := strings.Cut(srv.Addr(), ":")
	tmpl, _ := filepath.Abs(filepath.Join("testdata", "ntc-templates", "templates"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, debianPython, filepath.Join("testdata", "interop", "netmiko_check.py"), host, port, "admin",
		"parse:show version", "parse:show inventory", "parse:show module", "parse:show interface Ethernet1/1-2",
		"show interface Ethernet1/1 | include MTU", "show running-config | section class-map", "show class-map type qos",
		"show policy-map type qos fcoe-like", "show interface | exclude .", "show ?")
	cmd.Env = append(os.Environ(), "NXSIM_PASSWORD=interop-pw", "NET_TEXTFSM="+tmpl)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("netmiko: %v\n%s", err, stderrOf(err))
	}
	var got struct {
		Prompt  string              `json:"prompt"`
		Version []map[string]string `json:"show version"`
		Inv     []map[string]string `json:"show inventory"`
		Module  []map[string]string `json:"show module"`
		Intf    []map[string]string `json:"show interface Ethernet1/1-2"`
		MTU     string              `json:"show interface Ethernet1/1 | include MTU"`
		Section string              `json:"show running-config | section class-map"`
		CMap    string              `json:"show class-map type qos"`
		PMap    string              `json:"show policy-map type qos fcoe-like"`
		Empty   string              `json:"show interface | exclude ."`
		Help    string              `json:"show ?"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("netmiko output is not the parsed JSON (a template fell back to raw text?): %v\n%s", err, out)
	}
	if got.Prompt != "leaf1#" {
		t.Errorf("prompt %q, want leaf1# (the startup config's hostname)", got.Prompt)
	}
	if len(got.Version) != 1 {
		t.Fatalf("show version: %d records, want 1", len(got.Version))
	}
	v := got.Version[0]
	for k, want := range map[string]string{
		"os": "7.1(4)N1(1)", "platform": "5596", "hostname": "leaf1", "serial": "FOC17153X08", "bios": "3.6.0",
		"boot_image": "bootflash:///n5000-uk9-kickstart.7.1.4.N1.1.bin", "last_reboot_reason": "Unknown",
	} {
		if v[k] != want {
			t.Errorf("show version %s = %q, want %q", k, v[k], want)
		}
	}
	if !strings.HasPrefix(v["uptime"], "0 day(s), 0 hour(s), ") {
		t.Errorf("show version uptime %q", v["uptime"])
	}
	if len(got.Inv) < 3 || got.Inv[0]["name"] != "Chassis" || got.Inv[0]["pid"] != "N5K-C5596UP" || got.Inv[0]["sn"] != "FOC17153X08" {
		t.Errorf("show inventory: %v", got.Inv)
	}
	if len(got.Module) != 1 || got.Module[0]["model"] != "N5K-C5596UP-SUP" || got.Module[0]["ports"] != "48" || got.Module[0]["status"] != "active *" {
		t.Errorf("show module: %v", got.Module)
	}
	if len(got.Intf) != 2 {
		t.Fatalf("show interface: %d records, want 2", len(got.Intf))
	}
	e1 := got.Intf[0]
	for k, want := range map[string]string{"interface": "Ethernet1/1", "link_status": "up", "mtu": "9216", "mode": "trunk",
		"description": "rdma-host-1", "speed": "10 Gb/s", "rx_pause": "0", "output_discards": "0"} {
		if e1[k] != want {
			t.Errorf("show interface Ethernet1/1 %s = %q, want %q", k, e1[k], want)
		}
	}
	if got.Intf[1]["mtu"] != "1500" || got.Intf[1]["mode"] != "access" {
		t.Errorf("show interface Ethernet1/2: %v", got.Intf[1])
	}
	if strings.TrimSpace(got.MTU) != "MTU 9216 bytes, BW 10000000 Kbit, DLY 10 usec" {
		t.Errorf("| include MTU: %q", got.MTU)
	}
	if got.Section != "class-map type qos match-all fcoe-like\n  match cos 3" {
		t.Errorf("| section class-map: %q", got.Section)
	}
	if !strings.Contains(got.CMap, "class-map type qos match-all fcoe-like\n      match cos 3") {
		t.Errorf("show class-map type qos: %q", got.CMap)
	}
	if !strings.Contains(got.PMap, "policy-map type qos fcoe-like\n    class type qos fcoe-like\n      set qos-group 1") {
		t.Errorf("show policy-map: %q", got.PMap)
	}
	if strings.TrimSpace(got.Empty) != "" {
		t.Errorf("| exclude . kept %q", got.Empty)
	}
	for _, w := range []string{"  version", "  inventory", "  interface", "  policy-map"} {
		if !strings.Contains(got.Help+"\n", w+"\n") {
			t.Errorf("show ? does not list %q:\n%s", w, got.Help)
		}
	}
}

// A Nexus 7000 through netmiko and ntc-templates: show version (C7010,
// Supervisor 2 facts), show module (F/M cards and the supervisor), show
// vdc, show inventory and show interface (a port under the 7000's Layer 3
// default reads as mode routed) parse with the clients' own templates.
func TestInteropNetmiko7000(t *testing.T) {
	testenv.Tool(t, debianPython, "apt-get install python3")
	testenv.File(t, "/usr/lib/python3/dist-packages/netmiko/__init__.py", "apt-get install python3-netmiko")
	testenv.File(t, "/usr/lib/python3/dist-packages/textfsm/__init__.py", "apt-get install python3-textfsm")
	srv := startServer(t, Options{Platform: "nexus7000", Hostname: "agg7", Users: map[string]string{"admin": "interop-pw"}})
	host, port, _ := strings.Cut(srv.Addr(), ":")
	tmpl, _ := filepath.Abs(filepath.Join("testdata", "ntc-templates", "templates"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, debianPython, filepath.Join("testdata", "interop", "netmiko_check.py"), host, port, "admin",
		"parse:show version", "parse:show module", "parse:show vdc", "parse:show inventory", "parse:show interface Ethernet1/1")
	cmd.Env = append(os.Environ(), "NXSIM_PASSWORD=interop-pw", "NET_TEXTFSM="+tmpl)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("netmiko: %v\n%s", err, stderrOf(err))
	}
	var got struct {
		Prompt  string              `json:"prompt"`
		Version []map[string]string `json:"show version"`
		Module  []map[string]string `json:"show module"`
		VDC     []map[string]string `json:"show vdc"`
		Inv     []map[string]string `json:"show inventory"`
		Intf    []map[string]string `json:"show interface Ethernet1/1"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("netmiko output is not the parsed JSON (a template fell back to raw text?): %v\n%s", err, out)
	}
	if len(got.Intf) != 1 || got.Intf[0]["interface"] != "Ethernet1/1" || got.Intf[0]["mode"] != "routed" {
		t.Errorf("show interface Ethernet1/1 (Layer 3 by the 7000's default): %v", got.Intf)
	}
	if got.Prompt != "agg7#" || len(got.Version) != 1 || got.Version[0]["os"] != "6.2(14)" || got.Version[0]["platform"] != "C7010" ||
		got.Version[0]["hostname"] != "agg7" || got.Version[0]["serial"] != "JAF1708AAKL" ||
		got.Version[0]["boot_image"] != "bootflash:///n7000-s2-kickstart.6.2.14.bin" {
		t.Errorf("show version: prompt %q, %v", got.Prompt, got.Version)
	}
	models := map[string]string{}
	for _, m := range got.Module {
		models[m["module"]] = m["model"] + " " + m["status"]
	}
	if models["1"] != "N7K-F248XP-25 ok" || models["2"] != "N7K-M148GT-11 ok" || models["5"] != "N7K-SUP2 active *" {
		t.Errorf("show module: %v", got.Module)
	}
	if len(got.VDC) != 1 || got.VDC[0]["vdc_id"] != "1" || got.VDC[0]["vdc_name"] != "agg7" || got.VDC[0]["type"] != "Ethernet" {
		t.Errorf("show vdc: %v", got.VDC)
	}
	if len(got.Inv) < 4 || got.Inv[0]["pid"] != "N7K-C7010" || got.Inv[1]["pid"] != "N7K-F248XP-25" {
		t.Errorf("show inventory: %v", got.Inv)
	}
}

// runAnsiblePlay runs a play of testdata/interop against srv as the host
// leaf1 (cisco.nxos over network_cli) and returns what it wrote to {{ out }}.
func runAnsiblePlay(t *testing.T, srv *Server, play string) []byte {
	t.Helper()
	playbook := testenv.Tool(t, "ansible-playbook", "apt-get install ansible")
	testenv.File(t, "/usr/lib/python3/dist-packages/ansible_collections/cisco/nxos/plugins/cliconf/nxos.py", "apt-get install ansible (bundles cisco.nxos)")
	host, port, _ := strings.Cut(srv.Addr(), ":")
	dir := t.TempDir()
	inv := filepath.Join(dir, "inventory.ini")
	if err := os.WriteFile(inv, []byte("[leaf]\nleaf1 ansible_host="+host+" ansible_port="+port+"\n\n[leaf:vars]\n"+
		"ansible_connection=ansible.netcommon.network_cli\nansible_network_os=cisco.nxos.nxos\n"+
		"ansible_user=admin\nansible_python_interpreter="+debianPython+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(dir, "result.json")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	playPath, _ := filepath.Abs(filepath.Join("testdata", "interop", play))
	cmd := exec.CommandContext(ctx, playbook, "-i", inv, playPath, "-e", "out="+result, "-e", "ansible_password={{ lookup('env', 'NXSIM_PASSWORD') }}")
	cmd.Env = append(os.Environ(), "NXSIM_PASSWORD=interop-pw", "ANSIBLE_HOST_KEY_CHECKING=False", "ANSIBLE_NOCOLOR=1",
		"ANSIBLE_LOCAL_TEMP="+filepath.Join(dir, "tmp"), "ANSIBLE_HOME="+filepath.Join(dir, "home"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ansible-playbook: %v\n%s", err, out)
	}
	b, err := os.ReadFile(result)
	if err != nil {
		t.Fatalf("the play wrote no result: %v\n%s", err, out)
	}
	return b
}

func TestInteropAnsibleCiscoNXOS(t *testing.T) {
	srv := interopSwitch(t, "")
	b := runAnsiblePlay(t, srv, "ansible_play.yml")
	var got struct {
		Shown struct {
			Stdout []string `json:"stdout"`
		} `json:"shown"`
		Facts struct {
			AnsibleFacts map[string]any `json:"ansible_facts"`
		} `json:"facts"`
		Planned struct {
			Changed bool     `json:"changed"`
			Updates []string `json:"updates"`
			Diff    struct {
				Before string `json:"before"`
				After  string `json:"after"`
			} `json:"diff"`
		} `json:"planned"`
		Noop struct {
			Changed bool     `json:"changed"`
			Updates []string `json:"updates"`
		} `json:"noop"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("result: %v\n%s", err, b)
	}
	if len(got.Shown.Stdout) != 4 || !strings.Contains(got.Shown.Stdout[0], "system:    version 7.1(4)N1(1)") ||
		!strings.Contains(got.Shown.Stdout[1], `NAME: "Chassis"`) || !strings.Contains(got.Shown.Stdout[2], "MTU 9216 bytes") ||
		!strings.Contains(got.Shown.Stdout[3], "policy-map type qos fcoe-like") {
		t.Errorf("nxos_command stdout: %q", got.Shown.Stdout)
	}
	for k, want := range map[string]string{
		"ansible_net_version": "7.1(4)N1(1)", "ansible_net_hostname": "leaf1", "ansible_net_serialnum": "FOC17153X08",
		"ansible_net_platform": "N5K-C5596UP", "ansible_net_image": "bootflash:///n5000-uk9.7.1.4.N1.1.bin",
		"ansible_net_license_hostid": "FOC17153X08", "ansible_net_model": `Nexus 5596 Chassis ("O2 48X10GE/Modular Supervisor")`,
	} {
		if got.Facts.AnsibleFacts[k] != want {
			t.Errorf("nxos_facts %s = %v, want %q", k, got.Facts.AnsibleFacts[k], want)
		}
	}
	if !got.Planned.Changed || strings.Join(got.Planned.Updates, "\n") != "class-map type qos match-all roce-rocev2\nmatch cos 4" {
		t.Errorf("nxos_config check mode: changed %v, updates %q", got.Planned.Changed, got.Planned.Updates)
	}
	if !strings.Contains(got.Planned.Diff.Before, "class-map type qos match-all fcoe-like") || !strings.Contains(got.Planned.Diff.After, "roce-rocev2") {
		t.Errorf("nxos_config diff: before %q after %q", got.Planned.Diff.Before, got.Planned.Diff.After)
	}
	if got.Noop.Changed || len(got.Noop.Updates) != 0 {
		t.Errorf("nxos_config of lines already in the running-config: changed %v, updates %q", got.Noop.Changed, got.Noop.Updates)
	}
	if strings.Contains(srv.Switch().RunningConfig(), "roce-rocev2") {
		t.Error("check mode changed the switch")
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// Ansible's cisco.nxos asks for `| json` on a release that has it (a 7.3
// Nexus 5000 here) and decodes the simulator's JSON: nxos_command with
// output json returns the structured table, not text. (nxos_facts'
// interfaces subset, which sends `| json-pretty`, is
// TestInteropAnsibleFactsInterfaces.)
func TestInteropAnsibleJSON(t *testing.T) {
	srv := interopSwitch(t, "7.3(0)N1(1)")
	b := runAnsiblePlay(t, srv, "ansible_json.yml")
	var got struct {
		Shown struct {
			Stdout []json.RawMessage `json:"stdout"`
		} `json:"shown"`
	}
	if err := json.Unmarshal(b, &got); err != nil || len(got.Shown.Stdout) != 2 {
		t.Fatalf("result: %v\n%s", err, b)
	}
	var intf struct {
		Table struct {
			Row map[string]any `json:"ROW_interface"`
		} `json:"TABLE_interface"`
	}
	if err := json.Unmarshal(got.Shown.Stdout[0], &intf); err != nil {
		t.Fatalf("show interface Ethernet1/1 | json came back as %s (not decoded JSON): %v", got.Shown.Stdout[0], err)
	}
	r := intf.Table.Row
	if r["interface"] != "Ethernet1/1" || r["eth_mtu"] != "9216" || r["eth_mode"] != "trunk" || r["desc"] != "rdma-host-1" || r["eth_bw"] != float64(10000000) {
		t.Errorf("ROW_interface: %v", r)
	}
	var ver map[string]any
	if err := json.Unmarshal(got.Shown.Stdout[1], &ver); err != nil {
		t.Fatalf("show version | json came back as %s: %v", got.Shown.Stdout[1], err)
	}
	if ver["sys_ver_str"] != "7.3(0)N1(1)" || ver["host_name"] != "leaf1" || ver["proc_board_id"] != "FOC17153X08" {
		t.Errorf("show version | json: %v", ver)
	}
}

// Ansible's nxos_facts with the interfaces subset sends `show interface
// | json-pretty` and reads the table: every port under its own name, with
// the state, MTU, mode and description the switch holds; no key made of
// a prompt or an error line ("leaf1#", "%", "show") as when the simulator
// refused json-pretty and Ansible parsed the error text.
func TestInteropAnsibleFactsInterfaces(t *testing.T) {
	srv := interopSwitch(t, "7.3(0)N1(1)")
	b := runAnsiblePlay(t, srv, "ansible_facts_interfaces.yml")
	var got struct {
		Facts struct {
			AnsibleFacts map[string]json.RawMessage `json:"ansible_facts"`
		} `json:"facts"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("result: %v\n%s", err, b)
	}
	var intfs map[string]map[string]any
	if err := json.Unmarshal(got.Facts.AnsibleFacts["ansible_net_interfaces"], &intfs); err != nil {
		t.Fatalf("ansible_net_interfaces: %v\n%s", err, b)
	}
	if len(intfs) != len(srv.Switch().interfaces) {
		t.Errorf("ansible_net_interfaces has %d ports, the switch %d", len(intfs), len(srv.Switch().interfaces))
	}
	for name := range intfs {
		if !strings.HasPrefix(name, "Ethernet") {
			t.Errorf("ansible_net_interfaces key %q is no port (error or prompt text read as data)", name)
		}
	}
	e1 := intfs["Ethernet1/1"]
	for k, want := range map[string]any{"mtu": "9216", "mode": "trunk", "description": "rdma-host-1", "state": "up", "bandwidth": float64(10000000)} {
		if e1[k] != want {
			t.Errorf("Ethernet1/1 %s = %#v, want %#v (all: %v)", k, e1[k], want, e1)
		}
	}
	if m := intfs["Ethernet1/2"]["mode"]; m != "access" {
		t.Errorf("Ethernet1/2 mode = %#v, want access", m)
	}
	// The simulator has no `show lldp neighbors` or `show cdp neighbors
	// detail` (nor `show ipv6 interface`): Ansible gets the error, reports
	// no neighbors and no addresses, and the play does not fail.
	if n := string(got.Facts.AnsibleFacts["ansible_net_neighbors"]); n != "{}" {
		t.Errorf("ansible_net_neighbors = %s, want {} (nxsim has no LLDP/CDP)", n)
	}
}

// netmiko (a real SSH client with its own prompt and paging handling)
// reads `show policy-map interface` and `show startup-config` from the
// simulator; roce's parser reads what netmiko returns.
func TestInteropNetmikoPolicyMapInterface(t *testing.T) {
	testenv.Tool(t, debianPython, "apt-get install python3")
	testenv.File(t, "/usr/lib/python3/dist-packages/netmiko/__init__.py", "apt-get install python3-netmiko")
	srv := startServer(t, Options{Platform: "nexus5000", Hostname: "leaf1", StartupConfig: policyMapStartup,
		Users: map[string]string{"admin": "interop-pw"}})
	host, port, _ := strings.Cut(srv.Addr(), ":")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, debianPython, filepath.Join("testdata", "interop", "netmiko_check.py"), host, port, "admin",
		"show policy-map interface ethernet 1/3", "show startup-config ipqos")
	cmd.Env = append(os.Environ(), "NXSIM_PASSWORD=interop-pw")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("netmiko: %v\n%s", err, stderrOf(err))
	}
	var got map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("netmiko output: %v\n%s", err, out)
	}
	ifs, err := nexus.ParseShowPolicyMapInterface(got["show policy-map interface ethernet 1/3"])
	if err != nil {
		t.Fatalf("%v\n%s", err, got["show policy-map interface ethernet 1/3"])
	}
	if len(ifs) != 1 || ifs[0].Interface != "Ethernet1/3" || len(ifs[0].Policies) != 3 {
		t.Fatalf("policies: %+v", ifs)
	}
	q4 := ifs[0].Policies[1].Classes[0]
	if ifs[0].Policies[0].Name != "roce-in" || q4.Name != "q4" || !q4.Priority || q4.BandwidthPercent != 40 {
		t.Errorf("policies: %+v", ifs[0].Policies)
	}
	st := got["show startup-config ipqos"]
	if !strings.Contains(st, "!Startup config saved at: ") || !strings.Contains(st, "policy-map type queuing roce-out") {
		t.Errorf("show startup-config ipqos through netmiko:\n%s", st)
	}
}
