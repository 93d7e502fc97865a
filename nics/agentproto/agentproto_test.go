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

// Key smuggling: encoding/json alone takes "OP" for "op" and keeps the
// last of two "op" keys, so a checker reading the first and an executor
// reading the last would disagree. Every such request is refused.
func TestDecodeRequestRefusesSmuggledKeys(t *testing.T) {
	nics65 := strings.Repeat(`{"netdev":"x"},`, MaxNICs) + `{"netdev":"y"}`
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	cases := []struct {
		name, in, msg string
	}{
		{"duplicate op", `{"version":1,"op":"read","op":"apply","desired":{}}`, `key "op" appears twice`},
		{"case variant beside", `{"version":1,"op":"read","OP":"apply","desired":{}}`, `differ only in case`},
		{"case variant alone", `{"version":1,"Op":"read","desired":{}}`, `spelled "op"`},
		{"duplicate version", `{"version":1,"version":2,"op":"read","desired":{}}`, `appears twice`},
		{"kelvin sign folds to k", `{"version":1,"op":"apply","desired":{"files":[{"path":"/etc/nccl.conf","format":"kv","entries":[{"key":"NCCL_IB_SL","value":"3","\u212aey":"NCCL_X"}]}]}}`, `differ only in case`},
		{"nested duplicate path", `{"version":1,"op":"apply","desired":{"files":[{"path":"/etc/nccl.conf","path":"/etc/shadow","format":"kv"}]}}`, `"path" appears twice`},
		{"duplicate map key", `{"version":1,"op":"apply","desired":{"nics":[{"netdev":"v0","vlan":{"name":"v0.1","parent":"v0","id":1,"egress_qos":{"0":3,"0":4}}}]}}`, `"0" appears twice`},
		{"nested case variant", `{"version":1,"op":"read","desired":{"nics":[{"Netdev":"v0"}]}}`, `spelled "netdev"`},
		{"unknown nested key", `{"version":1,"op":"read","desired":{"nics":[{"netdev":"v0","force":true}]}}`, `unknown key "force"`},
		{"invalid utf-8", "{\"version\":1,\"op\":\"read\",\"desired\":{\"nics\":[{\"netdev\":\"v\xff\"}]}}", `UTF-8`},
		{"too deep", `{"version":1,"op":"read","desired":` + deep + `}`, `nested deeper`},
		{"long string", `{"version":1,"op":"read","fingerprint":"` + strings.Repeat("a", MaxStringLen+1) + `","desired":{}}`, `longer than`},
		{"too many nics", `{"version":1,"op":"counters","nics":[` + nics65 + `]}`, `at most 64`},
		{"trailing object", `{"version":1,"op":"counters"}{"version":1,"op":"apply"}`, `trailing data`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, perr := DecodeRequest(strings.NewReader(tc.in))
			if perr == nil {
				t.Fatalf("accepted: %+v", req)
			}
			if perr.Code != ErrCodeMalformed || !strings.Contains(perr.Message, tc.msg) {
				t.Fatalf("error %v, want %s mentioning %q", perr, ErrCodeMalformed, tc.msg)
			}
		})
	}
}

// FuzzDecodeRequest: whatever the input, the strict decoder never panics,
// and what it accepts encoding/json reads identically (so no smuggled key
// can mean one thing to the checker and another to the executor) and
// survives a round trip unchanged.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"version":1,"op":"read","desired":{}}`,
		`{"version":1,"op":"recover"}`,
		`{"version":1,"op":"read","OP":"apply","desired":{}}`,
		`{"version":1,"op":"apply","desired":{"nics":[{"netdev":"v0","vlan":{"name":"v0.1","parent":"v0","id":1,"egress_qos":{"0":3}}}]},"fingerprint":"sha256:00"}`,
		`{"version":1,"op":"probe","probe":{"options":{"Tool":"ib_write_bw","GIDIndex":-1},"nic":{"netdev":"v0"}}}`,
		`{"version":1,"op":"apply","desired":{"files":[{"path":"/etc/nccl.conf","format":"kv","exists":true,"entries":[{"key":"NCCL_IB_SL","value":"3"}]}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		req, perr := DecodeRequest(strings.NewReader(string(in)))
		if perr != nil {
			if perr.Code == "" || perr.Message == "" {
				t.Fatalf("error without code or message: %+v", perr)
			}
			return
		}
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		var lenient Request
		if err := json.Unmarshal(in, &lenient); err != nil {
			t.Fatalf("accepted, but encoding/json refuses it: %v", err)
		}
		if lb, _ := json.Marshal(lenient); string(lb) != string(b) {
			t.Fatalf("strict and lenient readings differ:\n%s\n%s", b, lb)
		}
		again, perr := DecodeRequest(strings.NewReader(string(b)))
		if perr != nil {
			t.Fatalf("re-encoded request refused: %v\n%s", perr, b)
		}
		if b2, _ := json.Marshal(again); string(b2) != string(b) {
			t.Fatalf("round trip changed it:\n%s\n%s", b, b2)
		}
	})
}

// The controller reads a response from a host that may be compromised:
// two "ok" keys, or "OK" beside "ok", must not let it read success.
func TestDecodeResponse(t *testing.T) {
	cases := []struct {
		name, in string
		ok       bool
	}{
		{"plain", `{"version":1,"op":"read","ok":true}`, true},
		{"unknown field tolerated", `{"version":1,"ok":true,"later":1}`, true},
		{"duplicate ok", `{"version":1,"ok":false,"ok":true}`, false},
		{"case variant ok", `{"version":1,"ok":false,"OK":true}`, false},
		{"trailing data", `{"version":1,"ok":true} {"version":1,"ok":false}`, false},
		{"not json", `hello`, false},
		{"too large", `{"version":1,"ok":true,"x":"` + strings.Repeat("a", MaxResponseBytes) + `"}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := DecodeResponse([]byte(tc.in))
			if (err == nil) != tc.ok {
				t.Fatalf("DecodeResponse: %+v %v", r, err)
			}
			if tc.ok && !r.OK {
				t.Fatalf("decoded %+v", r)
			}
		})
	}
}
