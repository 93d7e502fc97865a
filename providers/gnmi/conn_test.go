package gnmi_test

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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
	l := newLab(t, gnmisim.Options{Profile: "openconfig"})
	l.sw.Profile = "arista"
	tp, err := l.target(t, gnmi.Options{}).Plan(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.Warnings) == 0 || !strings.Contains(tp.Warnings[0], "arista-qos-augments") {
		t.Errorf("warnings = %v, want one naming the missing arista-qos-augments model", tp.Warnings)
	}
}

func TestCommitConfirmRequiredButMissing(t *testing.T) {
	l := newLab(t, gnmisim.Options{Profile: "srlinux"}, cosClass())
	_, err := l.target(t, gnmi.Options{CommitConfirm: gnmi.CommitOn}).Plan(ctxT(t))
	if err == nil || !strings.Contains(err.Error(), "does not advertise") {
		t.Fatalf("err = %v", err)
	}
}
