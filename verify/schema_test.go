package verify

import (
	"fmt"
	"math"
	"sort"
)

// validateSchema checks doc against the subset of JSON Schema our report
// schema uses: type, required, properties, additionalProperties (false or
// a schema), items, enum, minimum, const. Errors name the JSON path.
func validateSchema(s map[string]any, doc any, path string) []string {
	var errs []string
	if t, ok := s["type"]; ok {
		types := []any{t}
		if ts, ok := t.([]any); ok {
			types = ts
		}
		match := false
		for _, ty := range types {
			if typeMatches(ty.(string), doc) {
				match = true
			}
		}
		if !match {
			return []string{fmt.Sprintf("%s: want type %v, got %T", path, t, doc)}
		}
	}
	if c, ok := s["const"]; ok && c != doc {
		errs = append(errs, fmt.Sprintf("%s: want %v, got %v", path, c, doc))
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, v := range e {
			if v == doc {
				found = true
			}
		}
		if !found {
			errs = append(errs, fmt.Sprintf("%s: %v is not one of %v", path, doc, e))
		}
	}
	if m, ok := s["minimum"].(float64); ok {
		if n, ok := doc.(float64); ok && n < m {
			errs = append(errs, fmt.Sprintf("%s: %v below minimum %v", path, n, m))
		}
	}
	if obj, ok := doc.(map[string]any); ok {
		props, _ := s["properties"].(map[string]any)
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, ok := obj[r.(string)]; !ok {
					errs = append(errs, fmt.Sprintf("%s: missing required %q", path, r))
				}
			}
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ps, ok := props[k].(map[string]any); ok {
				errs = append(errs, validateSchema(ps, obj[k], path+"."+k)...)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					errs = append(errs, fmt.Sprintf("%s: unexpected property %q", path, k))
				}
			case map[string]any:
				errs = append(errs, validateSchema(ap, obj[k], path+"."+k)...)
			}
		}
	}
	if arr, ok := doc.([]any); ok {
		if items, ok := s["items"].(map[string]any); ok {
			for i, v := range arr {
				errs = append(errs, validateSchema(items, v, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	return errs
}

func typeMatches(ty string, v any) bool {
	switch ty {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	}
	return false
}
