package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/nics"
)

// ipJSON runs `ip [-n ns] -j ARGS` and returns its output verbatim.
func ipJSON(t *testing.T, ns string, args ...string) string {
	t.Helper()
	full := append([]string{"-j"}, args...)
	if ns != "" {
		full = append([]string{"-n", ns}, full...)
	}
	out, err := exec.Command("ip", full...).CombinedOutput()
	if err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(full, " "), err, out)
	}
	return string(out)
}

func ipRun(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func randName(prefix string) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// machineInterfaces is this machine's links and addresses as ip prints
// them: the test compares them byte for byte.
func machineInterfaces(t *testing.T) string {
	return ipJSON(t, "", "link") + "\n" + ipJSON(t, "", "addr")
}

// No lab variable makes a lab host act on this machine: with the lab up
// and a var file that empties lab_netns, names this machine's own
// namespace, or gives h1 another host's namespace, roce-plan and roce-apply
// (even with both opt-in flags) refuse, naming the host and what to do,
// and this machine's interfaces are byte for byte what they were.
func TestLabVarsCannotReachThisMachine(t *testing.T) {
	testenv.Root(t, "lab hosts in network namespaces")
	l := startLab(t)
	// /run/netns/NAME for the namespace this test and roce run in: this
	// machine's own network under a name a var file can give.
	rootNS := randName("roce-t-root-")
	ipRun(t, "netns", "attach", rootNS, strconv.Itoa(os.Getpid()))
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", rootNS).Run() })

	vars := map[string]string{
		"empty lab_netns":      "lab_netns = {}\n",
		"this machine's netns": `lab_netns = { h1 = "` + rootNS + `", h2 = "` + rootNS + `", h3 = "` + rootNS + `", h4 = "` + rootNS + `" }` + "\n",
		"another host's netns": `lab_netns = { h1 = "` + l.Netns["h2"] + `" }` + "\n",
	}
	before := machineInterfaces(t)
	for name, body := range vars {
		t.Run(name, func(t *testing.T) {
			vf := filepath.Join(t.TempDir(), "that.vars")
			if err := os.WriteFile(vf, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			runs := []result{
				roce(t, l, "", "roce-plan", "-var-file", vf, "-target", "host.h1", l.Dir),
				roce(t, l, "", "roce-apply", "-var-file", vf, "-auto-approve", "-allow-this-machine", "-allow-cut-off", "-target", "host.h1", l.Dir),
			}
			for _, r := range runs {
				if r.code != 1 {
					t.Fatalf("want exit 1 (refused)\n%s", r)
				}
				for _, want := range []string{"host.h1", "refusing", "roce-lab up", "lab_netns"} {
					if !strings.Contains(r.stderr, want) {
						t.Errorf("the refusal lacks %q\n%s", want, r)
					}
				}
				if strings.Contains(r.stdout, "will be changed") {
					t.Errorf("a plan was shown for a refused lab host\n%s", r)
				}
			}
		})
	}
	// The agent refuses on its own too: run outside the namespace on the
	// lab host's tree, it reads no interface of this machine.
	req := `{"version":1,"op":"read","desired":{"nics":[{"netdev":"eth0","port":1,"exists":true,"mtu":9000}]}}`
	cmd := exec.Command(filepath.Join(binDir, "roce-agent"), "--root", filepath.Join(l.Dir, ".lab", "hosts", "h1"))
	cmd.Stdin = strings.NewReader(req)
	out, _ := cmd.Output()
	if !strings.Contains(string(out), "refusing to touch this machine's interfaces") || !strings.Contains(string(out), l.Netns["h1"]) {
		t.Errorf("roce-agent outside the lab namespace did not refuse:\n%s", out)
	}
	if after := machineInterfaces(t); after != before {
		t.Fatalf("this machine's interfaces changed:\n--- before\n%s\n--- after\n%s", before, after)
	}
	// With the lab's own variables the same host plans normally.
	r := roce(t, l, "", "roce-plan", "-detailed-exitcode", "-target", "host.h1", l.Dir)
	if r.code != 2 {
		t.Fatalf("the lab host with its own namespace\n%s", r)
	}
	// The warning is one text for all lab hosts (so it is printed once);
	// the host's title names its namespace.
	for _, want := range []string{"real netlink, inside the host's own network namespace", "host.h1 (host, netns " + l.Netns["h1"] + ")"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the plan does not say where the lab host's links are changed (%q)\n%s", want, r)
		}
	}
	if strings.Contains(r.stdout, "THIS MACHINE") {
		t.Errorf("a lab host in its namespace is flagged as this machine\n%s", r)
	}
}

// runIn runs a roce binary inside network namespace ns (ip netns exec), so
// that namespace is the machine roce runs on.
func runIn(t *testing.T, ns string, env []string, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	full := append([]string{"netns", "exec", ns, filepath.Join(binDir, name)}, args...)
	cmd := exec.CommandContext(ctx, "ip", full...)
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "CI=", "SSH_CONNECTION="), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s in %s: %v", name, ns, err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// linkMTU is eth0's MTU in namespace ns.
func linkMTU(t *testing.T, ns string) int {
	t.Helper()
	var links []struct {
		MTU int `json:"mtu"`
	}
	if err := json.Unmarshal([]byte(ipJSON(t, ns, "link", "show", "eth0")), &links); err != nil || len(links) != 1 {
		t.Fatalf("ip -j link show eth0 in %s: %v %v", ns, links, err)
	}
	return links[0].MTU
}

// A local = true policy run by roce inside a namespace targets the machine
// roce runs on: the plan says so in text, JSON and Markdown; roce-apply
// refuses without -allow-this-machine (in CI too) and applies with it; a
// change that can cut the machine off (MTU on the interface carrying its
// default route) needs -allow-cut-off as well.
func TestThisMachineNeedsOptIn(t *testing.T) {
	testenv.Root(t, "network namespaces")
	ns := randName("roce-t-self-")
	ipRun(t, "netns", "add", ns)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	ipRun(t, "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", "eth1")
	ipRun(t, "-n", ns, "link", "set", "eth0", "up")
	ipRun(t, "-n", ns, "link", "set", "eth1", "up")
	ipRun(t, "-n", ns, "addr", "add", "198.51.100.2/24", "dev", "eth0")

	// The host tree emulates DCB and the RDMA device (a veth has neither);
	// MTU and addresses are the namespace's real netlink.
	root := t.TempDir()
	if err := nics.SeedLab(root, nics.LabSpec{NICs: []nics.LabNIC{{Netdev: "eth0", RDMADevice: "mlx5_0"}}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	policy := func(mtu string) {
		src := `lossless "rocev2" {
  udp_port = 4791
  dscp     = [26]
  priority = 4
}

host "self" {
  local = true
  root  = "` + root + `"
  mpi   = ["nccl"]
  nic "eth0" {
    rdma_device = "mlx5_0"
    vlan        = 100
    address     = "10.10.0.11/24"
    roce_mode   = "v2"
    mtu         = ` + mtu + `
  }
}
`
		if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	policy("9000")
	planFile := filepath.Join(t.TempDir(), "plan.roce")

	r := runIn(t, ns, nil, "roce-plan", "-out", planFile, dir)
	if r.code != 0 {
		t.Fatalf("plan\n%s", r)
	}
	mustContain(t, "text plan", r.stdout, "THIS MACHINE", "host.self is the machine roce runs on", "interfaces eth0, eth0.100", "-allow-this-machine")
	if strings.Contains(r.stdout, "CAN CUT THIS MACHINE OFF") {
		t.Errorf("no default route or SSH session on eth0, yet a cut-off is reported\n%s", r)
	}
	r = runIn(t, ns, nil, "roce-plan", "-markdown", dir)
	if !strings.Contains(r.stdout, "[!CAUTION]") || !strings.Contains(r.stdout, "This plan changes the machine roce runs on") {
		t.Errorf("Markdown plan does not call out this machine\n%s", r)
	}
	r = runIn(t, ns, nil, "roce-plan", "-json", dir)
	var doc struct {
		Targets []struct {
			Address     string `json:"address"`
			ThisMachine *struct {
				Interfaces []string `json:"interfaces"`
				CutOff     []string `json:"cut_off"`
			} `json:"this_machine"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Targets) != 1 {
		t.Fatalf("JSON plan: %v\n%s", err, r)
	}
	if tm := doc.Targets[0].ThisMachine; tm == nil || strings.Join(tm.Interfaces, ",") != "eth0,eth0.100" || len(tm.CutOff) != 0 {
		t.Errorf("JSON this_machine = %+v\n%s", tm, r.stdout)
	}

	// Refused without the opt-in, whatever else is said; nothing changes.
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{planFile}, "pass -allow-this-machine"},
		{[]string{"CI=true"}, []string{planFile}, "CI=true"},
		{[]string{"CI=true"}, []string{"-auto-approve", dir}, "CI=true"},
		{nil, []string{"-allow-cut-off", planFile}, "-allow-this-machine"},
		{nil, []string{dir}, "pass -allow-this-machine"}, // interactive: refused before the question
	} {
		r := runIn(t, ns, tc.env, "roce-apply", tc.args...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "host.self") {
			t.Errorf("roce-apply %v (env %v): want exit 1 naming host.self and %q\n%s", tc.args, tc.env, tc.want, r)
		}
		if strings.Contains(r.stdout+r.stderr, "Do you want to apply") {
			t.Errorf("roce-apply %v asked for a yes it would then refuse\n%s", tc.args, r)
		}
	}
	if got := linkMTU(t, ns); got != 1500 {
		t.Fatalf("a refused apply changed eth0's MTU to %d", got)
	}

	// With the opt-in (in CI as well) it applies.
	r = runIn(t, ns, []string{"CI=true"}, "roce-apply", "-allow-this-machine", planFile)
	if r.code != 0 {
		t.Fatalf("apply with -allow-this-machine\n%s", r)
	}
	if got := linkMTU(t, ns); got != 9000 {
		t.Fatalf("eth0 MTU %d after the apply, want 9000", got)
	}

	// Now eth0 carries the default route: an MTU change there can cut the
	// machine off and needs the second opt-in.
	ipRun(t, "-n", ns, "route", "add", "default", "via", "198.51.100.1")
	policy("9100")
	r = runIn(t, ns, nil, "roce-plan", "-out", planFile, dir)
	if r.code != 0 || !strings.Contains(r.stdout, "CAN CUT THIS MACHINE OFF: eth0: mtu 9000 → mtu 9100 on the interface carrying this machine's default route") {
		t.Fatalf("plan does not call out the cut-off\n%s", r)
	}
	r = runIn(t, ns, nil, "roce-apply", "-allow-this-machine", planFile)
	if r.code != 1 || !strings.Contains(r.stderr, "pass -allow-cut-off") {
		t.Fatalf("cut-off with one opt-in: want exit 1 asking for -allow-cut-off\n%s", r)
	}
	if got := linkMTU(t, ns); got != 9000 {
		t.Fatalf("a refused apply changed eth0's MTU to %d", got)
	}
	r = runIn(t, ns, nil, "roce-apply", "-allow-this-machine", "-allow-cut-off", planFile)
	if r.code != 0 {
		t.Fatalf("apply with both opt-ins\n%s", r)
	}
	if got := linkMTU(t, ns); got != 9100 {
		t.Fatalf("eth0 MTU %d after the apply, want 9100", got)
	}
}
