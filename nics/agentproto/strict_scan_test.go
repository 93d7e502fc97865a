package agentproto

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// The strict check of a well-formed document scans its bytes in place
// (scanWalker); encoding/json's token walk (tokenCheck) is the reference
// it must agree with, error for error, word for word.

type strictCase struct {
	t   reflect.Type
	lim shapeLimits
}

var strictCases = []strictCase{
	{nil, requestLimits},
	{reflect.TypeOf(Request{}), requestLimits},
	{nil, responseLimits},
	{reflect.TypeOf(Response{}), responseLimits},
	{reflect.TypeOf(Request{}), shapeLimits{depth: 3, array: 2, str: 5}},
	{nil, shapeLimits{depth: 2, array: 1, str: 3}},
}

func checkAgrees(t *testing.T, in []byte) {
	t.Helper()
	if !utf8.Valid(in) { // refused before either walk
		if err := strictCheckLimits(in, nil, requestLimits); err == nil || !strings.Contains(err.Error(), "UTF-8") {
			t.Fatalf("%q: %v, want the UTF-8 refusal", in, err)
		}
		return
	}
	for _, c := range strictCases {
		want := tokenCheck(in, c.t, c.lim)
		got := strictCheckLimits(in, c.t, c.lim)
		if (want == nil) != (got == nil) || (want != nil && want.Error() != got.Error()) {
			t.Fatalf("%s with %v %+v:\nscan:  %v\ntoken: %v", in, c.t, c.lim, got, want)
		}
	}
}

func TestStrictScanAgreesWithTokenWalk(t *testing.T) {
	for _, in := range []string{
		`{"version":1,"op":"read","desired":{}}`,
		` { "version" : 1 , "op" : "read" , "desired" : { "nics" : [ ] } } `,
		`{"version":1,"op":"read","OP":"apply","desired":{}}`,
		`{"version":1,"op":"read","op":"apply"}`,
		`{"version":1,"Op":"read"}`,
		`{"version":1,"nope":1}`,
		`{"version":1,"op":"apply","desired":{"nics":[{"netdev":"v0","vlan":{"name":"v0.1","parent":"v0","id":1,"egress_qos":{"0":3}}}]},"fingerprint":"sha256:00"}`,
		`{"version":1,"op":"apply","desired":{"nics":[{"netdev":"v0"},{"netdev":"v1","bogus":true}]}}`,
		`{"version":1,"op":"apply","desired":{"files":[{"path":"/etc/nccl.conf","format":"kv","exists":true,"entries":[{"key":"NCCL_IB_SL","value":"3"}]}]}}`,
		`{"k":1,"\u212a":2}`,        // Kelvin sign folds to K
		`{"\u212a":1,"k":2}`,        // and the other way round
		`{"s":1,"\u017f":2}`,        // long s folds to S
		`{"a\u00e9":1,"A\u00c9":2}`, // non-ASCII case variants
		`{"x":"\ud800\ud800"}`,      // lone surrogates decode to U+FFFD each
		`{"x":"ab\"cd\\e\/f"}`,
		`{"abcdef":1}`,
		`{"x":"abcdef"}`,
		`[[[[1]]]]`,
		`[1,2,3]`,
		`[{"a":[{"b":[1,2,{"c":1,"c":2}]}]}]`,
		`{"":{"":{"":1,"":2}}}`,
		`"abcdefgh"`,
		`123`, `true`, `null`, `-1.5e300`, `1e999`,
		`{"version":1e2,"op":null,"desired":null}`,
		`{"version":1,"op":"read","desired":{"nics":[{"netdev":"a"},{"netdev":"b"},{"netdev":"c"}]}}`,
	} {
		checkAgrees(t, []byte(in))
	}
}

// Malformed input still gets encoding/json's own wording, after any shape
// error that comes before it in the document.
func TestStrictCheckMalformed(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{`{"op":"read","op":"apply",`, `key "op" appears twice`},
		{`{"version":1}{}`, "trailing data"},
		{`{"version":1,}`, "invalid character"},
		{"{\"op\":\"\xff\"}", "not valid UTF-8"},
	} {
		err := strictCheck([]byte(c.in), nil)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: %v, want an error mentioning %q", c.in, err, c.msg)
		}
	}
}

// FuzzStrictScan: on any input the byte scan and the token walk agree.
func FuzzStrictScan(f *testing.F) {
	for _, s := range []string{
		`{"version":1,"op":"read","desired":{}}`,
		`{"version":1,"op":"read","OP":"apply","desired":{}}`,
		`{"version":1,"op":"apply","desired":{"nics":[{"netdev":"v0","vlan":{"name":"v0.1","parent":"v0","id":1,"egress_qos":{"0":3}}}]}}`,
		`{"ok":true,"OK":false}`,
		`[[1,[2,{"a":"\u212a"}]],"x"]`,
		`{"x":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkAgrees(t, in)
	})
}

func BenchmarkStrictCheckRequest(b *testing.B) {
	in := []byte(`{"version":1,"op":"apply","fingerprint":"sha256:00","desired":{"nics":[{"netdev":"v0","mtu":9000,"addresses":["10.0.0.1/16"],"vlan":{"name":"v0.1","parent":"v0","id":1,"mtu":9000,"egress_qos":{"0":3,"1":3}}}],"files":[{"path":"/etc/nccl.conf","format":"kv","exists":true,"entries":[{"key":"NCCL_IB_SL","value":"3"},{"key":"NCCL_IB_TC","value":"106"}]}]}}`)
	for _, c := range []struct {
		name  string
		check func([]byte, reflect.Type, shapeLimits) error
	}{{"scan", strictCheckLimits}, {"token", tokenCheck}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if err := c.check(in, reflect.TypeOf(Request{}), requestLimits); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
