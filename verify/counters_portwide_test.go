package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/telemetry"
)

// portWhy is what a provider says when it read port-wide discards instead
// of the per-class ones (providers/nxos: a queuing layout roce does not
// read).
const portWhy = "parse show queuing interface Ethernet3/1: another layout"

// portCmd is the command a provider names for one port's per-class drops
// (providers/nxos: NX-OS's), PORT standing for the port.
const portCmd = "show policy-map interface PORT type queuing"

// portWideSwitch is a switch whose two ports' LosslessDiscards are
// port-wide counts; discards(n) is Ethernet1/1's count at snapshot n.
func portWideSwitch(discards func(n int) uint64) func(int) *telemetry.Device {
	return func(n int) *telemetry.Device {
		d := steadySwitch("leaf2", "Ethernet1/1", "Ethernet1/2")(0)
		d.Kind, d.DiscardsPortWide, d.DiscardsPerClassCommand = "nexus7000", portWhy, portCmd
		d.Ports[0].LosslessDiscards = discards(n)
		return d
	}
}

// With port-wide discard counters (every class on the port) roce can
// prove no drops when none moved, but a rise may be another class's: it
// warns, naming the port, the count and the next step, and never fails
// or passes on it. Drops seen in a lossless-class counter still fail;
// counters read neither way are still an error.
func TestLosslessDropsPortWide(t *testing.T) {
	prio3 := &policies.Lossless{Name: "roce", Priority: 3, Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}}
	dev := func(portWide, unread string, mut func(p *telemetry.Port)) *telemetry.Device {
		p := telemetry.Port{Name: "Ethernet3/1", PFCOperational: true, PFCPriorities: 1 << 3, Counters: map[string]uint64{}, LosslessDiscards: 40}
		if mut != nil {
			mut(&p)
		}
		d := &telemetry.Device{Ports: []telemetry.Port{p}, DiscardsPortWide: portWide, DiscardsUnread: unread}
		if portWide != "" {
			d.DiscardsPerClassCommand = portCmd
		}
		return d
	}
	tests := []lossDropsCase{
		{"port-wide, none moved: pass, saying the counters are port-wide and why",
			dev(portWhy, "", nil), dev(portWhy, "", nil), StatusPass,
			[]string{"no discards on 1 port(s) during the round", "port-wide (input + output, every class)", portWhy, "the lossless class dropped nothing"}, nil},
		{"port-wide, a rise: warn naming port, count and next step",
			dev(portWhy, "", nil), dev(portWhy, "", func(p *telemetry.Port) { p.LosslessDiscards = 45 }), StatusWarn,
			[]string{"port-wide discards (input + output, every class on the port) rose: Ethernet3/1 +5", "lossy class", portWhy,
				"`show policy-map interface Ethernet3/1 type queuing`", "docs/verify.md#lossless-drops"}, []string{"lossless discards"}},
		{"port-wide, a rise on a device that names no per-class command: the next step names none either",
			dev(portWhy, "", nil), func() *telemetry.Device {
				d := dev(portWhy, "", func(p *telemetry.Port) { p.LosslessDiscards = 45 })
				d.DiscardsPerClassCommand = ""
				return d
			}(), StatusWarn,
			[]string{"rose: Ethernet3/1 +5", "Next: read the port's per-class queue drops on the switch and see docs/verify.md#lossless-drops"}, []string{"show policy-map"}},
		{"port-wide counter cleared during the round counts from zero",
			dev(portWhy, "", nil), dev(portWhy, "", func(p *telemetry.Port) { p.LosslessDiscards = 3 }), StatusWarn,
			[]string{"Ethernet3/1 +3"}, nil},
		{"a lossless-class counter still fails beside port-wide discards",
			dev(portWhy, "", nil), dev(portWhy, "", func(p *telemetry.Port) {
				p.LosslessDiscards = 41
				p.Counters[telemetry.CounterRxDiscardsPrio(3)] = 2
			}), StatusFail,
			[]string{"drops on the lossless class: Ethernet3/1 roce.rx_discards.prio3 +2", "port-wide discards (every class) also rose: Ethernet3/1 +1"}, nil},
		{"per-class counters: a rise fails as before",
			dev("", "", nil), dev("", "", func(p *telemetry.Port) { p.LosslessDiscards = 47 }), StatusFail,
			[]string{"drops on the lossless class: Ethernet3/1 7 lossless discards"}, []string{"port-wide"}},
		{"per-class counters, none moved: the plain pass",
			dev("", "", nil), dev("", "", nil), StatusPass, []string{"no drops on the lossless class"}, []string{"port-wide"}},
		{"neither read: error, drops unknown",
			dev("", "no per-class; nor the port-wide ones", nil), dev("", "no per-class; nor the port-wide ones", nil), StatusError,
			[]string{"were not read, so drops are unknown: no per-class; nor the port-wide ones"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkLosslessDrops(t, prio3, tc)
		})
	}
}

// lossDropsCase is one round's two snapshots and the lossless-drops
// check they should give: its status, strings its message holds (want)
// and does not (not).
type lossDropsCase struct {
	name          string
	before, after *telemetry.Device
	status        Status
	want          []string
	not           []string
}

// checkLosslessDrops runs tc's round through the counter checks of class
// c and judges its lossless-drops check.
func checkLosslessDrops(t *testing.T, c *policies.Lossless, tc lossDropsCase) {
	t.Helper()
	cs := counterChecks(counterInput{
		Scope: deviceScope{Addr: "switch.s", Classes: []*policies.Lossless{c}},
		Round: 1, Before: tc.before, After: tc.after, Seconds: 10, StormPPS: DefaultPauseStormPPS,
	})
	i := slices.IndexFunc(cs, func(c Check) bool { return c.Name == CheckLosslessDrops })
	if i < 0 {
		t.Fatalf("no %s check in %+v", CheckLosslessDrops, cs)
	}
	got := cs[i]
	if got.Status != tc.status {
		t.Errorf("status %s, want %s: %s", got.Status, tc.status, got.Message)
	}
	for _, w := range tc.want {
		if !strings.Contains(got.Message, w) {
			t.Errorf("message lacks %q:\n%s", w, got.Message)
		}
	}
	for _, n := range tc.not {
		if strings.Contains(got.Message, n) {
			t.Errorf("message has %q:\n%s", n, got.Message)
		}
	}
}

// A whole run with a switch whose port-wide discards rose: the check
// warns, the run still passes (exit 0) and counts the warning, and every
// report format shows it: text and Markdown list it with its count, JUnit keeps the
// case passing with the warning in system-out, and the JSON matches the
// documented schema.
func TestRunPortWideDiscardsWarn(t *testing.T) {
	s := setup(t, "multisize_gbps.txt", "a", "b")
	s.switches["leaf2"].tele = portWideSwitch(func(n int) uint64 { return uint64(n) * 5 })
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	c := findCheck(rep, CheckLosslessDrops, "switch.leaf2")
	if c == nil || c.Status != StatusWarn || !strings.Contains(c.Message, "rose: Ethernet1/1 +5") {
		t.Fatalf("lossless-drops on switch.leaf2 = %+v, want a warning naming Ethernet1/1 +5", c)
	}
	if rep.Summary.Warn < 1 || rep.Summary.Status != StatusPass || rep.ExitCode() != ExitPass {
		t.Errorf("summary %+v, want status pass, exit 0 and the warning counted", rep.Summary)
	}

	var text bytes.Buffer
	if err := RenderText(&text, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "warning(s)") || !strings.Contains(text.String(), "WARN  lossless-drops [roce] switch.leaf2") {
		t.Errorf("text report does not show the warning:\n%s", text.String())
	}

	var md bytes.Buffer
	if err := RenderMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "skipped, 1 warning(s) (exit 0)") || !strings.Contains(md.String(), "| WARN | lossless-drops | roce | switch.leaf2 |") {
		t.Errorf("Markdown report does not show the warning:\n%s", md.String())
	}

	var junit bytes.Buffer
	if err := RenderJUnit(&junit, rep); err != nil {
		t.Fatal(err)
	}
	j := junit.String()
	at := strings.Index(j, `name="lossless-drops [roce] switch.leaf2`)
	end := strings.Index(j[max(at, 0):], "</testcase>")
	if at < 0 || end < 0 {
		t.Fatalf("no lossless-drops case for switch.leaf2 in the JUnit report:\n%s", j)
	}
	tcase := j[at : at+end]
	if strings.Contains(tcase, "<failure") || strings.Contains(tcase, "<error") || !strings.Contains(tcase, "warning: port-wide discards") {
		t.Errorf("JUnit case %q: want a passing case with the warning in system-out", tcase)
	}

	var js bytes.Buffer
	if err := RenderJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if errs := reportSchema(t).Validate(js.Bytes(), "#"); len(errs) > 0 {
		t.Fatalf("JSON report does not match the schema:\n%s", strings.Join(errs, "\n"))
	}
	var doc struct {
		Summary struct {
			Warn int `json:"warn"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || doc.Summary.Warn != rep.Summary.Warn {
		t.Errorf("JSON summary.warn = %d (%v), want %d", doc.Summary.Warn, err, rep.Summary.Warn)
	}
}

// Port-wide counters that did not move pass the run, and the message says
// they are port-wide.
func TestRunPortWideDiscardsPass(t *testing.T) {
	s := setup(t, "multisize_gbps.txt", "a", "b")
	s.switches["leaf2"].tele = portWideSwitch(func(int) uint64 { return 12 })
	rep, err := Run(context.Background(), s.fabric, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	c := findCheck(rep, CheckLosslessDrops, "switch.leaf2")
	if c == nil || c.Status != StatusPass || !strings.Contains(c.Message, "port-wide") {
		t.Fatalf("lossless-drops on switch.leaf2 = %+v, want a pass that says the counters are port-wide", c)
	}
	if rep.Summary.Warn != 0 || rep.ExitCode() != ExitPass {
		t.Errorf("summary %+v, want exit 0 and no warning", rep.Summary)
	}
}

// The two snapshots of a round must count discards the same way: a
// port-wide count (every class) against a lossless-class one, or one that
// was not read (zero, unknown) against one that was, is no rise and no
// proof of none. The check says drops are unknown for the round and why,
// rather than failing on the whole cumulative count or warning on the
// gap between the two kinds; a lossless-class counter that moved still
// fails.
func TestLosslessDropsSnapshotsDisagree(t *testing.T) {
	prio3 := &policies.Lossless{Name: "roce", Priority: 3, Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}}
	dev := func(portWide, unread string, discards uint64, prioDrops uint64) *telemetry.Device {
		p := telemetry.Port{Name: "Ethernet3/1", PFCOperational: true, PFCPriorities: 1 << 3, LosslessDiscards: discards,
			Counters: map[string]uint64{telemetry.CounterRxDiscardsPrio(3): prioDrops}}
		return &telemetry.Device{Ports: []telemetry.Port{p}, DiscardsPortWide: portWide, DiscardsUnread: unread}
	}
	tests := []lossDropsCase{
		{"port-wide before, per-class after: unknown, not the per-class total as drops",
			dev(portWhy, "", 900, 0), dev("", "", 40, 0), StatusError,
			[]string{"drops are unknown", "port-wide at the round's start", "lossless class's own at its end", portWhy}, []string{"lossless discards", "rose"}},
		{"per-class before, port-wide after: unknown, no warning on the gap",
			dev("", "", 40, 0), dev(portWhy, "", 900, 0), StatusError,
			[]string{"drops are unknown", "lossless class's own at the round's start", "port-wide at its end"}, []string{"rose", "lossless discards"}},
		{"not read before, port-wide after: unknown, naming why the first read failed",
			dev("", "queues unread; nor the port-wide ones", 0, 0), dev(portWhy, "", 900, 0), StatusError,
			[]string{"drops are unknown", "not read at the round's start: queues unread; nor the port-wide ones"}, []string{"rose"}},
		{"not read before, per-class after: unknown, not a failure on the total",
			dev("", "queues unread", 0, 0), dev("", "", 40, 0), StatusError,
			[]string{"drops are unknown", "not read at the round's start: queues unread"}, []string{"lossless discards"}},
		{"a lossless-class counter that moved still fails",
			dev(portWhy, "", 900, 0), dev("", "", 40, 2), StatusFail,
			[]string{"drops on the lossless class: Ethernet3/1 roce.rx_discards.prio3 +2", "unknown for the round", "port-wide at the round's start"}, []string{"lossless discards"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkLosslessDrops(t, prio3, tc)
		})
	}
}
