package gnmisim

import (
	"context"
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
)

// Every profile's pinned models compile with goyang, with the image's
// features applied, into the top-level nodes the profile serves, and
// every string pattern of them is one the simulator can check (an XSD
// pattern RE2 cannot express would go unchecked).
func TestModelsCompile(t *testing.T) {
	for _, tc := range []struct {
		profile string
		roots   []string // top-level node (module)
	}{
		{"openconfig", []string{"interfaces (openconfig-interfaces)", "qos (openconfig-qos)"}},
		{"arista", []string{"interfaces (openconfig-interfaces)", "qos (openconfig-qos)"}},
		{"srlinux", []string{"interface (srl_nokia-interfaces)", "qos (srl_nokia-qos)"}},
		{"sonic", []string{"sonic-pfcwd (sonic-pfcwd)", "sonic-port (sonic-port)", "sonic-port-qos-map (sonic-port-qos-map)", "sonic-queue (sonic-queue)", "sonic-wred-profile (sonic-wred-profile)"}},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			c, err := compileProfile(tc.profile)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.roots {
				name, _, _ := strings.Cut(want, " ")
				r := c.roots[name]
				if r == nil || name+" ("+c.module(r)+")" != want {
					t.Errorf("root %s missing or in another module", want)
				}
			}
			if len(c.unchecked) > 0 {
				t.Errorf("patterns the simulator cannot check: %v", c.unchecked)
			}
			if len(c.patterns) == 0 {
				t.Error("no string pattern compiled: the models' pattern restrictions are not read")
			}
		})
	}
}

// if-feature expressions (RFC 7950 §7.20.2) evaluate like libyang's.
func TestEvalIfFeature(t *testing.T) {
	on := map[string]bool{"a": true, "b": true}
	for _, tc := range []struct {
		expr string
		want bool
		err  bool
	}{
		{"a", true, false},
		{"srl-feat:a", true, false},
		{"c", false, false},
		{"not c", true, false},
		{"a and c", false, false},
		{"a or c", true, false},
		{"(not srl_nokia-feat:fpcx) or srl_nokia-feat:hold-time-fpcx", true, false},
		{"not (a or c)", false, false},
		{"a and (c or b)", true, false},
		{"a and", false, true},
		{"(a", false, true},
		{"a b", false, true},
	} {
		got, err := evalIfFeature(tc.expr, on)
		if (err != nil) != tc.err || (err == nil && got != tc.want) {
			t.Errorf("evalIfFeature(%q) = %v, %v; want %v (error %v)", tc.expr, got, err, tc.want, tc.err)
		}
	}
}

// BenchmarkCompileProfile is the start-up cost of one profile's schema
// (paid once per Schemas value).
func BenchmarkCompileProfile(b *testing.B) {
	for _, p := range []string{"openconfig", "arista", "srlinux", "sonic"} {
		b.Run(p, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := compileProfile(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewTarget is the cost of one more simulated switch once its
// profile is compiled (a lab or fleet shares one Schemas).
func BenchmarkNewTarget(b *testing.B) {
	for _, p := range []string{"openconfig", "arista", "srlinux", "sonic"} {
		b.Run(p, func(b *testing.B) {
			schemas := &Schemas{}
			opts := Options{Profile: p, Interfaces: DefaultInterfaces(p, 32), Schemas: schemas}
			if _, err := New(opts); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := New(opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSetValidate is one Set on a 32-port switch holding the QoS
// config of every port: the update's walk plus the whole-tree check
// (types, leafrefs evaluated per leaf, mandatory, unique, musts).
func BenchmarkSetValidate(b *testing.B) {
	for _, tc := range []struct {
		profile, origin, path, val string
		perPort                    func(port string) (string, string)
	}{
		{"arista", "openconfig", "/interfaces/interface[name=Ethernet1]/config/mtu", `9000`,
			func(p string) (string, string) {
				return "/qos/interfaces/interface[interface-id=" + p + "]",
					`{"interface-id":"` + p + `","config":{"interface-id":"` + p + `"},"interface-ref":{"config":{"interface":"` + p + `"}},"output":{"arista-qos-augments:pfc":{"config":{"priorities-no-drop":"08"}}}}`
			}},
		{"srlinux", "", "/interface[name=ethernet-1/1]/mtu", `9000`,
			func(p string) (string, string) {
				return "/qos/interfaces/interface[interface-id=" + p + "]",
					`{"interface-id":"` + p + `","interface-ref":{"interface":"` + p + `"},"pfc":{"pfc-enable":true}}`
			}},
		{"sonic", "sonic-db", "/CONFIG_DB/localhost/PORT/Ethernet0/mtu", `"9100"`,
			func(p string) (string, string) {
				return "/CONFIG_DB/localhost/PORT_QOS_MAP/" + p, `{"pfc_enable":"3,4"}`
			}},
	} {
		b.Run(tc.profile, func(b *testing.B) {
			tg, err := New(Options{Profile: tc.profile, Interfaces: DefaultInterfaces(tc.profile, 32)})
			if err != nil {
				b.Fatal(err)
			}
			for _, port := range DefaultInterfaces(tc.profile, 32) {
				p, v := tc.perPort(port)
				if err := tg.Seed(p, v); err != nil {
					b.Fatal(err)
				}
			}
			req := &gpb.SetRequest{Update: []*gpb.Update{upd(tc.origin, tc.path, tc.val)}}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := tg.Set(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
