package gnmi_test

import (
	"fmt"
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

func TestConnectionRefusals(t *testing.T) {
	cases := []struct {
		name   string
		tweak  func(t *testing.T, l *lab)
		code   codes.Code
		reason string
	}{
		{"wrong CA", func(t *testing.T, l *lab) {
			ca, _, _, err := gnmisim.WriteTestPKI(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			l.sw.TLS = &policies.TLS{CAFile: ca}
		}, codes.Unavailable, "certificate"},
		{"no CA (system roots)", func(t *testing.T, l *lab) { l.sw.TLS = nil }, codes.Unavailable, "certificate"},
		{"wrong password", func(t *testing.T, l *lab) {
			l.env.Getenv = func(string) (string, bool) { return "wrong", true }
		}, codes.Unauthenticated, "invalid username or password"},
		{"plaintext to a TLS target", func(t *testing.T, l *lab) { l.sw.TLS = &policies.TLS{Plaintext: true} }, codes.Unavailable, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newLab(t, gnmisim.Options{Profile: "arista"}, dscpClass())
			tc.tweak(t, l)
			tg := l.target(t, gnmi.Options{})
			_, err := tg.Plan(ctxT(t))
			if err == nil {
				t.Fatal("plan succeeded; want refusal")
			}
			if got := status.Code(unwrapStatus(err)); got != tc.code {
				t.Errorf("code = %v, want %v (%v)", got, tc.code, err)
			}
			if !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("error %q lacks %q", err, tc.reason)
			}
			if !strings.Contains(err.Error(), "switch.leaf1") {
				t.Errorf("error %q does not name the switch", err)
			}
		})
	}
}

// InsecureSkipVerify is honoured only because the policy says so.
func TestInsecureSkipVerifyExplicit(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "arista"}, dscpClass())
	l.sw.TLS = &policies.TLS{InsecureSkipVerify: true}
	if _, err := l.target(t, gnmi.Options{}).Plan(ctxT(t)); err != nil {
		t.Fatalf("plan with explicit insecure_skip_verify: %v", err)
	}
}

func unwrapStatus(err error) error {
	for e := err; e != nil; {
		if _, ok := status.FromError(e); ok {
			return e
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	return err
}

// "auto" picks the profile from the advertised models; a named profile
// whose models are missing warns.
func TestProfileDetection(t *testing.T) {
	for _, p := range []string{"openconfig", "arista", "sonic", "srlinux"} {
		t.Run(p, func(t *testing.T) {
			l := newLab(t, gnmisim.Options{Profile: p})
			l.sw.Profile = "auto"
			tp, err := l.target(t, gnmi.Options{}).Plan(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			if tp.Kind != "gnmi/"+p || tp.Facts["profile"] != p {
				t.Errorf("detected %s (facts %v), want %s", tp.Kind, tp.Facts, p)
			}
			if tp.Facts["os"] != "sim-1.0" || tp.Facts["encoding"] != "JSON_IETF" {
				t.Errorf("facts = %v", tp.Facts)
			}
		})
	}
	// A policy naming the wrong profile for the target: refused at plan
	// time, naming the model the target lacks (capabilities_test.go has
	// the cases per profile).
	l := newLab(t, gnmisim.Options{Profile: "openconfig"})
	l.sw.Profile = "arista"
	_, err := l.target(t, gnmi.Options{}).Plan(ctxT(t))
	if err == nil || !strings.Contains(err.Error(), "arista-qos-augments") {
		t.Errorf("plan err = %v, want one naming the missing arista-qos-augments model", err)
	}
}

// Commit-confirmed comes from the per-target setting, never from a
// Capabilities signal real targets do not send: auto against a target that
// supports it still sends none; on sends it; on against a target without
// support fails the apply with the target's refusal, changing nothing.
func TestCommitConfirmFromSettingNotCapabilities(t *testing.T) {
	for _, tc := range []struct {
		name      string
		supported bool
		mode      string
		wantExt   bool
		wantErr   string
	}{
		{"auto, supported", true, gnmi.CommitAuto, false, ""},
		{"on, supported", true, gnmi.CommitOn, true, ""},
		{"off, supported", true, gnmi.CommitOff, false, ""},
		{"on, unsupported", false, gnmi.CommitOn, true, "Unimplemented"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLab(t, gnmisim.Options{Profile: "srlinux", CommitConfirm: tc.supported}, cosClass())
			caps, err := l.sim.Capabilities(ctxT(t), nil)
			if err != nil || len(caps.GetExtension()) != 0 {
				t.Fatalf("the simulator advertises %v (err %v); real targets advertise no commit-confirmed support", caps.GetExtension(), err)
			}
			tg := l.target(t, gnmi.Options{CommitConfirm: tc.mode})
			ctx := ctxT(t)
			tp, err := tg.Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := tp.Facts["commit_confirmed"]; got != fmt.Sprint(tc.wantExt) {
				t.Errorf("fact commit_confirmed = %s, want %v", got, tc.wantExt)
			}
			before := l.sim.ConfigJSON()
			res, err := tg.Apply(ctx, tp)
			reqs := l.sim.SetRequests()
			if len(reqs) == 0 {
				t.Fatal("no SetRequest sent")
			}
			if got := len(reqs[0].GetExtension()) > 0; got != tc.wantExt {
				t.Errorf("first SetRequest carries a commit extension: %v, want %v", got, tc.wantExt)
			}
			if tc.wantErr == "" {
				if err != nil || res.Status != plan.StatusApplied {
					t.Fatalf("apply: %s %v", res.Status, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("apply err = %v, want %q", err, tc.wantErr)
			}
			if l.sim.ConfigJSON() != before {
				t.Error("a refused commit changed the target")
			}
		})
	}
}

// A target that serves JSON but not JSON_IETF gets plain JSON: no module
// qualifiers (the Arista augment goes as "pfc"), and the simulator, which
// refuses qualified names in JSON like such a target, applies it; a second
// plan is empty.
func TestJSONFallbackSendsNoModuleNames(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "arista", Encodings: []gpb.Encoding{gpb.Encoding_JSON}}, dscpClass())
	tg := l.target(t, gnmi.Options{})
	ctx := ctxT(t)
	sawAugment := false
	for _, v := range applyPlainJSON(ctx, t, tg, l.sim) {
		if strings.Contains(string(v), "arista-qos-augments:") {
			t.Errorf("module-qualified name in plain JSON: %s", v)
		}
		sawAugment = sawAugment || strings.Contains(string(v), `"pfc":{"config":{"priorities-no-drop"`)
	}
	if !sawAugment {
		t.Error("no Arista PFC augment in the SetRequest; the case tests nothing")
	}
	again, err := tg.Plan(ctx)
	if err != nil || again.HasChanges() {
		t.Fatalf("second plan: %v, changes %v", err, again.Changes)
	}
}
