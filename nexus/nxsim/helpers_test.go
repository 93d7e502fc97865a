package nxsim

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scrapli/scrapligo/driver/network"
	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/platform"
)

// startServer serves a switch on loopback for the test's lifetime.
func startServer(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.Platform == "" {
		opts.Platform = "nexus5000"
	}
	if opts.Hostname == "" {
		opts.Hostname = "sw1"
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := Listen(ctx, "127.0.0.1:0", opts)
	if err != nil {
		cancel()
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return srv
}

// openScrapli connects scrapligo's cisco_nxos driver the way the provider
// does, with the configuration-prompt fix of docs/nxos.md.
func openScrapli(t testing.TB, srv *Server) *network.Driver {
	t.Helper()
	host, portS, _ := strings.Cut(srv.Addr(), ":")
	port, _ := strconv.Atoi(portS)
	p, err := platform.NewPlatform("cisco_nxos", host,
		options.WithTransportType("standard"), options.WithPort(port),
		options.WithAuthNoStrictKey(), options.WithAuthUsername("admin"), options.WithAuthPassword("admin"),
		options.WithTimeoutOps(10*time.Second))
	if err != nil {
		t.Fatalf("NewPlatform: %v", err)
	}
	d, err := p.GetNetworkDriver()
	if err != nil {
		t.Fatalf("GetNetworkDriver: %v", err)
	}
	d.PrivilegeLevels["configuration"].NotContains = []string{"config-tcl", "config-s)", "config-s-"}
	d.UpdatePrivileges()
	if err := d.Open(); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}
