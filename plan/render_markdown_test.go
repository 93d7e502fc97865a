package plan

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestRenderMarkdownGolden(t *testing.T) {
	tests := []struct {
		golden string
		plan   *Plan
	}{
		{"plan.md", fixtureRenderPlan()},
		{"errors.md", fixtureErrorsPlan()},
		{"empty.md", fixtureEmptyPlan()},
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
	if err := RenderMarkdown(&buf, fixtureRenderPlan()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"| target | kind | create | update | delete | disruption | drift |\n",
		"| `switch.n5k-a` | nexus5000 | 1 | 2 | 1 | link flap | 1 |\n",
		"| `switch.n7k-core` | nexus7000 | 0 | 0 | 0 | **unreadable** | 0 |\n",
		"| `switch.n5k-b` | nexus5000 | 0 | 1 | 0 | brief traffic disruption, offline capture | 0 |\n",
		"|\n\n1 other target is up to date.\n",
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
	if strings.Contains(out, "host.gpu-2") {
		t.Error("an up-to-date target is listed")
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

// bigMarkdownPlan has n changed targets with a long diff each.
func bigMarkdownPlan(n int) *Plan {
	p := &Plan{FormatVersion: FormatVersion, CreatedAt: fixtureRenderTime}
	var before, after strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&before, "interface Ethernet1/%d\n  mtu 1500\n", i)
		fmt.Fprintf(&after, "interface Ethernet1/%d\n  mtu 9216\n", i)
	}
	for i := 0; i < n; i++ {
		p.Targets = append(p.Targets, &TargetPlan{
			Address: fmt.Sprintf("switch.leaf%03d", i), Kind: "nexus5000",
			Changes: []Change{{Address: "interfaces", Action: ActionUpdate, Before: before.String(), After: after.String(), Disrupt: DisruptionLink}},
		})
	}
	return p
}

func TestRenderMarkdownFitsInAComment(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderMarkdown(&buf, bigMarkdownPlan(300)); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if buf.Len() > markdownBudget {
		t.Errorf("comment is %d bytes, over the %d budget", buf.Len(), markdownBudget)
	}
	shown := strings.Count(out, "<details>")
	if shown == 0 || shown == 300 || shown != strings.Count(out, "</details>") {
		t.Fatalf("%d details blocks shown (balanced: %v)", shown, shown == strings.Count(out, "</details>"))
	}
	if want := fmt.Sprintf("_%d diffs of changed targets left out to fit in one comment;", 300-shown); !strings.Contains(out, want) {
		t.Errorf("no note about the %d left-out diffs", 300-shown)
	}
	if !strings.Contains(out, "| `switch.leaf299` |") {
		t.Error("the table must list every changed target even when diffs are left out")
	}
	if strings.Count(out, "```")%2 != 0 {
		t.Error("unbalanced code fences")
	}
}

func TestRenderMarkdownOverviewTruncated(t *testing.T) {
	p := &Plan{}
	for i := 0; i < 200; i++ {
		p.Targets = append(p.Targets, &TargetPlan{Address: fmt.Sprintf("switch.s%d", i), Kind: "nexus7000", Error: "ssh: connection refused"})
	}
	var buf bytes.Buffer
	if err := renderMarkdownBudget(&buf, p, 4000); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if buf.Len() > 4000 || !strings.HasSuffix(out, "_… the rest is cut to fit in one comment; see the full plan in the job log (roce-plan) or with roce-plan -json._\n") {
		t.Errorf("%d bytes, ending %q", buf.Len(), out[max(0, len(out)-120):])
	}
	if !strings.HasPrefix(out, "### roce plan\n\n**No changes planned: no target could be read; 200 targets unreadable.**") {
		t.Errorf("summary lost: %.120q", out)
	}
}
