package gnmisim

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// kind is the JSON_IETF (RFC 7951) shape a modelled leaf accepts.
type kind int

const (
	kBool      kind = iota
	kUint           // uint8/16/32: a JSON number
	kUint64Str      // uint64: a JSON string of digits (RFC 7951 §6.1)
	kDecimal        // decimal64: a JSON string (RFC 7951 §6.1)
	kString         // string, optionally constrained by a pattern
	kEnum           // enumeration or identityref ("module:NAME" accepted)
	kHex            // oc-yang:hex-string with a length range
	kUnion          // any of Alts
	kIdent          // identityref: "module:NAME", the module being Module
)

// leafType is the type of one modelled leaf. It is a hand-written subset of
// the YANG type: enough to refuse what a real target refuses for the leaves
// the profiles use.
type leafType struct {
	Kind     kind
	Min, Max uint64         // kUint, kUint64Str: value range; kHex, kString: length range (Max 0 = unbounded)
	Frac     int            // kDecimal: fraction digits
	Enum     []string       // kEnum
	Pattern  *regexp.Regexp // kString
	Alts     []leafType     // kUint union members
	LeafList bool           // a leaf-list of this type (a JSON array)
	// Module is the module defining a kIdent's identities. RFC 7951 §6.8:
	// the value is namespace-qualified, and may be bare only when the
	// identity is defined in the leaf's own module (Local).
	Module string
	Local  bool
	// Plain: the value came as plain JSON (gNMI §2.3.1), whose
	// identityrefs carry no module.
	Plain bool
}

// inEncoding is the type as a value in the given encoding must satisfy.
func (t leafType) inEncoding(ietf bool) leafType {
	if ietf {
		return t
	}
	t.Plain = true
	if len(t.Alts) > 0 {
		alts := make([]leafType, len(t.Alts))
		for i, a := range t.Alts {
			alts[i] = a.inEncoding(false)
		}
		t.Alts = alts
	}
	return t
}

func tBool() leafType                { return leafType{Kind: kBool} }
func tUint(min, max uint64) leafType { return leafType{Kind: kUint, Min: min, Max: max} }
func tUint64() leafType              { return leafType{Kind: kUint64Str, Max: ^uint64(0)} }
func tDec(frac int) leafType         { return leafType{Kind: kDecimal, Frac: frac} }
func tStr() leafType                 { return leafType{Kind: kString} }
func tEnum(v ...string) leafType     { return leafType{Kind: kEnum, Enum: v} }
func tHex(min, max uint64) leafType  { return leafType{Kind: kHex, Min: min, Max: max} }
func tPattern(re string) leafType {
	return leafType{Kind: kString, Pattern: regexp.MustCompile("^(?:" + re + ")$")}
}
func tUnion(alts ...leafType) leafType { return leafType{Kind: kUnion, Alts: alts} }

// tIdent is an identityref to identities of module mod defined in another
// module than the leaf's (the prefix is required).
func tIdent(mod string, v ...string) leafType { return leafType{Kind: kIdent, Module: mod, Enum: v} }

// tIdentLocal is an identityref whose identities are in the leaf's own
// module (the prefix may be left out).
func tIdentLocal(mod string, v ...string) leafType {
	return leafType{Kind: kIdent, Module: mod, Enum: v, Local: true}
}
func list(t leafType) leafType { t.LeafList = true; return t }

var hexRe = regexp.MustCompile(`^[0-9a-fA-F]*$`)
var decRe = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// check validates one JSON value against the type.
func (t leafType) check(v any) error {
	if t.LeafList {
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("leaf-list value must be a JSON array, got %s", jsonKind(v))
		}
		el := t
		el.LeafList = false
		for i, e := range arr {
			if err := el.check(e); err != nil {
				return fmt.Errorf("entry %d: %w", i, err)
			}
		}
		return nil
	}
	switch t.Kind {
	case kBool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("want a boolean, got %s", jsonKind(v))
		}
	case kUint:
		n, ok := v.(json.Number)
		if !ok {
			return fmt.Errorf("want a JSON number, got %s", jsonKind(v))
		}
		return checkRange(n.String(), t.Min, t.Max)
	case kUint64Str:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("uint64 must be a JSON string (RFC 7951), got %s", jsonKind(v))
		}
		return checkRange(s, t.Min, t.Max)
	case kDecimal:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("decimal64 must be a JSON string (RFC 7951), got %s", jsonKind(v))
		}
		if !decRe.MatchString(s) {
			return fmt.Errorf("%q is not a decimal number", s)
		}
		if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 > t.Frac {
			return fmt.Errorf("%q has more than %d fraction digits", s, t.Frac)
		}
		// RFC 7950 §9.3.4: the value scaled by 10^fraction-digits is a
		// 64-bit signed integer.
		whole, frac, _ := strings.Cut(s, ".")
		scaled, _ := new(big.Int).SetString(whole+frac+strings.Repeat("0", t.Frac-len(frac)), 10)
		if scaled.BitLen() > 63 {
			return fmt.Errorf("%q is outside the decimal64 range for %d fraction digits", s, t.Frac)
		}
	case kString:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %s", jsonKind(v))
		}
		if t.Pattern != nil && !t.Pattern.MatchString(s) {
			return fmt.Errorf("%q does not match pattern %s", s, t.Pattern)
		}
	case kEnum:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want an enumeration string, got %s", jsonKind(v))
		}
		name := s
		if i := strings.IndexByte(s, ':'); i >= 0 {
			name = s[i+1:]
		}
		for _, e := range t.Enum {
			if name == e {
				return nil
			}
		}
		return fmt.Errorf("%q is not one of %s", s, strings.Join(t.Enum, ", "))
	case kIdent:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want an identityref string, got %s", jsonKind(v))
		}
		mod, name, qualified := strings.Cut(s, ":")
		if t.Plain {
			if qualified {
				return fmt.Errorf("identityref %q is module-qualified, which JSON encoding does not allow; send %q or use JSON_IETF", s, name)
			}
			name = s
		} else if !qualified {
			if !t.Local {
				return fmt.Errorf("identityref %q must be qualified with its module, %s:%s (RFC 7951 §6.8)", s, t.Module, s)
			}
			name = s
		} else if mod != t.Module {
			return fmt.Errorf("identityref %q: unknown module %q, the identity is defined in %s", s, mod, t.Module)
		}
		for _, e := range t.Enum {
			if name == e {
				return nil
			}
		}
		return fmt.Errorf("%q is not an identity of %s (%s)", s, t.Module, strings.Join(t.Enum, ", "))
	case kHex:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a hex string, got %s", jsonKind(v))
		}
		if !hexRe.MatchString(s) {
			return fmt.Errorf("%q is not a hex string", s)
		}
		if uint64(len(s)) < t.Min || (t.Max > 0 && uint64(len(s)) > t.Max) {
			return fmt.Errorf("hex string %q length %d outside %d..%d", s, len(s), t.Min, t.Max)
		}
	case kUnion:
		var msgs []string
		for _, a := range t.Alts {
			err := a.check(v)
			if err == nil {
				return nil
			}
			msgs = append(msgs, err.Error())
		}
		return fmt.Errorf("matches no member of the union (%s)", strings.Join(msgs, "; "))
	}
	return nil
}

func checkRange(s string, min, max uint64) error {
	if strings.HasPrefix(s, "-") {
		return fmt.Errorf("%s is negative", s)
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return fmt.Errorf("%s is not an integer", s)
		}
		return fmt.Errorf("%q is not an unsigned integer", s)
	}
	if n.Cmp(new(big.Int).SetUint64(min)) < 0 || n.Cmp(new(big.Int).SetUint64(max)) > 0 {
		return fmt.Errorf("%s outside range %d..%d", s, min, max)
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
