// Package host is the host provider: it runs roce-agent on a Linux host —
// as a local subprocess (optionally inside a network namespace) or over
// SSH, shipping the agent binary to a content-addressed path — and turns
// its answers into plan data.
package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rocefabric/roce/nics/agentproto"
)

// runner executes the agent once with stdin and returns its stdout.
type runner interface {
	run(ctx context.Context, stdin []byte) (stdout, stderr []byte, err error)
	describe() string
	close() error
}

// Client calls roce-agent on one host.
type Client struct {
	host string // "host.NAME", for errors
	r    runner
}

// Call sends one request (Version filled in when zero) and decodes the
// response. A response with ok=false is returned together with its
// *agentproto.Error, so callers can look at partial results (an apply
// report of a rolled-back transaction).
func (c *Client) Call(ctx context.Context, req agentproto.Request) (*agentproto.Response, error) {
	if req.Version == 0 {
		req.Version = agentproto.Version
	}
	in, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("%s: encode %s request: %w", c.host, req.Op, err)
	}
	out, stderr, err := c.r.run(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("%s: run roce-agent (%s) for %s: %w%s", c.host, c.r.describe(), req.Op, err, stderrNote(stderr))
	}
	r, err := agentproto.DecodeResponse(bytes.TrimSpace(out))
	if err != nil {
		return nil, fmt.Errorf("%s: roce-agent %s: response is not protocol JSON (%v); output %q%s", c.host, req.Op, err, truncate(string(out), 200), stderrNote(stderr))
	}
	resp := *r
	if resp.Version != agentproto.Version {
		return &resp, fmt.Errorf("%s: roce-agent speaks protocol %d, this controller %d: ship a matching agent", c.host, resp.Version, agentproto.Version)
	}
	if !resp.OK {
		if resp.Error == nil {
			resp.Error = &agentproto.Error{Code: agentproto.ErrCodeFailed, Message: "agent answered ok=false without an error"}
		}
		return &resp, fmt.Errorf("%s: roce-agent %s: %w", c.host, req.Op, resp.Error)
	}
	return &resp, nil
}

// Close releases the transport (SSH connection).
func (c *Client) Close() error { return c.r.close() }

func stderrNote(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	return "; stderr: " + truncate(s, 500)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
