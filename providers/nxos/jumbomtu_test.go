package nxos

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A Nexus 7000's system jumbomtu is not in the sections roce reads, so the
// provider reads it apart (`show running-config | include ^system`), in
// the batched and the one-command-per-exchange read alike, and from a
// saved capture: the managed Layer 2 ports get that MTU, a class above it
// is refused naming the switch and the fix, and the plan applies with an
// empty plan after it (docs/nxos.md#port-mtu).
func TestPlanReadsJumboMTU7000(t *testing.T) {
	for _, seq := range []bool{false, true} {
		name := map[bool]string{false: "batched", true: "sequential"}[seq]
		t.Run(name+"/default", func(t *testing.T) {
			r := newRig(t, rigOpts{kind: "nexus7000", start: "empty", mode: "scale"})
			r.target.sequential = seq
			tp := r.plan(t)
			n := 0
			for i, c := range tp.Commands {
				if c == "mtu 9216" && i > 0 && strings.HasPrefix(tp.Commands[i-1], "priority-flow-control") {
					n++
				}
			}
			if n != 2 {
				t.Errorf("want 'mtu 9216' after PFC on both ports, got %d:\n%s", n, strings.Join(tp.Commands, "\n"))
			}
		})
		t.Run(name+"/9216 set", func(t *testing.T) {
			r := newRig(t, rigOpts{kind: "nexus7000", start: "empty", mode: "scale"})
			r.target.sequential = seq
			r.editRunning(t, func(c string) string { return c + "system jumbomtu 9216\n" })
			if res, err := r.apply(t, r.plan(t)); err != nil {
				t.Fatalf("apply: %s %v", res.Status, err)
			}
			if again := r.plan(t); len(again.Changes) != 0 {
				t.Fatalf("second plan not empty: %+v", again.Changes)
			}
		})
		t.Run(name+"/8000 refused", func(t *testing.T) {
			r := newRig(t, rigOpts{kind: "nexus7000", start: "empty", mode: "scale"})
			r.target.sequential = seq
			r.editRunning(t, func(c string) string { return c + "system jumbomtu 8000\n" })
			msg := r.planRefusal(t)
			for _, want := range []string{r.target.Address(), `lossless "rocev2" has mtu 9214`, "system jumbomtu, here 8000", "raise the switch's `system jumbomtu` to 9214"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the refusal lacks %q: %q", want, msg)
				}
			}
		})
	}
}

// An offline plan reads the jumbomtu from the saved running configuration.
func TestCaptureReadsJumboMTU7000(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus7000", start: "empty", mode: "scale"})
	r.editRunning(t, func(c string) string { return c + "system jumbomtu 9216\n" })
	live := r.plan(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := openConn(t, ctx, r)
	for _, f := range captureFiles {
		out, err := c.command(f.command)
		if err != nil {
			t.Fatal(err)
		}
		if f.command == "show running-config" {
			out = strings.Replace(out, "system jumbomtu 9216", "system jumbomtu 8000", 1)
		}
		if err := os.WriteFile(filepath.Join(dir, f.file), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.close()
	r.sw.Capture = dir
	st, err := r.target.readCaptured()
	if err != nil {
		t.Fatal(err)
	}
	if got := r.target.intent(st).JumboMTULine; got != "system jumbomtu 8000" {
		t.Fatalf("the capture's intent has jumbomtu line %q, want the saved line", got)
	}
	if !slices.Contains(live.Commands, "mtu 9216") {
		t.Errorf("the live plan (system jumbomtu 9216) lacks mtu 9216: %v", live.Commands)
	}
}
