package plan

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestRenderJSONGolden(t *testing.T) {
	tests := []struct {
		golden string
		plan   *Plan
	}{
		{"plan.json", fixtureRenderPlan()},
		{"errors.json", fixtureErrorsPlan()},
		{"empty.json", fixtureEmptyPlan()},
		{"nil.json", nil},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := RenderJSON(&buf, tc.plan); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.golden, buf.Bytes())
		})
	}
}

func TestRenderJSONShape(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderJSON(&buf, fixtureRenderPlan()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, "{\n  \"format_version\": 2,\n") {
		t.Errorf("format_version is not the first field:\n%.80s", out)
	}
	if !strings.Contains(out, `description <to host-1 & host-2>`) {
		t.Error("< and & are HTML-escaped; JSON output must keep config text readable")
	}
	// Round trip: the JSON is the plan, nothing lost.
	var back Plan
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := RenderJSON(&again, &back); err != nil {
		t.Fatal(err)
	}
	if again.String() != out {
		t.Error("re-rendering the decoded JSON plan gives different bytes")
	}
	// Same plan, same bytes (map order must not leak in).
	for i := 0; i < 5; i++ {
		var b bytes.Buffer
		if err := RenderJSON(&b, fixtureRenderPlan()); err != nil {
			t.Fatal(err)
		}
		if b.String() != out {
			t.Fatal("RenderJSON is not deterministic")
		}
	}
}

func TestRenderJSONNormalizes(t *testing.T) {
	p := &Plan{Targets: []*TargetPlan{nil, {Address: "host.a", Kind: "host"}}}
	var buf bytes.Buffer
	if err := RenderJSON(&buf, p); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got["format_version"] != float64(FormatVersion) {
		t.Errorf("format_version = %v, want the integer %d", got["format_version"], FormatVersion)
	}
	targets := got["targets"].([]any)
	if len(targets) != 1 {
		t.Fatalf("nil target not dropped: %v", targets)
	}
	if ch := targets[0].(map[string]any)["changes"]; !reflect.DeepEqual(ch, []any{}) {
		t.Errorf("changes = %#v, want []", ch)
	}
	if p.FormatVersion != 0 || p.Targets[1].Changes != nil {
		t.Error("RenderJSON modified the caller's plan")
	}
}

// TestJSONMatchesSchema validates every JSON the package emits against
// docs/plan.schema.json and checks that the fixtures exercise every
// documented property, so the schema and the code cannot drift apart.
func TestJSONMatchesSchema(t *testing.T) {
	s := loadSchema(t)
	var buf bytes.Buffer
	for _, p := range []*Plan{fixtureRenderPlan(), fixtureEmptyPlan(), Partial(fixtureRenderPlan()), nil} {
		buf.Reset()
		if err := RenderJSON(&buf, p); err != nil {
			t.Fatal(err)
		}
		if errs := s.Validate(buf.Bytes(), "#"); len(errs) > 0 {
			t.Errorf("plan JSON violates the schema:\n%s", strings.Join(errs, "\n"))
		}
	}
	path := filepath.Join(t.TempDir(), "plan.roce")
	saved := fixtureRenderPlan()
	saved.Inputs = fixtureInputs()
	// Under the plan file's directory, so the relative paths are recorded too.
	saved.PolicyDir = filepath.Join(filepath.Dir(path), "fabric")
	saved.Inputs.VarFiles[0].Resolved = filepath.Join(filepath.Dir(path), "lab.vars")
	if err := WritePlanFile(path, saved, nil); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate(data, "#/$defs/plan_file"); len(errs) > 0 {
		t.Errorf("plan file violates the schema:\n%s", strings.Join(errs, "\n"))
	}
	for _, r := range []*ApplyReport{fixtureRenderApplyReport(), {}, {Error: "an earlier roce-apply was interrupted"}, fixtureFailedApplyReport(), nil} {
		buf.Reset()
		if err := RenderApplyJSON(&buf, r); err != nil {
			t.Fatal(err)
		}
		if errs := s.Validate(buf.Bytes(), "#/$defs/apply_report"); len(errs) > 0 {
			t.Errorf("apply report violates the schema:\n%s", strings.Join(errs, "\n"))
		}
	}
	for _, kind := range []string{FailureKindPlan, FailureKindVerify} {
		buf.Reset()
		if err := RenderFailureJSON(&buf, kind, "the policy in examples/lab has errors", fixtureProblems()); err != nil {
			t.Fatal(err)
		}
		if errs := s.Validate(buf.Bytes(), "#/$defs/failure"); len(errs) > 0 {
			t.Errorf("%s document violates the schema:\n%s", kind, strings.Join(errs, "\n"))
		}
	}
	for _, p := range s.Documented(documentedDefs...) {
		if !s.Seen(p) {
			t.Errorf("documented property %s never appears in the fixtures' JSON", p)
		}
	}
}

// TestSchemaPropertiesDocumented checks that docs/plan-json.md describes
// every property of the schema.
func TestSchemaPropertiesDocumented(t *testing.T) {
	s := loadSchema(t)
	doc, err := os.ReadFile(filepath.Join("..", "docs", "plan-json.md"))
	if err != nil {
		t.Fatal(err)
	}
	prop := regexp.MustCompile(`/\$defs/([a-z_]+)/properties/([a-z_]+)$`)
	for _, p := range s.Documented(documentedDefs...) {
		m := prop.FindStringSubmatch(p)
		if !bytes.Contains(doc, []byte("`"+m[2]+"`")) {
			t.Errorf("docs/plan-json.md does not describe `%s` (%s)", m[2], m[1])
		}
	}
}

// documentedDefs are the schema's definitions whose every property
// docs/plan-json.md describes and the fixtures' JSON shows.
var documentedDefs = []string{"plan", "target", "change", "op", "plan_file", "apply_report", "apply_counts", "apply_result", "exchange", "inputs", "var_file", "failure", "problem"}

// fixtureProblems are a policy error at a line and one without a place.
func fixtureProblems() []Problem {
	return []Problem{
		{Message: "Unsupported argument: An argument named \"bandwith_percent\" is not expected here. Did you mean \"bandwidth_percent\"?", File: "examples/lab/lab.hcl", Line: 50, Column: 3},
		{Message: "reading -var-file lab.vars: open lab.vars: no such file or directory"},
	}
}

// fixtureFailedApplyReport is roce-apply stopped by a policy with errors.
func fixtureFailedApplyReport() *ApplyReport {
	return &ApplyReport{Started: fixtureRenderTime, Finished: fixtureRenderTime, Error: "the policy in examples/lab has errors", Errors: fixtureProblems()}
}

func TestRenderFailureJSON(t *testing.T) {
	tests := []struct {
		name     string
		problems []Problem
		want     string
	}{
		{"problems at their lines", fixtureProblems(), `{
  "format_version": 2,
  "kind": "roce-plan-error",
  "error": "the policy has errors",
  "errors": [
    {
      "message": "Unsupported argument: An argument named \"bandwith_percent\" is not expected here. Did you mean \"bandwidth_percent\"?",
      "file": "examples/lab/lab.hcl",
      "line": 50,
      "column": 3
    },
    {
      "message": "reading -var-file lab.vars: open lab.vars: no such file or directory"
    }
  ]
}
`},
		{"no problems: the message is the one error", nil, `{
  "format_version": 2,
  "kind": "roce-plan-error",
  "error": "the policy has errors",
  "errors": [
    {
      "message": "the policy has errors"
    }
  ]
}
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := RenderFailureJSON(&buf, FailureKindPlan, "the policy has errors", tc.problems); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", buf.String(), tc.want)
			}
		})
	}
}

func TestProblemString(t *testing.T) {
	for _, tc := range []struct {
		p    Problem
		want string
	}{
		{Problem{Message: "m", File: "a.hcl", Line: 3, Column: 2}, "a.hcl:3: m"},
		{Problem{Message: "m", File: "a.hcl"}, "a.hcl: m"},
		{Problem{Message: "m"}, "m"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.p, got, tc.want)
		}
	}
}
