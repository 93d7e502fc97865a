package nexus_test

import (
	"strings"
	"testing"

	"github.com/rocefabric/roce/nexus"
	"github.com/rocefabric/roce/nexus/nxsim"
)

// The simulator boots a startup configuration that mixes indented and flat
// lines the way Parse reads it (by command), and its running-config echo
// prints what it read, indented as NX-OS prints it: the flat interface
// lines are under their interface, and the echo reads back to the same.
func TestSimulatorEchoesMixedStartupConfig(t *testing.T) {
	startup := "class-map type qos match-all RDMA\nmatch cos 4\n" +
		"  policy-map type qos PQ\nclass RDMA\n        set qos-group 3\n" +
		"class-map type network-qos RDMA\n   match qos-group 3\n" +
		"policy-map type network-qos PN\nclass type network-qos RDMA\npause no-drop\n      mtu 9216\n" +
		" class type network-qos class-default\nmtu 1500\n" +
		"system qos\nservice-policy type network-qos PN\n\tservice-policy type qos input PQ\n" +
		"interface Ethernet1/1\n  description host\npriority-flow-control mode on\n" +
		"interface Ethernet1/2\n\tdescription other\n"
	want := "hostname n5k\n" + // the switch names itself first (nxsim)
		"class-map type qos match-all RDMA\n  match cos 4\n" +
		"policy-map type qos PQ\n  class RDMA\n    set qos-group 3\n" +
		"class-map type network-qos RDMA\n  match qos-group 3\n" +
		"policy-map type network-qos PN\n  class type network-qos RDMA\n    pause no-drop\n    mtu 9216\n" +
		"  class type network-qos class-default\n    mtu 1500\n" +
		"system qos\n  service-policy type network-qos PN\n  service-policy type qos input PQ\n" +
		"interface Ethernet1/1\n  description host\n  priority-flow-control mode on\n" +
		"interface Ethernet1/2\n  description other\n"
	sw, err := nxsim.New(nxsim.Options{Hostname: "n5k", Platform: "nexus5000", StartupConfig: startup})
	if err != nil {
		t.Fatal(err)
	}
	echo := sw.RunningConfig()
	if echo != want {
		t.Fatalf("running-config echo\n%s\nwant\n%s", echo, want)
	}
	read, err := nexus.Parse(echo)
	if err != nil {
		t.Fatal(err)
	}
	if again := read.String(); again != echo {
		t.Fatalf("the echo reads back as\n%s", again)
	}
	if got := read.InterfaceConfig("Ethernet1/1"); !strings.Contains(got, "\n  priority-flow-control mode on\n") {
		t.Fatalf("Ethernet1/1 in the echo: %q", got)
	}
}
