package verify

import (
	"reflect"
	"testing"

	"github.com/rocefabric/roce/nics/perftest"
)

func TestDiagnose(t *testing.T) {
	below := func() Probe {
		return Probe{Class: "roce", Server: "host.a", Client: "host.b", ServerSwitch: "leaf1", ClientSwitch: "leaf2",
			Status: StatusFail, Failure: &Reason{Class: perftest.ClassThreshold}}
	}
	base := &Baseline{Versions: map[string]map[string]string{
		"switch.leaf2": {"os": "5.1(3)", "image": "bootflash:///n7000-s1-dk9.5.1.3.bin"},
		"switch.other": {"os": "1.0"},
		"host.a":       {"fw.mlx5_0": "16.35.2000"},
	}}
	now := map[string]map[string]string{
		"switch.leaf2": {"os": "5.1(5)", "image": "bootflash:///n7000-s1-dk9.5.1.5.bin"},
		"switch.other": {"os": "2.0"},
		"host.a":       {"fw.mlx5_0": "16.35.2000"},
	}
	tests := []struct {
		name     string
		probe    Probe
		checks   []Check
		baseline *Baseline
		want     []Cause
	}{
		{
			name:  "PFC check on a path switch, version changed on it; an off-path switch is not named",
			probe: below(),
			checks: []Check{
				{Name: CheckPFCOperational, Device: "switch.leaf2", Class: "roce", Status: StatusFail, Message: "PFC not operational for priority 4 on Ethernet3/1"},
				{Name: CheckPFCOperational, Device: "switch.other", Class: "roce", Status: StatusFail, Message: "x"},
				{Name: CheckSequence, Device: "host.a", Class: "roce", Status: StatusFail, Message: "eth0 roce.out_of_sequence +10"},
			},
			baseline: base,
			want: []Cause{
				{Kind: CauseNoPause, Device: "switch.leaf2", Detail: "PFC not operational for priority 4 on Ethernet3/1"},
				{Kind: CauseDrops, Device: "host.a", Detail: "eth0 roce.out_of_sequence +10"},
				{Kind: CauseVersion, Device: "switch.leaf2", Detail: "os changed from 5.1(3) to 5.1(5) since the baseline; image changed from bootflash:///n7000-s1-dk9.5.1.3.bin to bootflash:///n7000-s1-dk9.5.1.5.bin since the baseline"},
			},
		},
		{
			name: "emulated hops: a switch without pause and a NIC without the mapping, MTU below the NICs'",
			probe: func() Probe {
				p := below()
				p.Emulated = &EmulatedRun{Hops: []EmulatedHop{
					{Device: "host.b", Pauses: true, MapsPriority: false, MTU: 9000, Detail: "no DSCP 26 entry"},
					{Device: "switch.leaf2", Pauses: false, MapsPriority: true, MTU: 1500, Detail: "priority 4 not in PFC bitmap 0x08"},
					{Device: "host.a", Pauses: true, MapsPriority: true, MTU: 9000},
				}}
				return p
			}(),
			want: []Cause{
				{Kind: CauseNoPause, Device: "switch.leaf2", Detail: "priority 4 not in PFC bitmap 0x08"},
				{Kind: CauseNICMapping, Device: "host.b", Detail: "no DSCP 26 entry"},
				{Kind: CauseMTU, Device: "switch.leaf2", Detail: "MTU 1500 is below the NICs' 9000: larger frames are dropped"},
			},
		},
		{
			name:  "a probe that passed but fell below its baseline is diagnosed",
			probe: Probe{Class: "roce", Server: "host.a", Client: "host.b", ClientSwitch: "leaf2", Status: StatusPass},
			checks: []Check{
				{Name: CheckBaseline, Device: "host.a,host.b", Class: "roce", Status: StatusFail, Message: "below"},
			},
			baseline: base,
			want:     []Cause{{Kind: CauseVersion, Device: "switch.leaf2", Detail: "os changed from 5.1(3) to 5.1(5) since the baseline; image changed from bootflash:///n7000-s1-dk9.5.1.3.bin to bootflash:///n7000-s1-dk9.5.1.5.bin since the baseline"}},
		},
		{
			name: "a connection failure has its own cause: no diagnosis",
			probe: Probe{Class: "roce", Server: "host.a", Client: "host.b", ClientSwitch: "leaf2", Status: StatusFail,
				Failure: &Reason{Class: perftest.ClassRTRRTS}},
			checks:   []Check{{Name: CheckPFCOperational, Device: "switch.leaf2", Class: "roce", Status: StatusFail, Message: "x"}},
			baseline: base,
		},
		{
			name:  "a lossless-drops warning on a path switch (port-wide discards) is named; a pass or an off-path warning is not",
			probe: below(),
			checks: []Check{
				{Name: CheckLosslessDrops, Device: "switch.leaf2", Class: "roce", Status: StatusWarn, Message: "port-wide discards rose: Ethernet3/1 +5"},
				{Name: CheckLosslessDrops, Device: "switch.leaf1", Class: "roce", Status: StatusPass, Message: "no discards"},
				{Name: CheckLosslessDrops, Device: "switch.other", Class: "roce", Status: StatusWarn, Message: "x"},
				{Name: CheckPauseStorm, Device: "switch.leaf1", Class: "roce", Status: StatusWarn, Message: "y"},
			},
			want: []Cause{{Kind: CauseDrops, Device: "switch.leaf2", Detail: "port-wide discards rose: Ethernet3/1 +5"}},
		},
		{
			name:  "a check of another class is not a cause",
			probe: below(),
			checks: []Check{
				{Name: CheckPFCOperational, Device: "switch.leaf2", Class: "storage", Status: StatusFail, Message: "x"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Report{Probes: []Probe{tc.probe}, Checks: tc.checks, Versions: now}
			Diagnose(r, tc.baseline)
			if got := r.Probes[0].Causes; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("causes:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestDiagnoseQueueShare: a switch whose queue share for the class fell
// since the baseline is named with both values (not as a version change),
// and a share that capped the class under background load is named.
func TestDiagnoseQueueShare(t *testing.T) {
	key := QueueShareKey("roce")
	base := &Baseline{Versions: map[string]map[string]string{
		"switch.n7k": {"os": "5.1(3)", key: "50%"},
		"switch.n5k": {"os": "7.1(4)N1(1)", key: "40%"},
	}}
	now := map[string]map[string]string{
		"switch.n7k": {"os": "5.1(5)", key: "10%"},
		"switch.n5k": {"os": "7.1(4)N1(1)", key: "60%"},
	}
	p := Probe{Class: "roce", Server: "host.a", Client: "host.b", ServerSwitch: "n7k", ClientSwitch: "n5k",
		Status: StatusFail, Failure: &Reason{Class: perftest.ClassThreshold},
		Emulated: &EmulatedRun{
			Hops: []EmulatedHop{
				{Device: "host.b", Pauses: true, MapsPriority: true},
				{Device: "switch.n5k", Pauses: true, MapsPriority: true, SharePercent: 60, Share: "ROCE-QUEUING-OUT class ROCE-roce"},
				{Device: "switch.n7k", Pauses: true, MapsPriority: true, SharePercent: 10, Share: "ROCE-QUEUING-OUT class ROCE-roce"},
				{Device: "host.a", Pauses: true, MapsPriority: true},
			},
			Path: PathModelResult{Gbps: 9.8, ShareBinds: true},
		}}
	r := &Report{Probes: []Probe{p}, Versions: now}
	Diagnose(r, base)
	want := []Cause{
		{Kind: CauseQueueShare, Device: "switch.n7k", Detail: "class roce's queue is guaranteed 10 % (ROCE-QUEUING-OUT class ROCE-roce) and other classes keep the link busy: the class gets 9.80 Gb/s"},
		{Kind: CauseQueueShare, Device: "switch.n5k", Detail: "queue share of class roce on switch.n5k changed from 40 % to 60 % since the baseline"},
		{Kind: CauseQueueShare, Device: "switch.n7k", Detail: "queue share of class roce on switch.n7k fell from 50 % to 10 % since the baseline"},
		{Kind: CauseVersion, Device: "switch.n7k", Detail: "os changed from 5.1(3) to 5.1(5) since the baseline"},
	}
	if got := r.Probes[0].Causes; !reflect.DeepEqual(got, want) {
		t.Errorf("causes:\n got %+v\nwant %+v", got, want)
	}

	// Without contention the share does not bind: only the change since
	// the baseline is a cause, worded "fell".
	p.Emulated.Path.ShareBinds = false
	r = &Report{Probes: []Probe{p}, Versions: now}
	Diagnose(r, base)
	want = []Cause{
		{Kind: CauseQueueShare, Device: "switch.n5k", Detail: "queue share of class roce on switch.n5k changed from 40 % to 60 % since the baseline"},
		{Kind: CauseQueueShare, Device: "switch.n7k", Detail: "queue share of class roce on switch.n7k fell from 50 % to 10 % since the baseline"},
		{Kind: CauseVersion, Device: "switch.n7k", Detail: "os changed from 5.1(3) to 5.1(5) since the baseline"},
	}
	if got := r.Probes[0].Causes; !reflect.DeepEqual(got, want) {
		t.Errorf("causes without contention:\n got %+v\nwant %+v", got, want)
	}
}

// TestDiagnoseQueueShareGone: a share recorded in the baseline that the
// switch no longer pins (its output queuing policy is gone) is named with
// why it is unknown now.
func TestDiagnoseQueueShareGone(t *testing.T) {
	key := QueueShareKey("roce")
	base := &Baseline{Versions: map[string]map[string]string{"switch.n7k": {"os": "5.1(3)", key: "50%"}}}
	now := map[string]map[string]string{"switch.n7k": {"os": "5.1(3)"}}
	p := Probe{Class: "roce", Server: "host.a", Client: "host.b", ServerSwitch: "n7k",
		Status: StatusFail, Failure: &Reason{Class: perftest.ClassThreshold},
		Emulated: &EmulatedRun{Hops: []EmulatedHop{
			{Device: "host.b", Pauses: true, MapsPriority: true},
			{Device: "switch.n7k", Pauses: true, MapsPriority: true, Share: "unknown: no system output queuing policy: the switch uses the default egress policy of its network-qos template, whose bandwidth split roce does not know"},
			{Device: "host.a", Pauses: true, MapsPriority: true},
		}}}
	r := &Report{Probes: []Probe{p}, Versions: now}
	Diagnose(r, base)
	want := []Cause{{Kind: CauseQueueShare, Device: "switch.n7k", Detail: "queue share of class roce on switch.n7k was 50 % at the baseline and is not known now: no system output queuing policy: the switch uses the default egress policy of its network-qos template, whose bandwidth split roce does not know"}}
	if got := r.Probes[0].Causes; !reflect.DeepEqual(got, want) {
		t.Errorf("causes:\n got %+v\nwant %+v", got, want)
	}
	// A real (not emulated) probe has no hop to say why: no cause.
	p.Emulated = nil
	r = &Report{Probes: []Probe{p}, Versions: now}
	Diagnose(r, base)
	if len(r.Probes[0].Causes) != 0 {
		t.Errorf("causes without an emulated hop: %+v", r.Probes[0].Causes)
	}
}
