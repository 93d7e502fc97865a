package gnmisim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/openconfig/goyang/pkg/yang"
)

// This file checks one value against a compiled YANG type: RFC 7950 §9
// (built-in types, restrictions) in the JSON shapes of RFC 7951 §6
// (JSON_IETF), of plain JSON (gNMI specification §2.3.1: no module
// qualifiers), or as the string SONiC's CONFIG_DB holds (the lexical form).

// valueForm is how a value reached the target.
type valueForm int

const (
	formIETF    valueForm = iota // JSON_IETF (RFC 7951)
	formJSON                     // plain JSON: as IETF, identityrefs unqualified
	formLexical                  // a string holding the YANG lexical form (CONFIG_DB)
)

// builtinRange is the value space of an integer type (RFC 7950 §9.2), nil
// for other types.
func builtinRange(k yang.TypeKind) yang.YangRange {
	switch k {
	case yang.Yint8:
		return yang.Int8Range
	case yang.Yint16:
		return yang.Int16Range
	case yang.Yint32:
		return yang.Int32Range
	case yang.Yint64:
		return yang.Int64Range
	case yang.Yuint8:
		return yang.Uint8Range
	case yang.Yuint16:
		return yang.Uint16Range
	case yang.Yuint32:
		return yang.Uint32Range
	case yang.Yuint64:
		return yang.Uint64Range
	}
	return nil
}

func isUnsigned(k yang.TypeKind) bool {
	return k == yang.Yuint8 || k == yang.Yuint16 || k == yang.Yuint32 || k == yang.Yuint64
}

// jsonNumberKinds are encoded as JSON numbers by RFC 7951 §6.1; the
// 64-bit integers and decimal64 are JSON strings.
func jsonNumberKind(k yang.TypeKind) bool {
	switch k {
	case yang.Yint8, yang.Yint16, yang.Yint32, yang.Yuint8, yang.Yuint16, yang.Yuint32:
		return true
	}
	return false
}

var decRe = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// checkType validates v, the value of leaf (or one entry of a leaf-list)
// whose type is t.
func (c *compiled) checkType(leaf *yang.Entry, t *yang.YangType, v any, form valueForm) error {
	if t == nil {
		return nil
	}
	if form == formLexical {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string (CONFIG_DB holds every value as a string), got %s", jsonKind(v))
		}
		return c.checkLexical(leaf, t, s)
	}
	switch k := t.Kind; {
	case k == yang.Yunion:
		return matchUnion(t, func(m *yang.YangType) error { return c.checkType(leaf, m, v, form) })
	case k == yang.Yleafref:
		target := c.leafrefTarget(leaf)
		if target == nil {
			return nil // the target is outside the loaded models; existence is checked where it can be
		}
		return c.checkType(target, target.Type, v, form)
	case jsonNumberKind(k):
		n, ok := v.(json.Number)
		if !ok {
			return fmt.Errorf("%s must be a JSON number (RFC 7951 §6.1), got %s", k, jsonKind(v))
		}
		return checkInt(t, n.String())
	case k == yang.Yint64 || k == yang.Yuint64:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s must be a JSON string (RFC 7951 §6.1), got %s", k, jsonKind(v))
		}
		return checkInt(t, s)
	case k == yang.Ydecimal64:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("decimal64 must be a JSON string (RFC 7951 §6.1), got %s", jsonKind(v))
		}
		return checkDecimal(t, s)
	case k == yang.Ybool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("boolean must be a JSON true or false, got %s", jsonKind(v))
		}
		return nil
	case k == yang.Yempty:
		if arr, ok := v.([]any); !ok || len(arr) != 1 || arr[0] != nil {
			return fmt.Errorf("empty must be [null] (RFC 7951 §6.9), got %s", jsonKind(v))
		}
		return nil
	case k == yang.Yidentityref:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("identityref must be a string, got %s", jsonKind(v))
		}
		return c.checkIdentity(leaf, t, s, form)
	}
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%s must be a JSON string, got %s", t.Kind, jsonKind(v))
	}
	return c.checkLexical(leaf, t, s)
}

// checkLexical validates s as the lexical form of type t.
func (c *compiled) checkLexical(leaf *yang.Entry, t *yang.YangType, s string) error {
	switch k := t.Kind; {
	case k == yang.Yunion:
		return matchUnion(t, func(m *yang.YangType) error { return c.checkLexical(leaf, m, s) })
	case k == yang.Yleafref:
		if target := c.leafrefTarget(leaf); target != nil {
			return c.checkLexical(target, target.Type, s)
		}
		return nil
	case builtinRange(k) != nil:
		return checkInt(t, s)
	case k == yang.Ydecimal64:
		return checkDecimal(t, s)
	case k == yang.Ybool:
		if s != "true" && s != "false" {
			return fmt.Errorf("%q is not a boolean (true or false)", s)
		}
	case k == yang.Yenum:
		if t.Enum == nil || !t.Enum.IsDefined(s) {
			var names []string
			if t.Enum != nil {
				names = t.Enum.Names()
			}
			return fmt.Errorf("%q is not one of %s", s, strings.Join(names, ", "))
		}
	case k == yang.Yidentityref:
		return c.checkIdentity(leaf, t, s, formLexical)
	case k == yang.Ybits:
		for _, b := range strings.Fields(s) {
			if t.Bit == nil || !t.Bit.IsDefined(b) {
				return fmt.Errorf("%q: bit %q is not defined", s, b)
			}
		}
	case k == yang.Ybinary:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return fmt.Errorf("binary value is not base64: %v", err)
		}
		return checkLength(t, uint64(len(b)), s)
	case k == yang.Ystring:
		if err := checkLength(t, uint64(utf8.RuneCountInString(s)), s); err != nil {
			return err
		}
		return c.checkPatterns(t, s)
	case k == yang.Yempty:
		if s != "" {
			return fmt.Errorf("empty type holds no value, got %q", s)
		}
	}
	return nil
}

// matchUnion is nil when check accepts a member of the union t (RFC 7950
// §9.12: the first member that takes the value), else an error with each
// member's refusal.
func matchUnion(t *yang.YangType, check func(member *yang.YangType) error) error {
	var msgs []string
	for _, m := range t.Type {
		err := check(m)
		if err == nil {
			return nil
		}
		msgs = append(msgs, err.Error())
	}
	return fmt.Errorf("matches no member of the union %s (%s)", t.Name, strings.Join(msgs, "; "))
}

func checkInt(t *yang.YangType, s string) error {
	if isUnsigned(t.Kind) && strings.HasPrefix(s, "-") {
		return fmt.Errorf("%s is negative", s)
	}
	n, err := yang.ParseInt(s)
	if err != nil {
		if decRe.MatchString(s) {
			return fmt.Errorf("%s is not an integer", s)
		}
		return fmt.Errorf("%q is not an integer", s)
	}
	for _, r := range []yang.YangRange{builtinRange(t.Kind), t.Range} {
		if len(r) > 0 && !inRange(r, n) {
			return fmt.Errorf("%s outside range %s", s, r)
		}
	}
	return nil
}

func inRange(r yang.YangRange, n yang.Number) bool {
	for _, x := range r {
		if !n.Less(x.Min) && !x.Max.Less(n) {
			return true
		}
	}
	return false
}

func checkDecimal(t *yang.YangType, s string) error {
	if !decRe.MatchString(s) {
		return fmt.Errorf("%q is not a decimal number", s)
	}
	frac := t.FractionDigits
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 > frac {
		return fmt.Errorf("%q has more than %d fraction digits", s, frac)
	}
	// RFC 7950 §9.3.4: the value scaled by 10^fraction-digits is a
	// 64-bit signed integer.
	whole, fr, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	scaled, _ := new(big.Int).SetString(whole+fr+strings.Repeat("0", frac-len(fr)), 10)
	if scaled.BitLen() > 63 {
		return fmt.Errorf("%q is outside the decimal64 range for %d fraction digits", s, frac)
	}
	if len(t.Range) > 0 {
		n, err := yang.ParseDecimal(s, uint8(frac))
		if err != nil {
			return fmt.Errorf("%q: %v", s, err)
		}
		if !inRange(t.Range, n) {
			return fmt.Errorf("%s outside range %s", s, t.Range)
		}
	}
	return nil
}

func checkLength(t *yang.YangType, n uint64, s string) error {
	if len(t.Length) == 0 {
		return nil
	}
	if !inRange(t.Length, yang.FromUint(n)) {
		return fmt.Errorf("%q has length %d, outside length %s", s, n, t.Length)
	}
	return nil
}

func (c *compiled) checkPatterns(t *yang.YangType, s string) error {
	for _, p := range t.Pattern {
		re := c.pattern(p)
		if re != nil && !re.MatchString(s) {
			return fmt.Errorf("%q does not match pattern %s", s, p)
		}
	}
	return nil
}

// pattern is the Go regexp of an XSD pattern (RFC 7950 §9.4.5: implicitly
// anchored), or nil when RE2 cannot express it (XSD character class
// subtraction, \i, \c): such a restriction is not checked, as listed by
// UncheckedPatterns.
func (c *compiled) pattern(p string) *regexp.Regexp {
	re, ok := c.patterns[p]
	if !ok {
		return nil
	}
	return re
}

func compilePattern(p string) (*regexp.Regexp, error) {
	return regexp.Compile("^(?:" + p + ")$")
}

// identityModule is the module that defines an identity.
func identityModule(id *yang.Identity) string {
	m := yang.RootNode(id)
	if m == nil {
		return ""
	}
	if m.Kind() == "submodule" && m.BelongsTo != nil {
		return m.BelongsTo.Name
	}
	return m.Name
}

// checkIdentity validates an identityref value: RFC 7951 §6.8 wants
// "module:identity", the module prefix optional only when the identity is
// defined in the leaf's own module; plain JSON carries no module; the
// identity must be derived from the type's base (RFC 7950 §9.10.2).
func (c *compiled) checkIdentity(leaf *yang.Entry, t *yang.YangType, s string, form valueForm) error {
	if t.IdentityBase == nil {
		return nil
	}
	mod, name, qualified := strings.Cut(s, ":")
	if !qualified {
		name, mod = s, ""
	}
	if form == formJSON && qualified {
		return fmt.Errorf("identityref %q is module-qualified, which JSON encoding does not allow; send %q or use JSON_IETF", s, name)
	}
	var match []*yang.Identity
	for _, id := range t.IdentityBase.Values {
		if id.Name == name {
			match = append(match, id)
		}
	}
	base := identityModule(t.IdentityBase) + ":" + t.IdentityBase.Name
	if len(match) == 0 {
		var names []string
		for _, id := range t.IdentityBase.Values {
			names = append(names, identityModule(id)+":"+id.Name)
		}
		return fmt.Errorf("%q is not an identity derived from %s (%s)", s, base, strings.Join(names, ", "))
	}
	if form == formJSON {
		return nil
	}
	own := c.module(leaf)
	for _, id := range match {
		im := identityModule(id)
		switch {
		case qualified && mod == im:
			return nil
		case !qualified && im == own:
			return nil
		}
	}
	im := identityModule(match[0])
	if !qualified {
		return fmt.Errorf("identityref %q must be qualified with its module, %s:%s (RFC 7951 §6.8)", s, im, name)
	}
	return fmt.Errorf("identityref %q: unknown module %q, the identity %s is defined in %s", s, mod, name, im)
}

// ietfIdentity turns a plain-JSON identityref value (no module) of leaf
// e into its JSON_IETF form "module:identity", as a target stores the
// identity and answers JSON_IETF Gets with it; other values are returned
// unchanged.
func (c *compiled) ietfIdentity(e *yang.Entry, v any) any {
	if arr, ok := v.([]any); ok && e.IsLeafList() {
		out := make([]any, len(arr))
		for i, x := range arr {
			out[i] = c.ietfIdentity(e, x)
		}
		return out
	}
	s, ok := v.(string)
	if !ok || strings.Contains(s, ":") {
		return v
	}
	var try func(t *yang.YangType) (string, bool)
	try = func(t *yang.YangType) (string, bool) {
		if t == nil {
			return "", false
		}
		switch t.Kind {
		case yang.Yidentityref:
			if t.IdentityBase == nil {
				return "", false
			}
			for _, id := range t.IdentityBase.Values {
				if id.Name == s {
					return identityModule(id) + ":" + s, true
				}
			}
			return "", false
		case yang.Yunion:
			for _, m := range t.Type {
				if m.Kind != yang.Yidentityref && m.Kind != yang.Yunion && c.checkType(e, m, v, formJSON) == nil {
					return "", false // an earlier member takes the value as it is
				}
				if q, ok := try(m); ok {
					return q, true
				}
			}
		}
		return "", false
	}
	if q, ok := try(e.Type); ok {
		return q
	}
	return v
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
