package perftest

import (
	"fmt"
	"strconv"
	"time"
)

// Tools roce-verify knows how to drive. All three share the option set and
// the result table.
const (
	ToolWriteBW = "ib_write_bw"
	ToolSendBW  = "ib_send_bw"
	ToolReadBW  = "ib_read_bw"
)

// DefaultTool is used when Options.Tool and Options.Command are empty.
const DefaultTool = ToolWriteBW

// Options pins one side (server or client) of a perftest run. Both sides of
// a pair must get the same options except Server, so the schedule builds
// them from one value.
type Options struct {
	Tool string // ToolWriteBW (default) | ToolSendBW | ToolReadBW
	// Command overrides the executable (+ leading args). Only the operator
	// sets it (roce-verify -probe-command); a policy cannot, and roce-agent
	// accepts only an allowed tool here (CheckExecutable).
	Command []string

	Device   string // -d, RDMA device ("mlx5_0"); "" = perftest picks the first one
	IBPort   int    // -i, RDMA port; 0 = perftest default (1)
	GIDIndex int    // -x; -1 = let rdma_cm / perftest choose (required to be >= 0 without RDMACM when Device is set)
	SL       int    // --sl, service level = PCP on RoCE (verbs mode only)
	TClass   int    // --tclass, GRH traffic class = DSCP<<2 (verbs mode only); 0 = not passed

	RDMACM bool // -R: connect QPs through rdma_cm (GID chosen from the IP)
	ToS    int  // -T with -R; 0 = not passed (rdma_cm default_roce_tos applies)

	Duration time.Duration // -D in whole seconds (rounded up); 0 = iteration mode
	Size     int           // -s message size in bytes; 0 = perftest default (65536)
	QPs      int           // -q; 0 = perftest default (1)
	TCPPort  int           // -p rendezvous port; 0 = perftest default (18515)

	Server string // "" = this is the server side; else the server's address (client side)

	Bidirectional bool          // -b
	ExtraArgs     []string      // appended before the server address
	Timeout       time.Duration // whole-process limit; 0 = DefaultTimeout(o)
}

// IsServer reports whether o describes the passive (listening) side.
func (o Options) IsServer() bool { return o.Server == "" }

// Validate rejects options perftest would refuse or misread, naming the field.
func (o Options) Validate() error {
	if len(o.Command) == 0 {
		if o.Tool != "" && !IsBandwidthTool(o.Tool) {
			return fmt.Errorf("perftest: unknown tool %q (want %s, %s or %s)", o.Tool, ToolWriteBW, ToolSendBW, ToolReadBW)
		}
	} else if o.Command[0] == "" {
		return fmt.Errorf("perftest: probe command has an empty executable")
	}
	switch {
	case o.IBPort < 0:
		return fmt.Errorf("perftest: ib port %d is negative", o.IBPort)
	case o.GIDIndex < -1:
		return fmt.Errorf("perftest: gid index %d is invalid (use -1 to let perftest choose)", o.GIDIndex)
	case o.SL < 0 || o.SL > 7:
		// RoCE maps SL to the 802.1p PCP, so only 0-7 reaches the wire.
		return fmt.Errorf("perftest: service level %d is outside 0-7", o.SL)
	case o.TClass < 0 || o.TClass > 255:
		return fmt.Errorf("perftest: traffic class %d is outside 0-255", o.TClass)
	case o.ToS < 0 || o.ToS > 255:
		return fmt.Errorf("perftest: ToS %d is outside 0-255", o.ToS)
	case o.ToS > 0 && !o.RDMACM:
		// perftest help: "-T ... available only with -R flag".
		return fmt.Errorf("perftest: ToS %d needs rdma_cm (-R); in verbs mode use the traffic class", o.ToS)
	case o.Duration < 0:
		return fmt.Errorf("perftest: negative duration %s", o.Duration)
	case o.Size < 0:
		return fmt.Errorf("perftest: negative message size %d", o.Size)
	case o.QPs < 0:
		return fmt.Errorf("perftest: negative QP count %d", o.QPs)
	case o.TCPPort < 0 || o.TCPPort > 65535:
		return fmt.Errorf("perftest: TCP port %d is outside 0-65535", o.TCPPort)
	case o.Timeout < 0:
		return fmt.Errorf("perftest: negative timeout %s", o.Timeout)
	}
	return nil
}

// durationSeconds is what -D gets: perftest takes whole seconds, and a
// sub-second request must still run (rounding down to 0 would switch the
// tool back to iteration mode).
func durationSeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}

// Args returns the argv after the executable, with every option that must
// agree between both sides pinned explicitly (defaults differ between
// perftest builds, docs/platform-hosts.md #perftest), plus --report_gbits so the table
// is in Gb/s and -F so a cpufreq warning cannot fail the run.
func Args(o Options) []string {
	var a []string
	if o.Device != "" {
		a = append(a, "-d", o.Device)
	}
	if o.IBPort > 0 {
		a = append(a, "-i", strconv.Itoa(o.IBPort))
	}
	if o.RDMACM {
		a = append(a, "-R")
		if o.ToS > 0 {
			a = append(a, "-T", strconv.Itoa(o.ToS))
		}
	} else {
		// Verbs exchange: the GID index must be the same kind (RoCE v2, the
		// VLAN's IP) on both sides, so it is always given when known.
		if o.GIDIndex >= 0 {
			a = append(a, "-x", strconv.Itoa(o.GIDIndex))
		}
		a = append(a, "--sl="+strconv.Itoa(o.SL))
		if o.TClass > 0 {
			a = append(a, "--tclass="+strconv.Itoa(o.TClass))
		}
	}
	if o.Duration > 0 {
		a = append(a, "-D", strconv.Itoa(durationSeconds(o.Duration)))
	}
	if o.Size > 0 {
		a = append(a, "-s", strconv.Itoa(o.Size))
	}
	if o.QPs > 0 {
		a = append(a, "-q", strconv.Itoa(o.QPs))
	}
	if o.TCPPort > 0 {
		a = append(a, "-p", strconv.Itoa(o.TCPPort))
	}
	if o.Bidirectional {
		a = append(a, "-b")
	}
	a = append(a, "--report_gbits", "-F")
	a = append(a, o.ExtraArgs...)
	if o.Server != "" {
		a = append(a, o.Server)
	}
	return a
}

// Argv is the full command line: the executable (Command or Tool) followed
// by Args.
func Argv(o Options) []string {
	var argv []string
	switch {
	case len(o.Command) > 0:
		argv = append(argv, o.Command...)
	case o.Tool != "":
		argv = append(argv, o.Tool)
	default:
		argv = append(argv, DefaultTool)
	}
	return append(argv, Args(o)...)
}

// DefaultTimeout is the process limit used when Options.Timeout is zero:
// the run itself plus time for the rendezvous, QP setup and teardown. The
// server side waits for its client, so it must not wait forever.
func DefaultTimeout(o Options) time.Duration {
	const setup = 30 * time.Second
	if o.Duration > 0 {
		return time.Duration(durationSeconds(o.Duration))*time.Second + setup
	}
	return setup + 30*time.Second
}
