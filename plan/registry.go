package plan

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/rocefabric/roce/policies"
)

// Env is what a provider factory gets to build a Target.
type Env struct {
	Fabric *policies.Fabric
	// Getenv looks up environment variables (credentials, ROCE_*). Tests
	// pass their own; the CLIs pass os.LookupEnv.
	Getenv  func(string) (string, bool)
	Logger  *slog.Logger
	Timeout time.Duration // per-operation (per-command) timeout
	// ConnectTimeout bounds establishing a session: TCP connect plus the
	// SSH or TLS handshake and login (0: the provider's default, 10s). A
	// switch that accepts TCP but never answers is reported after it,
	// naming the device and the stage.
	ConnectTimeout time.Duration
}

// DefaultConnectTimeout is how long a provider waits for a session to be
// established unless told otherwise.
const DefaultConnectTimeout = 10 * time.Second

// SwitchFactory builds a Target for one switch of a platform.
type SwitchFactory func(env Env, sw *policies.Switch) (Target, error)

// HostFactory builds a Target for one host.
type HostFactory func(env Env, h *policies.Host) (Target, error)

// Registry maps kinds to provider factories (containerlab's per-kind node
// registry). It is built by the caller — cmd/ wires the real providers,
// tests wire what they need — so there is no package-level mutable state.
type Registry struct {
	Switches map[string]SwitchFactory // keyed by policies.Switch.Platform
	Host     HostFactory
}

// SwitchTarget builds the target for sw.
func (r *Registry) SwitchTarget(env Env, sw *policies.Switch) (Target, error) {
	f, ok := r.Switches[sw.Platform]
	if !ok {
		return nil, fmt.Errorf("switch.%s: no provider registered for platform %q", sw.Name, sw.Platform)
	}
	return f(env, sw)
}

// HostTarget builds the target for h.
func (r *Registry) HostTarget(env Env, h *policies.Host) (Target, error) {
	if r.Host == nil {
		return nil, fmt.Errorf("host.%s: no host provider registered", h.Name)
	}
	return r.Host(env, h)
}
