package nxos

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rocefabric/roce/plan"
)

// captureOf saves what an operator would back up from the switch.
func captureOf(t *testing.T, r *rig) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := openConn(t, ctx, r)
	defer c.close()
	dir := t.TempDir()
	for _, cf := range captureFiles {
		cmd, file := cf.command, cf.file
		out, err := c.command(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestOfflineCapture plans against a saved capture exactly as against the
// live switch, and Apply refuses it.
func TestOfflineCapture(t *testing.T) {
	for _, kind := range []string{"nexus5000", "nexus7000"} {
		t.Run(kind, func(t *testing.T) {
			r := newRig(t, rigOpts{kind: kind, start: "fcoe-defaults"})
			live := r.plan(t)
			dir := captureOf(t, r)

			off := newRig(t, rigOpts{kind: kind, start: "fcoe-defaults"})
			off.sw.Address, off.sw.Capture = "", dir
			tp := off.plan(t)
			if !tp.Offline || !strings.HasPrefix(tp.Endpoint, "capture:") {
				t.Errorf("offline plan not marked: offline=%v endpoint=%q", tp.Offline, tp.Endpoint)
			}
			if !reflect.DeepEqual(tp.Commands, live.Commands) {
				t.Errorf("offline commands differ from live:\n%v\n%v", tp.Commands, live.Commands)
			}
			if tp.Fingerprint != live.Fingerprint {
				t.Errorf("offline fingerprint %s, live %s", tp.Fingerprint, live.Fingerprint)
			}
			res, err := off.target.Apply(context.Background(), tp)
			if err == nil || res.Status != plan.StatusRefused || !strings.Contains(err.Error(), "saved capture") {
				t.Errorf("apply of an offline plan: %s %v", res.Status, err)
			}

			// The same outputs in one saved session log.
			var log strings.Builder
			for _, cf := range captureFiles {
				b, _ := os.ReadFile(filepath.Join(dir, cf.file))
				log.WriteString("sw1# " + cf.command + "\n" + string(b) + "\n")
			}
			f := filepath.Join(t.TempDir(), "session.log")
			if err := os.WriteFile(f, []byte(log.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			off.sw.Capture = f
			if tp2 := off.plan(t); !reflect.DeepEqual(tp2.Commands, live.Commands) {
				t.Errorf("session-log capture commands differ:\n%v", tp2.Commands)
			}
		})
	}
}

func TestOfflineCaptureErrors(t *testing.T) {
	r := newRig(t, rigOpts{kind: "nexus5000"})
	r.sw.Address, r.sw.Capture = "", t.TempDir()
	_, err := r.target.Plan(context.Background())
	if err == nil || !strings.Contains(err.Error(), "show-version.txt is missing") {
		t.Errorf("empty capture dir: %v", err)
	}
}
