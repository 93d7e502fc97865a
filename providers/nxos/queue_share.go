package nxos

import (
	"context"
	"fmt"

	"github.com/rocefabric/roce/nexus"
)

// QueueShare reads the egress bandwidth share of the queue that carries
// priority (`show running-config ipqos`, nexus.ReadQueueShare): what
// roce-verify's lab path model guarantees the lossless class under
// contention. percent is 0 when the configuration does not say (why).
func (t *Target) QueueShare(ctx context.Context, priority int) (percent int, where string, err error) {
	if t.sw.Capture != "" {
		return 0, "", fmt.Errorf("%s: %w", t.Address(), errOffline)
	}
	dl, _, err := t.dialer()
	if err != nil {
		return 0, "", err
	}
	c, err := dl.open(ctx)
	if err != nil {
		return 0, "", fmt.Errorf("%s: connect to %s: %w", t.Address(), t.sw.Address, withNextStep(t.env.Fabric, t.sw, err))
	}
	defer c.close()
	out, err := c.command("show running-config ipqos")
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", t.Address(), err)
	}
	cfg, err := nexus.Parse(nexus.NormaliseRunning(out))
	if err != nil {
		return 0, "", fmt.Errorf("%s: parse show running-config ipqos: %w", t.Address(), err)
	}
	s := nexus.ReadQueueShare(cfg, t.platform, priority)
	if s.Percent == 0 {
		return 0, s.Why, nil
	}
	return s.Percent, s.Where, nil
}
