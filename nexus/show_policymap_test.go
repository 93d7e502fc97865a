package nexus

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readPolicyMapSample reads a capture of testdata/policymap.
func readPolicyMapSample(t testing.TB, name string) string {
	t.Helper()
	return readShow(t, filepath.Join("..", "policymap", name))
}

// The Cisco guide's capture reads to the values a person reads from it, in
// any line ending, and prints back to the same values.
func TestParseShowPolicyMapInterfaceCapture(t *testing.T) {
	want := []PolicyMapInterface{{
		Interface: "Ethernet1/6",
		Policies: []AttachedPolicy{{
			Type: "qos", Direction: "output", Name: "default-ndb-out-policy", SNMPIndex: "285213501",
			Classes: []ClassStats{{
				Name: "class-ndb-default", Match: "match-any",
				BandwidthPercent: -1, BandwidthRemainingPercent: -1,
				Packets: 61211339, Bytes: 15669992128, HasPackets: true,
				Lines: []string{"Slot 1", "5 minute offered rate 17721223780 bps", "Aggregate forwarded :",
					"61211339 packets 110848 bytes", "police cir 0 bps",
					"conformed 0 bytes, n/a bps action: transmit", "violated 15669881280 bytes, n/a bps action: drop"},
			}},
		}},
	}}
	for ending, text := range lineEndings(readPolicyMapSample(t, "n9k-ude-eth1-6-output-qos.txt")) {
		t.Run(ending, func(t *testing.T) {
			checkParse(t, text, want, ParseShowPolicyMapInterface, FormatShowPolicyMapInterface)
		})
	}
}

// Each kind of class line lands in its field; indentation, banners and
// warnings around the blocks do not matter.
func TestParseShowPolicyMapInterfaceLines(t *testing.T) {
	text := "show policy-map interface ethernet 1/1-2\r\n" +
		"Warning: statistics are collected every 10 seconds\n" +
		"\nGlobal statistics status :   enabled\n\n" +
		"Ethernet1/1\n\n" +
		"  Service-policy (qos) input:   roce-in\n" +
		"    SNMP Policy Index:  301990739\n\n" +
		"    Class-map (qos):   roce (match-all)\n" +
		"      Match: cos 4\n" +
		"      set qos-group 4\n\n" +
		"  Service-policy (queuing) output:   roce-out\n\n" +
		"    Class-map (queuing):   q4 (match-any)\n" +
		"      priority level 2\n" +
		"      queue dropped pkts : 17\n" +
		"      queue depth in bytes : 2048\n\n" +
		"    Class-map (queuing):   class-default\n" +
		"      bandwidth remaining percent 60\n" +
		"      bandwidth percent 40\n" +
		"      priority\n" +
		"Ethernet1/2\n\n" +
		"  Service-policy (network-qos):   roce-nq\n" +
		"Class-map (network-qos): nq4 (match-any)\n" +
		"pause no-drop\n"
	got, err := ParseShowPolicyMapInterface(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Interface != "Ethernet1/1" || got[1].Interface != "Ethernet1/2" {
		t.Fatalf("interfaces: %+v", got)
	}
	in, out := got[0].Policies[0], got[0].Policies[1]
	if in.Type != "qos" || in.Direction != "input" || in.Name != "roce-in" || in.SNMPIndex != "301990739" {
		t.Errorf("input policy: %+v", in)
	}
	if c := in.Classes[0]; c.Name != "roce" || c.Match != "match-all" || !reflect.DeepEqual(c.Lines, []string{"Match: cos 4", "set qos-group 4"}) || c.Priority {
		t.Errorf("qos class: %+v", c)
	}
	q4, def := out.Classes[0], out.Classes[1]
	if !q4.Priority || q4.PriorityLevel != 2 || q4.BandwidthPercent != -1 {
		t.Errorf("q4: %+v", q4)
	}
	if n, ok := q4.Counter("queue dropped pkts"); !ok || n != 17 {
		t.Errorf("q4 queue dropped pkts = %d, %v", n, ok)
	}
	if n, ok := q4.Counter("queue depth in bytes"); !ok || n != 2048 {
		t.Errorf("q4 queue depth = %d, %v", n, ok)
	}
	if def.Match != "" || def.BandwidthPercent != 40 || def.BandwidthRemainingPercent != 60 || !def.Priority || def.PriorityLevel != 0 {
		t.Errorf("class-default: %+v", def)
	}
	nq := got[1].Policies[0]
	if nq.Type != "network-qos" || nq.Direction != "" || nq.Classes[0].Name != "nq4" || nq.Classes[0].Lines[0] != "pause no-drop" {
		t.Errorf("network-qos: %+v", nq)
	}
	checkFormatRoundTrip(t, got, ParseShowPolicyMapInterface, FormatShowPolicyMapInterface)
}

func TestParseShowPolicyMapInterfaceErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"Service-policy (qos) input: p\n", "line 1: \"Service-policy (qos) input: p\": a Service-policy before any interface line"},
		{"Ethernet1/1\nClass-map (qos): c (match-any)\n", "line 2: \"Class-map (qos): c (match-any)\": a Class-map outside a Service-policy block"},
		{"Ethernet1/1\nService-policy (qos) input: p\nClass-map (queuing): q (match-any)\n", "line 3: \"Class-map (queuing): q (match-any)\": a class of type queuing inside the qos policy p"},
		{"Ethernet1/1\nService-policy (queuing) output: p\nClass-map (queuing): q\nqueue dropped pkts : 99999999999999999999\n", "line 4: \"queue dropped pkts : 99999999999999999999\": counter 99999999999999999999 does not fit in 64 bits"},
		{"Ethernet1/1\nService-policy (queuing) output: p\nClass-map (queuing): q\npriority level 9\n", "line 4: \"priority level 9\": priority level 9 is not 1-8"},
		{"Ethernet1/1\nService-policy (queuing) output: p\nClass-map (queuing): q\nbandwidth percent 101\n", "line 4: \"bandwidth percent 101\": bandwidth percent 101 is not 0-100"},
		{"% Invalid command at '^' marker.\n", "no interface line"},
	}
	for _, tt := range tests {
		_, err := ParseShowPolicyMapInterface(tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.text, err, tt.want)
		}
	}
	if got, err := ParseShowPolicyMapInterface("\n  \n"); err != nil || got != nil {
		t.Errorf("empty output: %+v, %v", got, err)
	}
}

// FuzzParseShowPolicyMapInterface: no input panics, and whatever parses
// prints back to the same values.
func FuzzParseShowPolicyMapInterface(f *testing.F) {
	f.Add(readPolicyMapSample(f, "n9k-ude-eth1-6-output-qos.txt"))
	f.Add("Ethernet1/1\n  Service-policy (queuing) output:   q\n    Class-map (queuing):   c (match-any)\n      priority level 1\n      queue dropped pkts : 0\n")
	f.Fuzz(func(t *testing.T, text string) {
		got, err := ParseShowPolicyMapInterface(text)
		if err != nil {
			return
		}
		again, err := ParseShowPolicyMapInterface(FormatShowPolicyMapInterface(got))
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("round trip of %q:\n%+v\n%v\nwant %+v", text, again, err, got)
		}
	})
}
