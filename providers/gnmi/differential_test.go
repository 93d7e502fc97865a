package gnmi_test

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// mutations returns variants of a JSON value: each scalar replaced, one at
// a time, by values near and past the edges of common YANG types.
func mutations(root any) []any {
	var out []any
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				k := k
				walk(x[k], func(n any) { x[k] = n })
			}
		case []any:
			for i := range x {
				i := i
				walk(x[i], func(n any) { x[i] = n })
			}
		default:
			var alts []any
			switch x.(type) {
			case json.Number:
				alts = []any{json.Number("-1"), json.Number("0"), json.Number("256"), json.Number("65536"), json.Number("4294967296"), "7"}
			case string:
				alts = []any{"", "bogus-module:ROCE", "18446744073709551616", "2.5"}
			case bool:
				alts = []any{"true"}
			}
			for _, a := range alts {
				set(a)
				out = append(out, deepCopy(root))
				set(x)
			}
		}
	}
	walk(root, func(any) {})
	return out
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	c, _ := gpath.Decode(b)
	return c
}

// A payload the simulator accepts is one the vendor's model accepts: each
// scalar of every op roce sends is mutated (out of range, wrong type,
// bogus module), sent to the simulator, and whenever the simulator applies
// it, the resulting datastore must still validate against the vendor YANG.
// This is the simulator's fidelity contract, tested differentially.
func TestSimulatorAcceptsOnlyWhatTheModelAccepts(t *testing.T) {
	cases := []struct {
		profile string
		class   *policies.Lossless
	}{
		{"arista", dscpClass()},
		{"sonic", dscpClass()},
		{"srlinux", noECN(dscpClass())},
		{"srlinux", cosClass()},
		{"sonic", cosClass()},
	}
	for _, tc := range cases {
		t.Run(tc.profile+"/"+tc.class.Name, func(t *testing.T) {
			testenv.Tool(t, "yanglint", "Debian package libyang-tools; make deps-test installs it")
			l := newLab(t, gnmisim.Options{Profile: tc.profile}, tc.class)
			tp := applied(t, l)
			tried, accepted := 0, 0
			for _, op := range tp.Ops {
				if op.Op == "delete" {
					continue
				}
				p, err := gpath.Parse(op.Path)
				if err != nil {
					t.Fatal(err)
				}
				v, err := gpath.Decode(op.Value)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range mutations(v) {
					b, _ := json.Marshal(m)
					tried++
					u := &gpb.Update{Path: p.Proto(op.Origin), Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: b}}}
					req := &gpb.SetRequest{Update: []*gpb.Update{u}}
					if op.Op == "replace" {
						req = &gpb.SetRequest{Replace: []*gpb.Update{u}}
					}
					if _, err := l.sim.Set(context.Background(), req); err != nil {
						continue // refused, as the model would
					}
					accepted++
					if msg := yanglint(t, tc.profile, "config", instanceData(t, l.sim, tc.profile)); msg != "" {
						t.Errorf("the simulator accepted %s %s %s, which the vendor model refuses: %s", op.Op, op.Path, b, firstLine(msg))
					}
					restore := &gpb.Update{Path: p.Proto(op.Origin), Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: op.Value}}}
					again := &gpb.SetRequest{Update: []*gpb.Update{restore}}
					if op.Op == "replace" {
						again = &gpb.SetRequest{Replace: []*gpb.Update{restore}}
					}
					if _, err := l.sim.Set(context.Background(), again); err != nil {
						t.Fatalf("restoring %s: %v", op.Path, err)
					}
				}
			}
			if tried == 0 {
				t.Fatal("no mutations tried")
			}
			t.Logf("%d mutations, %d accepted by the simulator and checked by yanglint", tried, accepted)
		})
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
