package peerbench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/internal/testenv"
)

// The peer benchmark runs end to end on one switch: both tools make the
// change (Run compares the two running configs), and the table has the
// four phases.
func TestPeerBenchOneSwitch(t *testing.T) {
	playbook := testenv.Tool(t, "ansible-playbook", "apt-get install ansible")
	testenv.File(t, "/usr/lib/python3/dist-packages/ansible_collections/cisco/nxos/plugins/cliconf/nxos.py", "apt-get install ansible (bundles cisco.nxos)")
	bin := t.TempDir()
	for _, c := range []string{"roce-plan", "roce-apply"} {
		out, err := exec.Command("go", "build", "-o", filepath.Join(bin, c), "github.com/rocefabric/roce/cmd/"+c).CombinedOutput()
		if err != nil {
			t.Fatalf("building %s: %v\n%s", c, err, out)
		}
	}
	rows, err := Run(Config{Switches: 1, Bin: bin, Playbook: playbook, Python: "/usr/bin/python3", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	Table(&b, rows)
	for _, want := range []string{"| roce | plan", "| roce | apply", "| Ansible cisco.nxos | nxos_config check mode + diff", "| Ansible cisco.nxos | nxos_config push"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// roce's flat script becomes the nested file nxos_config needs, with the
// repeated lines of different blocks kept.
func TestPlanScriptAsNestedSource(t *testing.T) {
	dir := t.TempDir()
	f := &fleet{addrs: map[string]string{"sw000": "127.0.0.1:2222"}}
	script := []string{"class-map type network-qos R", "match qos-group 2", "class-map type queuing R", "match qos-group 2",
		"policy-map type queuing Q", "class type queuing R", "bandwidth percent 50", "interface Ethernet1/1", "priority-flow-control mode on"}
	inv, err := writeInventory(dir, f, map[string][]string{"sw000": script}, "pw", "/usr/bin/python3")
	if err != nil {
		t.Fatal(err)
	}
	if inv == "" {
		t.Fatal("no inventory")
	}
	got, err := readFile(filepath.Join(dir, "sw000.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	want := "class-map type network-qos R\n  match qos-group 2\nclass-map type queuing R\n  match qos-group 2\n" +
		"policy-map type queuing Q\n  class type queuing R\n    bandwidth percent 50\ninterface Ethernet1/1\n  priority-flow-control mode on\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func readFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}
