package gpath

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParseString(t *testing.T) {
	cases := []struct {
		in, canon string
		elems     int
		err       bool
	}{
		{"/", "/", 0, false},
		{"/qos/queues", "/qos/queues", 2, false},
		{"/qos/interfaces/interface[interface-id=Ethernet1/1]/config", "/qos/interfaces/interface[interface-id=Ethernet1/1]/config", 4, false},
		{"/a/b[z=1][a=2]", "/a/b[a=2][z=1]", 2, false},
		{`/a[k=x\]y]/b`, `/a[k=x\]y]/b`, 2, false},
		{"/CONFIG_DB/QUEUE/Ethernet0|3/wred_profile", "/CONFIG_DB/QUEUE/Ethernet0|3/wred_profile", 4, false},
		{"qos", "", 0, true},
		{"/a//b", "", 0, true},
		{"/a/", "", 0, true},
		{"/a[k]", "", 0, true},
		{"/a[k=v", "", 0, true},
		{"/a[=v]", "", 0, true},
		{"/a[k=1][k=2]", "", 0, true},
		{"/a]b", "", 0, true},
	}
	for _, tc := range cases {
		p, err := Parse(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("Parse(%q) err = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if tc.err {
			continue
		}
		if len(p) != tc.elems || p.String() != tc.canon {
			t.Errorf("Parse(%q) = %q (%d elems), want %q (%d)", tc.in, p.String(), len(p), tc.canon, tc.elems)
		}
		back, _, err := FromProto(nil, p.Proto("openconfig"))
		if err != nil || !back.Equal(p) {
			t.Errorf("proto round trip of %q: %v %v", tc.in, back, err)
		}
	}
}

func TestHasPrefix(t *testing.T) {
	mk := func(s string) Path {
		p, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		p, prefix string
		want      bool
	}{
		{"/a/b[k=1]/c", "/a/b", true},
		{"/a/b[k=1]/c", "/a/b[k=1]", true},
		{"/a/b[k=1]/c", "/a/b[k=2]", false},
		{"/a/b[k=Ethernet1/1]/c", "/a/b[k=Ethernet1]", false},
		{"/a", "/a/b", false},
		{"/a/bc", "/a/b", false},
	}
	for _, tc := range cases {
		if got := mk(tc.p).HasPrefix(mk(tc.prefix)); got != tc.want {
			t.Errorf("%s HasPrefix %s = %v", tc.p, tc.prefix, got)
		}
	}
}

func TestFlattenBuildRoundTrip(t *testing.T) {
	keys := func(names []string) []string {
		switch len(names) {
		case 2:
			if names[1] == "entry" {
				return []string{"name"}
			}
		}
		return nil
	}
	base, _ := Parse("/root")
	in := `{"m:entry":[{"name":"b","config":{"v":1,"l":[1,2]}},{"name":"a","x":true}],"leaf":"s"}`
	v, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	leaves, err := Flatten(base, v, keys)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range leaves {
		b, _ := json.Marshal(l.Value)
		got = append(got, l.Path.String()+"="+string(b))
	}
	// Members in raw-name order ("leaf" < "m:entry"), entries in array order.
	want := []string{
		`/root/leaf="s"`,
		`/root/entry[name=b]/config/l=[1,2]`, `/root/entry[name=b]/config/v=1`, `/root/entry[name=b]/name="b"`,
		`/root/entry[name=a]/name="a"`, `/root/entry[name=a]/x=true`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("leaves:\n got %v\nwant %v", got, want)
	}
	back, err := Build(base, leaves)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(back)
	if string(b) != `{"entry":[{"name":"a","x":true},{"config":{"l":[1,2],"v":1},"name":"b"}],"leaf":"s"}` {
		t.Errorf("Build = %s", b)
	}
	for _, bad := range []string{`{"entry":{"name":"x"}}`, `{"entry":[{"noname":1}]}`, `{"leaf":null}`, `{"l":[{"a":1}]}`} {
		v, err := Decode([]byte(bad))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Flatten(base, v, keys); err == nil {
			t.Errorf("Flatten(%s) accepted", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"/", "/a/b[k=v]/c", `/a[k=x\]y]`, "/a[k=Ethernet1/1][j=2]/b", "/a[", "//"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			return
		}
		q, err := Parse(p.String())
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", p.String(), s, err)
		}
		if !q.Equal(p) || q.String() != p.String() {
			t.Fatalf("round trip of %q: %q != %q", s, q.String(), p.String())
		}
	})
}
