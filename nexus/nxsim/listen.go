package nxsim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
)

// Server is a switch serving on its own listener.
type Server struct {
	sw     *Switch
	ln     net.Listener
	cancel context.CancelFunc
	done   chan struct{}
	err    error
	once   sync.Once
}

// Listen builds a switch from opts and serves it on addr (e.g.
// "127.0.0.1:0") until ctx is done or Close is called.
func Listen(ctx context.Context, addr string, opts Options) (*Server, error) {
	sw, err := New(opts)
	if err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("nxsim %s: listen on %s: %w", sw.hostname, addr, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Server{sw: sw, ln: ln, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.err = sw.Serve(ctx, ln)
	}()
	return s, nil
}

// Addr is the listening address, "127.0.0.1:PORT".
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Switch is the simulated switch behind the server.
func (s *Server) Switch() *Switch { return s.sw }

// Close stops accepting, closes open sessions and waits for them to end.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.cancel()
		<-s.done
	})
	if s.err != nil && !errors.Is(s.err, net.ErrClosed) {
		return s.err
	}
	return nil
}
