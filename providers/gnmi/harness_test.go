package gnmi_test

import (
	"context"
	"crypto/tls"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

var update = flag.Bool("update", false, "rewrite golden files")

const testPassword = "s3cret-for-tests"

// lab is one simulated switch plus the policy pointing at it.
type lab struct {
	srv    *gnmisim.Server
	sim    *gnmisim.Target
	fabric *policies.Fabric
	sw     *policies.Switch
	env    plan.Env
	caFile string
}

// newLab starts a TLS gnmisim on loopback with password auth and a policy
// switch pointing at it.
// labSchemas is every test lab's compiled vendor YANG: the models are
// read-only once compiled (gnmisim.Schemas is safe for concurrent use), so
// the package's hundreds of labs compile each profile once, not each.
var labSchemas = &gnmisim.Schemas{}

func newLab(t testing.TB, opts gnmisim.Options, classes ...*policies.Lossless) *lab {
	t.Helper()
	dir := t.TempDir()
	caFile, certFile, keyFile, err := gnmisim.WriteTestPKI(dir)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	opts.TLSCert = cert
	opts.Users = map[string]string{"admin": testPassword}
	if opts.Interfaces == nil {
		opts.Interfaces = gnmisim.DefaultInterfaces(opts.Profile, 2)
	}
	if opts.Schemas == nil {
		opts.Schemas = labSchemas
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := gnmisim.Listen(ctx, "127.0.0.1:0", opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := srv.Close(); err != nil {
			t.Errorf("closing sim: %v", err)
		}
	})
	sw := &policies.Switch{
		Name: "leaf1", Platform: policies.PlatformGNMI, Profile: opts.Profile, Address: srv.Addr(),
		Credentials: "lab", Interfaces: opts.Interfaces,
		TLS: &policies.TLS{CAFile: filepath.Base(caFile)},
	}
	f := &policies.Fabric{
		Dir:         dir,
		Lossless:    classes,
		Switches:    []*policies.Switch{sw},
		Credentials: map[string]*policies.Credentials{"lab": {Name: "lab", Username: "admin", PasswordEnv: "GNMI_PASSWORD"}},
	}
	env := plan.Env{
		Fabric: f,
		Getenv: func(k string) (string, bool) {
			return map[string]string{"GNMI_PASSWORD": testPassword}[k], k == "GNMI_PASSWORD"
		},
		Timeout: 10 * time.Second,
	}
	return &lab{srv: srv, sim: srv.Target(), fabric: f, sw: sw, env: env, caFile: caFile}
}

// target builds a provider target for the lab switch.
func (l *lab) target(t testing.TB, o gnmi.Options) plan.Target {
	t.Helper()
	tg, err := gnmi.NewWithOptions(l.env, l.sw, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Close() })
	return tg
}

// planApply plans tg and applies that plan; the test stops unless the
// apply succeeds (StatusApplied). It returns the plan and the result.
func planApply(ctx context.Context, t testing.TB, tg plan.Target) (*plan.TargetPlan, *plan.ApplyResult) {
	t.Helper()
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	res, err := tg.Apply(ctx, tp)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if res == nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply: %+v, want status %s", res, plan.StatusApplied)
	}
	return tp, res
}

// applyPlainJSON plans tg, which must have chosen plain JSON (the
// "encoding" fact), applies the plan (the test stops unless it applies)
// and returns the values of sim's first SetRequest, each of which must be
// a json_val.
func applyPlainJSON(ctx context.Context, t *testing.T, tg plan.Target, sim *gnmisim.Target) [][]byte {
	t.Helper()
	tp, err := tg.Plan(ctx)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	if tp.Facts["encoding"] != "JSON" {
		t.Fatalf("encoding fact = %q, want JSON", tp.Facts["encoding"])
	}
	if res, err := tg.Apply(ctx, tp); err != nil || res == nil || res.Status != plan.StatusApplied {
		t.Fatalf("apply: %+v %v", res, err)
	}
	reqs := sim.SetRequests()
	if len(reqs) == 0 {
		t.Fatal("the apply sent no SetRequest")
	}
	var vals [][]byte
	for _, u := range append(reqs[0].GetReplace(), reqs[0].GetUpdate()...) {
		v := u.GetVal().GetJsonVal()
		if v == nil {
			t.Fatalf("%v sent as %T, want json_val", u.GetPath(), u.GetVal().GetValue())
		}
		vals = append(vals, v)
	}
	return vals
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from golden (go test -update to accept):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// Classes for each lossless mode.
func dscpClass() *policies.Lossless {
	return &policies.Lossless{
		Name: "rocev2", Match: policies.Match{Kind: policies.MatchDSCP, DSCP: []int{26}}, Priority: 3, MTU: 9000,
		BandwidthPercent: 50, ECN: &policies.ECN{MinThresholdKB: 150, MaxThresholdKB: 1500, Probability: 100},
		PFCWatchdog: &policies.PFCWatchdog{DetectionMS: 200, RestorationMS: 400, Action: "drop"},
	}
}

func udpClass() *policies.Lossless {
	return &policies.Lossless{
		Name: "rocev2udp", Match: policies.Match{Kind: policies.MatchUDPPort, UDPPort: 4791, DSCP: []int{24, 26}}, Priority: 4, MTU: 4200,
		ECN: &policies.ECN{MinThresholdKB: 100, MaxThresholdKB: 1000, Probability: 50},
	}
}

func cosClass() *policies.Lossless {
	return &policies.Lossless{Name: "cos3", Match: policies.Match{Kind: policies.MatchCoS, CoS: []int{3}}, Priority: 3, MTU: 9000}
}

func ethertypeClass() *policies.Lossless {
	return &policies.Lossless{Name: "rocev1", Match: policies.Match{Kind: policies.MatchEthertype, Ethertype: 0x8915}, Priority: 3}
}

func allClass() *policies.Lossless {
	return &policies.Lossless{Name: "everything", Match: policies.Match{Kind: policies.MatchAll}, Priority: 3}
}

// commitMode is the per-target commit-confirmed setting for a simulator
// that does (on) or does not (auto) support the extension.
func commitMode(supported bool) string {
	if supported {
		return gnmi.CommitOn
	}
	return gnmi.CommitAuto
}

// noECN drops ECN (SR Linux does not model it in this profile).
func noECN(c *policies.Lossless) *policies.Lossless { c.ECN = nil; return c }
