package host

import (
	"context"
	"strings"
	"testing"

	"github.com/rocefabric/roce/nics/agentproto"
)

// fixedRunner answers every call with the same output.
type fixedRunner struct{ out string }

func (f fixedRunner) run(context.Context, []byte) ([]byte, []byte, error) {
	return []byte(f.out), nil, nil
}
func (fixedRunner) describe() string { return "fixed" }
func (fixedRunner) close() error     { return nil }

// A host's answer is read once, one way: smuggled duplicate or
// case-variant keys are an error, never a success.
func TestClientRefusesAmbiguousResponses(t *testing.T) {
	for name, out := range map[string]string{
		"duplicate ok":    `{"version":1,"op":"apply","ok":false,"ok":true}`,
		"case variant ok": `{"version":1,"op":"apply","ok":false,"OK":true}`,
		"two responses":   `{"version":1,"ok":false}` + "\n" + `{"version":1,"ok":true}`,
	} {
		t.Run(name, func(t *testing.T) {
			c := &Client{host: "host.h1", r: fixedRunner{out}}
			resp, err := c.Call(context.Background(), agentproto.Request{Op: agentproto.OpCounters})
			if err == nil || !strings.Contains(err.Error(), "not protocol JSON") {
				t.Fatalf("resp %+v err %v", resp, err)
			}
		})
	}
	c := &Client{host: "host.h1", r: fixedRunner{`{"version":1,"op":"counters","ok":true}` + "\n"}}
	if _, err := c.Call(context.Background(), agentproto.Request{Op: agentproto.OpCounters}); err != nil {
		t.Fatalf("a plain response: %v", err)
	}
}

func TestCapBufferKeepsAtMostMax(t *testing.T) {
	b := &capBuffer{max: 10}
	for i := 0; i < 5; i++ {
		if n, err := b.Write([]byte("abcd")); n != 4 || err != nil {
			t.Fatalf("write: %d %v", n, err)
		}
	}
	if b.Len() != 10 || !b.over || b.String() != "abcdabcdab" {
		t.Fatalf("kept %q over=%v", b.String(), b.over)
	}
}
