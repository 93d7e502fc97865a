package agentproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// encoding/json alone is lenient in ways an attacker can use: it matches
// object keys case-insensitively ("OP" sets Op), keeps the last of
// duplicate keys (`{"op":"read","op":"apply"}` is an apply, while a
// checker that reads the first sees a read), and accepts invalid UTF-8.
// Two readers of one request must never disagree, so the agent scans every
// request's tokens first and refuses duplicates, case variants and keys
// its types don't have, exactly as spelled.

// Limits of a request's shape, besides MaxRequestBytes.
const (
	MaxDepth     = 16      // nesting of objects and arrays
	MaxArrayLen  = 4096    // elements of any one array
	MaxStringLen = 1 << 16 // bytes of any one string (key or value)
)

// shapeLimits bound a JSON document's shape.
type shapeLimits struct{ depth, array, str int }

var (
	requestLimits = shapeLimits{MaxDepth, MaxArrayLen, MaxStringLen}
	// Responses carry counters, transcripts and file snapshots: looser,
	// but still bounded, since a compromised host writes them.
	responseLimits = shapeLimits{depth: 32, array: 1 << 16, str: 4 << 20}
)

// strictCheck scans b (one JSON value) and refuses what encoding/json
// would silently accept. With t nil it checks only the shape (duplicate
// and case-variant keys, depth, sizes, UTF-8); with t it also requires
// every object key to be the exact name of a field of the Go type at that
// position.
func strictCheck(b []byte, t reflect.Type) error {
	return strictCheckLimits(b, t, requestLimits)
}

func strictCheckLimits(b []byte, t reflect.Type, lim shapeLimits) error {
	if !utf8.Valid(b) {
		return errors.New("request is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := walk(dec, t, "", 0, lim); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}

func where(path string) string {
	if path == "" {
		return "the request"
	}
	return path
}

func walk(dec *json.Decoder, t reflect.Type, path string, depth int, lim shapeLimits) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("at %s: %v", where(path), err)
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch v := tok.(type) {
	case json.Delim:
		if depth >= lim.depth {
			return fmt.Errorf("at %s: nested deeper than %d levels", where(path), lim.depth)
		}
		switch v {
		case '{':
			return walkObject(dec, t, path, depth, lim)
		case '[':
			var elem reflect.Type
			if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
				elem = t.Elem()
			}
			n := 0
			for dec.More() {
				if n++; n > lim.array {
					return fmt.Errorf("at %s: more than %d elements", where(path), lim.array)
				}
				if err := walk(dec, elem, fmt.Sprintf("%s[%d]", path, n-1), depth+1, lim); err != nil {
					return err
				}
			}
			_, err := dec.Token() // ']'
			return err
		}
		return fmt.Errorf("at %s: unexpected %q", where(path), v)
	case string:
		if len(v) > lim.str {
			return fmt.Errorf("at %s: string longer than %d bytes", where(path), lim.str)
		}
	}
	return nil
}

func walkObject(dec *json.Decoder, t reflect.Type, path string, depth int, lim shapeLimits) error {
	var fields map[string]reflect.Type
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields = jsonFields(t)
		case reflect.Map:
			elem = t.Elem()
		}
	}
	seen := map[string]string{} // folded key → key as spelled
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("at %s: %v", where(path), err)
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("at %s: object key is not a string", where(path))
		}
		if len(key) > lim.str {
			return fmt.Errorf("at %s: key longer than %d bytes", where(path), lim.str)
		}
		kpath := key
		if path != "" {
			kpath = path + "." + key
		}
		f := foldKey(key)
		if prev, dup := seen[f]; dup {
			if prev == key {
				return fmt.Errorf("at %s: key %q appears twice", where(path), key)
			}
			return fmt.Errorf("at %s: keys %q and %q differ only in case", where(path), prev, key)
		}
		seen[f] = key
		var next reflect.Type
		switch {
		case fields != nil:
			ft, ok := fields[key]
			if !ok {
				for name := range fields {
					if strings.EqualFold(name, key) || foldKey(name) == f {
						return fmt.Errorf("at %s: key %q is spelled %q in the protocol (keys are case-sensitive)", where(path), key, name)
					}
				}
				return fmt.Errorf("at %s: unknown key %q", where(path), key)
			}
			next = ft
		case elem != nil:
			next = elem
		}
		if err := walk(dec, next, kpath, depth+1, lim); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

// foldKey maps s to a canonical case fold: every rune to the smallest rune
// of its Unicode simple-fold orbit, the equivalence encoding/json uses
// when it matches keys to fields (so "K" and the Kelvin sign fold alike).
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < m {
				m = f
			}
		}
		b.WriteRune(m)
	}
	return b.String()
}

// jsonFields lists the JSON names of t's fields as encoding/json sees them
// (tag name or Go name; embedded structs flattened; "-" skipped).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
