package nexus

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocefabric/roce/platforms"
)

// Real outputs found in the last evidence hunt for issue #15
// (testdata/corpus/README.md gives each source): an NX-OS OTV overlay
// interface in `show interface`, and `show interface capabilities` of a
// Nexus 7700 F-series port (N77-F348XP-23) and of a Nexus 5600 port and
// FEX port. roce has no parser for `show interface capabilities`;
// capabilityRows below reads its "Key: value" lines only to hold roce's
// own tables (module series, the platform rows, the network-qos
// templates) against what a real switch says about its ports.

// An NX-OS OTV overlay interface (OTV is documented for NX-OS in the
// Nexus 7000 series guides; the source does not name the switch), after a
// real 7000 F1 port (Cisco TechNote 118903): the overlay has no Hardware,
// MAC, mode or input/output packet lines, and its "unicast packets" and
// "bytes" lines must not be taken for Ethernet counters, nor may its block
// change the port's values. (TestCorpusShowInterface checks the overlay
// alone against ntc-templates' recorded values.)
func TestCorpusFoundOTVOverlay(t *testing.T) {
	overlay := InterfaceStatus{Name: "Overlay1", Up: true, State: "up", Description: "overlay-interface", MTU: 1400}
	both := corpusShow(t, "cisco-doc-118903-n7k-f1-interface.txt") + "\n" + corpusShow(t, "ntc-interface12-otv.txt")
	for variant, text := range noisy(both) {
		got, err := ParseShowInterface(text)
		if err != nil {
			t.Fatalf("%s: %v", variant, err)
		}
		if len(got) != 2 || got[1] != overlay {
			t.Fatalf("%s: got %+v\nwant the port, then %+v", variant, got, overlay)
		}
		if p := got[0]; p.Name != "Ethernet1/8" || p.InPackets != 15542893003 || p.OutPackets != 7662272650 || p.InDiscards != 4029156 {
			t.Errorf("%s: the port before the overlay read %+v", variant, p)
		}
	}
}

// capabilityRows reads `show interface capabilities`: a port name alone on
// a line, then indented "Key: value" lines; an indented line without a
// colon continues the previous key (QOS scheduling lists one queue
// structure per line).
func capabilityRows(t *testing.T, text string) map[string]map[string][]string {
	t.Helper()
	ports := map[string]map[string][]string{}
	var cur map[string][]string
	var last string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		switch {
		case strings.TrimSpace(l) == "":
		case !strings.HasPrefix(l, " "):
			cur = map[string][]string{}
			ports[strings.TrimSpace(l)] = cur
		case cur == nil:
			t.Fatalf("capability line before a port name: %q", l)
		case strings.Contains(l, ":"):
			k, v, _ := strings.Cut(l, ":")
			last = strings.TrimSpace(k)
			cur[last] = append(cur[last], strings.TrimSpace(v))
		case last != "":
			cur[last] = append(cur[last], strings.TrimSpace(l))
		}
	}
	return ports
}

// capPort is what a test expects of one port in `show interface
// capabilities`.
type capPort struct {
	model, series string
	rx            string   // the ingress queue structure (every line names the same)
	tx            []string // the egress queue structures, in order
	pfc           string   // "PFC capable", "" when the line is absent
}

var reQoSScheduling = regexp.MustCompile(`^rx-\((\w+)\),tx-\((\w+)\)$`)

func TestCorpusFoundCapabilities(t *testing.T) {
	tests := []struct {
		file, kind string
		ports      map[string]capPort
	}{
		{"ntc-capabilities-n77-f348xp-23.txt", "nexus7000", map[string]capPort{
			"Ethernet1/1": {"N77-F348XP-23", "F", "4q1t", []string{"1p7q1t", "3p5q1t", "2p6q1t"}, "yes"},
		}},
		{"ntc-capabilities-n5600.txt", "nexus5000", map[string]capPort{
			"Ethernet1/1":      {"N5600-48Q-12Q-FIX", "", "6q1t", []string{"1p6q0t"}, ""},
			"Ethernet101/1/23": {"N2K-C2348TQ-10G-E", "", "6q1t", []string{"1p6q0t"}, ""},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			caps := platforms.Default()
			row, ok := caps.Lookup(tc.kind, "")
			if !ok {
				t.Fatalf("no %s row", tc.kind)
			}
			got := capabilityRows(t, corpusShow(t, tc.file))
			if len(got) != len(tc.ports) {
				t.Fatalf("%d ports, want %d: %v", len(got), len(tc.ports), got)
			}
			for name, w := range tc.ports {
				p, ok := got[name]
				if !ok {
					t.Fatalf("%s not read; have %v", name, got)
				}
				if m := p["Model"]; len(m) != 1 || m[0] != w.model {
					t.Errorf("%s model %v, want %s", name, m, w.model)
				}
				var rx, tx []string
				for _, s := range p["QOS scheduling"] {
					m := reQoSScheduling.FindStringSubmatch(s)
					if m == nil {
						t.Fatalf("%s QOS scheduling %q: not rx-(…),tx-(…)", name, s)
					}
					rx, tx = append(rx, m[1]), append(tx, m[2])
				}
				if len(rx) == 0 || slices.IndexFunc(rx, func(s string) bool { return s != w.rx }) >= 0 || !slices.Equal(tx, w.tx) {
					t.Errorf("%s QOS scheduling rx %v tx %v, want rx %s tx %v", name, rx, tx, w.rx, w.tx)
				}
				var pfc string
				if v := p["PFC capable"]; len(v) == 1 {
					pfc = v[0]
				}
				if pfc != w.pfc {
					t.Errorf("%s PFC capable %q, want %q", name, pfc, w.pfc)
				}
				// All-traffic lossless is 802.3x flow control both ways on
				// every managed port (the AllTrafficByLLFC rows): every real
				// port here can be set to send and to receive pause.
				if f := p["Flowcontrol"]; row.AllTrafficByLLFC && (len(f) != 1 || f[0] != "rx-(off/on),tx-(off/on)") {
					t.Errorf("%s Flowcontrol %v: the %s row renders flowcontrol receive/send on", name, f, tc.kind)
				}
				if got := moduleSeries(Module{Model: w.model}); got != w.series {
					t.Errorf("%s: roce classifies %s as series %q, want %q", name, w.model, got, w.series)
				}
			}
		})
	}
}

// The real Nexus 7700 F-series card (N77-F348XP-23, "PFC capable: yes") is one
// roce makes lossless: classified F-series and accepted by the F/M check a
// 7000 plan runs, where the same port on an M-series card is refused.
func TestCorpusFoundN77FCardAccepted(t *testing.T) {
	p := testPlatform(t, "nexus7000")
	if !p.Caps.RequiresFSeries || !p.Caps.PFC {
		t.Fatalf("the nexus7000 row no longer requires F-series PFC ports: %+v", p.Caps)
	}
	model := capabilityRows(t, corpusShow(t, "ntc-capabilities-n77-f348xp-23.txt"))["Ethernet1/1"]["Model"][0]
	fcard := Module{Slot: 1, Ports: 48, Type: "1/10 Gbps Ethernet Module", Model: model, Status: "ok"}
	fcard.Series = moduleSeries(fcard)
	if err := checkFSeries(Intent{Platform: p, Modules: []Module{fcard}, Interfaces: []string{"Ethernet1/1"}}); err != nil {
		t.Fatalf("real N77-F card refused: %v", err)
	}
	m1 := Module{Slot: 1, Ports: 48, Type: "10/100/1000 Mbps Ethernet Module", Model: "N7K-M148GT-11L", Status: "ok"}
	m1.Series = moduleSeries(m1)
	err := checkFSeries(Intent{Platform: p, Modules: []Module{m1}, Interfaces: []string{"Ethernet1/1"}})
	if err == nil || !strings.Contains(err.Error(), "M-series") {
		t.Fatalf("M-series card: %v", err)
	}
}

// The three egress queue structures the real 7700 F-series port offers are the
// ones the 7000 QoS guide pairs with network-qos templates ("1p7q1t-8e,
// 1p7q1t-7e, … 2p6q1t-4e, … 3p5q1t-6e", Cisco Nexus 7000 Series NX-OS
// Quality of Service Configuration Guide, "Egress Queuing",
// http://www.manualslib.com/manual/1437626/Cisco-Nexus-7000-Series.html?page=136),
// and roce has a template for each: a template roce chooses is one the
// port can queue.
func TestCorpusFoundN77FQueueTypesHaveTemplates(t *testing.T) {
	guide := map[string][]string{"1p7q1t": {"8e", "7e"}, "3p5q1t": {"6e"}, "2p6q1t": {"4e"}}
	port := capabilityRows(t, corpusShow(t, "ntc-capabilities-n77-f348xp-23.txt"))["Ethernet1/1"]
	var seen []string
	for _, s := range port["QOS scheduling"] {
		m := reQoSScheduling.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("QOS scheduling %q", s)
		}
		suffixes, ok := guide[m[2]]
		if !ok {
			t.Fatalf("egress queue type %s: the guide pairs no template with it", m[2])
		}
		for _, sfx := range suffixes {
			if _, ok := nqTemplateByName("default-nq-" + sfx + "-policy"); !ok {
				t.Errorf("egress queue type %s: roce has no default-nq-%s-policy (have %s)", m[2], sfx, nqTemplateNames())
			}
			seen = append(seen, sfx)
		}
	}
	for _, tpl := range NQTemplates() {
		sfx := strings.TrimSuffix(strings.TrimPrefix(tpl.Name, "default-nq-"), "-policy")
		if !slices.Contains(seen, sfx) {
			t.Errorf("roce's template %s has no egress queue structure on the real N77-F348XP-23 port", tpl.Name)
		}
	}
}
