package gnmi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/rocefabric/roce/policies"
)

// defaultPort is the gNMI port used when the address has none (gnmic's
// default).
const defaultPort = "57400"

// transportCreds builds the TLS (or, only when the policy says plaintext,
// insecure) credentials for a switch. Relative file paths resolve against
// the policy directory.
func transportCreds(sw *policies.Switch, dir string) (credentials.TransportCredentials, error) {
	t := sw.TLS
	if t == nil {
		t = &policies.TLS{}
	}
	if t.Plaintext {
		return insecure.NewCredentials(), nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.InsecureSkipVerify {
		cfg.InsecureSkipVerify = true // the policy asked for it explicitly
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) || dir == "" {
			return p
		}
		return filepath.Join(dir, p)
	}
	if t.CAFile != "" {
		b, err := os.ReadFile(abs(t.CAFile))
		if err != nil {
			return nil, fmt.Errorf("switch.%s: reading TLS CA file: %w", sw.Name, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("switch.%s: TLS CA file %s holds no PEM certificate", sw.Name, abs(t.CAFile))
		}
		cfg.RootCAs = pool
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		return nil, fmt.Errorf("switch.%s: TLS client certificate needs both cert_file and key_file", sw.Name)
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(abs(t.CertFile), abs(t.KeyFile))
		if err != nil {
			return nil, fmt.Errorf("switch.%s: loading TLS client certificate %s: %w", sw.Name, abs(t.CertFile), err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return credentials.NewTLS(cfg), nil
}

// passwordCreds sends username/password as per-RPC metadata (gNMI
// specification §3.1).
type passwordCreds struct {
	user, pass string
	tls        bool
}

func (c passwordCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"username": c.user, "password": c.pass}, nil
}

// RequireTransportSecurity: the password travels in clear over a plaintext
// connection, which the policy must have asked for explicitly.
func (c passwordCreds) RequireTransportSecurity() bool { return c.tls }

// dial opens the gRPC connection (lazily; the first RPC connects).
func dial(sw *policies.Switch, dir string, secret policies.Secret) (*grpc.ClientConn, gpb.GNMIClient, error) {
	tc, err := transportCreds(sw, dir)
	if err != nil {
		return nil, nil, err
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(tc)}
	if secret.Username != "" {
		plain := sw.TLS != nil && sw.TLS.Plaintext
		opts = append(opts, grpc.WithPerRPCCredentials(passwordCreds{user: secret.Username, pass: secret.Password, tls: !plain}),
			grpc.WithUnaryInterceptor(scrubSecret(secret.Password)))
	}
	addr := sw.Address
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = addr + ":" + defaultPort
	}
	conn, err := grpc.NewClient("passthrough:///"+addr, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("switch.%s: gNMI client for %s: %w", sw.Name, addr, err)
	}
	return conn, gpb.NewGNMIClient(conn), nil
}

// scrubSecret takes the password out of every error an RPC returns: the
// target is sent the password and may echo it ("login failed for
// admin/<password>"), and roce prints errors in plans, reports and PR
// comments (docs/security.md). The password and its encodings
// (policies.SecretForms) become policies.Redacted; the gRPC code stays.
func scrubSecret(pass string) grpc.UnaryClientInterceptor {
	forms := policies.SecretForms(pass)
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		err := invoker(ctx, method, req, reply, cc, opts...)
		if err == nil {
			return nil
		}
		st, _ := status.FromError(err) // a non-status error: Unknown with its text
		msg := st.Message()
		for _, f := range forms {
			msg = strings.ReplaceAll(msg, f, policies.Redacted)
		}
		if msg == st.Message() {
			return err
		}
		return status.Error(st.Code(), msg)
	}
}
