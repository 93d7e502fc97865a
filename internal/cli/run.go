package cli

import (
	"context"
	"io"
	"log/slog"
	"os"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
)

// Engine builds the plan engine for these flags with the real providers.
func (c *Common) Engine(fab *policies.Fabric, log *slog.Logger) *plan.Engine {
	return &plan.Engine{
		Registry:      Registry(),
		Env:           plan.Env{Fabric: fab, Getenv: os.LookupEnv, Logger: log, Timeout: c.Timeout},
		Parallelism:   c.Parallelism,
		TargetTimeout: c.Timeout,
	}
}

// PlanTargets reads and plans targets with a progress bar on stderr when it
// is a terminal.
func PlanTargets(ctx context.Context, eng *plan.Engine, targets []plan.BoundTarget, stderr io.Writer) *plan.Plan {
	prog := plan.NewProgress(stderr, "Reading", len(targets), IsTerminal(stderr))
	eng.OnProgress = func() { prog.Done(1) }
	p := eng.Plan(ctx, targets)
	prog.Finish()
	eng.OnProgress = nil
	return p
}

// MakePlan builds the targets the flags select, plans them and closes them.
func MakePlan(ctx context.Context, c *Common, fab *policies.Fabric, log *slog.Logger, stderr io.Writer) (*plan.Plan, error) {
	eng := c.Engine(fab, log)
	targets, err := eng.Targets(fab, c.Targets)
	if err != nil {
		return nil, err
	}
	defer plan.CloseAll(targets)
	return PlanTargets(ctx, eng, targets, stderr), nil
}
