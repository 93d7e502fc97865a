package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// Engine builds the plan engine for these flags with the real providers.
func (c *Common) Engine(fab *policies.Fabric, log *slog.Logger) *plan.Engine {
	return &plan.Engine{
		Registry:      Registry(),
		Env:           c.Env(fab, log, c.commandTimeout()),
		Parallelism:   c.Parallelism,
		TargetTimeout: c.Timeout,
	}
}

// Env is the providers' environment for these flags: commandTimeout
// bounds one command or RPC, -connect-timeout one session's connect,
// handshake and login (every binary that talks to devices honours it).
func (c *Common) Env(fab *policies.Fabric, log *slog.Logger, commandTimeout time.Duration) plan.Env {
	return plan.Env{Fabric: fab, Getenv: os.LookupEnv, Logger: log, Timeout: commandTimeout, ConnectTimeout: c.ConnectTimeout}
}

// commandTimeout is the per-command limit, never above the per-target one.
func (c *Common) commandTimeout() time.Duration {
	if c.Timeout > 0 && (c.CommandTimeout <= 0 || c.CommandTimeout > c.Timeout) {
		return c.Timeout
	}
	return c.CommandTimeout
}

// ProgressLines returns an Engine.OnTarget that writes one line per target
// event to w ("roce-apply: switch.leaf1: applied (...)") when w is not a
// terminal, where no progress bar is drawn; nil on a terminal.
func ProgressLines(w io.Writer, prefix string) func(address, status, detail string) {
	if IsTerminal(w) {
		return nil
	}
	var mu sync.Mutex
	return func(address, status, detail string) {
		mu.Lock()
		defer mu.Unlock()
		if status == "" {
			fmt.Fprintf(w, "%s: %s: %s\n", prefix, address, detail)
			return
		}
		writeOutcome(w, prefix, address, status, detail)
	}
}

// writeOutcome writes one target's outcome line, its error cut at 300
// characters (the report or plan has it in full).
func writeOutcome(w io.Writer, prefix, address, status, detail string) {
	if detail == "" {
		fmt.Fprintf(w, "%s: %s: %s\n", prefix, address, status)
		return
	}
	if len(detail) > 300 {
		detail = detail[:300] + "..."
	}
	fmt.Fprintf(w, "%s: %s: %s: %s\n", prefix, address, status, detail)
}

// PlanTargets reads and plans targets with a progress bar on stderr when it
// is a terminal. Off one, the lines follow ApplyLines: none per target when
// the plan is printed as text to the same file (it lists the targets), else
// one per target read, without the error text (the plan shows it); either
// way a "still reading" line for a slow target. planOut is where the plan
// is printed, textPlan whether as text; prefix names the program.
func PlanTargets(ctx context.Context, eng *plan.Engine, targets []plan.BoundTarget, stderr, planOut io.Writer, textPlan bool, prefix string) *plan.Plan {
	prog := plan.NewProgress(stderr, "Reading", len(targets), IsTerminal(stderr))
	eng.OnProgress = func() { prog.Done(1) }
	lines, stopLines := ApplyLines(stderr, planOut, textPlan, prefix, SlowTargetAfter)
	defer stopLines()
	if lines != nil {
		eng.OnTarget = func(address, status, detail string) {
			if status != "" {
				detail = ""
			}
			lines(address, status, detail)
		}
	}
	p := eng.Plan(ctx, targets)
	prog.Finish()
	eng.OnProgress, eng.OnTarget = nil, nil
	return p
}

// MakePlan builds the targets the flags select, plans them and closes them
// (roce-plan; planOut and textPlan as for PlanTargets).
func MakePlan(ctx context.Context, c *Common, fab *policies.Fabric, log *slog.Logger, stderr, planOut io.Writer, textPlan bool) (*plan.Plan, error) {
	eng := c.Engine(fab, log)
	targets, err := eng.Targets(fab, c.Targets)
	if err != nil {
		return nil, err
	}
	defer plan.CloseAll(targets)
	return PlanTargets(ctx, eng, targets, stderr, planOut, textPlan, "roce-plan"), nil
}
