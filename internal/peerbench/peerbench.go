// Package peerbench is `make bench-peers`: the same lossless-class change
// planned and applied on N simulated Nexus 5000 switches by roce
// (roce-plan, then roce-apply of the saved plan) and by Ansible's
// cisco.nxos nxos_config (check mode with diff, then the push), at the
// same fan-out (-parallelism N for roce, forks N for Ansible). Every run
// starts from fresh switches with the same startup configuration, and the
// Ansible play pushes exactly the commands roce's plan contains, so both
// tools make the same change. Times are wall-clock on this machine; the
// table goes into docs/performance.md.
package peerbench

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/nexus/nxsim"
)

// Config of one benchmark run.
type Config struct {
	Switches int    // how many simulated switches
	Bin      string // directory holding roce-plan and roce-apply
	Playbook string // ansible-playbook binary
	Python   string // the interpreter Ansible runs modules with
	Dir      string // work directory (policy, plan, inventory)
	Out      io.Writer
}

// Row is one measured phase.
type Row struct {
	Tool, Phase string
	Switches    int
	Wall        time.Duration
}

const startup = "hostname SW\nclass-map type qos class-fcoe\nclass-map type queuing class-fcoe\n  match qos-group 1\n" +
	"class-map type network-qos class-fcoe\n  match qos-group 1\n" +
	"interface Ethernet1/1\n  description host-a\ninterface Ethernet1/2\n  description host-b\n"

const policy = `# Written by the peer benchmark (internal/peerbench).
variable "addresses" {
  type = map(string)
}

credentials "lab" {
  username      = "admin"
  password_file = "password"
}

lossless "rocev2" {
  udp_port          = 4791
  dscp              = [26]
  priority          = 4
  mtu               = 9216
  bandwidth_percent = 50
}

switch "sw" {
  for_each    = var.addresses
  platform    = "nexus5000"
  address     = each.value
  credentials = "lab"
  known_hosts = "known_hosts"
  interfaces  = ["Ethernet1/1-2"]
}
`

const playbook = `# Written by the peer benchmark (internal/peerbench): push the commands
# roce's plan holds for each switch with cisco.nxos.nxos_config (as a
# src file: with flat lines nxos_config drops repeated ones, such as the
# two "match qos-group 2" of two class-maps).
- name: lossless class with nxos_config
  hosts: nexus
  gather_facts: false
  tasks:
    - name: the change
      cisco.nxos.nxos_config:
        src: "{{ roce_src }}"
        match: none
      check_mode: "{{ check | bool }}"
      diff: true
`

// fleet is N simulators.
type fleet struct {
	servers []*nxsim.Server
	addrs   map[string]string
	known   []string
	cancel  context.CancelFunc
}

func startFleet(n int, password string) (*fleet, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating a host key: %w", err)
	}
	key, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &fleet{addrs: map[string]string{}, cancel: cancel}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("sw%03d", i)
		srv, err := nxsim.Listen(ctx, "127.0.0.1:0", nxsim.Options{
			Hostname: name, Platform: "nexus5000", HostKey: key, Users: map[string]string{"admin": password},
			StartupConfig: strings.Replace(startup, "hostname SW", "hostname "+name, 1),
		})
		if err != nil {
			f.close()
			return nil, fmt.Errorf("starting simulator %s: %w", name, err)
		}
		f.servers = append(f.servers, srv)
		f.addrs[name] = srv.Addr()
		f.known = append(f.known, knownhosts.Line([]string{knownhosts.Normalize(srv.Addr())}, srv.Switch().HostKey()))
	}
	return f, nil
}

func (f *fleet) close() {
	for _, s := range f.servers {
		_ = s.Close()
	}
	f.cancel()
}

// Run measures both tools and returns the rows.
func Run(c Config) ([]Row, error) {
	pw := make([]byte, 12)
	if _, err := rand.Read(pw); err != nil {
		return nil, err
	}
	password := fmt.Sprintf("%x", pw)
	if err := os.WriteFile(filepath.Join(c.Dir, "password"), []byte(password+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("writing the password file: %w", err)
	}
	if err := os.WriteFile(filepath.Join(c.Dir, "main.hcl"), []byte(policy), 0o644); err != nil {
		return nil, fmt.Errorf("writing the policy: %w", err)
	}
	var rows []Row
	// roce: plan to a file, apply it.
	f, err := startFleet(c.Switches, password)
	if err != nil {
		return nil, err
	}
	if err := writeFleetFiles(c.Dir, f); err != nil {
		f.close()
		return nil, err
	}
	par := fmt.Sprint(c.Switches)
	planFile := filepath.Join(c.Dir, "plan.json")
	varFile := filepath.Join(c.Dir, "fleet.vars")
	wall, err := timed(c.Dir, filepath.Join(c.Bin, "roce-plan"), "-out", planFile, "-parallelism", par, "-var-file", varFile, c.Dir)
	if err != nil {
		f.close()
		return nil, fmt.Errorf("roce-plan: %w", err)
	}
	rows = append(rows, Row{"roce", "plan (read + diff, saved plan)", c.Switches, wall})
	cmds, err := planCommands(planFile)
	if err != nil {
		f.close()
		return nil, err
	}
	wall, err = timed(c.Dir, filepath.Join(c.Bin, "roce-apply"), "-auto-approve", "-parallelism", par, "-dir", c.Dir, "-var-file", varFile, planFile)
	if err != nil {
		f.close()
		return nil, fmt.Errorf("roce-apply: %w", err)
	}
	rows = append(rows, Row{"roce", "apply (checkpoint, push, verify, canary first)", c.Switches, wall})
	applied := make([]string, len(f.servers))
	for i, srv := range f.servers {
		applied[i] = srv.Switch().RunningConfig()
	}
	f.close()

	// Ansible: the same commands on fresh switches.
	f, err = startFleet(c.Switches, password)
	if err != nil {
		return nil, err
	}
	defer f.close()
	inv, err := writeInventory(c.Dir, f, cmds, password, c.Python)
	if err != nil {
		return nil, err
	}
	play := filepath.Join(c.Dir, "nxos_config.yml")
	if err := os.WriteFile(play, []byte(playbook), 0o644); err != nil {
		return nil, err
	}
	for _, phase := range []struct{ name, check string }{
		{"nxos_config check mode + diff", "true"},
		{"nxos_config push", "false"},
	} {
		wall, err := timed(c.Dir, c.Playbook, "-i", inv, "-f", par, "-e", "check="+phase.check, play)
		if err != nil {
			return nil, fmt.Errorf("ansible-playbook (%s): %w", phase.name, err)
		}
		rows = append(rows, Row{"Ansible cisco.nxos", phase.name, c.Switches, wall})
	}
	// Every switch, not one: a fan-out bug may leave only some behind.
	for i, srv := range f.servers {
		if got := srv.Switch().RunningConfig(); got != applied[i] {
			return rows, fmt.Errorf("the two tools did not leave the same configuration on %s:\n--- roce\n%s\n--- ansible\n%s", srv.Switch().Hostname(), applied[i], got)
		}
	}
	return rows, nil
}

func writeFleetFiles(dir string, f *fleet) error {
	if err := os.WriteFile(filepath.Join(dir, "known_hosts"), []byte(strings.Join(f.known, "\n")+"\n"), 0o600); err != nil {
		return fmt.Errorf("writing known_hosts: %w", err)
	}
	var b strings.Builder
	b.WriteString("addresses = {\n")
	for _, n := range sortedKeys(f.addrs) {
		fmt.Fprintf(&b, "  %q = %q\n", n, f.addrs[n])
	}
	b.WriteString("}\n")
	return os.WriteFile(filepath.Join(dir, "fleet.vars"), []byte(b.String()), 0o600)
}

// planCommands reads each switch's NX-OS script from the saved plan.
func planCommands(path string) (map[string][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the saved plan: %w", err)
	}
	var doc struct {
		Plan struct {
			Targets []struct {
				Address  string   `json:"address"`
				Commands []string `json:"commands"`
			} `json:"targets"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("reading the saved plan %s: %w", path, err)
	}
	out := map[string][]string{}
	for _, t := range doc.Plan.Targets {
		out[strings.TrimPrefix(t.Address, "switch.")] = t.Commands
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the saved plan %s has no targets", path)
	}
	return out, nil
}

func writeInventory(dir string, f *fleet, cmds map[string][]string, password, python string) (string, error) {
	var b strings.Builder
	b.WriteString("[nexus]\n")
	for _, n := range sortedKeys(f.addrs) {
		host, port, _ := strings.Cut(f.addrs[n], ":")
		// The plan's script is flat; read it as the switch would (by
		// command) to give nxos_config the nested form it diffs against.
		cfg, err := nexus.Parse(strings.Join(cmds[n], "\n"))
		if err != nil {
			return "", fmt.Errorf("reading roce's script for %s: %w", n, err)
		}
		src := filepath.Join(dir, n+".cfg")
		if err := os.WriteFile(src, []byte(cfg.String()), 0o644); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s ansible_host=%s ansible_port=%s roce_src=%s\n", n, host, port, src)
	}
	fmt.Fprintf(&b, "\n[nexus:vars]\nansible_connection=ansible.netcommon.network_cli\nansible_network_os=cisco.nxos.nxos\n"+
		"ansible_user=admin\nansible_password=%s\nansible_python_interpreter=%s\n", password, python)
	p := filepath.Join(dir, "inventory.ini")
	return p, os.WriteFile(p, []byte(b.String()), 0o600)
}

func timed(dir, bin string, args ...string) (time.Duration, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ANSIBLE_HOST_KEY_CHECKING=False", "ANSIBLE_NOCOLOR=1",
		"ANSIBLE_LOCAL_TEMP="+filepath.Join(dir, ".ansible-tmp"), "ANSIBLE_HOME="+filepath.Join(dir, ".ansible"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return wall, fmt.Errorf("%v\n%s", err, lastLines(out.String(), 30))
	}
	return wall, nil
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Table prints the rows as the Markdown table of docs/performance.md.
func Table(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "| tool | phase | switches (= fan-out) | wall time |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %d | %.1f s |\n", r.Tool, r.Phase, r.Switches, r.Wall.Seconds())
	}
}
