package jsonschema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func load(t *testing.T, schema string) *Schema {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(p, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestValidate(t *testing.T) {
	s := load(t, `{"type": "object", "required": ["v"], "additionalProperties": false,
	  "properties": {"v": {"type": ["string", "null"]}, "n": {"type": "integer", "minimum": 1}}}`)
	tests := []struct {
		doc, want string // want "" = valid
	}{
		{`{"v": "x"}`, ""},
		{`{"v": null, "n": 3}`, ""},
		{`{"v": 5}`, "want string or null"},
		{`{"n": 2}`, `missing required "v"`},
		{`{"v": "x", "n": 0}`, "minimum"},
		{`{"v": "x", "n": 1.5}`, "want integer"},
		{`{"v": "x", "z": 1}`, `"z"`},
		{`not json`, "not JSON"},
	}
	for _, tc := range tests {
		errs := strings.Join(s.Validate([]byte(tc.doc), "#"), "\n")
		if tc.want == "" && errs != "" || tc.want != "" && !strings.Contains(errs, tc.want) {
			t.Errorf("%s: errors %q, want %q", tc.doc, errs, tc.want)
		}
	}
}

// A keyword the validator does not implement is reported, so a schema can
// never promise more than is checked.
func TestUnknownKeywordIsReported(t *testing.T) {
	s := load(t, `{"type": "string", "maxLength": 3}`)
	if errs := strings.Join(s.Validate([]byte(`"abcdef"`), "#"), "\n"); !strings.Contains(errs, "maxLength") {
		t.Fatalf("unsupported keyword not reported: %q", errs)
	}
}
