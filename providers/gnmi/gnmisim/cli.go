package gnmisim

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
)

// RunCLI runs one simulated target until ctx is done:
//
//	roce-lab gnmi --profile arista --listen 127.0.0.1:6030 [--tls-dir DIR | --plaintext]
//	              [--user admin --password secret] [--interfaces Ethernet1,Ethernet2]
//	              [--commit-confirm] [--os-version 4.36.1F]
//
// It prints the address and, with TLS, the CA file clients must trust.
func RunCLI(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("roce-lab gnmi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "openconfig", "platform profile: openconfig, arista, sonic, srlinux")
	listen := fs.String("listen", "127.0.0.1:6030", "address to listen on")
	tlsDir := fs.String("tls-dir", "", "directory for a generated test CA and server certificate (default: a new temporary directory)")
	plaintext := fs.Bool("plaintext", false, "serve without TLS (lab use only)")
	user := fs.String("user", "", "username clients must send (empty: no authentication)")
	password := fs.String("password", "", "password for --user (or set ROCE_LAB_GNMI_PASSWORD)")
	ifaces := fs.String("interfaces", "", "comma-separated interface names (default: 4 ports named as the profile names them)")
	commit := fs.Bool("commit-confirm", false, "support the commit-confirmed extension (never advertised, as on real targets)")
	version := fs.String("os-version", "", "simulated software version to report, e.g. 4.36.1F")
	origin := fs.String("native-origin", "", "origin of the sonic/srlinux native tree (default: the profile's)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts := Options{Profile: *profile, CommitConfirm: *commit, Version: *version, NativeOrigin: *origin,
		Logger: slog.New(slog.NewTextHandler(stderr, nil))}
	if *ifaces != "" {
		opts.Interfaces = strings.Split(*ifaces, ",")
	} else {
		opts.Interfaces = DefaultInterfaces(*profile, 4)
	}
	if *user != "" {
		pw := *password
		if pw == "" {
			pw = os.Getenv("ROCE_LAB_GNMI_PASSWORD")
		}
		if pw == "" {
			return fmt.Errorf("roce-lab gnmi: --user %s needs --password or ROCE_LAB_GNMI_PASSWORD", *user)
		}
		opts.Users = map[string]string{*user: pw}
	}
	caFile := ""
	if !*plaintext {
		dir := *tlsDir
		if dir == "" {
			d, err := os.MkdirTemp("", "roce-gnmisim-pki-")
			if err != nil {
				return fmt.Errorf("roce-lab gnmi: %w", err)
			}
			dir = d
		}
		ca, certFile, keyFile, err := WriteTestPKI(dir)
		if err != nil {
			return fmt.Errorf("roce-lab gnmi: %w", err)
		}
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return fmt.Errorf("roce-lab gnmi: load %s: %w", certFile, err)
		}
		opts.TLSCert, caFile = cert, ca
	}
	srv, err := Listen(ctx, *listen, opts)
	if err != nil {
		return fmt.Errorf("roce-lab gnmi: %w", err)
	}
	fmt.Fprintf(stdout, "gnmi %s target listening on %s\n", *profile, srv.Addr())
	if caFile != "" {
		fmt.Fprintf(stdout, "tls ca: %s\n", caFile)
	} else {
		fmt.Fprintln(stdout, "tls: off (plaintext)")
	}
	fmt.Fprintf(stdout, "interfaces: %s\n", strings.Join(opts.Interfaces, ","))
	<-ctx.Done()
	return srv.Close()
}

// DefaultInterfaces names n ports the way the profile's platform does.
func DefaultInterfaces(profile string, n int) []string {
	out := make([]string, n)
	for i := range out {
		switch profile {
		case "sonic":
			out[i] = fmt.Sprintf("Ethernet%d", i*4)
		case "srlinux":
			out[i] = fmt.Sprintf("ethernet-1/%d", i+1)
		default:
			out[i] = fmt.Sprintf("Ethernet%d", i+1)
		}
	}
	return out
}
