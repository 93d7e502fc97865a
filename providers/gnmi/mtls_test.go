package gnmi_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefabric/roce/plan"
	"github.com/rocefabric/roce/policies"
	"github.com/rocefabric/roce/providers/gnmi"
	"github.com/rocefabric/roce/providers/gnmi/gnmisim"
)

// A target that requires client certificates accepts the policy's
// cert_file/key_file and refuses a client without one.
func TestMutualTLS(t *testing.T) {
	dir := t.TempDir()
	caFile, certFile, keyFile, err := gnmisim.WriteTestPKI(dir)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := gnmisim.Listen(ctx, "127.0.0.1:0", gnmisim.Options{Profile: "sonic", TLSCert: cert, ClientCAs: pool, Interfaces: []string{"Ethernet0"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, tc := range []struct {
		name   string
		tls    *policies.TLS
		wantOK bool
	}{
		{"with client certificate", &policies.TLS{CAFile: "ca.pem", CertFile: "cert.pem", KeyFile: filepath.Join(dir, "key.pem"), ServerName: "localhost"}, true},
		{"without client certificate", &policies.TLS{CAFile: "ca.pem"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := &policies.Switch{Name: "s", Platform: "gnmi", Profile: "sonic", Address: srv.Addr(), Interfaces: []string{"Ethernet0"}, TLS: tc.tls}
			tg, err := gnmi.New(plan.Env{Fabric: &policies.Fabric{Dir: dir}}, sw)
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			_, err = tg.Plan(ctxT(t))
			if (err == nil) != tc.wantOK {
				t.Fatalf("plan err = %v, want ok=%v", err, tc.wantOK)
			}
		})
	}
}

func TestNewRefusesBadSwitches(t *testing.T) {
	cases := []struct {
		sw   policies.Switch
		env  map[string]string
		want string
	}{
		{policies.Switch{Name: "a", Platform: "nexus5000", Address: "x:1"}, nil, "not gnmi"},
		{policies.Switch{Name: "a", Platform: "gnmi", Profile: "arista"}, nil, "needs an address"},
		{policies.Switch{Name: "a", Platform: "gnmi", Profile: "junos", Address: "x:1"}, nil, "unknown gNMI profile"},
		{policies.Switch{Name: "a", Platform: "gnmi", Profile: "arista", Address: "x:1"}, map[string]string{"ROCE_GNMI_COMMIT_ROLLBACK": "soon"}, "ROCE_GNMI_COMMIT_ROLLBACK"},
		{policies.Switch{Name: "a", Platform: "gnmi", Profile: "arista", Address: "x:1"}, map[string]string{"ROCE_GNMI_ARISTA_BIT_ORDER": "le"}, `environment ROCE_GNMI_ARISTA_BIT_ORDER="le": bit order "le": want lsb0`},
		{policies.Switch{Name: "a", Platform: "gnmi", Profile: "arista", Address: "x:1", Lossless: []string{"nope"}}, nil, `"nope" is not defined`},
	}
	for _, tc := range cases {
		sw := tc.sw
		env := plan.Env{Fabric: &policies.Fabric{}, Getenv: func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }}
		_, err := gnmi.New(env, &sw)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.sw, err, tc.want)
		}
	}
}
