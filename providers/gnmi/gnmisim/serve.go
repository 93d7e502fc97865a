package gnmisim

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// service adapts a Target to the generated gNMI server interface;
// Subscribe stays Unimplemented.
type service struct {
	gpb.UnimplementedGNMIServer
	t *Target
}

func (s service) Capabilities(ctx context.Context, r *gpb.CapabilityRequest) (*gpb.CapabilityResponse, error) {
	return s.t.Capabilities(ctx, r)
}
func (s service) Get(ctx context.Context, r *gpb.GetRequest) (*gpb.GetResponse, error) {
	return s.t.Get(ctx, r)
}
func (s service) Set(ctx context.Context, r *gpb.SetRequest) (*gpb.SetResponse, error) {
	return s.t.Set(ctx, r)
}

// auth checks the username/password metadata (gNMI specification §3.1).
func (t *Target) auth(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if len(t.opts.Users) > 0 {
		md, _ := metadata.FromIncomingContext(ctx)
		user, pass := first(md, "username"), first(md, "password")
		want, ok := t.opts.Users[user]
		if user == "" || !ok || want != pass {
			return nil, status.Error(codes.Unauthenticated, "invalid username or password")
		}
	}
	return h(ctx, req)
}

func first(md metadata.MD, k string) string {
	if v := md.Get(k); len(v) > 0 {
		return v[0]
	}
	return ""
}

// grpcServer builds the gRPC server with TLS when a certificate is set.
func (t *Target) grpcServer() *grpc.Server {
	opts := []grpc.ServerOption{grpc.UnaryInterceptor(t.auth)}
	if len(t.opts.TLSCert.Certificate) > 0 {
		cfg := &tls.Config{Certificates: []tls.Certificate{t.opts.TLSCert}, MinVersion: tls.VersionTLS12}
		if t.opts.ClientCAs != nil {
			cfg.ClientCAs = t.opts.ClientCAs
			cfg.ClientAuth = tls.RequireAndVerifyClientCert
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg)))
	}
	s := grpc.NewServer(opts...)
	gpb.RegisterGNMIServer(s, service{t: t})
	return s
}

// Serve answers gNMI on ln until ctx is done, then stops the server and
// any pending rollback timer.
func (t *Target) Serve(ctx context.Context, ln net.Listener) error {
	s := t.grpcServer()
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			s.Stop()
		case <-done:
		}
	}()
	err := s.Serve(ln)
	close(done)
	t.shutdown()
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// shutdown stops the rollback timer so nothing outlives the server.
func (t *Target) shutdown() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	if t.commit != nil {
		t.commit.timer.Stop()
	}
}

// Server is a Target listening on a TCP address.
type Server struct {
	t      *Target
	ln     net.Listener
	cancel context.CancelFunc
	wg     sync.WaitGroup
	err    error
}

// Listen starts a target on addr ("127.0.0.1:0" picks a free port). It
// stops when ctx is done or Close is called.
func Listen(ctx context.Context, addr string, opts Options) (*Server, error) {
	t, err := New(opts)
	if err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("gnmisim: listen on %s: %w", addr, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Server{t: t, ln: ln, cancel: cancel}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.err = t.Serve(ctx, ln)
	}()
	return s, nil
}

// Addr is the listening address (host:port).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Target is the simulated device behind the server.
func (s *Server) Target() *Target { return s.t }

// Close stops the server and waits for it.
func (s *Server) Close() error {
	s.cancel()
	s.wg.Wait()
	return s.err
}
