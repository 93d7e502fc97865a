package verify

import (
	"context"
	"fmt"

	"github.com/rocefabric/roce/nics/perftest"
	"github.com/rocefabric/roce/telemetry"
)

// LocalAgent runs perftest on this machine for a policy host: the
// substitute path for tests and for hosts without a remote agent. Its
// telemetry comes from Source when set (e.g. the host agent's local
// reader); without one it reports an error, which the report shows.
type LocalAgent struct {
	Name   string           // host name in the policy (without "host.")
	Source telemetry.Source // optional
}

// Address implements HostAgent.
func (a *LocalAgent) Address() string { return "host." + a.Name }

// Probe implements HostAgent by running perftest locally. Before a server
// side it stops a perftest server an earlier crashed run left on the
// rendezvous port (never any other program), as roce-agent does.
func (a *LocalAgent) Probe(ctx context.Context, o perftest.Options) (*perftest.Result, error) {
	var notes []string
	if o.IsServer() {
		port := o.TCPPort
		if port == 0 {
			port = perftest.DefaultTCPPort
		}
		ls, err := perftest.Reaper{}.Reap(ctx, port)
		if err != nil {
			notes = append(notes, fmt.Sprintf("could not look for leftover servers on TCP port %d: %v", port, err))
		}
		for _, l := range ls {
			notes = append(notes, l.String())
		}
	}
	res, err := perftest.Run(ctx, o)
	if len(notes) > 0 {
		if res == nil {
			res = &perftest.Result{}
		}
		res.Notes = append(notes, res.Notes...)
	}
	return res, err
}

// Telemetry implements HostAgent.
func (a *LocalAgent) Telemetry(ctx context.Context) (*telemetry.Device, error) {
	if a.Source == nil {
		return nil, fmt.Errorf("host.%s: local agent has no telemetry source (counters need roce-agent on the host)", a.Name)
	}
	return a.Source.Telemetry(ctx)
}
