// Package jsonschema is a small validator for the subset of JSON Schema
// 2020-12 the project's documented schemas use. Tests of the plan and
// verify report formats share it; any keyword outside the subset is
// reported, so a schema cannot silently promise more than is checked.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Schema validates documents against the subset of JSON Schema 2020-12
// that the project's documented schemas use (docs/plan.schema.json, the
// verify report schema), and records which documented properties a
// document exercised. Any keyword outside the subset fails the test, so the
// schema cannot silently say more than is checked.
type Schema struct {
	root map[string]any
	seen map[string]bool // "#/$defs/target/properties/address"
}

// Load reads a schema file.
func Load(path string) (*Schema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Schema{root: root, seen: map[string]bool{}}, nil
}

// Seen reports whether a document validated so far exercised the schema
// node at spath (e.g. "#/$defs/target/properties/address").
func (s *Schema) Seen(spath string) bool { return s.seen[spath] }

// Validate checks doc against the schema at ref ("#" or "#/$defs/name")
// and returns every violation.
func (s *Schema) Validate(doc []byte, ref string) []string {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	var errs []string
	s.check(v, s.resolve(ref), ref, "$", &errs)
	return errs
}

func (s *Schema) resolve(ref string) map[string]any {
	if ref == "#" {
		return s.root
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return nil
	}
	defs, _ := s.root["$defs"].(map[string]any)
	def, _ := defs[name].(map[string]any)
	return def
}

// check validates v at JSON path at against schema sch found at spath.
func (s *Schema) check(v any, sch map[string]any, spath, at string, errs *[]string) {
	fail := func(format string, args ...any) {
		*errs = append(*errs, at+": "+fmt.Sprintf(format, args...))
	}
	if sch == nil {
		fail("schema %s not found", spath)
		return
	}
	keys := make([]string, 0, len(sch))
	for k := range sch {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kw := sch[k]
		switch k {
		case "$schema", "$id", "title", "description", "$defs":
		case "$ref":
			ref := kw.(string)
			s.check(v, s.resolve(ref), ref, at, errs)
		case "type":
			// A single type name, or a list of them (a union).
			var types []string
			switch t := kw.(type) {
			case string:
				types = []string{t}
			case []any:
				for _, x := range t {
					name, _ := x.(string)
					types = append(types, name)
				}
			default:
				fail("schema keyword type must be a string or a list, got %T", kw)
				continue
			}
			if !slices.ContainsFunc(types, func(t string) bool { return hasJSONType(v, t) }) {
				fail("want %s, got %T", strings.Join(types, " or "), v)
			}
		case "const":
			if fmt.Sprint(v) != fmt.Sprint(kw) {
				fail("want %v, got %v", kw, v)
			}
		case "enum":
			found := false
			for _, e := range kw.([]any) {
				found = found || fmt.Sprint(e) == fmt.Sprint(v)
			}
			if !found {
				fail("%v is not one of %v", v, kw)
			}
		case "pattern":
			if str, ok := v.(string); ok && !regexp.MustCompile(kw.(string)).MatchString(str) {
				fail("%q does not match %s", str, kw)
			}
		case "minimum":
			if n, ok := v.(json.Number); ok {
				f, _ := n.Float64()
				if min, _ := kw.(float64); f < min {
					fail("%v is below the minimum %v", n, kw)
				}
			}
		case "format":
			if str, ok := v.(string); ok && kw == "date-time" {
				if _, err := time.Parse(time.RFC3339Nano, str); err != nil {
					fail("%q is not an RFC 3339 date-time", str)
				}
			}
		case "required":
			if obj, ok := v.(map[string]any); ok {
				for _, r := range kw.([]any) {
					if _, ok := obj[r.(string)]; !ok {
						fail("missing required %q", r)
					}
				}
			}
		case "properties", "additionalProperties":
			// Handled together below.
		case "items":
			if arr, ok := v.([]any); ok {
				for i, e := range arr {
					s.check(e, kw.(map[string]any), spath+"/items", fmt.Sprintf("%s[%d]", at, i), errs)
				}
			}
		default:
			fail("schema keyword %q at %s is not supported by the test validator", k, spath)
		}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	props, _ := sch["properties"].(map[string]any)
	for name, val := range obj {
		if ps, ok := props[name].(map[string]any); ok {
			p := spath + "/properties/" + name
			s.seen[p] = true
			s.check(val, ps, p, at+"."+name, errs)
			continue
		}
		switch ap := sch["additionalProperties"].(type) {
		case bool:
			if !ap {
				fail("property %q is not documented in the schema", name)
			}
		case map[string]any:
			s.check(val, ap, spath+"/additionalProperties", at+"."+name, errs)
		}
	}
}

func hasJSONType(v any, typ string) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "null":
		return v == nil
	}
	return false
}

// Documented lists every property the schema declares under the given
// definitions, as "#/$defs/<def>/properties/<name>".
func (s *Schema) Documented(defs ...string) []string {
	var out []string
	for _, d := range defs {
		props, _ := s.resolve("#/$defs/" + d)["properties"].(map[string]any)
		for name := range props {
			out = append(out, "#/$defs/"+d+"/properties/"+name)
		}
	}
	sort.Strings(out)
	return out
}
