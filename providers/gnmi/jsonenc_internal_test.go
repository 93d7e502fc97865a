package gnmi

import "testing"

// Plain JSON (a target without JSON_IETF) carries no module qualifiers:
// member names and identityref values lose them; other strings, numbers
// and structure are kept exactly.
func TestPlainJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"output":{"arista-qos-augments:pfc":{"config":{"priorities-no-drop":"08"}}}}`, `{"output":{"pfc":{"config":{"priorities-no-drop":"08"}}}}`},
		{`{"config":{"sequence":1,"type":"openconfig-qos-types:ONE_RATE_TWO_COLOR"}}`, `{"config":{"sequence":1,"type":"ONE_RATE_TWO_COLOR"}}`},
		{`{"type":"srl_nokia-interfaces:routed","n":18446744073709551615}`, `{"n":18446744073709551615,"type":"routed"}`},
		{`{"mac":"aa:bb:cc:dd:ee:ff","ip":"2001:db8::1","name":"ethernet-1/1","desc":"a:b"}`, `{"desc":"a:b","ip":"2001:db8::1","mac":"aa:bb:cc:dd:ee:ff","name":"ethernet-1/1"}`},
		{`[{"openconfig-qos:name":"x"}]`, `[{"name":"x"}]`},
	}
	for _, tc := range cases {
		got, err := plainJSON([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("plainJSON(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := plainJSON([]byte(`{"a":`)); err == nil {
		t.Error("broken JSON accepted")
	}
}
