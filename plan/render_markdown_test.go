package plan

import (
	"bytes"
	"strings"
	"testing"
)

func TestRenderMarkdownGolden(t *testing.T) {
	tests := []struct {
		golden string
		plan   *Plan
	}{
		{"plan.md", fixturePlan()},
		{"empty.md", emptyPlan()},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := RenderMarkdown(&buf, tc.plan); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.golden, buf.Bytes())
		})
	}
}

func TestRenderMarkdownContent(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderMarkdown(&buf, fixturePlan()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"| target | kind | create | update | delete | disruption | drift |\n",
		"| `switch.n5k-a` | nexus5000 | 1 | 2 | 1 | link flap | 1 |\n",
		"| `switch.n7k-core` | nexus7000 | 0 | 0 | 0 | **unreadable** | 0 |\n",
		"| `switch.n5k-b` | nexus5000 | 0 | 1 | 0 | brief traffic disruption, offline capture | 0 |\n",
		"| `host.gpu-2` | host | 0 | 0 | 0 | none | 0 |\n",
		"> - `switch.n7k-core` could not be read: ssh: handshake failed",
		"> - `switch.leaf1`: ECN marking is not configured",
		"<details><summary><code>switch.n5k-a</code> (nexus5000, 10.0.0.1:22): 1 to create, 2 to change, 1 to destroy — link flap — drift on 1 object</summary>",
		"```diff\n@@ + ip access-list ROCE-rocev2 @@\n+ ip access-list ROCE-rocev2\n",
		"# drift: ROCE-NQ is ours",
		"-     mtu 1500\n+     mtu 9216\n",
		"replace openconfig:/qos/classifiers/classifier[name=ROCE] = {\"config\":{\"name\":\"ROCE\",\"type\":\"IPV4\"}}",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if strings.Contains(out, "<summary><code>host.gpu-2</code>") {
		t.Error("an up-to-date target got a details block")
	}
	if n := strings.Count(out, "<details>"); n != strings.Count(out, "</details>") || n != 4 {
		t.Errorf("%d <details> blocks for 4 changed targets, or unbalanced", n)
	}
}

func TestMarkdownEscaping(t *testing.T) {
	p := &Plan{Targets: []*TargetPlan{{
		Address: "switch.a|b",
		Kind:    "k<i>nd",
		Error:   "bad | cell\nsecond line <script>",
	}, {
		Address: "host.x",
		Changes: []Change{{Address: "f", Action: ActionUpdate, Before: "a\n", After: "```\n"}},
	}}}
	var buf bytes.Buffer
	if err := RenderMarkdown(&buf, p); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"| `switch.a\\|b` | k&lt;i&gt;nd |",
		"could not be read: bad \\| cell second line &lt;script&gt;",
		"````diff\n", // fence longer than the ``` in the content
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "<script>") || strings.Contains(out, "<i>") {
		t.Error("raw HTML from device text reached the comment")
	}
}
