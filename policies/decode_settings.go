package policies

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/rocefabric/roce/nics/perftest"
)

// quotedList writes names as "a", "b" or "c".
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// Defaults for the probe and rollout blocks.
const (
	DefaultProbeTool        = "ib_write_bw"
	DefaultProbeDuration    = 5 * time.Second
	DefaultProbeMessageSize = 65536
	DefaultProbeQPs         = 1
	DefaultProbeBasePort    = 18515
	DefaultProbeTimeout     = 60 * time.Second

	DefaultRolloutCanary      = 1
	DefaultRolloutBatchSize   = 10
	DefaultRolloutParallelism = 32
)

var probeSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "tool"}, {Name: "command"}, {Name: "duration"}, {Name: "message_size"}, {Name: "qps"}, {Name: "rdma_cm"},
	{Name: "threshold_gbps"}, {Name: "threshold_fraction"}, {Name: "base_port"}, {Name: "timeout"},
}}

var rolloutSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "canary"}, {Name: "batch_size"}, {Name: "parallelism"}, {Name: "pause"},
}}

// decodeProbe returns nil when the policy has no probe block.
func (l *loader) decodeProbe(b *hcl.Block, ctx *hcl.EvalContext) *Probe {
	if b == nil {
		return nil
	}
	content, diags := b.Body.Content(probeSchema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return nil
	}
	r := newReader("probe", content.Attributes, ctx, &l.diags)
	p := &Probe{
		Tool: DefaultProbeTool, Duration: DefaultProbeDuration, MessageSize: DefaultProbeMessageSize,
		QPs: DefaultProbeQPs, BasePort: DefaultProbeBasePort, Timeout: DefaultProbeTimeout,
	}
	if r.str("tool", &p.Tool) && !perftest.IsBandwidthTool(p.Tool) {
		why := "roce-verify measures bandwidth"
		if !perftest.IsKnownTool(p.Tool) {
			why = "a probe runs only a known perftest tool, never another program"
		}
		r.attrError("tool", "Unknown probe tool", fmt.Sprintf("probe: tool = %q; %s: use %s.", p.Tool, why, quotedList(perftest.BandwidthTools())))
	}
	if r.has("command") {
		// Never evaluated: a command line in a policy would run anything on
		// the hosts (and on this machine with roce-verify -local-probes).
		l.diags = append(l.diags, errorDiag(content.Attributes["command"].Range, "Probe command not allowed",
			fmt.Sprintf("probe: command is not accepted: a probe names a perftest tool with tool = %s and typed options (duration, message_size, qps, rdma_cm), and roce runs that tool itself. A policy cannot name a program or a command line to run. Remove command; to use perftest from another directory, put it on the hosts' PATH.", quotedList(perftest.BandwidthTools()))))
	}
	if r.duration("duration", &p.Duration) && p.Duration < time.Second {
		r.attrError("duration", "Probe too short", fmt.Sprintf("probe: duration = %s; perftest measures whole seconds, use at least \"1s\".", p.Duration))
	}
	r.integer("message_size", &p.MessageSize, 1, 1<<30)
	r.integer("qps", &p.QPs, 1, 1024)
	r.boolean("rdma_cm", &p.RDMACM)
	gbps, frac := r.float("threshold_gbps", &p.ThresholdGbps), r.float("threshold_fraction", &p.ThresholdFraction)
	switch {
	case gbps && frac:
		r.attrError("threshold_fraction", "Two thresholds", "probe: set threshold_gbps or threshold_fraction, not both.")
	case gbps && p.ThresholdGbps <= 0:
		r.attrError("threshold_gbps", "Invalid threshold", "probe: threshold_gbps must be above 0.")
	case frac && (p.ThresholdFraction <= 0 || p.ThresholdFraction > 1):
		r.attrError("threshold_fraction", "Invalid threshold", fmt.Sprintf("probe: threshold_fraction = %g must be above 0 and at most 1 (a share of the link rate).", p.ThresholdFraction))
	case !gbps && !frac && !r.has("threshold_gbps") && !r.has("threshold_fraction"):
		l.diags = append(l.diags, errorDiag(b.DefRange, "Missing probe threshold",
			"probe: say what counts as a pass with threshold_gbps = <Gb/s> or threshold_fraction = <0-1 of link rate>."))
	}
	r.integer("base_port", &p.BasePort, 1024, 65535)
	if r.duration("timeout", &p.Timeout) && p.Timeout < p.Duration {
		r.attrError("timeout", "Probe timeout below duration", fmt.Sprintf("probe: timeout = %s is shorter than duration = %s; the probe would always time out.", p.Timeout, p.Duration))
	}
	return p
}

// decodeRollout fills defaults when the block is absent.
func (l *loader) decodeRollout(b *hcl.Block, ctx *hcl.EvalContext) Rollout {
	ro := Rollout{Canary: DefaultRolloutCanary, BatchSize: DefaultRolloutBatchSize, Parallelism: DefaultRolloutParallelism}
	if b == nil {
		return ro
	}
	content, diags := b.Body.Content(rolloutSchema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return ro
	}
	r := newReader("rollout", content.Attributes, ctx, &l.diags)
	r.integer("canary", &ro.Canary, 0, 1<<20)
	r.integer("batch_size", &ro.BatchSize, 1, 1<<20)
	r.integer("parallelism", &ro.Parallelism, 1, 4096)
	r.duration("pause", &ro.Pause)
	return ro
}
