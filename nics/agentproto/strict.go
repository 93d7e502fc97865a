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
	if json.Valid(b) {
		// Well-formed: scan the bytes directly, with the same checks and
		// messages as the token walk below, which allocates for every
		// token (each scalar ends in a syntax error the decoder swallows).
		w := &scanWalker{b: b, lim: lim}
		return w.value(t, 0)
	}
	// Malformed: the token walk reports the shape errors before the
	// syntax error, in document order, as encoding/json words it.
	return tokenCheck(b, t, lim)
}

// tokenCheck is strictCheckLimits through encoding/json's tokens.
func tokenCheck(b []byte, t reflect.Type, lim shapeLimits) error {
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
		kpath := key
		if path != "" {
			kpath = path + "." + key
		}
		next, err := checkKey(seen, fields, elem, key, len(key), lim, func() string { return path })
		if err != nil {
			return err
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
	if k, ok := foldASCII(s); ok {
		return k
	}
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

// foldASCII is foldKey of an all-ASCII s: a letter's smallest fold is its
// upper case ('k' folds to 'K' and the Kelvin sign, 'K' is the smallest).
// ok is false when s has a byte outside ASCII.
func foldASCII(s string) (string, bool) {
	lower := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			return "", false
		case 'a' <= c && c <= 'z':
			lower = true
		}
	}
	if !lower {
		return s, true
	}
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
	return string(b), true
}

// scanWalker is the token walk over a document json.Valid accepted: the
// same checks in the same order with the same messages, reading the bytes
// in place. The path of the value being read is kept as segments and
// spelled out only for an error.
type scanWalker struct {
	b      []byte
	i      int
	lim    shapeLimits
	segs   []pathSeg
	fields map[reflect.Type]map[string]reflect.Type
}

// pathSeg is an object key, or (key == "" && idx >= 0) an array index.
type pathSeg struct {
	key string
	idx int
}

// path is the walk's path of the current value ("nics[0].vlan").
func (w *scanWalker) path() string {
	var b strings.Builder
	for _, s := range w.segs {
		if s.idx >= 0 {
			fmt.Fprintf(&b, "[%d]", s.idx)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

func (w *scanWalker) space() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// str reads the string at w.i (its opening quote) and returns its decoded
// length and, with want, its value.
func (w *scanWalker) str(want bool) (int, string, error) {
	start := w.i
	esc := false
	j := start + 1
	for w.b[j] != '"' {
		if w.b[j] == '\\' {
			esc = true
			j++
		}
		j++
	}
	w.i = j + 1
	if !esc {
		if want {
			return j - start - 1, string(w.b[start+1 : j]), nil
		}
		return j - start - 1, "", nil
	}
	var v string
	if err := json.Unmarshal(w.b[start:j+1], &v); err != nil {
		return 0, "", fmt.Errorf("at %s: %v", where(w.path()), err)
	}
	return len(v), v, nil
}

func (w *scanWalker) value(t reflect.Type, depth int) error {
	w.space()
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch c := w.b[w.i]; c {
	case '{', '[':
		if depth >= w.lim.depth {
			return fmt.Errorf("at %s: nested deeper than %d levels", where(w.path()), w.lim.depth)
		}
		w.i++
		if c == '{' {
			return w.object(t, depth)
		}
		return w.array(t, depth)
	case '"':
		n, _, err := w.str(false)
		if err != nil {
			return err
		}
		if n > w.lim.str {
			return fmt.Errorf("at %s: string longer than %d bytes", where(w.path()), w.lim.str)
		}
		return nil
	}
	for w.i < len(w.b) { // number, true, false, null
		switch w.b[w.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return nil
		}
		w.i++
	}
	return nil
}

func (w *scanWalker) array(t reflect.Type, depth int) error {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	w.space()
	if w.b[w.i] == ']' {
		w.i++
		return nil
	}
	for n := 0; ; {
		if n++; n > w.lim.array {
			return fmt.Errorf("at %s: more than %d elements", where(w.path()), w.lim.array)
		}
		if done, err := w.member(pathSeg{idx: n - 1}, elem, depth, ']'); done || err != nil {
			return err
		}
	}
}

func (w *scanWalker) object(t reflect.Type, depth int) error {
	var fields map[string]reflect.Type
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			if fields = w.fields[t]; fields == nil {
				fields = jsonFields(t)
				if w.fields == nil {
					w.fields = map[reflect.Type]map[string]reflect.Type{}
				}
				w.fields[t] = fields
			}
		case reflect.Map:
			elem = t.Elem()
		}
	}
	w.space()
	if w.b[w.i] == '}' {
		w.i++
		return nil
	}
	seen := map[string]string{} // folded key → key as spelled
	for {
		w.space()
		n, key, err := w.str(true)
		if err != nil {
			return err
		}
		next, err := checkKey(seen, fields, elem, key, n, w.lim, w.path)
		if err != nil {
			return err
		}
		w.space()
		w.i++ // ':'
		if done, err := w.member(pathSeg{key: key, idx: -1}, next, depth, '}'); done || err != nil {
			return err
		}
	}
}

// member reads the value at seg, then the ',' after it or closer (done).
func (w *scanWalker) member(seg pathSeg, t reflect.Type, depth int, closer byte) (done bool, err error) {
	w.segs = append(w.segs, seg)
	err = w.value(t, depth+1)
	w.segs = w.segs[:len(w.segs)-1]
	if err != nil {
		return true, err
	}
	w.space()
	w.i++ // ',' or closer
	return w.b[w.i-1] == closer, nil
}

// checkKey checks an object's key (n bytes decoded) against the keys seen
// before it (folded → as spelled) and, for a struct, its fields; it
// returns the type of the key's value. path names the object, for errors.
func checkKey(seen map[string]string, fields map[string]reflect.Type, elem reflect.Type, key string, n int, lim shapeLimits, path func() string) (reflect.Type, error) {
	if n > lim.str {
		return nil, fmt.Errorf("at %s: key longer than %d bytes", where(path()), lim.str)
	}
	f := foldKey(key)
	if prev, dup := seen[f]; dup {
		if prev == key {
			return nil, fmt.Errorf("at %s: key %q appears twice", where(path()), key)
		}
		return nil, fmt.Errorf("at %s: keys %q and %q differ only in case", where(path()), prev, key)
	}
	seen[f] = key
	if fields == nil {
		return elem, nil
	}
	ft, ok := fields[key]
	if !ok {
		for name := range fields {
			if strings.EqualFold(name, key) || foldKey(name) == f {
				return nil, fmt.Errorf("at %s: key %q is spelled %q in the protocol (keys are case-sensitive)", where(path()), key, name)
			}
		}
		return nil, fmt.Errorf("at %s: unknown key %q", where(path()), key)
	}
	return ft, nil
}
