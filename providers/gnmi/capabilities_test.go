package gnmi_test

import (
	"context"
	"net"
	"regexp"
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// advertising serves a simulator's Get and Set but answers Capabilities
// with what a given real target would list (models and encodings), so the
// provider can be shown to act on the CapabilityResponse alone.
type advertising struct {
	gpb.UnimplementedGNMIServer
	sim       *gnmisim.Target
	models    []*gpb.ModelData // nil: the simulator's
	encodings []gpb.Encoding   // nil: the simulator's
}

func (a *advertising) Capabilities(ctx context.Context, r *gpb.CapabilityRequest) (*gpb.CapabilityResponse, error) {
	resp, err := a.sim.Capabilities(ctx, r)
	if err != nil {
		return nil, err
	}
	if a.models != nil {
		resp.SupportedModels = a.models
	}
	if a.encodings != nil {
		resp.SupportedEncodings = a.encodings
	}
	return resp, nil
}

func (a *advertising) Get(ctx context.Context, r *gpb.GetRequest) (*gpb.GetResponse, error) {
	return a.sim.Get(ctx, r)
}

func (a *advertising) Set(ctx context.Context, r *gpb.SetRequest) (*gpb.SetResponse, error) {
	return a.sim.Set(ctx, r)
}

// serveAdvertising starts a plaintext loopback simulator of the profile
// whose Capabilities list the given models and encodings.
func serveAdvertising(t *testing.T, profile string, models []*gpb.ModelData, encs []gpb.Encoding) (*gnmisim.Target, string) {
	t.Helper()
	sim, err := gnmisim.New(gnmisim.Options{Profile: profile, Interfaces: gnmisim.DefaultInterfaces(profile, 1)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	gpb.RegisterGNMIServer(srv, &advertising{sim: sim, models: models, encodings: encs})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return sim, ln.Addr().String()
}

// advertisingLab is a switch of swProfile (the policy's profile, or
// "auto") pointing at an advertising simulator of profile, carrying one
// CoS class (none on openconfig, which refuses lossless classes).
func advertisingLab(t *testing.T, profile, swProfile string, models []*gpb.ModelData, encs []gpb.Encoding, g *policies.GNMISettings) (*gnmisim.Target, plan.Target) {
	t.Helper()
	sim, addr := serveAdvertising(t, profile, models, encs)
	sw := &policies.Switch{
		Name: "leaf1", Platform: policies.PlatformGNMI, Profile: swProfile, Address: addr,
		Interfaces: gnmisim.DefaultInterfaces(profile, 1), TLS: &policies.TLS{Plaintext: true}, GNMI: g,
	}
	f := &policies.Fabric{Dir: t.TempDir(), Switches: []*policies.Switch{sw}}
	if profile != "openconfig" {
		f.Lossless = []*policies.Lossless{cosClass()}
	}
	tg, err := gnmi.NewWithOptions(plan.Env{Fabric: f}, sw, gnmi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Close() })
	return sim, tg
}

func md(name, org, version string) *gpb.ModelData {
	return &gpb.ModelData{Name: name, Organization: org, Version: version}
}

// What each profile needs, as the real targets list it (docs/gnmi-profiles.md).
var realModels = map[string][]*gpb.ModelData{
	"openconfig": {md("openconfig-interfaces", "OpenConfig working group", "3.8.1"), md("openconfig-qos", "OpenConfig working group", "2.2.0")},
	"arista": {md("openconfig-interfaces", "OpenConfig working group", "3.8.1"), md("openconfig-qos", "OpenConfig working group", "2.0.1"),
		md("arista-qos-augments", "Arista Networks, Inc.", "0.0.4")},
	// sonic-gnmi's mixed DB client lists only this for CONFIG_DB.
	"sonic": {md("sonic-db", "SONiC", "0.1.0")},
	// SR Linux lists namespace:module names and revision dates.
	"srlinux": {md("urn:srl_nokia/qos:srl_nokia-qos", "Nokia", "2025-03-31"), md("urn:srl_nokia/interfaces:srl_nokia-interfaces", "Nokia", "2025-03-31")},
}

// without returns the models minus the named one.
func without(ms []*gpb.ModelData, name string) []*gpb.ModelData {
	var out []*gpb.ModelData
	for _, m := range ms {
		if !strings.HasSuffix(m.Name, name) {
			out = append(out, m)
		}
	}
	return out
}

// Models come from the target's CapabilityResponse: the real names plan
// cleanly; a needed model missing is refused at plan time naming the model
// and the pinned version and the override; require_models = false plans
// it with a warning; an older version is a warning naming both versions.
func TestModelsFromCapabilities(t *testing.T) {
	no := false
	cases := []struct {
		profile string
		models  []*gpb.ModelData
		g       *policies.GNMISettings
		err     []string // in the plan error
		warn    []string // in a plan warning
	}{
		{"openconfig", realModels["openconfig"], nil, nil, nil},
		{"arista", realModels["arista"], nil, nil, nil},
		{"sonic", realModels["sonic"], nil, nil, nil},
		{"srlinux", realModels["srlinux"], nil, nil, nil},
		{"arista", without(realModels["arista"], "arista-qos-augments"), nil,
			[]string{"switch.leaf1", "arista-qos-augments (Arista Networks, Inc., pinned version 0.0.4)", "profile arista", "require_models = false"}, nil},
		{"srlinux", without(realModels["srlinux"], "srl_nokia-qos"), nil,
			[]string{"srl_nokia-qos (Nokia, pinned version 2025-03-31)"}, nil},
		{"sonic", []*gpb.ModelData{md("sonic-port-qos-map", "SONiC", "1.0")}, nil,
			[]string{"sonic-db (SONiC, pinned version 0.1.0)"}, nil},
		{"openconfig", without(realModels["openconfig"], "openconfig-qos"), nil,
			[]string{"openconfig-qos (OpenConfig working group, pinned version 2.2.0)"}, nil},
		{"arista", without(realModels["arista"], "arista-qos-augments"), &policies.GNMISettings{RequireModels: &no},
			nil, []string{"arista-qos-augments", "require_models = false: planned anyway"}},
		{"openconfig", []*gpb.ModelData{md("openconfig-interfaces", "OpenConfig working group", "3.8.1"), md("openconfig-qos", "OpenConfig working group", "2.1.0")}, nil,
			nil, []string{"openconfig-qos 2.1.0 (roce is validated against 2.2.0)"}},
		{"srlinux", []*gpb.ModelData{md("urn:srl_nokia/qos:srl_nokia-qos", "Nokia", "2024-10-31"), realModels["srlinux"][1]}, nil,
			nil, []string{"srl_nokia-qos 2024-10-31 (roce is validated against 2025-03-31)"}},
	}
	for _, tc := range cases {
		name := tc.profile + " " + strings.Join(append(append([]string{}, tc.err...), tc.warn...), " ")
		t.Run(name, func(t *testing.T) {
			sim, tg := advertisingLab(t, tc.profile, tc.profile, tc.models, nil, tc.g)
			tp, err := tg.Plan(ctxT(t))
			if tc.err != nil {
				if err == nil {
					t.Fatalf("planned a target without a needed model; warnings %v", tp.Warnings)
				}
				for _, w := range tc.err {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
				if n := len(sim.SetRequests()); n != 0 {
					t.Errorf("%d SetRequests sent to a refused target", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			all := strings.Join(tp.Warnings, "\n")
			for _, w := range tc.warn {
				if !strings.Contains(all, w) {
					t.Errorf("no warning says %q; warnings:\n%s", w, all)
				}
			}
			if tc.warn == nil && (strings.Contains(all, "Capabilities") || strings.Contains(all, "validated against")) {
				t.Errorf("model warning for a target listing every model at its pinned version:\n%s", all)
			}
		})
	}
}

// SR Linux lists its models as "urn:...:module": auto-detection reads them
// so, and the target is recognised as srlinux.
func TestProfileDetectedFromRealModelNames(t *testing.T) {
	_, tg := advertisingLab(t, "srlinux", "auto", realModels["srlinux"], nil, nil)
	tp, err := tg.Plan(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if tp.Facts["profile"] != "srlinux" {
		t.Errorf("detected %q from %v, want srlinux", tp.Facts["profile"], realModels["srlinux"])
	}
}

// Encodings come from the CapabilityResponse, or the policy's override: a
// target listing only PROTO is refused naming the target and the override;
// with encoding = "json" it is planned and applied in plain JSON (no module
// qualifiers); the override is recorded as a setting fact.
func TestEncodingFromCapabilitiesOrOverride(t *testing.T) {
	cases := []struct {
		name     string
		encs     []gpb.Encoding
		g        *policies.GNMISettings
		want     string // encoding fact
		err      []string
		recorded string // setting.encoding fact
	}{
		{"both advertised", []gpb.Encoding{gpb.Encoding_JSON, gpb.Encoding_JSON_IETF}, nil, "JSON_IETF", nil, ""},
		{"only JSON", []gpb.Encoding{gpb.Encoding_JSON, gpb.Encoding_PROTO}, nil, "JSON", nil, ""},
		{"neither", []gpb.Encoding{gpb.Encoding_PROTO, gpb.Encoding_ASCII}, nil, "",
			[]string{"switch.leaf1", "neither JSON_IETF nor JSON", "[PROTO ASCII]", `encoding = "json_ietf"`, "gnmi { } block"}, ""},
		{"neither, override json", []gpb.Encoding{gpb.Encoding_PROTO}, &policies.GNMISettings{Encoding: "json"}, "JSON", nil, "json"},
		{"JSON_IETF advertised, override json", nil, &policies.GNMISettings{Encoding: "json"}, "JSON", nil, "json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim, tg := advertisingLab(t, "arista", "arista", realModels["arista"], tc.encs, tc.g)
			ctx := ctxT(t)
			tp, err := tg.Plan(ctx)
			if tc.err != nil {
				if err == nil {
					t.Fatalf("planned with encoding %s", tp.Facts["encoding"])
				}
				for _, w := range tc.err {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tp.Facts["encoding"] != tc.want || tp.Facts["setting.encoding"] != tc.recorded {
				t.Fatalf("encoding fact %q, setting.encoding %q; want %q, %q", tp.Facts["encoding"], tp.Facts["setting.encoding"], tc.want, tc.recorded)
			}
			if tc.want != "JSON" {
				return
			}
			if res, err := tg.Apply(ctx, tp); err != nil || res.Status != plan.StatusApplied {
				t.Fatalf("apply: %s %v", res.Status, err)
			}
			for _, u := range append(sim.SetRequests()[0].GetReplace(), sim.SetRequests()[0].GetUpdate()...) {
				if v := u.GetVal().GetJsonVal(); v == nil || strings.Contains(string(v), "arista-qos-augments:") {
					t.Errorf("%v: want plain JSON without module names, got %v", u.GetPath(), u.GetVal())
				}
			}
		})
	}
}

// Every profile, against a target that lists JSON but not JSON_IETF,
// sends plain JSON: no member or identity carries a module qualifier
// (gNMI specification §2.3.1), and the simulator applies it.
func TestJSONOnlyTargetPerProfile(t *testing.T) {
	qualified := regexp.MustCompile(`"[A-Za-z_][A-Za-z0-9_.-]*:[A-Za-z_]`)
	for _, profile := range []string{"arista", "sonic", "srlinux"} {
		t.Run(profile, func(t *testing.T) {
			sim, tg := advertisingLab(t, profile, profile, realModels[profile], []gpb.Encoding{gpb.Encoding_JSON}, nil)
			sent := 0
			for _, v := range applyPlainJSON(ctxT(t), t, tg, sim) {
				sent++
				if m := qualified.Find(v); m != nil {
					t.Errorf("module-qualified name %s in plain JSON: %s", m, v)
				}
			}
			if sent == 0 {
				t.Fatal("nothing sent; the case tests nothing")
			}
		})
	}
}

// The capability overrides are part of the settings a plan records: a plan
// made with require_models = false is refused by a target that no longer
// has it (and the other way round), naming the setting; nothing is sent.
func TestCapabilityOverridesRecordedInPlan(t *testing.T) {
	no := false
	for _, tc := range []struct {
		name       string
		planned    *policies.GNMISettings
		applied    *policies.GNMISettings
		wantRefuse bool
	}{
		{"same", &policies.GNMISettings{RequireModels: &no}, &policies.GNMISettings{RequireModels: &no}, false},
		{"dropped", &policies.GNMISettings{RequireModels: &no}, nil, true},
		{"added", nil, &policies.GNMISettings{RequireModels: &no}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim, addr := serveAdvertising(t, "sonic", realModels["sonic"], nil)
			target := func(g *policies.GNMISettings) plan.Target {
				sw := &policies.Switch{Name: "leaf1", Platform: policies.PlatformGNMI, Profile: "sonic", Address: addr,
					Interfaces: gnmisim.DefaultInterfaces("sonic", 1), TLS: &policies.TLS{Plaintext: true}, GNMI: g}
				f := &policies.Fabric{Dir: t.TempDir(), Switches: []*policies.Switch{sw}, Lossless: []*policies.Lossless{cosClass()}}
				tg, err := gnmi.NewWithOptions(plan.Env{Fabric: f}, sw, gnmi.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = tg.Close() })
				return tg
			}
			ctx := ctxT(t)
			tp, err := target(tc.planned).Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			res, err := target(tc.applied).Apply(ctx, tp)
			if !tc.wantRefuse {
				if err != nil || res.Status != plan.StatusApplied {
					t.Fatalf("apply: %s %v", res.Status, err)
				}
				return
			}
			if err == nil || res.Status != plan.StatusRefused || !strings.Contains(err.Error(), "require_models") {
				t.Fatalf("apply: %s %v, want refused naming require_models", res.Status, err)
			}
			if n := len(sim.SetRequests()); n != 0 {
				t.Errorf("%d SetRequests sent by a refused apply", n)
			}
		})
	}
}
