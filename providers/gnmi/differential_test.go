package gnmi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
)

// mutations returns variants of a JSON value: each scalar replaced, one at
// a time, by values near and past the edges of common YANG types; and
// an unknown member added to each object. (A repeated list entry or a
// wrong member qualifier cannot be stored in a datastore for yanglint to
// judge; TestSetFollowsTheVendorModels in gnmisim covers them.)
//
// pathKeys are the keys of the op's path: the value's members of those
// names are left alone (a key leaf that disagrees with the path's key
// cannot be stored for yanglint to judge; gnmisim's TestSetStatusCodes
// covers it).
func mutations(root any, pathKeys map[string]string) []any {
	var out []any
	var walk func(v any, top bool, set func(any))
	walk = func(v any, top bool, set func(any)) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				if _, isKey := pathKeys[gpath.StripModule(k)]; isKey && top {
					continue
				}
				keys = append(keys, k)
			}
			sort.Strings(keys)
			x["roce-unknown-leaf"] = "1"
			out = append(out, deepCopy(root))
			delete(x, "roce-unknown-leaf")
			for _, k := range keys {
				k := k
				walk(x[k], false, func(n any) { x[k] = n })
			}
		case []any:
			for i := range x {
				i := i
				walk(x[i], false, func(n any) { x[i] = n })
			}
		default:
			var alts []any
			switch x.(type) {
			case json.Number:
				alts = []any{json.Number("-1"), json.Number("0"), json.Number("256"), json.Number("65536"), json.Number("4294967296"), "7"}
			case string:
				alts = []any{"", "bogus-module:ROCE", "18446744073709551616", "2.5", "0", "99999"}
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
	walk(root, true, func(any) {})
	return out
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	c, _ := gpath.Decode(b)
	return c
}

// opsRequest is one SetRequest carrying ops.
func opsRequest(t *testing.T, ops []plan.Op) *gpb.SetRequest {
	t.Helper()
	req := &gpb.SetRequest{}
	for _, op := range ops {
		p, err := gpath.Parse(op.Path)
		if err != nil {
			t.Fatal(err)
		}
		u := &gpb.Update{Path: p.Proto(op.Origin), Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: op.Value}}}
		switch op.Op {
		case "delete":
			req.Delete = append(req.Delete, p.Proto(op.Origin))
		case "replace":
			req.Replace = append(req.Replace, u)
		default:
			req.Update = append(req.Update, u)
		}
	}
	return req
}

// corpus is the payloads the differential runs: the golden ops of each
// profile (testdata/ops) and the ops of a plan against the simulator.
func corpus(t *testing.T, profile string, planned []plan.Op, goldens bool) [][]plan.Op {
	t.Helper()
	out := [][]plan.Op{planned}
	if !goldens {
		return out
	}
	_, golden := goldenOps(t, profile)
	return append(out, golden...)
}

// goldenOps returns a profile's golden ops files (testdata/ops) and the
// ops each holds.
func goldenOps(t *testing.T, profile string) (files []string, ops [][]plan.Op) {
	t.Helper()
	files, _ = filepath.Glob(filepath.Join("testdata", "ops", profile+"-*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fileOps []plan.Op
		if err := json.Unmarshal(b, &fileOps); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		ops = append(ops, fileOps)
	}
	return files, ops
}

// opPathValue is the parsed path and the decoded JSON value of an op that
// writes (update or replace).
func opPathValue(t *testing.T, op plan.Op) (gpath.Path, any) {
	t.Helper()
	p, err := gpath.Parse(op.Path)
	if err != nil {
		t.Fatalf("%s %s: %v", op.Op, op.Path, err)
	}
	v, err := gpath.Decode(op.Value)
	if err != nil {
		t.Fatalf("%s %s: %v", op.Op, op.Path, err)
	}
	return p, v
}

// The simulator's verdict on a payload is yanglint's: for a corpus of
// payloads — the golden ops of each profile and a plan's ops, each scalar
// mutated (out of range, wrong type, bogus module) and unknown members
// added — a Set the simulator applies leaves a datastore
// the vendor's model (yanglint, with the image's features and deviations)
// accepts, and a Set it refuses leaves, on a target that skips the check
// (Faults.SkipSchema), a datastore yanglint refuses too.
func TestSimulatorVerdictEqualsYanglint(t *testing.T) {
	cases := []struct {
		profile string
		class   *policies.Lossless
		goldens bool // also run the profile's golden ops
	}{
		{"arista", dscpClass(), true},
		{"sonic", dscpClass(), true},
		{"srlinux", noECN(dscpClass()), true},
		{"srlinux", cosClass(), false},
		{"sonic", cosClass(), false},
	}
	schemas := &gnmisim.Schemas{}
	for _, tc := range cases {
		t.Run(tc.profile+"/"+tc.class.Name, func(t *testing.T) {
			testenv.Tool(t, "yanglint", "Debian package libyang-tools; make deps-test installs it")
			l := newLab(t, gnmisim.Options{Profile: tc.profile}, tc.class)
			tp := applied(t, l)
			fresh := func(skip bool, base *gpb.SetRequest) *gnmisim.Target {
				t.Helper()
				tg, err := gnmisim.New(gnmisim.Options{Profile: tc.profile, Interfaces: gnmisim.DefaultInterfaces(tc.profile, 2),
					Schemas: schemas, Faults: gnmisim.Faults{SkipSchema: skip}})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tg.Set(context.Background(), base); err != nil {
					t.Fatalf("replaying the unmutated ops: %v", err)
				}
				return tg
			}
			type trial struct {
				what   string
				simErr error
			}
			var trials []trial
			var docs []any
			for ci, ops := range corpus(t, tc.profile, tp.Ops, tc.goldens) {
				base := opsRequest(t, ops)
				trials = append(trials, trial{what: fmt.Sprintf("corpus %d unmutated", ci)})
				docs = append(docs, instanceData(t, fresh(false, base), tc.profile))
				for oi, op := range ops {
					if op.Op == "delete" {
						continue
					}
					p, v := opPathValue(t, op)
					for _, m := range mutations(v, p[len(p)-1].Keys) {
						b, _ := json.Marshal(m)
						mut := append([]plan.Op(nil), ops[oi])
						mut[0].Value = b
						req := opsRequest(t, mut)
						_, simErr := fresh(false, base).Set(context.Background(), req)
						lenient := fresh(true, base)
						if _, err := lenient.Set(context.Background(), req); err != nil {
							continue // not storable at all (not JSON of the right shape): nothing for yanglint to judge
						}
						trials = append(trials, trial{what: fmt.Sprintf("%s %s %s", op.Op, op.Path, b), simErr: simErr})
						docs = append(docs, instanceData(t, lenient, tc.profile))
					}
				}
			}
			verdicts := yanglintBatch(t, tc.profile, "config", docs)
			accepted, refused := 0, 0
			for i, tr := range trials {
				msg := verdicts[i]
				switch {
				case tr.simErr == nil && msg != "":
					t.Errorf("the simulator accepted %s, which the vendor model refuses: %s", tr.what, firstLine(msg))
				case tr.simErr != nil && msg == "":
					t.Errorf("the simulator refused %s, which the vendor model accepts: %v", tr.what, tr.simErr)
				case tr.simErr == nil:
					accepted++
				default:
					refused++
				}
			}
			tried := len(trials)
			if tried == 0 || accepted == 0 || refused == 0 {
				t.Fatalf("%d mutations, %d accepted, %d refused: the differential needs both verdicts", tried, accepted, refused)
			}
			t.Logf("%d payloads: %d accepted and %d refused by both the simulator and yanglint", tried, accepted, refused)
		})
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
