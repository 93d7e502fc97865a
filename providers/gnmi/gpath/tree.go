package gpath

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Leaf is one leaf (or leaf-list) value at a full path. Values are what
// encoding/json gives with UseNumber: string, json.Number, bool, []any.
type Leaf struct {
	Path  Path
	Value any
}

// KeysOf tells the flattener which nodes are lists: given the element names
// from the root to a node it returns the list's key names, or nil when the
// node is not a list.
type KeysOf func(names []string) []string

// Decode parses a JSON_IETF value keeping numbers exact (json.Number).
func Decode(b []byte) (any, error) {
	d := json.NewDecoder(bytesReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

// Flatten turns the JSON_IETF value found at base into leaves with full
// paths. Module prefixes on member names are dropped. Lists must be JSON
// arrays of objects that carry their key members.
func Flatten(base Path, v any, keysOf KeysOf) ([]Leaf, error) {
	var out []Leaf
	if err := flatten(base, v, keysOf, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func flatten(p Path, v any, keysOf KeysOf, out *[]Leaf) error {
	if n := len(p); n > 0 && len(p[n-1].Keys) == 0 {
		if keys := keysOf(p.Names()); keys != nil {
			arr, ok := v.([]any)
			if !ok {
				return fmt.Errorf("%s is a list: its value must be a JSON array of entries", p)
			}
			parent := p[:n-1]
			for _, ent := range arr {
				if err := flattenEntry(parent, p[n-1].Name, keys, ent, keysOf, out); err != nil {
					return err
				}
			}
			return nil
		}
	}
	switch x := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			name := StripModule(k)
			if name == "" {
				return fmt.Errorf("%s: empty member name", p)
			}
			if err := flatten(p.Append(Elem{Name: name}), x[k], keysOf, out); err != nil {
				return err
			}
		}
		return nil
	case nil:
		return fmt.Errorf("%s: null value", p)
	case []any:
		for _, e := range x {
			switch e.(type) {
			case map[string]any, []any, nil:
				return fmt.Errorf("%s: leaf-list entries must be scalars", p)
			}
		}
		*out = append(*out, Leaf{Path: p, Value: x})
		return nil
	default:
		*out = append(*out, Leaf{Path: p, Value: x})
		return nil
	}
}

func flattenEntry(parent Path, name string, keys []string, ent any, keysOf KeysOf, out *[]Leaf) error {
	m, ok := ent.(map[string]any)
	if !ok {
		return fmt.Errorf("%s/%s: list entries must be JSON objects", parent, name)
	}
	e := Elem{Name: name, Keys: map[string]string{}}
	for _, k := range keys {
		var kv any
		found := false
		for mk, mv := range m {
			if StripModule(mk) == k {
				kv, found = mv, true
			}
		}
		if !found {
			return fmt.Errorf("%s/%s: entry lacks key %q", parent, name, k)
		}
		s, err := ScalarString(kv)
		if err != nil {
			return fmt.Errorf("%s/%s: key %q: %v", parent, name, k, err)
		}
		e.Keys[k] = s
	}
	return flatten(parent.Append(e), m, keysOf, out)
}

// ScalarString renders a scalar JSON value as a key string.
func ScalarString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		if x {
			return "true", nil
		}
		return "false", nil
	}
	return "", fmt.Errorf("value %v is not a scalar", v)
}

// Build is the inverse of Flatten: it nests leaves found under base into the
// JSON value of base. A leaf equal to base is returned as is.
func Build(base Path, leaves []Leaf) (any, error) {
	sorted := append([]Leaf(nil), leaves...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path.Key() < sorted[j].Path.Key() })
	root := map[string]any{}
	entries := map[string]map[string]any{}
	for _, l := range sorted {
		if !l.Path.HasPrefix(base) {
			return nil, fmt.Errorf("leaf %s is not under %s", l.Path, base)
		}
		rel := l.Path[len(base):]
		if len(rel) == 0 {
			if len(sorted) != 1 {
				return nil, fmt.Errorf("%s is both a leaf and a container", base)
			}
			return l.Value, nil
		}
		node := root
		for i, e := range rel {
			last := i == len(rel)-1
			if len(e.Keys) > 0 {
				id := l.Path[:len(base)+i+1].Key()
				ent, ok := entries[id]
				if !ok {
					ent = map[string]any{}
					entries[id] = ent
					list, _ := node[e.Name].([]any)
					node[e.Name] = append(list, ent)
				}
				if last {
					return nil, fmt.Errorf("%s: a list entry cannot be a leaf", l.Path)
				}
				node = ent
				continue
			}
			if last {
				node[e.Name] = l.Value
				break
			}
			child, ok := node[e.Name].(map[string]any)
			if !ok {
				child = map[string]any{}
				node[e.Name] = child
			}
			node = child
		}
	}
	return root, nil
}
