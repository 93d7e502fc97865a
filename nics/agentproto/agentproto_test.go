package agentproto

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics"
)

func TestDecodeRequest(t *testing.T) {
	cases := []struct {
		name, in, code, op string
	}{
		{"read", `{"version":1,"op":"read","desired":{}}`, "", OpRead},
		{"counters without nics", `{"version":1,"op":"counters"}`, "", OpCounters},
		{"version checked before the op", `{"version":7,"op":"nonsense","junk":1}`, ErrCodeVersion, ""},
		{"version checked before strictness", `{"version":2,"desired":{"nics":[{"netdev":"x","new_field":1}]}}`, ErrCodeVersion, ""},
		{"string version", `{"version":"1","op":"read"}`, ErrCodeMalformed, ""},
		{"null", `null`, ErrCodeMalformed, ""},
		{"oversized", `{"version":1,"op":"counters","nics":[` + strings.Repeat(`{"netdev":"x"},`, MaxRequestBytes/14) + `{}]}`, ErrCodeMalformed, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, perr := DecodeRequest(strings.NewReader(tc.in))
			if tc.code == "" {
				if perr != nil || req.Op != tc.op {
					t.Fatalf("req %+v err %v", req, perr)
				}
				return
			}
			if perr == nil || perr.Code != tc.code {
				t.Fatalf("err %v, want code %s", perr, tc.code)
			}
		})
	}
}

func TestRequestRoundTrip(t *testing.T) {
	in := Request{Version: Version, Op: OpApply, Fingerprint: "sha256:ab", Desired: &nics.HostState{
		NICs: []nics.NICState{{Netdev: "ens1f0", Port: 1, Exists: true, DCB: &nics.DCBState{DCBX: 1, PFCEnabled: 8, Trust: "dscp", DSCPApps: []nics.DSCPApp{{DSCP: 26, Priority: 3}}}}},
	}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out, perr := DecodeRequest(strings.NewReader(string(b)))
	if perr != nil {
		t.Fatal(perr)
	}
	b2, _ := json.Marshal(out)
	if string(b) != string(b2) {
		t.Errorf("round trip changed the request:\n%s\n%s", b, b2)
	}
}
