package gnmi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefabric/roce/internal/testenv"
	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
	"github.com/rocefabric/roce/providers/gnmi/gpath"
	"github.com/rocefabric/roce/providers/gnmi/profiles"
)

// yangRoots are what the simulator's Get is asked for (config) per
// profile; the models themselves, with the features and deviations a
// released image has, are gnmisim.Models (gnmisim/models/README.md,
// docs/gnmi-profiles.md).
var yangRoots = map[string][]string{
	"openconfig": {"/interfaces", "/qos"},
	"arista":     {"/interfaces", "/qos"},
	"srlinux":    {"/interface", "/qos"},
	"sonic":      {profiles.SONiCConfigDB},
}

// yangDir is where the pinned models live (embedded by the simulator).
var yangDir = filepath.Join("gnmisim", "models")

// yanglintModels returns the yanglint binary and what loads a profile's
// models: every directory below its search roots, its features as
// "module:feature,feature,..." per module (the -F form), and its module
// files. yanglintCmd and yanglintBatch both load the models from this.
func yanglintModels(t *testing.T, profile string) (bin string, dirs, features, modules []string) {
	t.Helper()
	bin = testenv.Tool(t, "yanglint", "Debian package libyang-tools; make deps-test installs it")
	m, err := gnmisim.Models(profile)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Search {
		err := filepath.WalkDir(filepath.Join(yangDir, s), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	byMod := map[string][]string{}
	var mods []string
	for _, f := range m.Features {
		mod, name, _ := strings.Cut(f, ":")
		if byMod[mod] == nil {
			mods = append(mods, mod)
		}
		byMod[mod] = append(byMod[mod], name)
	}
	for _, mod := range mods {
		features = append(features, mod+":"+strings.Join(byMod[mod], ","))
	}
	for _, f := range m.Modules {
		modules = append(modules, filepath.Join(yangDir, f))
	}
	return bin, dirs, features, modules
}

// yanglintCmd returns the yanglint binary and the arguments that load a
// profile's models (search paths, features, modules), with extra options
// before the modules.
func yanglintCmd(t *testing.T, profile string, opts ...string) (string, []string) {
	t.Helper()
	bin, dirs, features, modules := yanglintModels(t, profile)
	var args []string
	for _, d := range dirs {
		args = append(args, "-p", d)
	}
	for _, f := range features {
		args = append(args, "-F", f)
	}
	args = append(append(args, "-Q"), opts...)
	return bin, append(args, modules...)
}

// applied plans and applies the lab's classes and returns the plan.
func applied(t *testing.T, l *lab) *plan.TargetPlan {
	t.Helper()
	tp, _ := planApply(ctxT(t), t, l.target(t, gnmi.Options{}))
	return tp
}

// yanglint validates one instance document against the profile's models
// and returns yanglint's complaint ("" when valid).
func yanglint(t *testing.T, profile, datatype string, doc any) string {
	t.Helper()
	bin, args := yanglintCmd(t, profile, "-t", datatype)
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "data.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, append(args, file)...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%v: %s\n--- instance data\n%s", err, out, b)
	}
	return ""
}

// yanglintBatch validates many instance documents with one yanglint
// process (its interactive mode: the models are compiled once) and returns
// yanglint's complaint per document ("" when valid).
func yanglintBatch(t *testing.T, profile, datatype string, docs []any) []string {
	t.Helper()
	bin, dirs, features, modules := yanglintModels(t, profile)
	dir := t.TempDir()
	var script strings.Builder
	for _, d := range dirs {
		abs, _ := filepath.Abs(d)
		fmt.Fprintf(&script, "searchpath %s\n", abs)
	}
	script.WriteString("verb error\nadd")
	for _, f := range features {
		fmt.Fprintf(&script, " -F %s", f)
	}
	for _, f := range modules {
		abs, _ := filepath.Abs(f)
		script.WriteString(" " + abs)
	}
	script.WriteString("\nroce-mark-models\n")
	for i, d := range docs {
		b, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, fmt.Sprintf("d%d.json", i))
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&script, "data -t %s %s\nroce-mark-%d\n", datatype, file, i)
	}
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader(script.String())
	cmd.Env = append(os.Environ(), "HOME="+dir) // yanglint keeps its history under $HOME
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("yanglint: %v: %s", err, out.String())
	}
	res := make([]string, len(docs))
	cur := -2 // before the models are loaded
	var buf []string
	for _, line := range strings.Split(out.String(), "\n") {
		if i := strings.Index(line, `Unknown command "roce-mark-`); i >= 0 {
			tag := strings.TrimSuffix(strings.SplitN(line[i+len(`Unknown command "roce-mark-`):], `"`, 2)[0], "")
			if tag == "models" {
				if len(buf) > 0 {
					t.Fatalf("yanglint: loading the %s models: %s", profile, strings.Join(buf, "\n"))
				}
			} else {
				n, err := strconv.Atoi(tag)
				if err != nil || n < 0 || n >= len(docs) {
					t.Fatalf("yanglint batch: bad marker %q", line)
				}
				res[n] = strings.Join(buf, "\n")
			}
			buf, cur = nil, cur+1
			continue
		}
		if strings.TrimSpace(line) != "" && !strings.Contains(line, "No saved history") && !strings.Contains(line, "Configuration directory") {
			buf = append(buf, line)
		}
	}
	if cur != len(docs)-1 {
		t.Fatalf("yanglint batch: %d of %d documents answered:\n%s", cur+1, len(docs), out.String())
	}
	return res
}

// instanceData asks the simulator for its config (Get, JSON_IETF, the way
// the provider reads it) and turns the replies into one instance document:
// top-level members qualified with their module, SONiC's CONFIG_DB tables
// mapped to sonic-yang-models' containers and lists.
func instanceData(t *testing.T, sim *gnmisim.Target, profile string) map[string]any {
	t.Helper()
	return getInstanceData(t, sim, profile, gpb.GetRequest_CONFIG)
}

// getInstanceData is instanceData for a Get of the given type (ALL adds
// the state the simulator serves).
func getInstanceData(t *testing.T, sim *gnmisim.Target, profile string, typ gpb.GetRequest_DataType) map[string]any {
	t.Helper()
	doc := map[string]any{}
	for _, r := range yangRoots[profile] {
		p, err := gpath.Parse(r)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := sim.Get(context.Background(), &gpb.GetRequest{
			Path: []*gpb.Path{p.Proto(sim.Origin())}, Encoding: gpb.Encoding_JSON_IETF, Type: typ,
		})
		if status.Code(err) == codes.NotFound && strings.Contains(err.Error(), "no data") {
			continue // nothing configured there yet
		}
		if err != nil {
			t.Fatalf("Get %s: %v", r, err)
		}
		for _, n := range resp.GetNotification() {
			for _, u := range n.GetUpdate() {
				v, err := gpath.Decode(u.GetVal().GetJsonIetfVal())
				if err != nil {
					t.Fatalf("Get %s: reply is not JSON_IETF: %v", r, err)
				}
				if profile == "sonic" {
					sonicToYANG(t, v, doc)
					continue
				}
				doc[topModule[profile][p[0].Name]+":"+p[0].Name] = v
			}
		}
	}
	return doc
}

var topModule = map[string]map[string]string{
	"openconfig": {"interfaces": "openconfig-interfaces", "qos": "openconfig-qos"},
	"arista":     {"interfaces": "openconfig-interfaces", "qos": "openconfig-qos"},
	"srlinux":    {"interface": "srl_nokia-interfaces", "qos": "srl_nokia-qos"},
}

// sonicTable maps a CONFIG_DB table to its sonic-yang list: module,
// list, key leaves (a "a|b" row key splits into them), and, for the map
// tables whose rows are field->value pairs, the inner list and its leaves.
type sonicTable struct {
	module, list string
	keys         []string
	inner        string // inner list name ("" for plain rows)
	innerKey     string
	innerVal     string
}

var sonicTables = map[string]sonicTable{
	"PORT":            {module: "sonic-port", list: "PORT_LIST", keys: []string{"name"}},
	"PORT_QOS_MAP":    {module: "sonic-port-qos-map", list: "PORT_QOS_MAP_LIST", keys: []string{"ifname"}},
	"DSCP_TO_TC_MAP":  {module: "sonic-dscp-tc-map", list: "DSCP_TO_TC_MAP_LIST", keys: []string{"name"}, inner: "DSCP_TO_TC_MAP", innerKey: "dscp", innerVal: "tc"},
	"DOT1P_TO_TC_MAP": {module: "sonic-dot1p-tc-map", list: "DOT1P_TO_TC_MAP_LIST", keys: []string{"name"}, inner: "DOT1P_TO_TC_MAP", innerKey: "dot1p", innerVal: "tc"},
	"TC_TO_QUEUE_MAP": {module: "sonic-tc-queue-map", list: "TC_TO_QUEUE_MAP_LIST", keys: []string{"name"}, inner: "TC_TO_QUEUE_MAP", innerKey: "tc", innerVal: "qindex"},
	"WRED_PROFILE":    {module: "sonic-wred-profile", list: "WRED_PROFILE_LIST", keys: []string{"name"}},
	"QUEUE":           {module: "sonic-queue", list: "QUEUE_LIST", keys: []string{"ifname", "qindex"}},
	"PFC_WD":          {module: "sonic-pfcwd", list: "PFC_WD_LIST", keys: []string{"ifname"}},
}

// sonicTyped are the CONFIG_DB fields whose YANG type is not a string:
// CONFIG_DB holds every value as a string; sonic-yang-models' loader
// converts these (booleans, and integers up to 32 bits, which RFC 7951
// encodes as JSON numbers).
var sonicTyped = map[string]string{
	"wred_green_enable": "bool", "wred_yellow_enable": "bool", "wred_red_enable": "bool",
	"tc": "int", "mtu": "int", "speed": "int", "detection_time": "int", "restoration_time": "int", "POLL_INTERVAL": "int",
}

func sonicToYANG(t *testing.T, v any, doc map[string]any) {
	t.Helper()
	tables, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("CONFIG_DB reply is not an object: %v", v)
	}
	for _, name := range sortedKeys(tables) {
		tb, ok := sonicTables[name]
		if !ok {
			t.Fatalf("CONFIG_DB table %s has no sonic-yang mapping in this test", name)
		}
		rows, _ := tables[name].(map[string]any)
		var entries []any
		for _, key := range sortedKeys(rows) {
			fields, _ := rows[key].(map[string]any)
			ent := map[string]any{}
			parts := strings.Split(key, "|")
			if len(parts) != len(tb.keys) {
				t.Fatalf("%s row %q: want %d key parts", name, key, len(tb.keys))
			}
			for i, k := range tb.keys {
				ent[k] = parts[i]
			}
			if tb.inner != "" {
				var inner []any
				for _, f := range sortedKeys(fields) {
					inner = append(inner, map[string]any{tb.innerKey: sonicValue(tb.innerKey, f), tb.innerVal: sonicValue(tb.innerVal, fields[f])})
				}
				ent[tb.inner] = inner
			} else {
				for f, fv := range fields {
					ent[f] = sonicValue(f, fv)
				}
			}
			entries = append(entries, ent)
		}
		mod := tb.module + ":" + tb.module
		c, _ := doc[mod].(map[string]any)
		if c == nil {
			c = map[string]any{}
			doc[mod] = c
		}
		c[name] = map[string]any{tb.list: entries}
	}
}

func sonicValue(field string, v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	switch sonicTyped[field] {
	case "bool":
		if s == "true" || s == "false" {
			return s == "true"
		}
	case "int":
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.Number(s)
		}
	}
	return s
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Every SetRequest roce sends, for each profile and each lossless feature,
// on create, update and delete, leaves the target holding instance data
// that the vendor's own YANG (with a released image's features and
// deviations) accepts; and the simulator's Get replies are that instance
// data. The simulator applies each Set only after its own schema check, so
// a step that applies is also a payload the simulator accepted.
func TestPayloadsValidateAgainstVendorYANG(t *testing.T) {
	mtu := func(c *policies.Lossless, m int) *policies.Lossless { c.MTU = m; return c }
	prio := func(c *policies.Lossless, p int) *policies.Lossless { c.Priority = p; return c }
	noWD := func(c *policies.Lossless) *policies.Lossless { c.PFCWatchdog = nil; return c }
	cos4 := func() *policies.Lossless {
		c := cosClass()
		c.Name, c.Match.CoS, c.Priority = "cos4", []int{4}, 4
		return c
	}
	type step struct {
		what    string
		classes []*policies.Lossless
	}
	cases := []struct {
		profile string
		steps   []step
	}{
		{"arista", []step{
			{"create dscp+ecn+bandwidth+watchdog", []*policies.Lossless{dscpClass()}},
			{"update mtu and priority", []*policies.Lossless{prio(mtu(dscpClass(), 4200), 4)}},
			{"create udp_port, add cos", []*policies.Lossless{udpClass(), cosClass()}},
			{"delete all", nil},
		}},
		{"sonic", []step{
			{"create dscp+ecn+watchdog", []*policies.Lossless{dscpClass()}},
			{"update mtu and priority", []*policies.Lossless{prio(mtu(dscpClass(), 4200), 4)}},
			{"create udp_port, add cos", []*policies.Lossless{udpClass(), cos4()}},
			{"delete one class", []*policies.Lossless{udpClass()}},
			{"delete all", nil},
		}},
		{"srlinux", []step{
			{"create dscp+watchdog", []*policies.Lossless{noECN(dscpClass())}},
			{"update mtu, priority, no watchdog", []*policies.Lossless{noWD(prio(mtu(noECN(dscpClass()), 4200), 4))}},
			{"create udp_port, add cos", []*policies.Lossless{noECN(udpClass()), cosClass()}},
			{"delete one class", []*policies.Lossless{cosClass()}},
			{"delete all", nil},
		}},
	}
	schemas := &gnmisim.Schemas{}
	for _, tc := range cases {
		t.Run(tc.profile, func(t *testing.T) {
			testenv.Tool(t, "yanglint", "Debian package libyang-tools; make deps-test installs it")
			l := newLab(t, gnmisim.Options{Profile: tc.profile})
			if msg := yanglint(t, tc.profile, "config", instanceData(t, l.sim, tc.profile)); msg != "" {
				t.Fatalf("the simulator's initial config is not valid %s instance data: %s", tc.profile, msg)
			}
			// The same replies pass the simulator's own (goyang) check.
			goyangOK := func(what string, doc map[string]any, state bool) {
				t.Helper()
				if err := schemas.CheckInstance(tc.profile, doc, state); err != nil {
					t.Fatalf("%s: the simulator's Get reply fails its own compiled schema: %v", what, err)
				}
			}
			goyangOK("initial config", instanceData(t, l.sim, tc.profile), false)
			ctx := ctxT(t)
			for _, st := range tc.steps {
				l.fabric.Lossless = st.classes
				tg := l.target(t, gnmi.Options{})
				tp, err := tg.Plan(ctx)
				if err != nil {
					t.Fatalf("%s: plan: %v", st.what, err)
				}
				if !tp.HasChanges() {
					t.Fatalf("%s: plan has no changes; the step tests nothing", st.what)
				}
				res, err := tg.Apply(ctx, tp)
				if err != nil || res.Status != plan.StatusApplied {
					t.Fatalf("%s: apply: %s %v %+v", st.what, res.Status, err, res.Transcript)
				}
				if tc.profile != "sonic" { // SONiC state is COUNTERS_DB, not YANG-modelled
					all := getInstanceData(t, l.sim, tc.profile, gpb.GetRequest_ALL)
					if msg := yanglint(t, tc.profile, "data", all); msg != "" {
						t.Fatalf("%s: the simulator's Get (config and state) is not valid instance data: %s", st.what, msg)
					}
					goyangOK(st.what+" (config and state)", all, true)
				}
				cfg := instanceData(t, l.sim, tc.profile)
				if msg := yanglint(t, tc.profile, "config", cfg); msg != "" {
					t.Fatalf("%s: after the SetRequest the target's config is not valid against the vendor YANG: %s\n--- SetRequest ops\n%s", st.what, msg, opsJSON(tp.Ops))
				}
				goyangOK(st.what, cfg, false)
			}
		})
	}
}

// node walks doc along steps: a member name, or "name[key=value]" for the
// entry of a JSON list, and returns the object found there.
func node(t *testing.T, doc map[string]any, steps ...string) map[string]any {
	t.Helper()
	cur := doc
	for _, s := range steps {
		name, sel, isEntry := strings.Cut(strings.TrimSuffix(s, "]"), "[")
		if !isEntry {
			next, ok := cur[name].(map[string]any)
			if !ok {
				t.Fatalf("no object %s in %v", s, cur)
			}
			cur = next
			continue
		}
		k, v, _ := strings.Cut(sel, "=")
		list, _ := cur[name].([]any)
		found := false
		for _, e := range list {
			if m, ok := e.(map[string]any); ok && fmt.Sprint(m[k]) == v {
				cur, found = m, true
				break
			}
		}
		if !found {
			t.Fatalf("no entry %s in %v", s, cur[name])
		}
	}
	return cur
}

// The validation is not vacuous: each payload the issue found wrong, put
// into an otherwise valid datastore, is refused by yanglint with the
// vendor's models, features and deviations. Each case cites the YANG that
// refuses it.
func TestVendorYANGRefusesKnownBadPayloads(t *testing.T) {
	schemas := &gnmisim.Schemas{}
	cases := []struct {
		profile string
		class   *policies.Lossless
		cite    string
		mutate  func(t *testing.T, doc map[string]any)
		want    string
	}{
		{"srlinux", noECN(dscpClass()),
			`srl_nokia-qos.yang pfc-mapping-profile/received-traffic/unicast-mapping/pfc-queue: leaf enable-pfc { if-feature "srl-feat:future-0-0" }`,
			func(t *testing.T, doc map[string]any) {
				q := node(t, doc, "srl_nokia-qos:qos", "pfc-mapping-profile[name=ROCE-PFC]", "received-traffic", "unicast-mapping", "pfc-queue[pfc-queue-name=pfc3]")
				q["enable-pfc"] = true
			}, `enable-pfc`},
		{"srlinux", noECN(dscpClass()),
			`srl_nokia-qos.yang grouping qos-subinterface-input-top: must 'string(../../interface-ref/subinterface) != ""'`,
			func(t *testing.T, doc map[string]any) {
				port := node(t, doc, "srl_nokia-qos:qos", "interfaces", "interface[interface-id=ethernet-1/1]")
				port["input"] = map[string]any{"classifiers": map[string]any{"ipv4-dscp-policy": "ROCE-DSCP"}}
			}, `Attachment of classifiers, not permitted for interfaces`},
		{"srlinux", noECN(dscpClass()),
			`srl_nokia-qos.yang received-pfc-pause-frames: list queue { leaf queue-name { type leafref { path "../../../../queues/queue/name" } } }`,
			func(t *testing.T, doc map[string]any) {
				q := node(t, doc, "srl_nokia-qos:qos", "pfc-mapping-profile[name=ROCE-PFC]", "received-pfc-pause-frames", "queue[queue-name=unicast-3]")
				q["queue-name"] = "no-such-queue"
			}, `no-such-queue`},
		{"arista", dscpClass(),
			`arista-qos-notsupported-deviations.yang: deviation "/oc-qos:qos/oc-qos:queues/oc-qos:queue/oc-qos:config/oc-qos:queue-id" { deviate not-supported; }`,
			func(t *testing.T, doc map[string]any) {
				node(t, doc, "openconfig-qos:qos", "queues", "queue[name=ROCE-rocev2]", "config")["queue-id"] = 3
			}, `queue-id`},
		{"arista", dscpClass(),
			`arista-qos-augments.yang: augment "/oc-qos:qos/oc-qos:interfaces/oc-qos:interface/oc-qos:output" { container pfc } (RFC 7951 §4: a member of another module is qualified)`,
			func(t *testing.T, doc map[string]any) {
				out := node(t, doc, "openconfig-qos:qos", "interfaces", "interface[interface-id=Ethernet1]", "output")
				out["pfc"] = out["arista-qos-augments:pfc"]
				delete(out, "arista-qos-augments:pfc")
			}, `pfc`},
		{"sonic", dscpClass(),
			`sonic-pfcwd.yang PFC_WD_LIST: leaf detection_time { type uint32 { range 100..5000; } }`,
			func(t *testing.T, doc map[string]any) {
				node(t, doc, "sonic-pfcwd:sonic-pfcwd", "PFC_WD", "PFC_WD_LIST[ifname=Ethernet0]")["detection_time"] = json.Number("50")
			}, `50`},
	}
	for _, tc := range cases {
		t.Run(tc.profile+"/"+tc.want, func(t *testing.T) {
			testenv.Tool(t, "yanglint", "Debian package libyang-tools; make deps-test installs it")
			l := newLab(t, gnmisim.Options{Profile: tc.profile}, tc.class)
			applied(t, l)
			doc := instanceData(t, l.sim, tc.profile)
			if msg := yanglint(t, tc.profile, "config", doc); msg != "" {
				t.Fatalf("the unmodified datastore must be valid: %s", msg)
			}
			if err := schemas.CheckInstance(tc.profile, doc, false); err != nil {
				t.Fatalf("the unmodified datastore must pass the simulator's schema: %v", err)
			}
			tc.mutate(t, doc)
			msg := yanglint(t, tc.profile, "config", doc)
			if msg == "" || !strings.Contains(msg, tc.want) {
				t.Errorf("yanglint accepted or refused for another reason (want %q; %s):\n%s", tc.want, tc.cite, msg)
			}
			// The simulator's compiled schema refuses it too.
			if err := schemas.CheckInstance(tc.profile, doc, false); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("the simulator's schema accepted or refused for another reason (want %q; %s): %v", tc.want, tc.cite, err)
			}
		})
	}
}
