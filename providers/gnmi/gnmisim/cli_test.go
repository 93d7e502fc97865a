package gnmisim

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// syncBuffer is a bytes.Buffer safe for a writer and a poller.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRunCLI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errs syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- RunCLI(ctx, []string{"--profile", "sonic", "--listen", "127.0.0.1:0", "--plaintext"}, &out, &errs)
	}()
	re := regexp.MustCompile(`listening on (\S+)`)
	var addr string
	for addr == "" {
		select {
		case err := <-done:
			t.Fatalf("RunCLI returned early: %v\n%s", err, errs.String())
		case <-time.After(10 * time.Millisecond):
		}
		if m := re.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
		}
	}
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	caps, err := gpb.NewGNMIClient(conn).Capabilities(ctx, &gpb.CapabilityRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(caps.GetSupportedModels()[0].GetName(), "sonic-") {
		t.Errorf("models = %v", caps.GetSupportedModels())
	}
	if !strings.Contains(out.String(), "Ethernet0,Ethernet4") {
		t.Errorf("output: %s", out.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("RunCLI: %v", err)
	}
}

func TestRunCLIBadArgs(t *testing.T) {
	for _, args := range [][]string{
		{"--profile", "nope", "--plaintext", "--listen", "127.0.0.1:0"},
		{"--user", "admin", "--plaintext", "--listen", "127.0.0.1:0"},
		{"--bogus"},
	} {
		t.Setenv("ROCE_LAB_GNMI_PASSWORD", "")
		var out, errs bytes.Buffer
		if err := RunCLI(context.Background(), args, &out, &errs); err == nil {
			t.Errorf("RunCLI(%v) succeeded", args)
		}
	}
}
