package verify

import (
	"context"
	"log/slog"
	"time"

	"github.com/rocefabric/roce/nics/perftest"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/telemetry"
)

// HostAgent is what verify needs from a host: run one side of a probe and
// report counters and versions. The real one goes through roce-agent's
// `probe` operation; LocalAgent runs perftest on this machine.
type HostAgent interface {
	// Address is the target address, "host.NAME".
	Address() string
	// Probe runs one side of a perftest run. The server side blocks until
	// its client finishes or ctx ends. Errors are *perftest.Failure when
	// perftest ran and failed.
	Probe(ctx context.Context, o perftest.Options) (*perftest.Result, error)
	// Telemetry reports the host's counters and versions.
	Telemetry(ctx context.Context) (*telemetry.Device, error)
}

// GIDResolver is implemented by agents that can look up the GID index of a
// NIC's address (sysfs GID table, by netdev, IP and RoCE version). Verbs
// mode needs the same kind of GID on both sides (docs/platform-hosts.md #perftest);
// when the NIC pins no GID index and the agent cannot resolve one, the
// probe passes -1 and perftest picks its default.
type GIDResolver interface {
	ResolveGIDIndex(ctx context.Context, nic *policies.NIC) (int, error)
}

// NICProber is implemented by agents that take the policy NIC along with
// the probe options, so the host itself resolves what only it can see
// (the RDMA device behind a netdev, the GID index of the NIC's address on
// its VLAN). When an agent implements it, verify calls ProbeNIC instead of
// Probe and does not resolve the GID index itself.
type NICProber interface {
	ProbeNIC(ctx context.Context, nic *policies.NIC, o perftest.Options) (*perftest.Result, error)
}

// QueueShareReader is implemented by switch sources that can read the
// egress bandwidth share of the queue carrying a priority (providers/nxos:
// the system output queuing policy). percent is 0 when the switch's
// configuration does not say; where then says why. The lab's path model
// uses it (docs/verify.md, "Queue share"); a source without it has an
// unknown share.
type QueueShareReader interface {
	QueueShare(ctx context.Context, priority int) (percent int, where string, err error)
}

// Fabric is everything a verification run talks to.
type Fabric struct {
	Policy   *policies.Fabric
	Hosts    map[string]HostAgent        // keyed "host.NAME"
	Switches map[string]telemetry.Source // keyed "switch.NAME"
}

// Options tune one verification run. The zero value is usable.
type Options struct {
	// Command overrides probe { command } (the CLI's -probe-command).
	Command []string
	// Targets limits the run to these "host.NAME" / "switch.NAME"
	// addresses; empty = everything. A pair runs only when both of its
	// hosts are selected.
	Targets []string
	// Parallelism bounds concurrent probes and telemetry reads; 0 = 4.
	Parallelism int
	// Timeout overrides probe { timeout } per probe side; 0 = policy or
	// perftest.DefaultTimeout.
	Timeout time.Duration
	// Baseline, when set, is compared against (see Compare).
	Baseline *Baseline
	// TolerancePercent is how far below baseline a result may fall; 0 = 10.
	TolerancePercent float64
	// PauseStormPPS is the pause-frame rate (frames/s received plus sent on
	// the lossless priority of one port) reported as a pause storm; 0 =
	// DefaultPauseStormPPS.
	PauseStormPPS float64
	// ServerStartDelay is how long the client waits after starting the
	// server side; 0 = 500ms. The agent cannot report "listening", so the
	// client also retries a refused rendezvous a few times.
	ServerStartDelay time.Duration
	// Now stamps the report; nil = time.Now (tests pin it).
	Now func() time.Time
	// Logger gets progress (one line per round and per probe); nil = silent.
	Logger *slog.Logger
	// Emulation selects the lab's emulated RDMA device (EmulationAuto,
	// EmulationOn, EmulationOff; verify/emulated.go).
	Emulation string
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (o Options) parallelism() int {
	if o.Parallelism > 0 {
		return o.Parallelism
	}
	return 4
}

func (o Options) tolerance() float64 {
	if o.TolerancePercent > 0 {
		return o.TolerancePercent
	}
	return 10
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) serverStartDelay() time.Duration {
	if o.ServerStartDelay > 0 {
		return o.ServerStartDelay
	}
	return 500 * time.Millisecond
}

func (o Options) selected(addr string) bool {
	if len(o.Targets) == 0 {
		return true
	}
	for _, t := range o.Targets {
		if t == addr {
			return true
		}
	}
	return false
}
