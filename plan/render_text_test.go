package plan

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestRenderTextGolden(t *testing.T) {
	tests := []struct {
		golden string
		plan   *Plan
		opts   TextOptions
	}{
		{"plan.txt", fixtureRenderPlan(), TextOptions{}},
		{"plan-color.txt", fixtureRenderPlan(), TextOptions{Color: true}},
		{"plan-verbose.txt", fixtureRenderPlan(), TextOptions{Verbose: true}},
		{"errors.txt", fixtureErrorsPlan(), TextOptions{}},
		{"empty.txt", fixtureEmptyPlan(), TextOptions{}},
		{"empty-verbose.txt", fixtureEmptyPlan(), TextOptions{Verbose: true}},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := RenderText(&buf, tc.plan, tc.opts); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.golden, buf.Bytes())
		})
	}
}

// TestRenderTextContent pins the promises of the text diff independently of
// the golden files, so a careless -update cannot bless a regression.
func TestRenderTextContent(t *testing.T) {
	var plain, color, verbose bytes.Buffer
	for _, r := range []struct {
		buf  *bytes.Buffer
		opts TextOptions
	}{{&plain, TextOptions{}}, {&color, TextOptions{Color: true}}, {&verbose, TextOptions{Verbose: true}}} {
		if err := RenderText(r.buf, fixtureRenderPlan(), r.opts); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		out     string
		want    []string
		notWant []string
	}{
		{"headers and actions", plain.String(), []string{
			"switch.n5k-a (nexus5000, 10.0.0.1:22) will be changed\n",
			"  + ip access-list ROCE-rocev2\n",
			"  ~ policy-map type network-qos ROCE-NQ [brief traffic disruption] (drift)\n",
			"  ~ interface Ethernet1/1 [link flap]\n",
			"  - class-map type qos ROCE-old\n",
		}, nil},
		{"line diff", plain.String(), []string{"      -     mtu 1500\n", "      +     mtu 9216\n", "      +   priority-flow-control mode on\n"}, nil},
		{"drift in plain words", plain.String(), []string{"      drift: ROCE-NQ is ours but its lossless class now has mtu 1500"}, nil},
		{"unreadable target", plain.String(), []string{"switch.n7k-core: could not be read: ssh: handshake failed"}, nil},
		{"offline target", plain.String(), []string{"switch.n5k-b (nexus5000) will be changed\n  (planned against saved capture; roce-apply will refuse it)\n"}, nil},
		{"warning", plain.String(), []string{"  warning: ECN marking is not configured"}, nil},
		{"summary last", plain.String(), []string{"\nPlan: 2 to create, 4 to change, 2 to destroy on 4 of 6 targets; 1 target unreadable; drift on 1 object; 1 target planned offline; worst disruption: link flap.\n"}, nil},
		{"no colour without Color", plain.String(), nil, []string{"\x1b["}},
		{"no commands unless verbose", plain.String(), nil, []string{"commands:", "replace openconfig:"}},
		{"up-to-date hidden unless verbose", plain.String(), nil, []string{"host.gpu-2"}},
		{"colours", color.String(), []string{ansiGreen + "  + ip access-list", ansiRed + "  - class-map", ansiYellow + "  ~ interface", ansiReset}, nil},
		{"verbose commands", verbose.String(), []string{
			"      commands:\n        interface Ethernet1/1\n        priority-flow-control mode on\n",
			`        replace openconfig:/qos/classifiers/classifier[name=ROCE] = {"config":{"name":"ROCE","type":"IPV4"}}`,
			"        delete openconfig:/qos/forwarding-groups/forwarding-group[name=OLD]\n",
			"host.gpu-2 (host, gpu-2.lab:22) is up to date\n",
			"  facts: model=N5K-C5672UP, nxos=7.3(8)N1(1)\n",
		}, nil},
		{"verbose script only when it differs", verbose.String(), []string{"  apply script (2 steps):"}, []string{"apply script (8 steps)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range tc.want {
				if !strings.Contains(tc.out, w) {
					t.Errorf("output lacks %q\n%s", w, tc.out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(tc.out, w) {
					t.Errorf("output has %q\n%s", w, tc.out)
				}
			}
		})
	}
}

func TestRenderTextElidesLongUnchangedRuns(t *testing.T) {
	before := "a\nb\nc\nd\ne\nf\ng\nh\n"
	after := "a\nb\nc\nd\nE\nf\ng\nh\n"
	var buf bytes.Buffer
	p := &Plan{Targets: []*TargetPlan{{Address: "host.x", Changes: []Change{{Address: "f", Action: ActionUpdate, Before: before, After: after}}}}}
	if err := RenderText(&buf, p, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "  ~ f\n        ...\n        c\n        d\n      - e\n      + E\n        f\n        g\n        ...\n"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("got\n%s\nwant it to contain\n%s", buf.String(), want)
	}
}

func TestRenderTextDriftWithoutNote(t *testing.T) {
	p := &Plan{Targets: []*TargetPlan{{Address: "switch.a", Changes: []Change{{Address: "system qos", Action: ActionUpdate, Drift: true}}}}}
	var txt, md bytes.Buffer
	if err := RenderText(&txt, p, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := RenderMarkdown(&md, p); err != nil {
		t.Fatal(err)
	}
	const want = "drift: this object is managed by roce but no longer matches what roce configured"
	if !strings.Contains(txt.String(), "      "+want) || !strings.Contains(md.String(), "# "+want) {
		t.Errorf("drift without a note is not explained:\n%s\n%s", txt.String(), md.String())
	}
}

func TestRenderTextHostileDeviceText(t *testing.T) {
	p := &Plan{Targets: []*TargetPlan{{
		Address: "switch.x",
		Error:   "first line\r\nsecond \x1b[2Jline\x07",
	}, {
		Address:  "switch.y",
		Warnings: []string{"tab\tkept"},
		Changes:  []Change{{Address: "a", Action: ActionUpdate, Before: "x\x1b]0;pwned\x07\n", After: "y\n"}},
	}}}
	var buf bytes.Buffer
	if err := RenderText(&buf, p, TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"switch.x: could not be read: first line" + ansiReset + "\n" + ansiRed + ansiBold + "  second \\x1b[2Jline\\x07" + ansiReset + "\n",
		"      - x\\x1b]0;pwned\\x07",
		"  warning: tab\tkept",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%q", want, out)
		}
	}
	if strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x07") || strings.Contains(out, "\r") {
		t.Errorf("control characters from the device reached the terminal: %q", out)
	}
}

func TestRenderTextNilAndWriteError(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderText(&buf, nil, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "No changes. The policy names no targets.\n" {
		t.Errorf("nil plan: %q", got)
	}
	boom := errors.New("disk full")
	if err := RenderText(failingWriter{boom}, fixtureRenderPlan(), TextOptions{}); !errors.Is(err, boom) {
		t.Errorf("write error not returned: %v", err)
	}
}

// failingWriter fails every write.
type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// BenchmarkRenderText renders a 300-switch plan with a 40-interface diff
// on each (the size of a large fabric's first plan).
func BenchmarkRenderText(b *testing.B) {
	p := bigMarkdownPlan(300)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := RenderText(&buf, p, TextOptions{Color: true}); err != nil {
			b.Fatal(err)
		}
	}
}
