package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rocefabric/roce/nics/perftest"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/telemetry"
)

// fakeNet stands in for the hosts' agents: a client probe on port P
// releases the server waiting on P, like perftest's rendezvous.
type fakeNet struct {
	mu      sync.Mutex
	waiting map[int]chan *perftest.Result
	calls   []string // "host.a server 18515", in call order
}

func newFakeNet() *fakeNet { return &fakeNet{waiting: map[int]chan *perftest.Result{}} }

func (n *fakeNet) port(p int) chan *perftest.Result {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch, ok := n.waiting[p]
	if !ok {
		ch = make(chan *perftest.Result, 1)
		n.waiting[p] = ch
	}
	return ch
}

func (n *fakeNet) record(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.calls = append(n.calls, s)
}

// fakeHost is a HostAgent with scripted probe outcomes and telemetry.
type fakeHost struct {
	name string
	net  *fakeNet
	// client returns the client side's outcome for attempt n (1-based).
	client func(o perftest.Options, attempt int) (*perftest.Result, error)
	// serverErr, when set, makes the server side fail at once.
	serverErr error
	// serverDone, when set, makes the server side succeed at once (a
	// replayed output): the client must still run.
	serverDone *perftest.Result
	// tele returns the snapshot for call n (0-based); nil = error.
	tele     func(n int) *telemetry.Device
	gid      int
	mu       sync.Mutex
	attempts int
	teleN    int
	opts     []perftest.Options
}

func (h *fakeHost) Address() string { return "host." + h.name }

func (h *fakeHost) Probe(ctx context.Context, o perftest.Options) (*perftest.Result, error) {
	h.mu.Lock()
	h.opts = append(h.opts, o)
	h.mu.Unlock()
	if o.IsServer() {
		h.net.record(fmt.Sprintf("%s server %d", h.Address(), o.TCPPort))
		if h.serverErr != nil {
			return &perftest.Result{ExitCode: 1}, h.serverErr
		}
		if h.serverDone != nil {
			return h.serverDone, nil
		}
		select {
		case res := <-h.net.port(o.TCPPort):
			return res, nil
		case <-ctx.Done():
			return nil, &perftest.Failure{Class: perftest.ClassTimeout, Detail: "cancelled: " + ctx.Err().Error()}
		}
	}
	h.mu.Lock()
	h.attempts++
	n := h.attempts
	h.mu.Unlock()
	h.net.record(fmt.Sprintf("%s client %d -> %s", h.Address(), o.TCPPort, o.Server))
	res, err := h.client(o, n)
	if err == nil {
		h.net.port(o.TCPPort) <- res
	}
	return res, err
}

func (h *fakeHost) Telemetry(ctx context.Context) (*telemetry.Device, error) {
	h.mu.Lock()
	n := h.teleN
	h.teleN++
	h.mu.Unlock()
	if h.tele == nil {
		return nil, errors.New("agent unreachable")
	}
	d := h.tele(n)
	if d == nil {
		return nil, errors.New("agent unreachable")
	}
	return d, nil
}

func (h *fakeHost) ResolveGIDIndex(ctx context.Context, nic *policies.NIC) (int, error) {
	if h.gid < 0 {
		return 0, errors.New("no GID for " + nic.Address)
	}
	return h.gid, nil
}

// fakeSwitch is a telemetry.Source returning scripted snapshots.
type fakeSwitch struct {
	mu   sync.Mutex
	n    int
	tele func(n int) *telemetry.Device
}

func (s *fakeSwitch) Telemetry(ctx context.Context) (*telemetry.Device, error) {
	s.mu.Lock()
	n := s.n
	s.n++
	s.mu.Unlock()
	d := s.tele(n)
	if d == nil {
		return nil, errors.New("gNMI Get failed: connection refused")
	}
	return d, nil
}

// recorded parses a recorded perftest output from nics/perftest/testdata.
func recorded(t testing.TB, name string) *perftest.Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "nics", "perftest", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := perftest.Parse(string(b))
	if err != nil {
		t.Fatal(err)
	}
	r.Stdout = ""
	return r
}

func healthyHostPort(netdev string) telemetry.Port {
	return telemetry.Port{Name: netdev, PFCMode: "on", PFCOperational: true, PFCPriorities: 1 << 3,
		RateGbps: 100, MTU: 9000, RxPause: make([]uint64, 8), TxPause: make([]uint64, 8),
		Counters: map[string]uint64{}}
}

func steadyHost(name string, versions map[string]string) func(int) *telemetry.Device {
	return func(int) *telemetry.Device {
		return &telemetry.Device{Address: "host." + name, Kind: "host", Versions: versions,
			Ports: []telemetry.Port{healthyHostPort("ens1f0")}}
	}
}

func steadySwitch(name string, ifaces ...string) func(int) *telemetry.Device {
	return func(int) *telemetry.Device {
		d := &telemetry.Device{Address: "switch." + name, Kind: "nexus5000", Versions: map[string]string{"os": "7.3(8)N1(1)"}}
		for _, i := range ifaces {
			d.Ports = append(d.Ports, telemetry.Port{Name: i, PFCMode: "on", PFCOperational: true, PFCPriorities: 1 << 3, RxPause: make([]uint64, 8), TxPause: make([]uint64, 8)})
		}
		return d
	}
}

// labFabric: hosts on two switches, one RoCE v2 class on priority 3 /
// DSCP 26 with ECN, probe at 80% of the link.
func labFabric(hosts ...string) *policies.Fabric {
	class := &policies.Lossless{Name: "roce", Priority: 3,
		Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{26}}, ECN: &policies.ECN{MinThresholdKB: 150, MaxThresholdKB: 1500, Probability: 10}}
	f := &policies.Fabric{
		Lossless: []*policies.Lossless{class},
		Switches: []*policies.Switch{
			{Name: "leaf1", Platform: policies.PlatformNexus5000, Interfaces: []string{"Ethernet1/1", "Ethernet1/2"}},
			{Name: "leaf2", Platform: policies.PlatformGNMI, Interfaces: []string{"Ethernet1/1", "Ethernet1/2"}},
		},
		Probe: &policies.Probe{Tool: "ib_write_bw", Duration: 5 * time.Second, MessageSize: 65536, QPs: 2, ThresholdFraction: 0.8, BasePort: 18515, Timeout: 30 * time.Second},
	}
	for i, h := range hosts {
		sw := "leaf1"
		if i%2 == 1 {
			sw = "leaf2"
		}
		f.Hosts = append(f.Hosts, &policies.Host{Name: h, Address: fmt.Sprintf("192.0.2.%d:22", 10+i), Switch: sw,
			NICs: []*policies.NIC{{Netdev: "ens1f0", RDMADevice: "mlx5_0", Port: 1, VLAN: 100, Address: fmt.Sprintf("10.10.0.%d/24", 10+i), RoCEMode: "v2", MTU: 9000}}})
	}
	return f
}

var fixedNow = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

func fixedClock() time.Time { return fixedNow }
