package verify

import (
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/telemetry"
)

func TestCounterChecks(t *testing.T) {
	prio3 := &policies.Lossless{Name: "roce", Priority: 3, Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}}
	all := &policies.Lossless{Name: "all", Priority: 0, Match: policies.Match{Kind: policies.MatchAll}}
	port := func(mut func(p *telemetry.Port)) *telemetry.Device {
		p := telemetry.Port{Name: "Ethernet1/1", PFCOperational: true, PFCPriorities: 1 << 3, Counters: map[string]uint64{}}
		if mut != nil {
			mut(&p)
		}
		return &telemetry.Device{Ports: []telemetry.Port{p}}
	}
	unread := func(d *telemetry.Device) *telemetry.Device {
		d.DiscardsUnread = "parse show queuing interface Ethernet1/1: another layout"
		return d
	}
	tests := []struct {
		name          string
		addr          string
		class         *policies.Lossless
		ports         []string
		before, after *telemetry.Device
		check         string
		status        Status
		msg           string
	}{
		{"pfc ok", "switch.s", prio3, nil, port(nil), port(nil), CheckPFCOperational, StatusPass, "priority 3 on 1 port(s)"},
		{"pfc bitmap lacks the priority", "switch.s", prio3, nil, port(nil), port(func(p *telemetry.Port) { p.PFCPriorities = 1 << 4 }),
			CheckPFCOperational, StatusFail, "priority 3 not in PFC bitmap 0x10"},
		{"all-traffic class uses link pause", "switch.s", all, nil, port(nil), port(func(p *telemetry.Port) { p.PFCOperational = false }),
			CheckPFCOperational, StatusSkip, "link-level pause"},
		{"scoped port not reported", "switch.s", prio3, []string{"Ethernet1/1", "Ethernet1/9"}, port(nil), port(nil),
			CheckPFCOperational, StatusError, "not reported by the device: Ethernet1/9"},
		{"port names match case-insensitively", "switch.s", prio3, []string{"ethernet1/1"}, port(nil), port(nil),
			CheckPFCOperational, StatusPass, "1 port(s)"},
		{"no ports at all", "switch.s", prio3, nil, port(nil), &telemetry.Device{}, CheckPFCOperational, StatusError, "none of the ports"},
		{"per-priority discards", "host.h", prio3, nil, port(nil), port(func(p *telemetry.Port) { p.Counters[telemetry.CounterRxDiscardsPrio(3)] = 4 }),
			CheckLosslessDrops, StatusFail, "roce.rx_discards.prio3 +4"},
		{"discards on another priority do not count", "host.h", prio3, nil, port(nil), port(func(p *telemetry.Port) { p.Counters[telemetry.CounterRxDiscardsPrio(5)] = 4 }),
			CheckLosslessDrops, StatusPass, "no drops"},
		{"counter cleared during the round counts from zero", "switch.s", prio3, nil,
			port(func(p *telemetry.Port) { p.LosslessDiscards = 100 }), port(func(p *telemetry.Port) { p.LosslessDiscards = 2 }),
			CheckLosslessDrops, StatusFail, "2 lossless discards"},
		{"unchanged discards pass", "switch.s", prio3, nil,
			port(func(p *telemetry.Port) { p.LosslessDiscards = 100 }), port(func(p *telemetry.Port) { p.LosslessDiscards = 100 }),
			CheckLosslessDrops, StatusPass, "no drops"},
		{"storm from totals when no per-priority counters", "switch.s", prio3, nil,
			port(nil), port(func(p *telemetry.Port) { p.RxPauseTotal = 3_000_000 }),
			CheckPauseStorm, StatusFail, "300000 pause frames/s on priority 3"},
		{"pauses on the class under the threshold", "switch.s", prio3, nil,
			port(func(p *telemetry.Port) { p.TxPause = make([]uint64, 8) }), port(func(p *telemetry.Port) { p.TxPause = []uint64{0, 0, 0, 5000, 0, 0, 0, 0} }),
			CheckPauseStorm, StatusPass, "highest pause rate 500 frames/s on Ethernet1/1"},
		{"pauses on another priority are not the class's", "switch.s", prio3, nil,
			port(func(p *telemetry.Port) { p.RxPause = make([]uint64, 8) }), port(func(p *telemetry.Port) { p.RxPause = []uint64{9e9, 0, 0, 0, 0, 0, 0, 0} }),
			CheckPauseStorm, StatusPass, "no pause frames"},
		{"NIC storm events", "host.h", prio3, nil, port(nil), port(func(p *telemetry.Port) { p.Counters[telemetry.CounterPauseStormErrors] = 1 }),
			CheckPauseStorm, StatusFail, "roce.pause_storm_errors +1"},
		{"packet sequence errors", "host.h", prio3, nil, port(nil), port(func(p *telemetry.Port) { p.Counters[telemetry.CounterPSNErrors] = 3 }),
			CheckSequence, StatusFail, "roce.psn_errors +3"},
		{"raw driver names are the producer's business", "host.h", prio3, nil, port(nil), port(func(p *telemetry.Port) {
			p.Counters["rx_prio3_discards"], p.Counters["packet_seq_err"], p.Counters["tx_pause_storm_error_events"] = 4, 3, 1
		}), CheckLosslessDrops, StatusPass, "no drops"},
		{"CNPs alone are ECN working, not a failure", "host.h", prio3, nil, port(nil), port(func(p *telemetry.Port) { p.Counters[telemetry.CounterCNPHandled] = 9 }),
			CheckSequence, StatusPass, "ECN/DCQCN active: Ethernet1/1 roce.cnp_handled +9"},
		{"discards not read are unknown, not zero", "switch.s", prio3, nil, port(nil), unread(port(nil)),
			CheckLosslessDrops, StatusError, "the lossless discard counters were not read, so drops are unknown: parse show queuing interface"},
		{"drops seen elsewhere still fail when discards were not read", "switch.s", prio3, nil, port(nil),
			unread(port(func(p *telemetry.Port) { p.Counters[telemetry.CounterRxErrors] = 2 })),
			CheckLosslessDrops, StatusFail, "; the lossless discard counters were not read"},
		{"PFC is still judged when discards were not read", "switch.s", prio3, nil, port(nil),
			unread(port(func(p *telemetry.Port) { p.PFCPriorities = 1 << 4 })),
			CheckPFCOperational, StatusFail, "priority 3 not in PFC bitmap 0x10"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := counterChecks(counterInput{
				Scope:  deviceScope{Addr: tc.addr, Ports: tc.ports, Classes: []*policies.Lossless{tc.class}},
				Round:  1,
				Before: tc.before, After: tc.after, Seconds: 10, StormPPS: 100000,
			})
			var got *Check
			for i := range cs {
				if cs[i].Name == tc.check {
					got = &cs[i]
				}
			}
			if got == nil {
				t.Fatalf("no %s check in %+v", tc.check, cs)
			}
			if got.Status != tc.status || !strings.Contains(got.Message, tc.msg) || got.Device != tc.addr || got.Class != tc.class.Name {
				t.Errorf("%s = %+v, want %s ~%q", tc.check, got, tc.status, tc.msg)
			}
		})
	}
}

func TestCounterChecksNeedSnapshots(t *testing.T) {
	c := &policies.Lossless{Name: "roce", Priority: 3}
	if cs := counterChecks(counterInput{Scope: deviceScope{Addr: "switch.s", Classes: []*policies.Lossless{c}}}); cs != nil {
		t.Errorf("checks without an after snapshot: %+v", cs)
	}
	// Without a before snapshot only the state check runs.
	after := &telemetry.Device{Ports: []telemetry.Port{{Name: "e1", PFCOperational: true, PFCPriorities: 1 << 3}}}
	cs := counterChecks(counterInput{Scope: deviceScope{Addr: "switch.s", Classes: []*policies.Lossless{c}}, After: after})
	if len(cs) != 1 || cs[0].Name != CheckPFCOperational {
		t.Errorf("state-only checks = %+v", cs)
	}
	// Host checks include sequence errors; switch checks do not.
	cs = counterChecks(counterInput{Scope: deviceScope{Addr: "switch.s", Classes: []*policies.Lossless{c}}, Before: after, After: after, Seconds: 1, StormPPS: 1})
	for _, x := range cs {
		if x.Name == CheckSequence {
			t.Errorf("switch got a host-only check: %+v", x)
		}
	}
}
