package gnmi_test

import (
	"context"
	"net"
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// A hostile gNMI target (docs/security.md, "What a device's answer can
// do"): it controls every byte of its answers. These tests hold what roce
// makes of them.

const hostilePassword = "Hostile-Marker-7f3a9c"

// hostileTarget answers Capabilities (and Get) as caps and get say; the
// password the client sent is passed to them, so a target can echo it.
type hostileTarget struct {
	gpb.UnimplementedGNMIServer
	caps func(pass string) (*gpb.CapabilityResponse, error)
	get  func(pass string) (*gpb.GetResponse, error)
}

func password(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get("password"); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (h *hostileTarget) Capabilities(ctx context.Context, _ *gpb.CapabilityRequest) (*gpb.CapabilityResponse, error) {
	return h.caps(password(ctx))
}

func (h *hostileTarget) Get(ctx context.Context, _ *gpb.GetRequest) (*gpb.GetResponse, error) {
	if h.get == nil {
		return nil, status.Error(codes.Unimplemented, "no Get")
	}
	return h.get(password(ctx))
}

// hostileSwitch serves h on loopback (plaintext, as the policy asks) and
// returns a target for an arista switch with password credentials.
func hostileSwitch(t *testing.T, h *hostileTarget) plan.Target {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	gpb.RegisterGNMIServer(srv, h)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	sw := &policies.Switch{
		Name: "leaf1", Platform: policies.PlatformGNMI, Profile: "arista", Address: ln.Addr().String(),
		Credentials: "lab", Interfaces: gnmisim.DefaultInterfaces("arista", 1), TLS: &policies.TLS{Plaintext: true},
	}
	f := &policies.Fabric{
		Dir: t.TempDir(), Switches: []*policies.Switch{sw}, Lossless: []*policies.Lossless{cosClass()},
		Credentials: map[string]*policies.Credentials{"lab": {Name: "lab", Username: "admin", PasswordEnv: "GNMI_PASSWORD"}},
	}
	env := plan.Env{Fabric: f, Getenv: func(k string) (string, bool) {
		return map[string]string{"GNMI_PASSWORD": hostilePassword}[k], k == "GNMI_PASSWORD"
	}}
	tg, err := gnmi.NewWithOptions(env, sw, gnmi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Close() })
	return tg
}

// goodCaps is what a real Arista target lists.
func goodCaps() *gpb.CapabilityResponse {
	return &gpb.CapabilityResponse{SupportedModels: realModels["arista"], SupportedEncodings: []gpb.Encoding{gpb.Encoding_JSON_IETF}, GNMIVersion: "0.7.0"}
}

// A target that echoes the password it was sent in its error (as "login
// failed for admin/<password>") must not get it into roce's error, which
// roce-plan prints in every format, the Markdown PR comment included.
func TestHostileTargetEchoesPassword(t *testing.T) {
	echo := func(pass string) error {
		return status.Errorf(codes.Unauthenticated, "login failed for admin/%s", pass)
	}
	for _, tc := range []struct {
		name string
		h    *hostileTarget
	}{
		{"Capabilities", &hostileTarget{caps: func(p string) (*gpb.CapabilityResponse, error) { return nil, echo(p) }}},
		{"Get", &hostileTarget{
			caps: func(string) (*gpb.CapabilityResponse, error) { return goodCaps(), nil },
			get:  func(p string) (*gpb.GetResponse, error) { return nil, echo(p) },
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := hostileSwitch(t, tc.h).Plan(ctxT(t))
			if err == nil {
				t.Fatalf("a target refusing the login planned: %+v", tp)
			}
			if strings.Contains(err.Error(), hostilePassword) {
				t.Errorf("the target's echo of the password reached roce's error: %v", err)
			}
			if !strings.Contains(err.Error(), "login failed") {
				t.Errorf("the error lost the target's answer: %v", err)
			}
		})
	}
}

// A Capabilities answer larger than gRPC's receive limit (4 MiB) is an
// error naming the switch, not a crash or an unbounded read; a needed
// model advertised at a version carrying a newline or Markdown is not
// echoed into the plan's warnings (only dotted or date versions are
// compared, so such a version is not judged at all).
func TestHostileCapabilities(t *testing.T) {
	t.Run("huge", func(t *testing.T) {
		h := &hostileTarget{caps: func(string) (*gpb.CapabilityResponse, error) {
			r := goodCaps()
			long := strings.Repeat("m", 1<<10)
			for i := 0; i < 6<<10; i++ { // 6 MiB of model names
				r.SupportedModels = append(r.SupportedModels, md(long, "x", "1.0.0"))
			}
			return r, nil
		}}
		_, err := hostileSwitch(t, h).Plan(ctxT(t))
		if err == nil {
			t.Fatal("a 6 MiB Capabilities answer was taken")
		}
		if !strings.Contains(err.Error(), "switch.leaf1") || !strings.Contains(err.Error(), "ResourceExhausted") {
			t.Errorf("want a ResourceExhausted error naming switch.leaf1, got %v", err)
		}
		if len(err.Error()) > 4096 {
			t.Errorf("the error is %d bytes long", len(err.Error()))
		}
	})
	t.Run("version injection", func(t *testing.T) {
		for _, v := range []string{"0.0.1\n\n## All checks passed", "0.0.1 [click](https://evil.example)", "0.0.1\x1b[2J"} {
			h := &hostileTarget{
				caps: func(string) (*gpb.CapabilityResponse, error) {
					r := goodCaps()
					r.SupportedModels = append(without(realModels["arista"], "arista-qos-augments"), md("arista-qos-augments", "Arista Networks, Inc.", v))
					return r, nil
				},
				get: func(string) (*gpb.GetResponse, error) { return nil, status.Error(codes.Unavailable, "down") },
			}
			tp, err := hostileSwitch(t, h).Plan(ctxT(t))
			var said []string
			if tp != nil {
				said = append(said, tp.Warnings...)
			}
			if err != nil {
				said = append(said, err.Error())
			}
			for _, s := range said {
				if strings.ContainsAny(s, "\n\x1b") || strings.Contains(s, "evil.example") {
					t.Errorf("version %q reached roce's output: %q", v, s)
				}
			}
		}
	})
}
