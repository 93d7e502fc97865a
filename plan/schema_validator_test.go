package plan

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rocefabric/roce/internal/jsonschema"
)

// schemaFile is the documented JSON Schema of plans, plan files and apply
// reports.
const schemaFile = "../docs/plan.schema.json"

func loadSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.Load(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSchemaValidatorRejects proves the validator can fail: each mutation
// of a valid plan must be reported.
func TestSchemaValidatorRejects(t *testing.T) {
	s := loadSchema(t)
	var buf bytes.Buffer
	if err := RenderJSON(&buf, fixtureRenderPlan()); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	if errs := s.Validate([]byte(good), "#"); len(errs) > 0 {
		t.Fatalf("fixture plan is invalid: %v", errs)
	}
	tests := []struct {
		name, old, new, want string
	}{
		{"undocumented field", `"policy_dir":`, `"extra": 1, "policy_dir":`, `property "extra" is not documented`},
		{"bad enum", `"action": "create"`, `"action": "upsert"`, `upsert is not one of`},
		{"missing required", `"format_version": 2,`, ``, `missing required "format_version"`},
		{"wrong type", `"offline": true`, `"offline": "yes"`, `want boolean`},
		{"bad address", `"address": "switch.n5k-a"`, `"address": "router.x"`, `does not match`},
		{"bad date", `"created_at": "2026-11-22T02:00:00Z"`, `"created_at": "yesterday"`, `not an RFC 3339 date-time`},
		{"bad fact", `"model": "N5K-C5672UP"`, `"model": 5672`, `want string`},
		{"bad version", `"format_version": 2`, `"format_version": "2"`, `want integer, got string`},
		{"old version", `"format_version": 2`, `"format_version": 1`, `want 2, got 1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(good, tc.old) {
				t.Fatalf("fixture JSON lacks %q", tc.old)
			}
			bad := strings.Replace(good, tc.old, tc.new, 1)
			errs := s.Validate([]byte(bad), "#")
			if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
				t.Errorf("want an error containing %q, got %v", tc.want, errs)
			}
		})
	}
}
